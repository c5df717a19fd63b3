// A client hammering the gate (every refused proposal is kept, D-61): one deal at negotiation,
// and as many refused closes below its floor as asked, several in flight at once.
import assert from 'node:assert/strict';
import type { Answer, TestServer } from './http.ts';
import { advanceDeal, createDeal } from './marketplace-e2e.ts';

/** A deal the agent took to negotiation (list $50,000, floor $40,000): the next move is a close. */
export async function negotiatingDeal(t: TestServer): Promise<string> {
  const deal = await createDeal(t, { listValueUsd: 50_000 });
  for (let i = 0; i < 4; i++) await advanceDeal(t, deal.id);
  return deal.id;
}

/** `count` closes below the floor, `width` at a time; every one must be the gate's 422. */
export async function refuseMany(t: TestServer, dealId: string, count: number, width = 8): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const i = next++;
        const answer = await t.post(`${t.prefix}/deals/${dealId}/advance`, {
          advanceTo: 'closed_won',
          valueUsd: 1 + (i % 1000),
          note: `try ${i}`,
        });
        assert.equal(answer.status, 422, JSON.stringify(answer.body));
      }
    }),
  );
}

/** Every refused proposal a deal keeps, read a page of 1,000 at a time. */
export async function keptOf(t: TestServer, dealId: string): Promise<{ id: string }[]> {
  const kept: { id: string }[] = [];
  let path: string | undefined = `${t.prefix}/deals/${dealId}/proposals?limit=1000`;
  while (path) {
    const page: Answer<{ id: string }[]> = await t.get<{ id: string }[]>(path);
    assert.equal(page.status, 200);
    kept.push(...page.body);
    path = /<([^>]+)>; rel="next"/.exec(page.headers.get('link') ?? '')?.[1];
  }
  return kept;
}
