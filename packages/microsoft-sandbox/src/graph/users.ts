import type { Router } from 'express';
import { NEEDS } from '../identity/scopes';
import type { Person } from '../world';
import type { GraphCtx, Handler } from './context';
import { GE, graphError } from './errors';
import { ianaOf } from './time';

/**
 * /me and its mailboxSettings (user-get, user-get-mailboxsettings, user-update-mailboxsettings). Graph's code for
 * a time zone it does not know is not documented; the sandbox answers 400 ErrorInvalidTimeZone.
 */

export function userJson(p: Person) {
  return {
    businessPhones: [],
    displayName: p.displayName,
    givenName: p.givenName,
    jobTitle: p.jobTitle,
    mail: p.userPrincipalName,
    mobilePhone: null,
    officeLocation: null,
    preferredLanguage: 'en-US',
    surname: p.surname,
    userPrincipalName: p.userPrincipalName,
    id: p.id,
  };
}

export const workingHoursJson = (p: Person) => ({
  daysOfWeek: p.workingHours.daysOfWeek,
  startTime: `${p.workingHours.startTime}.0000000`,
  endTime: `${p.workingHours.endTime}.0000000`,
  timeZone: { name: p.timeZone },
});

function settingsJson(p: Person) {
  const never = { dateTime: '2026-01-01T00:00:00.0000000', timeZone: 'UTC' };
  return {
    archiveFolder: '',
    timeZone: p.timeZone,
    delegateMeetingMessageDeliveryOptions: 'sendToDelegateOnly',
    dateFormat: 'M/d/yyyy',
    timeFormat: 'h:mm tt',
    userPurpose: 'user',
    automaticRepliesSetting: {
      status: 'disabled',
      externalAudience: 'all',
      internalReplyMessage: '',
      externalReplyMessage: '',
      scheduledStartDateTime: never,
      scheduledEndDateTime: never,
    },
    language: { locale: 'en-US', displayName: 'English (United States)' },
    workingHours: workingHoursJson(p),
  };
}

const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const TIME = /^(\d{2}):(\d{2})(:\d{2})?(\.\d+)?$/;

function patchSettings(ctx: GraphCtx) {
  const body = ctx.req.body as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object') return GE.badRequest('Empty Payload. JSON content expected.');
  const p = ctx.owner;
  const updated: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (key.startsWith('@odata.')) continue;
    if (key === 'timeZone') {
      if (typeof value !== 'string' || !ianaOf(value)) return graphError(400, 'ErrorInvalidTimeZone', `The time zone '${String(value)}' is not valid.`);
      p.timeZone = value;
      updated.timeZone = value;
    } else if (key === 'workingHours') {
      const wh = value as { daysOfWeek?: unknown; startTime?: unknown; endTime?: unknown; timeZone?: { name?: unknown } };
      const days = wh.daysOfWeek ?? p.workingHours.daysOfWeek;
      if (!Array.isArray(days) || days.some((d) => !DAYS.includes(String(d)))) return GE.badRequest('Invalid daysOfWeek in workingHours.');
      const start = String(wh.startTime ?? p.workingHours.startTime);
      const end = String(wh.endTime ?? p.workingHours.endTime);
      if (!TIME.test(start) || !TIME.test(end)) return GE.badRequest('Invalid startTime or endTime in workingHours.');
      if (wh.timeZone?.name !== undefined) {
        if (typeof wh.timeZone.name !== 'string' || !ianaOf(wh.timeZone.name))
          return graphError(400, 'ErrorInvalidTimeZone', `The time zone '${String(wh.timeZone.name)}' is not valid.`);
        p.timeZone = wh.timeZone.name;
      }
      p.workingHours = { daysOfWeek: days.map(String), startTime: start.slice(0, 8).padEnd(8, ':00'), endTime: end.slice(0, 8).padEnd(8, ':00') };
      updated.workingHours = workingHoursJson(p);
    } else if (key in settingsJson(p)) {
      return graphError(400, 'ErrorInvalidRequest', `The sandbox does not change mailboxSettings.${key}.`);
    } else return graphError(400, 'BadRequest', `The property '${key}' does not exist on type 'microsoft.graph.mailboxSettings'.`);
  }
  return { status: 200, type: 'microsoft.graph.mailboxSettings', body: { '@odata.context': `${ctx.baseUrl}/v1.0/$metadata#Me/mailboxSettings`, ...updated } };
}

export function mountUsers(router: Router, route: (op: string, needs: readonly string[], h: Handler) => import('express').RequestHandler) {
  router.get(
    '/',
    route('user.get', NEEDS.userRead, (ctx) => ({
      status: 200,
      type: 'microsoft.graph.user',
      body: { '@odata.context': `${ctx.baseUrl}/v1.0/$metadata#users/$entity`, ...userJson(ctx.owner) },
    })),
  );
  router.get(
    '/mailboxSettings',
    route('mailboxSettings.get', NEEDS.mailboxSettingsRead, (ctx) => ({
      status: 200,
      type: 'microsoft.graph.mailboxSettings',
      body: { '@odata.context': `${ctx.baseUrl}/v1.0/$metadata#users('${ctx.owner.id}')/mailboxSettings`, ...settingsJson(ctx.owner) },
    })),
  );
  router.patch('/mailboxSettings', route('mailboxSettings.update', NEEDS.mailboxSettingsWrite, patchSettings));
}
