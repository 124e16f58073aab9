import type { Request } from 'express';
import type { ProviderId } from '../../core/capabilities';
import { STATE_LIFETIME_MS, digest } from '../../integrations/oauth-states';

/**
 * The cookie that ties a connect attempt to the browser that started it (RFC 9700 §4.7: the callback must come
 * back from the same user agent, so nobody can make someone else's browser finish a flow they began).
 * SameSite=Lax still sends it on the vendor's top-level redirect back; scoped to the provider's connect paths only
 * (`/integrations/google`, `/integrations/microsoft`), where its callback comes back.
 */
const pathOf = (provider: ProviderId) => `/integrations/${provider}`;

/** One cookie per attempt (named after its state), so two connect links opened side by side do not clash. */
const nameFor = (state: string) => `hub_connect_${digest(state).toString('hex').slice(0, 16)}`;

export function browserCookie(state: string, nonce: string, secure: boolean, provider: ProviderId): string {
  return `${nameFor(state)}=${nonce}; Path=${pathOf(provider)}; Max-Age=${STATE_LIFETIME_MS / 1000}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

export function clearBrowserCookie(state: string, secure: boolean, provider: ProviderId): string {
  return `${nameFor(state)}=; Path=${pathOf(provider)}; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

export function readBrowserCookie(req: Request, state: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  const name = nameFor(state);
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{16,128}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}
