// The durable-speed rows as a deployment runs them: keys mode (AUTH=keys), each request by a
// principal's key, beside the demo's rows of the same run. A deployment on PostgreSQL runs in
// keys mode, so its goals against pgbench (goals.ts) are these rows' as much as the demo's; no
// Idempotency-Key, so that each differs from its demo row by the key check, the tenant's filters
// and the actor on every entry only (the keyed keys-mode sell is its own row).
import type autocannon from 'autocannon';
import type { Scenario } from './scenarios.ts';
import {
  BENCH_OPERATOR_KEY,
  dealBody,
  inParallel,
  JSON_HEADERS,
  newestFirst,
  OPERATOR_HEADERS,
  PREFIX,
  post,
} from './setup.ts';

export const KEYS_MODE_CREATE = `POST ${PREFIX}/deals, keys mode (a Seller's key)`;
export const KEYS_MODE_PLAIN_SELL = `POST ${PREFIX}/sell, keys mode (a Seller's key)`;
export const KEYS_MODE_CLAIM = "POST /closers/gigs/{id}/claim, keys mode (a closer's key)";

/** Each keys-mode row's demo row: the same request with AUTH=demo. */
export const DEMO_ROW_OF: Record<string, string> = {
  [KEYS_MODE_CREATE]: `POST ${PREFIX}/deals`,
  [KEYS_MODE_PLAIN_SELL]: `POST ${PREFIX}/sell`,
  [KEYS_MODE_CLAIM]: 'POST /closers/gigs/{id}/claim',
};

// DEMO_CONTROLS=on: the measurement starts from a reset (D-3: keys mode has none otherwise).
const KEYS_ENV = { AUTH: 'keys', OPERATOR_KEY: BENCH_OPERATOR_KEY, DEMO_CONTROLS: 'on' };

const bearer = (key: string) => ({ ...JSON_HEADERS, authorization: `Bearer ${key}` });

/** A principal's full key, made by the operator. */
async function keyOf(url: string, principal: string): Promise<string> {
  const key = await post(`${url}/keys`, JSON.stringify({ name: 'bench', principal }), OPERATOR_HEADERS);
  return key.key as string;
}

/** A Seller made by the operator, and its full key. */
async function sellerKey(url: string): Promise<string> {
  const seller = await post(`${url}/sellers`, JSON.stringify({ name: 'Bench Seller' }), OPERATOR_HEADERS);
  return keyOf(url, seller.id);
}

/**
 * One open gig per claim, sold by a Seller's key (a deal whose closer role calls for a human
 * escalates at meeting), and a closer enrolled by the operator with its own key, which claims
 * each in turn as itself (D-55: the body may leave `closerId` out).
 */
async function closerClaims(url: string, expected: number): Promise<Partial<autocannon.Options>> {
  const seller = bearer(await sellerKey(url));
  const mandate = { staffing: { closer: 'human' } };
  const gigs: string[] = await inParallel(
    expected,
    async (i) => (await post(`${url}${PREFIX}/sell`, dealBody(i, mandate), seller)).gig.id,
  );
  const closer = await post(
    `${url}/closers/closers`,
    JSON.stringify({ name: 'Bench Closer', industries: ['saas'] }),
    OPERATOR_HEADERS,
  );
  const headers = bearer(await keyOf(url, closer.id));
  let n = 0;
  return {
    // Never more claims than open gigs (a second claim of a gig is a 409), however fast.
    amount: gigs.length,
    requests: [
      {
        method: 'POST',
        headers,
        body: '{}',
        setupRequest: (request: autocannon.Request) => {
          request.path = `/closers/gigs/${newestFirst(gigs, n++)}/claim`;
          return request;
        },
      },
    ],
  };
}

export const KEYS_MODE_ROWS: Scenario[] = [
  {
    name: KEYS_MODE_CREATE,
    env: KEYS_ENV,
    prepare: async (url) => ({
      requests: [{ method: 'POST', path: `${PREFIX}/deals`, headers: bearer(await sellerKey(url)), body: dealBody(1) }],
    }),
  },
  {
    name: KEYS_MODE_PLAIN_SELL,
    env: KEYS_ENV,
    prepare: async (url) => ({
      requests: [{ method: 'POST', path: `${PREFIX}/sell`, headers: bearer(await sellerKey(url)), body: dealBody(2) }],
    }),
  },
  { name: KEYS_MODE_CLAIM, env: KEYS_ENV, prepare: closerClaims },
];
