import { mailboxOf } from '../graph/context';
import type { Person, World } from '../world';

/** An account as the control API shows it: who, where, and how much is in the mailbox. */
export function describePerson(world: World, p: Person) {
  const box = mailboxOf(world, p);
  const tenant = world.tenants.get(p.tenantId);
  return {
    id: p.id,
    upn: p.userPrincipalName,
    display_name: p.displayName,
    tenant: { id: p.tenantId, domain: tenant?.domain },
    time_zone: p.timeZone,
    working_hours: p.workingHours,
    calendar_sharing: {
      my_organization: p.calendarSharing.myOrganization,
      people: [...p.calendarSharing.people].map(([id, role]) => ({ address: world.people.get(id)?.userPrincipalName ?? id, role })),
    },
    disabled: p.disabled,
    admin: p.admin,
    tokens_valid_from: p.tokensValidFrom ? new Date(p.tokensValidFrom).toISOString() : null,
    events: box.events.length,
    messages: box.messages.length,
  };
}
