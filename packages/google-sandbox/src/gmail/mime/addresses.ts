/// <reference path="../libmime.d.ts" />
import addressparser from 'nodemailer/lib/addressparser';
import { encodeWords } from 'nodemailer/lib/mime-funcs';
import libmime from 'libmime';

export interface EmailAddress {
  name: string;
  address: string;
}

/**
 * What Gmail accepts as a recipient: a local part and a dotted domain. It rejects `To: human@f` with
 * "Invalid to header" (observed), so a bare host is not enough.
 */
const VALID_ADDRESS = /^[^\s@"<>()[\],;:\\]+@(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?\.)+[\p{L}\p{N}-]{2,}$/u;

export const isValidAddress = (address: string) => VALID_ADDRESS.test(address);

/** An address list header value → addresses (groups flattened); `invalid` when any entry is not an address. */
export function parseAddressList(value: string): { addresses: EmailAddress[]; invalid: boolean } {
  const entries = addressparser(value, { flatten: true });
  let invalid = false;
  const addresses: EmailAddress[] = [];
  for (const entry of entries) {
    const address = entry.address.trim();
    if (!isValidAddress(address)) {
      invalid = true;
      continue;
    }
    addresses.push({ name: libmime.decodeWords(entry.name).trim(), address });
  }
  return { addresses, invalid };
}

const ATOM_PHRASE = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~ -]+$/;

/** `Name <address>` as a header value: quoted when the name has specials, encoded words when not ASCII. */
export function formatAddress({ name, address }: EmailAddress): string {
  if (!name) return address;
  if (ATOM_PHRASE.test(name)) return `${name} <${address}>`;
  if (/^[\x00-\x7f]*$/.test(name)) return `"${name.replace(/["\\]/g, '\\$&')}" <${address}>`;
  return `${encodeWords(name, 'Q', 52, true)} <${address}>`;
}

export const sameAddress = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
