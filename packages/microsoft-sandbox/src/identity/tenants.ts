import type { Request } from 'express';
import type { Person, Tenant, World } from '../world';

/**
 * The `{tenant}` path segment (learn.microsoft.com/entra/identity-platform/v2-protocols#endpoints): `common`
 * (work and personal accounts), `organizations` (work accounts only), `consumers` (personal accounts only), or a
 * tenant's GUID or verified domain. The sandbox emulates work accounts only, so `consumers` signs in nobody.
 */
export type TenantPath = { kind: 'common' | 'organizations' | 'consumers' } | { kind: 'tenant'; tenant: Tenant } | { kind: 'unknown'; name: string };

export function resolveTenant(world: World, segment: string): TenantPath {
  const lower = segment.toLowerCase();
  if (lower === 'common' || lower === 'organizations' || lower === 'consumers') return { kind: lower };
  for (const t of world.tenants.values()) if (t.id === lower || t.domain.toLowerCase() === lower) return { kind: 'tenant', tenant: t };
  return { kind: 'unknown', name: segment };
}

/** Who may sign in through this authority. */
export function peopleFor(world: World, path: TenantPath): Person[] {
  const all = [...world.people.values()];
  if (path.kind === 'tenant') return all.filter((p) => p.tenantId === path.tenant.id);
  if (path.kind === 'common' || path.kind === 'organizations') return all;
  return [];
}

/** The origin the caller reached the sandbox at (a proxy's X-Forwarded-Proto honoured from loopback). */
export const baseUrlOf = (req: Request) => `${req.protocol}://${req.get('host') ?? 'localhost'}`;
