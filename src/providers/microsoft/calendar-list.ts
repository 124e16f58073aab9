import { z } from 'zod';
import { ACCESS_ROLES, type AccessRole, type CalendarInfo } from '../../core/calendar';
import { type Result, fail, ok } from '../../core/errors';
import { type Graph, unexpectedAnswer } from './calendar-graph';
import type { GraphRequest } from './graph-request';

/**
 * The calendars the account sees (GET /me/calendars): Graph pages them (ten a page by default) and the adapter
 * follows `@odata.nextLink` — only on the configured Graph endpoint — up to MAX_PAGES, then says `truncated`.
 *
 * Graph v1.0 has no access role on a calendar; its rights are canEdit and canShare ("Only the user who created the
 * calendar can share it") and its owner. So: canShare, or owned by the account → owner; else canEdit → writer;
 * else reader. A calendar shared for free/busy only cannot be told apart from one shared to read (that lives in
 * calendarPermission, which only the owner can read): both are `reader`. Graph gives calendars no time zone.
 */

/** 1,000 calendars at Graph's ten a page: far beyond a real account, a bound on one call's work. */
const MAX_PAGES = 100;
const SELECT = 'id,name,isDefaultCalendar,canEdit,canShare,owner';

const pageSchema = z.object({
  value: z
    .array(
      z.object({
        id: z.string().min(1).max(1024),
        name: z.string().max(1024).nullish(),
        isDefaultCalendar: z.boolean().nullish(),
        canEdit: z.boolean().nullish(),
        canShare: z.boolean().nullish(),
        owner: z.object({ address: z.string().max(320).nullish() }).nullish(),
      }),
    )
    .max(1000),
  '@odata.nextLink': z.string().max(8192).nullish(),
});
type GraphCalendar = z.infer<typeof pageSchema>['value'][number];

export function roleOf(c: GraphCalendar, accountEmail: string | null): AccessRole {
  const owned = accountEmail !== null && c.owner?.address?.toLowerCase() === accountEmail.toLowerCase();
  if (c.canShare === true || owned) return 'owner';
  return c.canEdit === true ? 'writer' : 'reader';
}

const rank = (role: string) => ACCESS_ROLES.indexOf(role as AccessRole);

export async function listCalendars(graph: Graph, minAccessRole?: AccessRole): Promise<Result<{ calendars: CalendarInfo[]; truncated: boolean }>> {
  const calendars: CalendarInfo[] = [];
  let req: GraphRequest = { method: 'GET', path: '/me/calendars', query: { $select: SELECT } };
  let truncated = true;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await graph.send('calendars.list', true, req, pageSchema);
    if (!answer.ok) return answer;
    for (const c of answer.value.value) {
      const accessRole = roleOf(c, graph.deps.connection.accountEmail);
      if (minAccessRole !== undefined && rank(accessRole) < rank(minAccessRole)) continue;
      calendars.push({ id: c.id, name: c.name || c.id, primary: c.isDefaultCalendar === true, accessRole, timeZone: null });
    }
    const next = answer.value['@odata.nextLink'];
    if (!next) {
      truncated = false;
      break;
    }
    if (!graph.isGraphLink(next)) return fail(unexpectedAnswer('calendars.list'));
    req = { method: 'GET', path: next };
  }
  // A stable sort: the default calendar first, the rest as Graph listed them.
  calendars.sort((a, b) => Number(b.primary) - Number(a.primary));
  return ok({ calendars, truncated });
}
