/**
 * Gmail's base64 flavours. Observed behaviour (client bug reports): `raw` and message-part `data` are URL-safe
 * base64 WITH '=' padding, while `attachments.get` returns its `data` unpadded. Clients must cope with both,
 * so the sandbox reproduces both. On input Gmail accepts standard or URL-safe base64, padded or not.
 */
export function base64url(bytes: Buffer, padded: boolean): string {
  const s = bytes.toString('base64url');
  return padded ? s + '='.repeat((4 - (s.length % 4)) % 4) : s;
}

/** Standard or URL-safe base64, padding optional, whitespace ignored; null when it is not base64 at all. */
export function decodeBase64Any(text: string): Buffer | null {
  const compact = text.replace(/\s+/g, '').replace(/=+$/, '');
  if (!/^[A-Za-z0-9+/_-]*$/.test(compact) || compact.length % 4 === 1) return null;
  return Buffer.from(compact.replace(/\+/g, '-').replace(/\//g, '_'), 'base64url');
}
