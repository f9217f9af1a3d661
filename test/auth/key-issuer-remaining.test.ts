// /auth/token's spent and remaining: the spend the budget compares (the current period's when the
// key has one), and the budget less that and what requests in flight hold: the admin API's figures.
import { afterEach, describe, expect, it } from 'vitest';
import { localKeyIssuer } from '../../server/auth/key-issuer.ts';
import type { LocalGovernance } from '../../server/governance/governance.ts';
import { manualClock, openGovernance, tempDbPath, usage } from '../governance/support.ts';

const SECRET = 'issuer-remaining-secret';
const opened: LocalGovernance[] = [];
afterEach(() => {
  for (const governance of opened.splice(0)) governance.close();
});

describe('the self-serve key issuer', () => {
  it('reports remaining from the current period and the reservations in flight', async () => {
    const time = manualClock(Date.parse('2026-06-01T12:00:00.000Z'));
    const governance = openGovernance(tempDbPath(), { secret: SECRET, clock: time, wall: () => time.now() });
    opened.push(governance);
    const issuer = localKeyIssuer(governance, SECRET);
    const person = {
      issuer: 'https://idp.example.com',
      subject: 'alice',
      label: 'alice@example.com',
      team: { name: 'ml', budgetMicrocents: 500_000_000n, rpm: null },
    };
    const first = await issuer.issue(person);
    expect(first).toMatchObject({ team: 'ml', budgetCents: 500, spentCents: 0, remainingCents: 500 });

    const spent = governance.admit({ id: first.keyId }, { worstCaseMicrocents: 200_000_000n, priced: true, worstCaseTokens: 0 });
    await governance.settle(spent, { costMicrocents: 150_000_001n, usage: usage(1, 1), requestId: 'r1', model: 'm', lane: 'l', estimated: false });
    governance.admit({ id: first.keyId }, { worstCaseMicrocents: 100_000_000n, priced: true, worstCaseTokens: 0 }); // in flight
    expect(await issuer.issue(person)).toMatchObject({ spentCents: 151, remainingCents: 249 }); // 500 - 150.000001 - 100, rounded down

    governance.updateKey(first.keyId, { budgetPeriod: 'daily' });
    time.set(Date.parse('2026-06-02T00:00:00.000Z'));
    expect(await issuer.issue(person)).toMatchObject({ spentCents: 0, remainingCents: 400 }); // a new day: only the reservation counts
  });
});
