// The scenarios of `npm run bench`, in the order they run: each names its request, the data it
// prepares first, and what else it needs (a reference server, an environment, a load beside it).
// A scenario's name is its key in the figures, the goals (bench/goals.ts) and the costs.
import type autocannon from 'autocannon';
import { INSIGHT_DEALS, insightReads } from './insights.ts';
import { KEYS_MODE_ROWS } from './keys-mode.ts';
import { HUMAN_CLOSE, humanCloses, STATEMENT_TRANSFERS, statementReads } from './ledger.ts';
import { benchPerson, keyedSells, PEOPLE_ENV, sellerKey, signIn, signInFlood } from './people.ts';
import { approvals, heldAdvances, sellsThroughAPolicy } from './policies.ts';
import {
  advances,
  BENCH_OPERATOR_KEY,
  dealBody,
  dryRunCloses,
  inParallel,
  JSON_HEADERS,
  newestFirst,
  OPERATOR_HEADERS,
  one,
  PREFIX,
  post,
  refusedCloses,
  streamClients,
} from './setup.ts';

/** The refused proposal's row (D-61), which the costs compare with the accepted advance. */
export const REFUSED_CLOSE = `POST ${PREFIX}/deals/{id}/advance (a close below the floor, refused)`;

export interface Scenario {
  name: string;
  /** Work done before measuring; returns the autocannon request options. */
  prepare(url: string, expected: number): Promise<Partial<autocannon.Options>>;
  /**
   * Measured against bench/reference-server.ts instead of the service: bare Fastify that parses
   * and validates the body and stringifies what the service answered to this path; no gate.
   */
  reference?: string;
  /**
   * Measured against bench/reference-stream-server.ts: bare node:http answering a sell with the
   * service's bytes and writing one sell's stream bytes to every stream client.
   */
  referenceStream?: boolean;
  /** The status every answer must have, where it is not a 2xx (a refusal's). */
  expectedStatus?: number;
  /** Extra environment of the service for this scenario (e.g. the request log on). */
  env?: Record<string, string>;
  /** The connections of its load, where not the run's (--connections). */
  connections?: number;
  /** Measured on this store only (its data is made in that store's own way). */
  only?: 'postgres';
  /**
   * How the warm-up gets its requests (measure.ts): `prepare` again, by default, so that what the
   * warm-up used up (deals advanced, gigs claimed) is made anew for the measured run; `reuse`: the
   * measured requests themselves, for a read whose data is costly to make and is not used up.
   */
  warmup?: 'reuse';
  /** A load that runs alongside the measured requests (started after prepare); stop() reports on it. */
  alongside?(url: string): Promise<{ stop(): Promise<string> }>;
}

export const STREAM_CLIENTS = 100;
/** Bare node:http writing a sell's answer and its stream bytes to the same readers. */
export const STREAM_FLOOR = `POST ceiling: node:http answering a sell and writing its events to ${STREAM_CLIENTS} SSE clients`;

/** The machine's ceiling for a POST whose answer is what `path` answers. */
export const ceiling = (path: string, answer: string): Scenario => ({
  name: `POST ceiling: parse, validate, stringify ${answer}`,
  reference: path,
  prepare: async () => one({ method: 'POST', path: '/reference', headers: JSON_HEADERS, body: dealBody(1) }),
});

export const HEALTH = 'GET /health';
/** D-73: the insights the bench reads. */
const INSIGHT_PATHS = [
  '/insights/pipeline',
  '/insights/funnel',
  '/insights/velocity',
  '/insights/performance?by=executor',
  '/insights/performance?by=key',
  '/insights/marketplace',
  '/insights/money',
];
export const PASSWORD_SIGN_IN = "POST /console/session, a person's password (Argon2id), keys mode";
export const SELL_BESIDE_SIGN_INS = `POST ${PREFIX}/sell with Idempotency-Key, keys mode, beside a flood of password sign-ins`;
/** The person whose sign-ins flood the service beside the sells. */
let flooder = '';
export const KEYS_MODE_SELL = `POST ${PREFIX}/sell with Idempotency-Key, keys mode (a Seller's key)`;
export const POLICY_SELL = `POST ${PREFIX}/sell with Idempotency-Key, keys mode, a key with a policy (daily limits)`;
export const HELD_ADVANCE = `POST ${PREFIX}/deals/{id}/advance, keys mode, held for approval (202)`;
export const APPROVAL = 'POST /approvals/{id}/approve, keys mode (the move commits)';
export const STREAMS_OF_ONE_SELLER = `POST ${PREFIX}/sell, keys mode, ${STREAM_CLIENTS} SSE clients of its Seller`;
export const STREAMS_OF_TEN_SELLERS = `POST ${PREFIX}/sell by 10 Sellers, keys mode, ${STREAM_CLIENTS} SSE clients (10 each)`;

