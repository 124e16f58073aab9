import { randomUUID } from 'node:crypto';
import { createCapabilityDefaults } from '../../src/store/capability-defaults';
import { drivers, openTestDb, type TestDb } from '../helpers/db';

/** Which provider answers a capability when a customer connected both, and the integration ids Microsoft adds. */

describe.each(drivers())('capability defaults on %s', (driver) => {
  let t: TestDb;
  beforeEach(async () => {
    t = await openTestDb(driver);
  });
  afterEach(() => t.drop());
  const defaults = () => createCapabilityDefaults(t.db);

  it('when nothing was set, then get answers null and list answers nothing', async () => {
    const customer = randomUUID();
    expect(await defaults().get(customer, 'mail')).toBeNull();
    expect(await defaults().list(customer)).toEqual([]);
  });

  it('when an admin sets a default, then get and list answer it, per capability and per customer only', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const set = await defaults().set(a, 'mail', 'microsoft');
    expect(set).toEqual({ capability: 'mail', provider: 'microsoft', updatedAt: expect.any(Date) });
    await defaults().set(a, 'calendar', 'google');
    await defaults().set(b, 'mail', 'google');
    expect(await defaults().get(a, 'mail')).toEqual(set);
    expect((await defaults().list(a)).map((d) => [d.capability, d.provider])).toEqual([
      ['calendar', 'google'],
      ['mail', 'microsoft'],
    ]);
    expect((await defaults().list(b)).map((d) => d.provider)).toEqual(['google']);
  });

  it('when the admin changes the default, then it replaces the old one; setting the same again keeps its time', async () => {
    const customer = randomUUID();
    await defaults().set(customer, 'calendar', 'google');
    const moved = await defaults().set(customer, 'calendar', 'microsoft');
    expect(moved.provider).toBe('microsoft');
    const again = await defaults().set(customer, 'calendar', 'microsoft');
    expect(again.updatedAt.getTime()).toBe(moved.updatedAt.getTime());
    expect(await defaults().list(customer)).toHaveLength(1);
  });

  it('when two providers are connected at once on two replicas, then the first claim wins and both answer it', async () => {
    const customer = randomUUID();
    const first = await defaults().claim(customer, 'mail', 'microsoft');
    expect(first.provider).toBe('microsoft');
    expect((await defaults().claim(customer, 'mail', 'google')).provider).toBe('microsoft');
    const other = randomUUID();
    const raced = await Promise.all([defaults().claim(other, 'calendar', 'google'), defaults().claim(other, 'calendar', 'microsoft')]);
    expect(raced[0].provider).toBe(raced[1].provider);
    expect((await defaults().get(other, 'calendar'))!.provider).toBe(raced[0].provider);
  });

  it("when a provider's connection goes, then clearing with onlyIf removes its default but never the other provider's", async () => {
    const customer = randomUUID();
    await defaults().set(customer, 'mail', 'google');
    expect(await defaults().clear(customer, 'mail', { onlyIf: 'microsoft' })).toBe(false);
    expect((await defaults().get(customer, 'mail'))!.provider).toBe('google');
    expect(await defaults().clear(customer, 'mail', { onlyIf: 'google' })).toBe(true);
    expect(await defaults().get(customer, 'mail')).toBeNull();
    await defaults().set(customer, 'mail', 'microsoft');
    expect(await defaults().clear(customer, 'mail')).toBe(true);
    expect(await defaults().clear(customer, 'mail')).toBe(false);
  });

  it('when the arguments are not a UUID, a capability or a provider, then it throws a clear error without asking the database', async () => {
    const customer = randomUUID();
    await expect(defaults().get('not-a-uuid', 'mail')).rejects.toThrow('customer_id must be a UUID');
    await expect(defaults().set(customer, 'contacts' as never, 'google')).rejects.toThrow('unknown capability "contacts"');
    await expect(defaults().claim(customer, 'mail', 'yahoo' as never)).rejects.toThrow('unknown provider "yahoo"');
    await expect(defaults().clear(customer, 'mail', { onlyIf: 'yahoo' as never })).rejects.toThrow('unknown provider');
  });

  it('when the table is written around the store, then its CHECKs refuse an unknown capability or provider', async () => {
    const insert = (capability: string, provider: string) =>
      t.db.query('INSERT INTO capability_defaults (customer_id, capability, provider) VALUES ($1, $2, $3)', [randomUUID(), capability, provider]);
    await expect(insert('contacts', 'google')).rejects.toThrow();
    await expect(insert('mail', 'yahoo')).rejects.toThrow();
    await insert('mail', 'microsoft');
  });

  it('when a connection or connect attempt names an Outlook integration, then the database accepts it; an unknown id it refuses', async () => {
    const credential = (integration: string) =>
      t.db.query(`INSERT INTO integration_credentials (customer_id, integration, status, key_id) VALUES ($1, $2, 'connected', 'k1')`, [
        randomUUID(),
        integration,
      ]);
    await credential('outlook_calendar');
    await credential('outlook_mail');
    await credential('google_gmail');
    await expect(credential('outlook_contacts')).rejects.toThrow();
    const state = (integration: string) =>
      t.db.query(
        `INSERT INTO oauth_states (state_hash, browser_hash, link_id, customer_id, integration, key_id, code_verifier_enc, expires_at)
         VALUES ($1, $1, $2, $3, $4, 'k1', $1, now())`,
        [Buffer.from(randomUUID()), randomUUID(), randomUUID(), integration],
      );
    await state('outlook_mail');
    await state('outlook_calendar');
    await expect(state('yahoo_mail')).rejects.toThrow();
  });
});
