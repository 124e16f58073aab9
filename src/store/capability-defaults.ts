import type { Queryable } from './db';

/**
 * Which provider answers a capability for a customer that connected both Google and Microsoft for it:
 * the first one connected (`claim`), changeable through the admin API (`set`), forgotten when that provider's
 * connection goes (`clear` with `onlyIf`). With one provider connected that one answers whatever is stored here;
 * an agent may still pin a provider per call. The store names capabilities and providers in its own words (the
 * values the table's CHECKs allow) and imports no feature.
 */

export const DEFAULT_CAPABILITIES = ['calendar', 'mail'] as const;
export type DefaultCapability = (typeof DEFAULT_CAPABILITIES)[number];
export const DEFAULT_PROVIDERS = ['google', 'microsoft'] as const;
export type DefaultProvider = (typeof DEFAULT_PROVIDERS)[number];

export interface CapabilityDefault {
  capability: DefaultCapability;
  provider: DefaultProvider;
  updatedAt: Date;
}

export interface CapabilityDefaults {
  /** The provider marked default for the capability, or null when none is. */
  get(customerId: string, capability: DefaultCapability): Promise<CapabilityDefault | null>;
  /** Every default the customer has, in capability order. */
  list(customerId: string): Promise<CapabilityDefault[]>;
  /** Marks `provider` default (the admin's choice): replaces any other. Answers the row now in force. */
  set(customerId: string, capability: DefaultCapability, provider: DefaultProvider): Promise<CapabilityDefault>;
  /**
   * Marks `provider` default only when no provider is yet (a connect: the first connected wins, even when two
   * connects race on two replicas). Answers the default in force afterwards, whichever it is.
   */
  claim(customerId: string, capability: DefaultCapability, provider: DefaultProvider): Promise<CapabilityDefault>;
  /**
   * Forgets the default; with `onlyIf`, only while it is that provider (its connection is going: a default the
   * admin has meanwhile moved to the other provider stays). Answers whether a row was removed.
   */
  clear(customerId: string, capability: DefaultCapability, options?: { onlyIf?: DefaultProvider }): Promise<boolean>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Bad arguments are the caller's bug (the API validates first): a clear error here, never a database error. */
function check(customerId: string, capability: string, provider?: string): void {
  if (!UUID.test(customerId)) throw new RangeError('capability defaults: customer_id must be a UUID');
  if (!(DEFAULT_CAPABILITIES as readonly string[]).includes(capability))
    throw new RangeError(`capability defaults: unknown capability ${JSON.stringify(capability).slice(0, 40)}`);
  if (provider !== undefined && !(DEFAULT_PROVIDERS as readonly string[]).includes(provider))
    throw new RangeError(`capability defaults: unknown provider ${JSON.stringify(provider).slice(0, 40)}`);
}

interface Row {
  capability: DefaultCapability;
  provider: DefaultProvider;
  updated_at: Date | string;
}

const toDefault = (r: Row): CapabilityDefault => ({ capability: r.capability, provider: r.provider, updatedAt: new Date(r.updated_at) });
const RETURNING = 'RETURNING capability, provider, updated_at';

export function createCapabilityDefaults(db: Queryable): CapabilityDefaults {
  const get: CapabilityDefaults['get'] = async (customerId, capability) => {
    check(customerId, capability);
    const [row] = await db.query<Row>('SELECT capability, provider, updated_at FROM capability_defaults WHERE customer_id = $1 AND capability = $2', [
      customerId,
      capability,
    ]);
    return row ? toDefault(row) : null;
  };

  return {
    get,

    async list(customerId) {
      check(customerId, 'calendar');
      const rows = await db.query<Row>('SELECT capability, provider, updated_at FROM capability_defaults WHERE customer_id = $1 ORDER BY capability', [
        customerId,
      ]);
      return rows.map(toDefault);
    },

    async set(customerId, capability, provider) {
      check(customerId, capability, provider);
      // The timestamp moves only when the provider does: setting the same default again changes nothing.
      const [row] = await db.query<Row>(
        `INSERT INTO capability_defaults (customer_id, capability, provider, updated_at) VALUES ($1, $2, $3, now())
         ON CONFLICT (customer_id, capability) DO UPDATE SET provider = EXCLUDED.provider,
           updated_at = CASE WHEN capability_defaults.provider = EXCLUDED.provider THEN capability_defaults.updated_at ELSE now() END
         ${RETURNING}`,
        [customerId, capability, provider],
      );
      return toDefault(row!);
    },

    async claim(customerId, capability, provider) {
      check(customerId, capability, provider);
      const [inserted] = await db.query<Row>(
        `INSERT INTO capability_defaults (customer_id, capability, provider) VALUES ($1, $2, $3) ON CONFLICT (customer_id, capability) DO NOTHING ${RETURNING}`,
        [customerId, capability, provider],
      );
      if (inserted) return toDefault(inserted);
      // Someone holds it. A clear racing in between leaves nothing to read: claim again (bounded: one more try).
      const held = await get(customerId, capability);
      if (held) return held;
      const [retried] = await db.query<Row>(
        `INSERT INTO capability_defaults (customer_id, capability, provider) VALUES ($1, $2, $3)
         ON CONFLICT (customer_id, capability) DO UPDATE SET provider = capability_defaults.provider ${RETURNING}`,
        [customerId, capability, provider],
      );
      return toDefault(retried!);
    },

    async clear(customerId, capability, { onlyIf } = {}) {
      check(customerId, capability, onlyIf);
      const rows = await db.query(
        `DELETE FROM capability_defaults WHERE customer_id = $1 AND capability = $2 AND ($3::text IS NULL OR provider = $3::text) RETURNING capability`,
        [customerId, capability, onlyIf ?? null],
      );
      return rows.length > 0;
    },
  };
}
