import type { Request } from 'express';

/**
 * Google's simple upload protocols (`/upload/...?uploadType=media|multipart`), which googleapis uses when a
 * caller passes `media: {...}` (e.g. Gmail send with an RFC 2822 stream). The resumable protocol is not emulated.
 */

type Extracted = { ok: true; body: unknown; media: Buffer } | { ok: false; message: string };

function boundaryOf(contentType: string): string | undefined {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m?.[1] ?? m?.[2];
}

/** Splits a multipart/related body into its parts' header blocks and payloads. */
function splitMultipart(raw: Buffer, boundary: string): { headers: string; payload: Buffer }[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: { headers: string; payload: Buffer }[] = [];
  let pos = raw.indexOf(delimiter);
  while (pos !== -1) {
    let start = pos + delimiter.length;
    if (raw.subarray(start, start + 2).toString() === '--') break; // closing delimiter
    if (raw[start] === 0x0d) start++;
    if (raw[start] === 0x0a) start++;
    const next = raw.indexOf(delimiter, start);
    if (next === -1) break;
    let end = next;
    if (raw[end - 1] === 0x0a) end--;
    if (raw[end - 1] === 0x0d) end--;
    const part = raw.subarray(start, end);
    const sep = part.indexOf('\r\n\r\n') !== -1 ? part.indexOf('\r\n\r\n') : part.indexOf('\n\n');
    const gap = part.indexOf('\r\n\r\n') !== -1 ? 4 : 2;
    parts.push(sep === -1 ? { headers: '', payload: part } : { headers: part.subarray(0, sep).toString('latin1'), payload: part.subarray(sep + gap) });
    pos = next;
  }
  return parts;
}

export function extractMedia(req: Request): Extracted {
  const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  const uploadType = req.query.uploadType;
  if (uploadType === 'media') return { ok: true, body: undefined, media: raw };
  if (uploadType === 'multipart') {
    const boundary = boundaryOf(req.get('content-type') ?? '');
    if (!boundary) return { ok: false, message: 'Invalid multipart request with 0 mime parts.' };
    const parts = splitMultipart(raw, boundary);
    if (parts.length !== 2) return { ok: false, message: `Invalid multipart request with ${parts.length} mime parts.` };
    let metadata: unknown;
    try {
      const text = parts[0]!.payload.toString('utf8').trim();
      metadata = text === '' ? {} : JSON.parse(text);
    } catch {
      return { ok: false, message: 'Invalid JSON payload received in the metadata part.' };
    }
    const transfer = /content-transfer-encoding:\s*base64/i.test(parts[1]!.headers);
    const media = transfer ? Buffer.from(parts[1]!.payload.toString('latin1'), 'base64') : parts[1]!.payload;
    return { ok: true, body: metadata, media };
  }
  return { ok: false, message: `Invalid upload type: ${typeof uploadType === 'string' ? uploadType : '(missing)'}; the sandbox accepts media and multipart.` };
}
