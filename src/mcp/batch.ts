import { type HubError, codeToStatus } from '../core/errors';
import { type Exchange, type McpDeps, answerMember, errorJson, hubRpcError, overBudget } from './answer';
import type { Member } from './messages';

/** One answer's bound: past it, the batch's remaining members are not run (each is told to come again alone). */
export const MAX_ANSWER_BYTES = 512 * 1024;

/** What the HTTP answer is: its status, its JSON (null: 202, nothing to say) and the refusal whose headers it carries. */
export interface BodyAnswer {
  status: number;
  json: string | null;
  /** The refusal every request met alike (429's Retry-After and rate-limit headers go with it). */
  refusal: HubError | null;
}

/** The HTTP status of an answer whose every request was refused alike (429 for a flood), else 200. */
function commonRefusal(refusals: readonly HubError[], requests: number): HubError | null {
  if (requests === 0 || refusals.length < requests) return null;
  return refusals.every((r) => r.code === refusals[0]!.code) ? refusals[0]! : null;
}

/**
 * The members of one body, answered in order — never side by side, so a batch costs the Hub no more at once than
 * its messages one after another would — until the client leaves (undefined: nothing to send) or the answer
 * holds MAX_ANSWER_BYTES (the remaining requests are answered "not run").
 */
export async function answerBody(
  deps: McpDeps,
  ex: Exchange,
  body: { batch: boolean; members: Member[] },
  gone: () => boolean,
): Promise<BodyAnswer | undefined> {
  const parts: string[] = [];
  const refusals: HubError[] = [];
  let bytes = 0;
  let requests = 0;
  for (const member of body.members) {
    if (gone()) return undefined;
    if (member.kind === 'request' && bytes >= MAX_ANSWER_BYTES) {
      parts.push(overBudget(member.id, MAX_ANSWER_BYTES));
      requests++;
      continue;
    }
    const answer = await answerMember(deps, ex, member);
    if (answer.refused) refusals.push(answer.refused);
    if (member.kind === 'request' || member.kind === 'invalid') requests++;
    if (answer.json !== undefined) {
      parts.push(answer.json);
      bytes += answer.json.length;
    }
  }
  if (parts.length === 0) {
    // Notifications (or responses) only: accepted — unless refused, which only the status can say.
    const refused = refusals[0];
    return refused
      ? { status: codeToStatus(refused.code), json: errorJson(null, hubRpcError(refused)), refusal: refused }
      : { status: 202, json: null, refusal: null };
  }
  if (!body.batch && body.members[0]!.kind === 'invalid') return { status: 400, json: parts[0]!, refusal: null };
  const refusal = commonRefusal(refusals, requests);
  return { status: refusal ? codeToStatus(refusal.code) : 200, json: body.batch ? `[${parts.join(',')}]` : parts[0]!, refusal };
}
