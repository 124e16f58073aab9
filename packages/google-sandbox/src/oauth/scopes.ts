import { type DiscoveryDocument, allMethods } from '../discovery/documents';

/** Sign-in scopes: always granted when asked for (Google's granular consent has no checkbox for them). */
export const USERINFO_EMAIL = 'https://www.googleapis.com/auth/userinfo.email';
export const USERINFO_PROFILE = 'https://www.googleapis.com/auth/userinfo.profile';
export const IDENTITY_SCOPES = new Set(['openid', USERINFO_EMAIL, USERINFO_PROFILE]);

/** Google accepts the short aliases and reports the long forms. */
export function normalizeScope(scope: string): string {
  if (scope === 'email') return USERINFO_EMAIL;
  if (scope === 'profile') return USERINFO_PROFILE;
  return scope;
}

export function parseScopeParam(raw: string): string[] {
  return [
    ...new Set(
      raw
        .split(/[\s+]+/)
        .filter(Boolean)
        .map(normalizeScope),
    ),
  ];
}

/** Every scope the emulated APIs know (from their Discovery documents), plus the sign-in scopes. */
export function knownScopes(docs: DiscoveryDocument[]): Set<string> {
  const scopes = new Set(IDENTITY_SCOPES);
  for (const doc of docs) for (const m of allMethods(doc)) for (const s of m.scopes ?? []) scopes.add(s);
  return scopes;
}
