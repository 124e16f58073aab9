import { randomBytes } from 'node:crypto';
import type { GrantReason } from '../../src/integrations/grant-health';
import { stateAad } from '../../src/integrations/oauth-states';
import type { ExpiryReason } from '../../src/store/credential-store';
import { pendingConnectAad } from '../../src/store/key-rotation';

/**
 * The store imports no feature, so it states what its columns and seals hold itself; the features that fill
 * them state the same. These keep the two statements one.
 */

/** True only when A and B are the same type (each assignable to the other, unions compared member by member). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

describe('the store and the features agree on what they share', () => {
  it('when a grant is judged, then its reasons are exactly the ones expiry_reason may hold', () => {
    const same: Same<GrantReason, ExpiryReason> = true; // a compile error when the two lists part
    expect(same).toBe(true);
  });

  it('when key rotation re-seals a pending connect attempt, then it binds it to the state as the connect flow does', () => {
    const stateHash = randomBytes(32);
    expect(pendingConnectAad(stateHash)).toBe(stateAad(stateHash));
  });
});
