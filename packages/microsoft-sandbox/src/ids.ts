import { ALPHABETS, type SandboxRandom } from './random';

/**
 * Identifiers shaped like Microsoft's. Tenant, user and application ids are GUIDs. Outlook item ids are long
 * URL-safe base64 strings: the default ("REST") id starts `AAMkA` and changes when the item moves to another
 * folder; the immutable id (`Prefer: IdType="ImmutableId"`) starts `AAkALg` and does not
 * (learn.microsoft.com/graph/outlook-immutable-id: "an item's ID changes when it is moved to a different
 * folder… immutable IDs… do not change as long as the item stays in the same mailbox").
 */

export function guid(random: SandboxRandom): string {
  const h = random.hex(32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[Math.floor(random.next() * 4)]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const b64 = (random: SandboxRandom, n: number) => random.string(n, ALPHABETS.base64url);

export const restItemId = (random: SandboxRandom) => `AAMkAG${b64(random, 130)}AAA=`;
export const immutableItemId = (random: SandboxRandom) => `AAkALgAAAAAAHYQDEapmEc2byACqAC-EWg0A${b64(random, 60)}AAA=`;
export const folderId = (random: SandboxRandom) => `AAMkAG${b64(random, 60)}AAA=`;
export const changeKey = (random: SandboxRandom) => `CQAAABYAAAA${b64(random, 29)}`;
export const conversationId = (random: SandboxRandom) => `AAQkAG${b64(random, 60)}=`;

/**
 * What Exchange accepts as an id before it looks anything up: URL-safe or standard base64 of a plausible
 * length. Anything else is `ErrorInvalidIdMalformed` ("Id is malformed."), not a 404.
 */
export const wellFormedItemId = (id: string) => id.length >= 40 && /^[A-Za-z0-9+/_-]+=*$/.test(id);
