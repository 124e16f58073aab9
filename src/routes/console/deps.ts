import type { Request } from 'express';
import type { AdminTokenCheck } from '../../auth/admin-jwt';
import type { ConsoleAssets } from '../../console/assets';
import type { ConsoleVocabulary } from '../../console/html';
import { readSessionCookie, type Session, type Sessions } from '../../console/sessions';
import type { SignInLinks } from '../../console/sign-in-links';
import type { Logger } from '../../logger';

/** What the console's own routes (sign-in, sign-out, pages, assets) share; its data comes from the admin API. */
export interface ConsoleDeps {
  sessions: Sessions;
  links: SignInLinks;
  /** Null when dist/console was not built. */
  assets: ConsoleAssets | null;
  /** Secure cookies (HUB_PUBLIC_URL is https). */
  secure: boolean;
  /** The Hub's public origin: a sign-in form must be posted from it. */
  origin: string;
  /** Verifies an admin JWT (HS256 or RS256, as the admin API does); null when no admin key is configured. */
  verifyAdminJwt: ((token: string) => AdminTokenCheck) | null;
  /** The vocabulary the console's filters offer as choices: the catalog's tool names and the error codes. */
  vocabulary: ConsoleVocabulary;
  logger: Logger;
}

/** The live session of this request's cookie, or null. */
export async function sessionOf(req: Request, sessions: Sessions): Promise<{ token: string; session: Session } | null> {
  const token = readSessionCookie(req.headers.cookie);
  if (token === undefined) return null;
  const session = await sessions.resolve(token);
  return session === null ? null : { token, session };
}

/**
 * A sign-in form may only be posted from the Hub's own pages (login CSRF: nobody may sign a victim's browser in
 * as someone else). Browsers send Sec-Fetch-Site (and Origin) with every form POST; a client sending neither
 * (curl) is not a browser someone else is steering.
 */
export function postedFromHere(req: Request, origin: string): boolean {
  // Sec-Fetch-Site first: under the console's `Referrer-Policy: no-referrer` a same-origin form posts `Origin: null`.
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin' || site === 'none';
  const from = req.headers.origin;
  return from === undefined || from === origin;
}
