import { DateTime } from 'luxon';
import { addEvent, addMessage, createPerson, createTenant, type Outcome } from './control/seed';
import { ianaOf } from './graph/time';
import type { World } from './world';

/**
 * The demo world: one tenant, three people in three Windows time zones — Ben's "Pacific Standard Time" is
 * America/Los_Angeles to everything that speaks IANA — a working week of meetings around `now`, and Ana's
 * inbox: a three-message thread with a PDF attachment, HTML mail, and her own reply in Sent Items.
 */

export const MS_DEMO_TENANT = { domain: 'northwind.example', id: '7f3c9a52-4e1b-4d2a-9c61-2b8e5f0d1a77', display_name: 'Northwind Traders' } as const;
export const MS_DEMO_ACCOUNTS = { ana: 'ana@northwind.example', ben: 'ben@northwind.example', chen: 'chen@northwind.example' } as const;

const must = <T>(o: Outcome<T>): T => {
  if (!o.ok) throw new Error(`demo world: ${o.message}`);
  return o.value;
};

/** A tiny valid PDF, so the attachment opens. */
const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj 3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 100]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
).toString('base64');

export function populateDemoWorld(now: Date): (world: World) => void {
  return (world) => {
    must(createTenant(world, MS_DEMO_TENANT));
    const ana = must(
      createPerson(world, { upn: MS_DEMO_ACCOUNTS.ana, display_name: 'Ana Lima', job_title: 'Operations Lead', time_zone: 'Romance Standard Time' }),
    );
    const ben = must(
      createPerson(world, {
        upn: MS_DEMO_ACCOUNTS.ben,
        display_name: 'Ben Okafor',
        job_title: 'Account Executive',
        time_zone: 'Pacific Standard Time',
        working_hours: { days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'], start: '09:00', end: '17:30' },
      }),
    );
    const chen = must(createPerson(world, { upn: MS_DEMO_ACCOUNTS.chen, display_name: 'Chen Wei', job_title: 'Engineer', time_zone: 'GMT Standard Time' }));
    // Monday of this week in each organizer's own zone.
    const at = (who: { timeZone: string }, day: number, hh: number, mm = 0) =>
      DateTime.fromJSDate(now, { zone: ianaOf(who.timeZone)! })
        .startOf('week')
        .plus({ days: day })
        .set({ hour: hh, minute: mm })
        .toISO()!;
    const ev = (who: typeof ana, subject: string, day: number, h: number, m: number, minutes: number, extra: Partial<Parameters<typeof addEvent>[2]> = {}) => {
      const start = at(who, day, h, m);
      must(
        addEvent(world, who, { subject, start, end: DateTime.fromISO(start, { setZone: true }).plus({ minutes }).toISO()!, time_zone: who.timeZone, ...extra }),
      );
    };
    for (let d = 0; d < 5; d++) ev(ana, 'Ops stand-up', d, 9, 30, 15, { attendees: [MS_DEMO_ACCOUNTS.chen], location: 'Teams' });
    ev(ana, 'Q3 planning', 1, 16, 0, 60, {
      attendees: [MS_DEMO_ACCOUNTS.ben, MS_DEMO_ACCOUNTS.chen],
      location: 'Madrid – Sala 2',
      body_html: '<p>Agenda: targets, hiring, <b>budget</b>.</p>',
    });
    ev(ben, 'Contoso renewal call', 2, 8, 0, 45, { attendees: [MS_DEMO_ACCOUNTS.ana] });
    ev(chen, 'Design review: shipping API', 3, 14, 0, 90, { attendees: [MS_DEMO_ACCOUNTS.ana], show_as: 'tentative' });
    ev(ana, 'Lunch with Chen', 3, 13, 30, 60, { show_as: 'busy', location: 'Café Central' });
    ev(ben, 'Pipeline review', 0, 10, 0, 60);
    ev(ben, 'Dentist', 4, 8, 0, 90, { show_as: 'oof' });
    const friday = DateTime.fromJSDate(now, { zone: ianaOf(ana.timeZone)! })
      .startOf('week')
      .plus({ days: 4 });
    must(
      addEvent(world, ana, {
        subject: 'Team offsite',
        start: friday.toISO()!,
        end: friday.plus({ days: 1 }).toISO()!,
        all_day: true,
        time_zone: ana.timeZone,
        attendees: [MS_DEMO_ACCOUNTS.chen],
        show_as: 'workingElsewhere',
      }),
    );

    const monday = DateTime.fromJSDate(now).toUTC().startOf('week');
    const at2 = (days: number, hours: number) => monday.minus({ days }).plus({ hours }).toISO()!;
    const threads = new Map();
    const a = { name: ana.displayName, address: ana.userPrincipalName };
    const b = { name: ben.displayName, address: ben.userPrincipalName };
    const c = { name: chen.displayName, address: chen.userPrincipalName };
    const msg = (spec: Parameters<typeof addMessage>[2]) => must(addMessage(world, ana, spec, threads));
    msg({ from: b, to: [a], subject: 'Q3 plan', text: 'Ana, can we lock the Q3 targets this week? Ben', received: at2(3, 9), is_read: true, thread: 'q3' });
    msg({
      from: a,
      to: [b],
      subject: 'RE: Q3 plan',
      html: '<p>Yes — Tuesday 16:00 my time works. Ana</p>',
      received: at2(3, 11),
      is_read: true,
      thread: 'q3',
      folder: 'sentitems',
    });
    msg({
      from: b,
      to: [a],
      cc: [c],
      subject: 'RE: Q3 plan',
      html: '<p>Great. Draft numbers attached.</p><p>— Ben</p>',
      received: at2(2, 17),
      thread: 'q3',
      attachments: [{ name: 'q3-targets.pdf', content_type: 'application/pdf', content_base64: PDF }],
    });
    msg({
      from: c,
      to: [a],
      subject: 'Offsite logistics',
      html: '<html><body><h2>Friday offsite</h2><ul><li>Train at <b>08:10</b></li><li>Bring laptops</li></ul></body></html>',
      received: at2(1, 14),
    });
    msg({
      from: { name: 'Northwind IT', address: 'it@northwind.example' },
      to: [a],
      subject: 'Scheduled maintenance this weekend',
      html: '<p>Mail will be <i>read-only</i> on Saturday 02:00–04:00 UTC.</p>',
      received: at2(0, 6),
      importance: 'high',
    });
  };
}
