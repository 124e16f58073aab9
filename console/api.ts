/**
 * The admin API, called as any other admin client calls it — only authenticated by the session cookie (sent by
 * the browser, HttpOnly) plus the session's CSRF token in a header, instead of a Bearer JWT.
 */

export interface ApiError {
  code: string;
  message: string;
  details?: { issues?: { path: string; message: string }[] } & Record<string, unknown>;
}

export type ApiResult<T> = { ok: true; status: number; data: T } | { ok: false; status: number; error: ApiError; requestId: string | null };

const csrf = document.querySelector<HTMLMetaElement>('meta[name="hub-csrf"]')?.content ?? '';

export async function api<T>(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResult<T>> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: { ...headers, 'X-CSRF-Token': csrf, Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    return { ok: false, status: 0, error: { code: 'NETWORK', message: 'The Hub could not be reached. Check your connection and retry.' }, requestId: null };
  }
  const requestId = res.headers.get('X-Request-Id');
  let json: unknown = null;
  try {
    json = await res.json();
  } catch {
    // not JSON: reported below
  }
  if (res.status === 401) {
    // The session ended (idle, lifetime, signed out elsewhere): back to the sign-in page.
    location.assign('/admin/sign-in');
  }
  if (res.ok) return { ok: true, status: res.status, data: json as T };
  const error = (json as { error?: ApiError } | null)?.error ?? { code: 'UNKNOWN', message: `The Hub answered ${res.status}.` };
  return { ok: false, status: res.status, error, requestId };
}

export const csrfToken = () => csrf;