/** Keys mode: `count` Sellers, each with a full key; the keys. */
async function sellerKeys(url: string, count: number): Promise<string[]> {
  return inParallel(count, async (i) => {
    const seller = await post(`${url}/sellers`, JSON.stringify({ name: `Bench Seller ${i}` }), OPERATOR_HEADERS);
    const key = await post(`${url}/keys`, JSON.stringify({ name: 'bench', principal: seller.id }), OPERATOR_HEADERS);
    return key.key as string;
  });
}

/** Sells by these Sellers' keys in turn. */
const sellsBy = (keys: readonly string[]): Partial<autocannon.Options> => ({
  requests: keys.map((key) => ({
    method: 'POST',
    path: `${PREFIX}/sell`,
    headers: { ...JSON_HEADERS, authorization: `Bearer ${key}` },
    body: dealBody(2),
  })),
});

/**
 * The live stream in keys mode (D-58), each client seeing only its Seller's events. The
 * same 100 clients, of one Seller that sells, or 10 of each of 10 Sellers that sell in turn: a
 * principal's view must cost no more per sell than one view for all (costs.streamsOfTenToOne).
 */
function keyedStreams(name: string, sellers: number): Scenario {
  let keys: string[] = [];
  return {
    name,
    // DEMO_CONTROLS=on: the measurement starts from a reset (D-3: keys mode has none otherwise).
    env: {
      AUTH: 'keys',
      OPERATOR_KEY: BENCH_OPERATOR_KEY,
      DEMO_CONTROLS: 'on',
      STREAMS_PER_CLIENT: String(STREAM_CLIENTS),
    },
    prepare: async (url) => {
      keys = await sellerKeys(url, sellers);
      return sellsBy(keys);
    },
    alongside: (url) => streamClients(url, STREAM_CLIENTS, keys),
  };
}

