// Minimal declarations for the parts of libmime and libqp the Gmail emulation uses (neither ships types).

declare module 'libmime' {
  interface ParsedHeaderValue {
    value: string;
    params: Record<string, string>;
  }
  const libmime: {
    /** Decodes RFC 2047 encoded words (`=?UTF-8?Q?...?=`), joining adjacent ones. */
    decodeWords(str: string): string;
    /** Splits `type/subtype; a=b; c*0*=...` into a value and params (RFC 2231 continuations decoded). */
    parseHeaderValue(str: string): ParsedHeaderValue;
  };
  export = libmime;
}

declare module 'libmime/lib/charset' {
  const charset: {
    /** Bytes in `fromCharset` to a JS string; unknown charsets fall back to UTF-8. */
    decode(buf: Buffer, fromCharset?: string): string;
  };
  export = charset;
}

declare module 'libqp' {
  /** Quoted-printable text (one byte per char) to the bytes it encodes. */
  export function decode(str: string): Buffer;
}
