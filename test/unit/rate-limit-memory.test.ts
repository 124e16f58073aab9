import { createMemoryLimits } from '../../src/protection/rate-limit-memory';

const LIMITS = { customerPoints: 10, agentPoints: 4, agentsPerCustomer: 2, windowMs: 60_000 };

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('in-memory rate-limit windows', () => {
  it('when a window ends, then the agent, the customer and the set of agents start over', () => {
    const c = clock();
    const limits = createMemoryLimits(LIMITS, c.now);
    expect(limits.charge('cust', 'a', 4)).toEqual({ ok: true });
    expect(limits.charge('cust', 'b', 1)).toEqual({ ok: true });
    c.advance(20_000);
    expect(limits.charge('cust', 'a', 1)).toEqual({ ok: false, scope: 'agent', limit: 4, remaining: 0, msBeforeNext: 40_000 });
    expect(limits.charge('cust', 'c', 1)).toMatchObject({ ok: false, scope: 'distinct_agents', remaining: 0, msBeforeNext: 40_000 });
    c.advance(40_000);
    expect(limits.charge('cust', 'a', 4)).toEqual({ ok: true });
    expect(limits.charge('cust', 'c', 1)).toEqual({ ok: true });
  });

  it('when a charge is refused, then nothing of it is counted', () => {
    const limits = createMemoryLimits({ ...LIMITS, customerPoints: 6 }, clock().now);
    expect(limits.charge('cust', 'a', 3)).toEqual({ ok: true });
    expect(limits.charge('cust', 'a', 5)).toMatchObject({ ok: false, scope: 'agent', remaining: 1 });
    expect(limits.charge('cust', 'a', 1)).toEqual({ ok: true }); // the refused 5 points were not taken
    expect(limits.charge('cust', 'b', 3)).toMatchObject({ ok: false, scope: 'customer', limit: 6, remaining: 2 });
    expect(limits.charge('cust', 'b', 2)).toEqual({ ok: true });
  });

  it('when a customer is over its limit, then its known agents are refused with scope customer, and a new agent is not admitted', () => {
    const limits = createMemoryLimits({ ...LIMITS, customerPoints: 2, agentsPerCustomer: 3 }, clock().now);
    expect(limits.charge('cust', 'a', 2)).toEqual({ ok: true });
    expect(limits.charge('cust', 'b', 1)).toMatchObject({ ok: false, scope: 'customer' });
    expect(limits.charge('cust', 'c', 1)).toMatchObject({ ok: false, scope: 'customer' });
    expect(limits.charge('cust', 'd', 1)).toMatchObject({ ok: false, scope: 'customer' }); // b and c were never admitted
  });
});
