/**
 * Cool-downs: when a vendor says an account may not be served until a given time, the Hub answers that account's
 * calls itself until then instead of letting agents hammer the vendor (hammering a live Gmail limit is reported to
 * push it further out: twentyhq/twenty#17850). Per replica, in memory, bounded; each replica learns on its own
 * first refusal.
 *
 * What a cool-down covers:
 * - `all`: every call to the account's integration (Gmail "User-rate limit exceeded. Retry after …");
 * - `send`: only sends (Gmail's daily sending limit, "… (Mail sending)": reading mail still works);
 * - `writes`: only writes (Calendar's quotaExceeded: "you can still view events when your calendar is
 *   read-only", https://support.google.com/a/answer/2905486).
 */

export type CooldownScope = 'all' | 'writes' | 'send';

export interface Cooldown {
  until: number;
  scope: CooldownScope;
  /** The vendor's reason that started it, shown to agents. */
  reason: string;
  /** The RATE_LIMITED scope its refusals carry: `upstream` (a vendor's rate limit) or `upstream_quota`. */
  limit: 'upstream' | 'upstream_quota';
}

export interface Cooldowns {
  /** Starts (or extends) a cool-down of `account` — an opaque key (a limit group and the mailbox). */
  start(account: string, cooldown: Cooldown): void;
  /** The cool-down that covers `operation` on `account` now, the longest first; undefined when none. */
  covering(account: string, operation: string): Cooldown | undefined;
}

const MAX_ACCOUNTS = 10_000;

/**
 * Operation keys are `resource.verb` in each provider's own naming (Google's discovery ids such as
 * `calendar.events.get`, Graph's `events.calendarView`): what a cool-down covers is judged by the last segment, the
 * verb, never by a vendor's method name. Verbs that only read; anything else is a write.
 */
const READ_VERBS: ReadonlySet<string> = new Set(['get', 'list', 'query', 'getProfile', 'instances', 'getSchedule', 'calendarView']);
const SEND_VERB = 'send';

const verbOf = (operation: string) => operation.slice(operation.lastIndexOf('.') + 1);
export const isReadOperation = (operation: string): boolean => READ_VERBS.has(verbOf(operation));
/** Sending mail (a message or a draft): the one operation a sending limit stops. */
export const isSendOperation = (operation: string): boolean => verbOf(operation) === SEND_VERB;

function covers(scope: CooldownScope, operation: string): boolean {
  if (scope === 'all') return true;
  if (scope === 'send') return isSendOperation(operation);
  return !isReadOperation(operation);
}

export function createCooldowns(now: () => number = Date.now): Cooldowns {
  const byAccount = new Map<string, Cooldown[]>();

  const live = (account: string): Cooldown[] => {
    const list = byAccount.get(account);
    if (!list) return [];
    const current = list.filter((c) => c.until > now());
    if (current.length === 0) byAccount.delete(account);
    else if (current.length !== list.length) byAccount.set(account, current);
    return current;
  };

  return {
    start(account, cooldown) {
      if (cooldown.until <= now()) return;
      const list = live(account).filter((c) => !(c.scope === cooldown.scope && c.until <= cooldown.until));
      if (list.some((c) => c.scope === cooldown.scope)) return; // a longer one of the same scope already runs
      list.push(cooldown);
      if (!byAccount.has(account) && byAccount.size >= MAX_ACCOUNTS) {
        // Make room: forget the oldest entry (it is also the likeliest to have ended).
        byAccount.delete(byAccount.keys().next().value!);
      }
      byAccount.set(account, list);
    },
    covering(account, operation) {
      let longest: Cooldown | undefined;
      for (const c of live(account)) if (covers(c.scope, operation) && (!longest || c.until > longest.until)) longest = c;
      return longest;
    },
  };
}