export const SCENARIOS: Scenario[] = [
  { name: HEALTH, prepare: async () => one({ method: 'GET', path: '/health' }) },
  {
    name: `GET ${PREFIX}/deals/{id}`,
    prepare: async (url) => {
      const deal = await post(`${url}${PREFIX}/deals`, dealBody(0));
      return one({ method: 'GET', path: `${PREFIX}/deals/${deal.id}` });
    },
  },
  {
    name: `POST ${PREFIX}/deals`,
    prepare: async () => one({ method: 'POST', path: `${PREFIX}/deals`, headers: JSON_HEADERS, body: dealBody(1) }),
  },
  ceiling(`${PREFIX}/deals`, "a created deal's bytes"),
  {
    name: `POST ${PREFIX}/deals/{id}/advance`,
    prepare: (url, expected) => advances(url, expected, false),
  },
  {
    // The same advances, each naming the version it expects (If-Match, D-47); goal:
    // at least 0.95 of the plain advance row (costs.ifMatchAdvanceToAdvance).
    name: `POST ${PREFIX}/deals/{id}/advance with If-Match`,
    prepare: (url, expected) => advances(url, expected, true),
  },
  {
    name: `POST ${PREFIX}/sell`,
    prepare: async () => one({ method: 'POST', path: `${PREFIX}/sell`, headers: JSON_HEADERS, body: dealBody(2) }),
  },
  // Right after the row it is the ceiling of, as the create's is: this machine's speed moves by half
  // within minutes, and the sell's ratio to it read 0.61 with the ceiling measured four minutes later.
  ceiling(`${PREFIX}/sell`, "a sold deal's bytes"),
  {
    // Every request a new key (a first attempt, not a replay): what a client that always sends a
    // key pays. autocannon writes a fresh id into each request ([<id>]); so that the client does
    // the same work in both, the twin row sends the same id in a header the service ignores, and
    // the cost is the ratio of the two (goal: at least 0.85).
    name: `POST ${PREFIX}/sell with Idempotency-Key`,
    prepare: async () => ({
      idReplacement: true,
      requests: [
        {
          method: 'POST',
          path: `${PREFIX}/sell`,
          headers: { ...JSON_HEADERS, 'idempotency-key': 'bench-[<id>]' },
          body: dealBody(2),
        },
      ],
    }),
  },
  {
    // The same keyed sell in keys mode (AUTH=keys), by a Seller's key: what the key
    // check, the tenant's filters and the actor on every entry cost. Goal: at most 5% more than
    // the keyed sell above (costs.keysModeSellToKeyedSell ≥ 0.95).
    name: KEYS_MODE_SELL,
    // DEMO_CONTROLS=on: the measurement starts from a reset (D-3: keys mode has none otherwise).
    env: { AUTH: 'keys', OPERATOR_KEY: BENCH_OPERATOR_KEY, DEMO_CONTROLS: 'on' },
    prepare: async (url) => {
      const seller = await post(`${url}/sellers`, JSON.stringify({ name: 'Bench Seller' }), OPERATOR_HEADERS);
      const key = await post(`${url}/keys`, JSON.stringify({ name: 'bench', principal: seller.id }), OPERATOR_HEADERS);
      return {
        idReplacement: true,
        requests: [
          {
            method: 'POST',
            path: `${PREFIX}/sell`,
            headers: { ...JSON_HEADERS, authorization: `Bearer ${key.key}`, 'idempotency-key': 'bench-[<id>]' },
            body: dealBody(2),
          },
        ],
      };
    },
  },
  {
    // D-68: the same keyed sell through a key whose policy has daily limits, so that each sell's
    // close is written behind the key's lock, within the day's limits (D-278). Goal: within 10% of
    // the row above (costs.policySellToKeysSell ≥ 0.9).
    name: POLICY_SELL,
    env: { AUTH: 'keys', OPERATOR_KEY: BENCH_OPERATOR_KEY, DEMO_CONTROLS: 'on' },
    prepare: (url) => sellsThroughAPolicy(url),
  },
  {
    // D-69: an agent's advance over its policy, held: an approval recorded and its event.
    name: HELD_ADVANCE,
    env: { AUTH: 'keys', OPERATOR_KEY: BENCH_OPERATOR_KEY, DEMO_CONTROLS: 'on' },
    expectedStatus: 202,
    prepare: (url, expected) => heldAdvances(url, expected),
  },
  {
    // D-70: the last approval of a held advance: the proposal runs again and commits.
    name: APPROVAL,
    env: { AUTH: 'keys', OPERATOR_KEY: BENCH_OPERATOR_KEY, DEMO_CONTROLS: 'on' },
    prepare: (url, expected) => approvals(url, expected),
  },
  ...INSIGHT_PATHS.map(
    (path): Scenario => ({
      // D-73: each insight of a Seller with 100,000 deals; goal p95 ≤ 300 ms.
      name: `GET ${path}, keys mode, ${INSIGHT_DEALS.toLocaleString('en-US')} deals of the Seller`,
      env: { AUTH: 'keys', OPERATOR_KEY: BENCH_OPERATOR_KEY, DEMO_CONTROLS: 'on' },
      connections: 2,
      only: 'postgres',
      warmup: 'reuse',
      prepare: (url) => insightReads(url, path),
    }),
  ),
  {
    // D-82: a closer's statement of a month holding 10,000 of its transfers; goal p95 ≤ 300 ms.
    name: `GET /closers/closers/{id}/statement, keys mode, ${STATEMENT_TRANSFERS.toLocaleString('en-US')} transfers in the month`,
    env: { AUTH: 'keys', OPERATOR_KEY: BENCH_OPERATOR_KEY, DEMO_CONTROLS: 'on' },
    connections: 2,
    only: 'postgres',
    warmup: 'reuse',
    prepare: (url) => statementReads(url),
  },
  keyedStreams(STREAMS_OF_ONE_SELLER, 1),
  keyedStreams(STREAMS_OF_TEN_SELLERS, 10),
  {
    name: `POST ${PREFIX}/sell with an unused id header`,
    prepare: async () => ({
      idReplacement: true,
      requests: [
        {
          method: 'POST',
          path: `${PREFIX}/sell`,
          headers: { ...JSON_HEADERS, 'x-bench-id': 'bench-[<id>]' },
          body: dealBody(2),
        },
      ],
    }),
  },
  {
    // 100 clients on the event stream, each reading every event, must not slow the
    // sell by more than 10% (ratio to the plain sell row above, in `costs`).
    name: `POST ${PREFIX}/sell, ${STREAM_CLIENTS} SSE clients connected`,
    // The clients share one address: each may hold a stream (D-238).
    env: { STREAMS_PER_CLIENT: String(STREAM_CLIENTS) },
    prepare: async () => one({ method: 'POST', path: `${PREFIX}/sell`, headers: JSON_HEADERS, body: dealBody(2) }),
    alongside: (url) => streamClients(url, STREAM_CLIENTS),
  },
  {
    // The floor of the row above, measured with the same readers: a sell with 100
    // stream clients costs the service at most 1.5 times what bare node:http spends on it.
    name: STREAM_FLOOR,
    env: { STREAMS_PER_CLIENT: String(STREAM_CLIENTS) },
    referenceStream: true,
    prepare: async () => one({ method: 'POST', path: `${PREFIX}/sell`, headers: JSON_HEADERS, body: dealBody(2) }),
    alongside: (url) => streamClients(url, STREAM_CLIENTS),
  },
  {
    // The one-line request log of `npm start` (LOG_LEVEL=info), written to /dev/null: its own
    // cost, beside the plain sell (measured with the log at warn, as every other row).
    name: `POST ${PREFIX}/sell, request log on`,
    env: { LOG_LEVEL: 'info', BENCH_STDOUT: 'ignore' },
    prepare: async () => one({ method: 'POST', path: `${PREFIX}/sell`, headers: JSON_HEADERS, body: dealBody(2) }),
  },
  {
    name: 'POST /closers/gigs/{id}/claim',
    prepare: async (url, expected) => {
      // One open gig per claim: deals whose closer role calls for a human escalate at meeting.
      const mandate = { staffing: { closer: 'human' } };
      const gigs = await inParallel(
        expected,
        async (i) => (await post(`${url}${PREFIX}/sell`, dealBody(i, mandate))).gig.id,
      );
      let n = 0;
      return {
        // Never more claims than open gigs (a second claim of a gig is a 409), however fast.
        amount: gigs.length,
        requests: [
          {
            method: 'POST',
            headers: JSON_HEADERS,
            body: JSON.stringify({ closerId: 'closer_0001' }),
            setupRequest: (request: any) => {
              request.path = `/closers/gigs/${newestFirst(gigs, n++)}/claim`;
              return request;
            },
          },
        ],
      };
    },
  },
  // The create, the sell and the claim again, each by a principal's key in keys mode (keys-mode.ts).
  ...KEYS_MODE_ROWS,
  {
    // D-79: a closer's close won, the unit that books a settlement's commission and platform fee
    // (and the payouts line): each measured request closes a claimed gig at negotiation.
    name: HUMAN_CLOSE,
    prepare: (url, expected) => humanCloses(url, expected),
  },
  {
    // Last of the demo rows, so that the rows before it run as they did before it existed.
    name: `POST ${PREFIX}/deals/{id}/advance?dryRun=true (a close)`,
    prepare: (url) => dryRunCloses(url),
  },
  {
    // A close below the floor, refused and kept on the record (D-61); its ratio to the
    // accepted advance is printed (goal: at least 0.5, a refusal costing at most twice a move).
    name: REFUSED_CLOSE,
    expectedStatus: 422,
    prepare: (url) => refusedCloses(url),
  },
  {
    name: 'GET /deals?stage=negotiation (ROOT)',
    prepare: async () => one({ method: 'GET', path: '/deals?stage=negotiation' }),
  },
  {
    // A person signs in with a password (D-63): one Argon2id verification each, slow by design.
    name: PASSWORD_SIGN_IN,
    env: PEOPLE_ENV,
    prepare: async (url) => one(signIn(await benchPerson(url))),
  },
  {
    // The keys-mode keyed sell again, beside a flood of sign-ins: costs.sellBesideSignInsToKeysSell
    // is its ratio to KEYS_MODE_SELL of the same run (the hashes must not take every core).
    name: SELL_BESIDE_SIGN_INS,
    env: PEOPLE_ENV,
    prepare: async (url) => {
      flooder = await benchPerson(url);
      return keyedSells(await sellerKey(url));
    },
    alongside: async (url) => signInFlood(url, flooder),
  },
];
