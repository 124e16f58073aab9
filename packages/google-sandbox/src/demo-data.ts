import type { AccountSpec } from './control/accounts';

/**
 * The demo world: three people at two companies, a realistic working week around "now" and a small inbox.
 * Ana's calendar and mailbox are the demo customer's connected Google account; Ben shares his free/busy with
 * her; Carla (another company) shares nothing, so asking for her free/busy shows Google's per-calendar error.
 */

export const DEMO_ACCOUNTS = {
  ana: 'ana.garcia@acme.example',
  ben: 'ben.okafor@acme.example',
  carla: 'carla.rossi@partner.example',
} as const;

/** The UTC offset of `timeZone` at `instant`, in minutes (from Intl; no time zone database of our own). */
function offsetMinutes(timeZone: string, instant: Date): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(instant)
      .map((p) => [p.type, p.value]),
  );
  const asUtc = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  return Math.round((asUtc - instant.getTime()) / 60_000);
}

/** RFC 3339 for a wall-clock time in a zone: `day` days after `monday`, at "HH:MM". */
function at(monday: Date, day: number, hhmm: string, timeZone: string): string {
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  const wall = Date.UTC(monday.getUTCFullYear(), monday.getUTCMonth(), monday.getUTCDate() + day, h, m);
  const offset = offsetMinutes(timeZone, new Date(wall));
  const sign = offset >= 0 ? '+' : '-';
  const abs = Math.abs(offset);
  const iso = new Date(wall).toISOString().slice(0, 19);
  return `${iso}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

export const dateOnly = (monday: Date, day: number) => new Date(monday.getTime() + day * 86_400_000).toISOString().slice(0, 10);

/** Monday (UTC date) of the working week to show: this one, or the next when `now` is a Saturday or Sunday. */
export function mondayOf(now: Date): Date {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const weekday = d.getUTCDay();
  d.setUTCDate(d.getUTCDate() + (weekday === 0 ? 1 : weekday === 6 ? 2 : 1 - weekday));
  return d;
}

const ago = (now: Date, hours: number) => new Date(now.getTime() - hours * 3_600_000).toISOString();

export function demoAccounts(now: Date): AccountSpec[] {
  const mon = mondayOf(now);
  const { ana, ben, carla } = DEMO_ACCOUNTS;
  const mad = (day: number, t: string) => at(mon, day, t, 'Europe/Madrid');
  const nyc = (day: number, t: string) => at(mon, day, t, 'America/New_York');
  const rome = (day: number, t: string) => at(mon, day, t, 'Europe/Rome');
  const deck = Buffer.from('%PDF-1.4\n% Q4 planning (demo)\n').toString('base64');
  const invoice = Buffer.from('item,amount\nHub seats,1200.00\n').toString('base64');
  return [
    {
      email: ana,
      name: 'Ana García',
      time_zone: 'Europe/Madrid',
      primary_shared_with: [{ email: ben, role: 'reader' }],
      events: [
        {
          summary: 'Team stand-up',
          start: mad(0, '09:30'),
          end: mad(0, '09:45'),
          time_zone: 'Europe/Madrid',
          recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;COUNT=10'],
          attendees: [{ email: ben, response_status: 'accepted' }],
        },
        { summary: '1:1 Ana / Ben', start: mad(1, '16:00'), end: mad(1, '16:30'), attendees: [{ email: ben, response_status: 'accepted' }] },
        {
          summary: 'Partner integration review',
          description: 'Timeline and open questions for the Q1 launch.',
          location: 'Google Meet',
          start: mad(2, '11:00'),
          end: mad(2, '12:00'),
          attendees: [
            { email: carla, display_name: 'Carla Rossi', response_status: 'accepted' },
            { email: ben, response_status: 'tentative' },
          ],
        },
        { summary: 'Lunch with the design team', location: 'Cafetería Sol', start: mad(3, '13:30'), end: mad(3, '14:30'), transparency: 'transparent' },
        { summary: 'Focus time', start: mad(4, '09:00'), end: mad(4, '12:00') },
        { summary: 'Vendor demo (cancelled)', start: mad(4, '15:00'), end: mad(4, '16:00'), status: 'cancelled' },
        { summary: 'Team offsite', start: { date: dateOnly(mon, 7) }, end: { date: dateOnly(mon, 8) } },
      ],
      messages: [
        {
          from: `Ben Okafor <${ben}>`,
          to: [ana],
          subject: 'Q4 planning deck',
          text: 'Hi Ana,\n\nAttached is the Q4 planning deck for Thursday. Comments welcome.\n\nBen',
          date: ago(now, 3),
          attachments: [{ filename: 'q4-planning.pdf', content_type: 'application/pdf', content_base64: deck }],
          message_id: '<q4-deck@acme.example>',
        },
        {
          from: `Carla Rossi <${carla}>`,
          to: [ana],
          subject: 'Integration timeline',
          text: 'Ciao Ana, could we move the launch review to next week?',
          date: ago(now, 30),
          labels: ['INBOX'],
          message_id: '<timeline-1@partner.example>',
        },
        {
          from: `Carla Rossi <${carla}>`,
          to: [ana],
          cc: [ben],
          subject: 'Re: Integration timeline',
          text: 'Following up: Wednesday 11:00 works for us.',
          date: ago(now, 6),
          message_id: '<timeline-2@partner.example>',
          in_reply_to: '<timeline-1@partner.example>',
          references: ['<timeline-1@partner.example>'],
        },
        { from: `Ben Okafor <${ben}>`, to: [ana], subject: 'Lunch Thursday?', text: 'Design team lunch at 13:30, are you in?', date: ago(now, 1) },
        {
          from: 'Vendor Billing <billing@vendor.example>',
          to: [ana],
          subject: 'Invoice #4821',
          html: '<p>Your invoice <b>#4821</b> is attached.</p>',
          date: ago(now, 50),
          labels: ['INBOX'],
          attachments: [{ filename: 'invoice-4821.csv', content_type: 'text/csv', content_base64: invoice }],
        },
        {
          from: 'Weekly Digest <digest@news.example>',
          to: [ana],
          subject: 'Your weekly digest',
          text: 'Top stories this week…',
          date: ago(now, 72),
          labels: ['INBOX'],
        },
      ],
    },
    {
      email: ben,
      name: 'Ben Okafor',
      time_zone: 'America/New_York',
      primary_shared_with: [{ email: ana, role: 'freeBusyReader' }],
      events: [
        { summary: 'Customer onboarding', start: nyc(1, '10:00'), end: nyc(1, '12:00') },
        { summary: 'Dentist', start: nyc(2, '14:00'), end: nyc(2, '15:00') },
        { summary: 'Quarterly review', start: nyc(3, '09:00'), end: nyc(3, '10:30') },
      ],
    },
    {
      email: carla,
      name: 'Carla Rossi',
      time_zone: 'Europe/Rome',
      events: [{ summary: 'Release planning', start: rome(1, '10:00'), end: rome(1, '11:30') }],
    },
  ];
}
