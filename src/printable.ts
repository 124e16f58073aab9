/**
 * Names and ids the Hub stores or echoes: no control characters (Unicode's category Cc, U+0000–U+001F and
 * U+007F–U+009F). Spelled as explicit ranges rather than `\p{Cc}`: zod writes this pattern into openapi.yaml,
 * where JSON Schema validators compile it as a plain ECMAScript regex (no `u` flag, under which `\p{Cc}` means the
 * letters `p{Cc}`) and Python's `re` refuses `\p` — the ranges mean the same in all three, so the document and
 * the Hub's own validation agree. Without the `u` flag a character beyond U+FFFF is two surrogates, neither in
 * the ranges, so it passes here as it does with the flag.
 */
export const PRINTABLE = /^[^\x00-\x1F\x7F-\x9F]*$/;
