// The bench's keys-mode rows of key policies and approvals (D-68 to D-70): a Seller with a full
// key, an agent key whose policy holds every move, and deals to hold them on; a sell through a key
// with a policy of daily limits (every sell's close written behind the key's lock, D-278).
import type autocannon from 'autocannon';
import { keyedSells } from './people.ts';
import { dealBody, inParallel, JSON_HEADERS, OPERATOR_HEADERS, PREFIX, post } from './setup.ts';

/** At most this many deals are made for the held and approved rows (each request needs its own). */
const MOST = 20_000;

const bearer = (key: string) => ({ ...JSON_HEADERS, authorization: `Bearer ${key}` });

async function seller(url: string): Promise<{ id: string; full: string }> {
  const made = await post(`${url}/sellers`, JSON.stringify({ name: 'Bench Policy Seller' }), OPERATOR_HEADERS);
  const key = await post(`${url}/keys`, JSON.stringify({ name: 'bench', principal: made.id }), OPERATOR_HEADERS);
  return { id: made.id, full: key.key };
}

async function keyWith(url: string, principal: string, policy: unknown): Promise<string> {
  const body = JSON.stringify({ name: 'bench agent', principal, policy });
  return (await post(`${url}/keys`, body, OPERATOR_HEADERS)).key;
}

/** Keyed sells through a key whose policy has every kind of limit, its daily ones never reached. */
export async function sellsThroughAPolicy(url: string): Promise<Partial<autocannon.Options>> {
  const { id } = await seller(url);
  const policy = { maxDealValueUsd: 1e9, minCloseValuePct: 0.5, closesPerDay: 1e6, closedValuePerDayUsd: 1e12 };
  return keyedSells(await keyWith(url, id, policy));
}

/** Deals of a Seller at sourced, and the agent key that holds every move on them. */
async function holding(url: string, expected: number) {
  const { id, full } = await seller(url);
  const agent = await keyWith(url, id, { allowedMoves: [] });
  const count = Math.min(expected, MOST);
  const deals = await inParallel(
    count,
    async (i) => (await post(`${url}${PREFIX}/deals`, dealBody(i), bearer(full))).id as string,
  );
  return { full, agent, deals };
}

/** One request per id, in turn, as many as there are ids. */
function eachOnce(ids: readonly string[], path: (id: string) => string, key: string): Partial<autocannon.Options> {
  let n = 0;
  return {
    amount: ids.length,
    requests: [
      {
        method: 'POST',
        headers: bearer(key),
        body: '{}',
        setupRequest: (request: any) => {
          request.path = path(ids[n++ % ids.length]);
          return request;
        },
      },
    ],
  };
}

/** An agent's advance held for approval (202), each on a deal of its own. */
export async function heldAdvances(url: string, expected: number): Promise<Partial<autocannon.Options>> {
  const { agent, deals } = await holding(url, expected);
  return eachOnce(deals, (id) => `${PREFIX}/deals/${id}/advance`, agent);
}

/** The Seller's key approving held advances, each its own approval: the move commits. */
export async function approvals(url: string, expected: number): Promise<Partial<autocannon.Options>> {
  const { full, agent, deals } = await holding(url, expected);
  const held = await inParallel(
    deals.length,
    async (i) => (await post(`${url}${PREFIX}/deals/${deals[i]}/advance`, '{}', bearer(agent))).approval.id as string,
  );
  return eachOnce(held, (id) => `/approvals/${id}/approve`, full);
}
