import type { Account } from '../world';
import { IDENTITY_SCOPES } from './scopes';
import type { PendingAuthorization } from './state';

/** The sandbox's consent screen: pick an account, untick scopes (partial consent is real), Allow or Deny. */

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const shortScope = (s: string) => s.replace('https://www.googleapis.com/auth/', '').replace('https://mail.google.com/', 'mail.google.com (full Gmail)');

const PAGE_STYLE =
  'body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#202124}' +
  'h1{font-size:1.4rem}fieldset{border:1px solid #dadce0;border-radius:8px;margin:1rem 0;padding:.75rem 1rem}' +
  'label{display:block;margin:.35rem 0}button{font-size:1rem;padding:.5rem 1.25rem;margin-right:.5rem;border-radius:4px;border:1px solid #dadce0;cursor:pointer}' +
  'button[value=allow]{background:#1a73e8;color:#fff;border-color:#1a73e8}.note{color:#5f6368;font-size:.85rem}';

export function consentPage(pending: PendingAuthorization, accounts: Account[]): string {
  const hint = pending.loginHint?.toLowerCase();
  const accountChoices = accounts.length
    ? accounts
        .map((a, i) => {
          const checked = hint ? a.email === hint : i === 0;
          return `<label><input type="radio" name="account" value="${escapeHtml(a.email)}"${checked ? ' checked' : ''}> ${escapeHtml(a.name)} &lt;${escapeHtml(a.email)}&gt;</label>`;
        })
        .join('\n')
    : '<p>No sandbox accounts exist yet. Create one with POST /_sandbox/accounts.</p>';
  const scopeChoices = pending.scopes
    .filter((s) => !IDENTITY_SCOPES.has(s))
    .map((s) => `<label><input type="checkbox" name="scope" value="${escapeHtml(s)}" checked> ${escapeHtml(shortScope(s))}</label>`)
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in - Google Accounts (sandbox)</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>${PAGE_STYLE}</style></head>
<body><h1>${escapeHtml(pending.client.name)} wants access to your Google Account</h1>
<p class="note">Google sandbox — no real Google account is involved.</p>
<form method="post" action="/o/oauth2/v2/auth/decision">
<input type="hidden" name="request" value="${escapeHtml(pending.id)}">
<fieldset><legend>Choose an account</legend>${accountChoices}</fieldset>
<fieldset><legend>Select what ${escapeHtml(pending.client.name)} can access</legend>${scopeChoices || '<p>Sign-in only.</p>'}</fieldset>
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form></body></html>`;
}

export function errorPage(error: string, description: string, heading = "Access blocked: this app's request is invalid"): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Error 400: ${escapeHtml(error)}</title><style>${PAGE_STYLE}</style></head>
<body><h1>${escapeHtml(heading)}</h1>
<p><strong>Error 400: ${escapeHtml(error)}</strong></p><p>${escapeHtml(description)}</p>
<p class="note">Google sandbox</p></body></html>`;
}
