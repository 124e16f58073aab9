import { z } from 'zod';

/**
 * The building blocks of every section's variables. Each reads one environment string (or its absence) and,
 * when the value does not fit, says what it expects without echoing the value.
 */

/** The shortest secret the Hub accepts where it takes one (service secrets, admin HS256 keys, webhook secrets). */
export const MIN_SECRET_LENGTH = 32;

/** A section's variables: each a schema with its `.describe('…')`, from which docs/configuration.md is generated. */
export type Variables = Record<string, z.ZodType>;

/** What a set of variables parses into. */
export type EnvOf<V extends Variables> = z.output<z.ZodObject<V>>;

export const optionalString = z
  .string()
  .transform((s) => s.trim())
  .optional()
  .transform((s) => (s === '' ? undefined : s));

/** An integer variable in [min, max]; unset → `def` (pass undefined when the default depends on other variables). */
export const integer = <D extends number | undefined>(def: D, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((s, ctx): number | D => {
      if (s === undefined || s.trim() === '') return def;
      const n = Number(s);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `must be an integer between ${min} and ${max}` });
        return z.NEVER;
      }
      return n;
    });

export const url = (protocols: string[], what: string) =>
  z.string({ error: `required: a ${what} URL` }).transform((raw, ctx) => {
    let parsed: URL;
    try {
      parsed = new URL(raw.trim());
    } catch {
      ctx.addIssue({ code: 'custom', message: `must be a ${what} URL` });
      return z.NEVER;
    }
    if (!protocols.includes(parsed.protocol)) {
      ctx.addIssue({ code: 'custom', message: `must use ${protocols.map((p) => p.replace(':', '://')).join(' or ')}` });
      return z.NEVER;
    }
    return raw.trim();
  });

export const httpUrl = (what: string) => optionalString.pipe(url(['http:', 'https:'], what).optional());

/** `on`/`off` switches (also true/false, 1/0, yes/no). */
export const onOff = (def: boolean) =>
  optionalString.transform((s, ctx) => {
    if (s === undefined) return def;
    if (['on', 'true', '1', 'yes'].includes(s)) return true;
    if (['off', 'false', '0', 'no'].includes(s)) return false;
    ctx.addIssue({ code: 'custom', message: 'must be on or off (true/false)' });
    return z.NEVER;
  });
