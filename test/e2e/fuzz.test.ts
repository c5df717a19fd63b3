// An OpenAPI-driven fuzzer: for every operation of the served contract, requests built from its
// schemas and mutations of them (wrong types, huge and tiny numbers, unicode, control characters,
// prototype keys, deep nesting, oversized and non-JSON bodies, odd path ids, odd query parameters
// and headers, wrong methods). Every answer must come within 5 s, never be a 5xx, be documented by
// the contract with its schema, and every error must be in the catalogue's shape with a code
// from the catalogue; afterwards `audit` finds every invariant holding. Seeded: FUZZ_SEED
// reproduces a run, FUZZ_CASES sets cases per operation, FUZZ_SECONDS the run's time budget
// (random operations after every operation's cases), both split between the two runs:
//
// The demo's run, as the specification's demo serves it, and keys mode's (D-50..D-57): a
// server with OPERATOR_KEY, two Sellers and two closers made through the API with their keys,
// and every generated request sent with a random one of: no Authorization, a malformed one, a
// wrong key, a revoked key, or a valid key of a random principal. There, besides the above, a
// 401 or 403 carries the WWW-Authenticate D-55 gives it, a request without a valid key never
// reaches an operation that asks for one, and no successful answer to a Seller's key names
// another Seller or one of its deals (learned from that Seller's own creates).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { auditDeployment } from '../../src/audit/audit.ts';
import { exampleOf } from '../../src/http/contract.ts';
import { seededRandom as random } from '../../src/sim/random.ts';
import { ERRORS } from '../../src/views/errors.ts';
import { checkAgainstContract } from '../support/contract-check.ts';
import { startTestServer, type TestServer } from '../support/http.ts';
import { dealBody, HUMAN_CLOSER } from '../support/marketplace-e2e.ts';

type Json = Record<string, any>;

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
/** Cases per operation, half in each mode's run. */
const CASES = Number(process.env.FUZZ_CASES ?? 24);
/** The whole time budget, half for each mode: past the cases of every operation, random operations until it is spent. */
const SECONDS = Number(process.env.FUZZ_SECONDS ?? 5);
/** The operator's first key in keys mode: 48 visible characters. */
const OPERATOR_KEY = 'fuzz-operator/0123456789-ABCDEFGHIJKLMNOPQRSTUVWX';
const REALM = 'Bearer realm="sales-pipeline"';

const ODD_VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1e308,
  -1e308,
  5e-324,
  0.001,
  2 ** 53 + 1,
  '',
  ' ',
  'x'.repeat(5000),
  '\u0000',
  '\u0007bell\r\n',
  'ünïcødé ✓ 🚀',
  '\ud800',
  [],
  [1, 'two', null],
  {},
  { __proto__: { polluted: true } },
  { constructor: { prototype: { polluted: true } } },
  '1e400',
  'NaN',
  '<script>alert(1)</script>',
];

const ODD_IDS = [
  'deal_0001',
  'gig_0001',
  'closer_0001',
  'deal_9999999999999999999999',
  'x'.repeat(70),
  'x'.repeat(120),
  'y'.repeat(3000),
  '%00',
  'deal_%00',
  '%zz',
  '%E0%A4%A',
  '%0d%0aSet-Cookie:%20x',
  '..%2F..%2Fetc%2Fpasswd',
  encodeURIComponent('ünï 🚀'),
  '__proto__',
  '-1',
];

/** encodeURIComponent, with a lone surrogate (which it refuses) sent as its raw UTF-8 bytes' escape. */
function encode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
}

/** JSON nested `depth` deep, written as text (the client could not stringify it). */
function deep(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** A principal of keys mode's run, with the key its requests carry. */
interface Principal {
  id: string;
  kind: 'operator' | 'seller' | 'closer';
  key: string;
}

/** Keys mode's cast, made through the API with the operator's key. */
interface Keys {
  principals: Principal[];
  /** A key that was revoked (a Seller's). */
  revoked: string;
  /** Each Seller's deal ids, learned from its own creates. */
  deals: Map<string, Set<string>>;
  /** Ids of the records made in the setup, for paths (another tenant's among them). */
  ids: string[];
  /** The Seller owning each setup record that has one (its deals and gigs, and itself). */
  owners: Map<string, string>;
}

for (const mode of ['demo', 'keys'] as const) {
  describe(`fuzzing every operation of the contract (${mode === 'demo' ? 'the demo' : 'keys mode'})`, () => {
    fuzz(mode);
  });
}

function fuzz(mode: 'demo' | 'keys') {
  let t: TestServer;
  let contract: Json;
  let sent = 0;
  let keys: Keys | undefined;
  /** Keys mode: the principal every request is sent as for a while (the cross-tenant reads). */
  let forced: Principal | undefined;
  const tally = { unauthenticated: 0, invalidKey: 0, insufficientScope: 0, sellerAnswers: 0, crossTenant: 0 };
  const rand = random(mode === 'demo' ? SEED : SEED + 1);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)];
  const cases = Math.max(1, Math.round(CASES / 2));
  const seconds = SECONDS / 2;

  before(async () => {
    t =
      mode === 'demo'
        ? await startTestServer()
        : await startTestServer({ config: { auth: 'keys', operatorKey: OPERATOR_KEY } });
    contract = (await t.get('/openapi.json')).body;
    if (mode === 'demo') {
      // Some records, so that valid ids reach deeper code: a deal escalated to a human closer.
      await t.post('/pipeline/sell', dealBody({ mandate: HUMAN_CLOSER, listValueUsd: 150_000 }));
      await t.post('/pipeline/deals', dealBody());
    } else {
      keys = await castOf(t);
    }
  });
  after(() => t.close());

  /** A mutation of a valid body (or the body itself). */
  function mutate(body: unknown): { text: string | undefined; type: string | undefined } {
    const json = (value: unknown) => ({ text: JSON.stringify(value), type: 'application/json' });
    const roll = rand();
    if (roll < 0.25) return json(body);
    if (body && typeof body === 'object' && !Array.isArray(body) && roll < 0.6) {
      const copy: Json = structuredClone(body as Json);
      const keys = Object.keys(copy);
      const key =
        keys.length > 0 && rand() < 0.8 ? pick(keys) : pick(['__proto__', 'constructor', 'extra', 'prototype']);
      if (rand() < 0.2) delete copy[key];
      else copy[key] = pick(ODD_VALUES);
      return json(copy);
    }
    return pick([
      () => json(pick(ODD_VALUES)),
      () => ({ text: deep(1 + Math.floor(rand() * 20_000)), type: 'application/json' }),
      () => ({ text: '{"unterminated": ', type: 'application/json' }),
      () => ({ text: JSON.stringify({ pad: 'p'.repeat(70 * 1024) }), type: 'application/json' }),
      () => ({ text: JSON.stringify(body), type: 'text/plain' }),
      () => ({ text: 'a=1&b=2', type: 'application/x-www-form-urlencoded' }),
      () => ({ text: '', type: 'application/json' }),
      () => ({ text: undefined, type: undefined }),
      () => ({ text: '\u0000', type: 'application/json' }),
    ])();
  }

  function concretePath(template: string): string {
    // Keys mode: half the time an id of the setup's records (another tenant's, as often as not).
    return template.replace(/\{[^}]+\}/g, () => (keys && rand() < 0.5 ? pick(keys.ids) : pick(ODD_IDS)));
  }

  function query(op: Json): string {
    const params = (op.parameters ?? []).filter((p: Json) => p.in === 'query');
    const parts: string[] = [];
    for (const p of params) {
      if (rand() < 0.5) continue;
      const value = rand() < 0.5 ? exampleOf(p.schema, contract.components.schemas) : pick(ODD_VALUES);
      parts.push(`${encodeURIComponent(p.name)}=${encode(String(value))}`);
      if (rand() < 0.1) parts.push(`${encodeURIComponent(p.name)}=again`);
    }
    if (rand() < 0.15) parts.push(`unknown_${Math.floor(rand() * 100)}=1`);
    if (rand() < 0.05) parts.push('%zz=%zz');
    return parts.length > 0 ? `?${parts.join('&')}` : '';
  }

  /**
   * Keys mode: the credential a request carries, chosen at random: none, a malformed one, a
   * wrong key, a revoked key, or a valid key of a random principal.
   */
  function credential(): { headers: Json; as?: Principal; valid: boolean } {
    const cast = keys as Keys;
    if (forced) return { headers: { authorization: `Bearer ${forced.key}` }, as: forced, valid: true };
    const roll = rand();
    if (roll < 0.1) return { headers: {}, valid: false };
    if (roll < 0.2) {
      const malformed = pick([
        'Basic b3BlcmF0b3I6c2VjcmV0',
        'Bearer',
        'Bearer ',
        `Token ${cast.principals[1].key}`,
        `${cast.principals[1].key}`,
        'Bearer a b c',
        `Bearer ${cast.principals[1].key} extra`,
        'Digest username="x"',
      ]);
      return { headers: { authorization: malformed }, valid: false };
    }
    // Few wrong keys: the key ring looks an unknown key up at most every 250 ms (D-52), so each
    // may wait that long; a revoked key is known and refused at once.
    if (roll < 0.23) return { headers: { authorization: `Bearer ${pick(WRONG_KEYS)}` }, valid: false };
    if (roll < 0.3) return { headers: { authorization: `Bearer ${cast.revoked}` }, valid: false };
    // Sellers most often: theirs are the answers held to a tenant.
    const sellers = cast.principals.filter((p) => p.kind === 'seller');
    const who = rand() < 0.5 ? pick(sellers) : pick(cast.principals);
    return { headers: { authorization: `Bearer ${who.key}` }, as: who, valid: true };
  }

  async function send(
    method: string,
    path: string,
    body: { text?: string; type?: string },
    headers: Json = {},
    op?: Json,
  ) {
    const credentials = keys ? credential() : undefined;
    const response = await fetch(t.url + path, {
      method,
      body: body.text,
      headers: { ...(body.type ? { 'content-type': body.type } : {}), ...headers, ...credentials?.headers },
      signal: AbortSignal.timeout(5000),
    });
    if (response.status === 200 && response.headers.get('content-type')?.startsWith('text/event-stream')) {
      // The event stream never ends by itself: its head is the answer; the stream's own tests read it.
      await response.body?.cancel();
      sent++;
      await checkAgainstContract(t.url, method, path, response.status, response.headers.get('content-type'), '');
      return;
    }
    const text = await response.text();
    sent++;
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    const where = `${method} ${path.slice(0, 200)}${credentials?.as ? ` as ${credentials.as.id}` : ''} (seed ${SEED}, ${mode})`;
    assert.ok(response.status < 500, `${where} answered ${response.status}: ${text.slice(0, 300)}`);
    await checkAgainstContract(t.url, method, path, response.status, response.headers.get('content-type'), parsed);
    const envelope = ['EMPTY', 'BLOCKED', 'OFFER'].includes((parsed as Json)?.type); // ROOT answers envelopes
    if (response.status >= 400 && !path.split('?')[0].endsWith('/mcp') && !envelope) {
      const error = parsed as Json;
      assert.equal(typeof error?.error, 'string', `${where}: an error says what went wrong`);
      assert.ok(error.code in ERRORS, `${where}: ${error.code} is in the catalogue`);
    }
    if (credentials) heldToKeys(where, path, response, parsed, text, credentials, op);
  }

  /** Keys mode's own checks of an answer (D-54, D-55). */
  function heldToKeys(
    where: string,
    path: string,
    response: Response,
    parsed: unknown,
    text: string,
    credentials: ReturnType<typeof credential>,
    op: Json | undefined,
  ) {
    const cast = keys as Keys;
    const status = response.status;
    const challenge = response.headers.get('www-authenticate');
    const code = (parsed as Json)?.code;
    const mcp = path.split('?')[0] === '/demo/mcp';
    if (status === 401) {
      if (code === 'INVALID_KEY') tally.invalidKey++;
      else tally.unauthenticated++;
      if (mcp) {
        // The MCP door also names the protected resource's metadata (D-58, D-224).
        assert.match(
          challenge ?? '',
          /^Bearer realm="sales-pipeline"(, error="invalid_token")?, resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource"$/,
          `${where}: 401 with ${challenge}`,
        );
      } else if (code === 'INVALID_KEY') {
        assert.equal(challenge, `${REALM}, error="invalid_token"`, `${where}: 401 INVALID_KEY with ${challenge}`);
      } else {
        assert.equal(code, 'UNAUTHENTICATED', `${where}: 401 ${code}`);
        assert.equal(challenge, REALM, `${where}: 401 UNAUTHENTICATED with ${challenge}`);
      }
      // The console's session routes take their credential from the body or the cookie, never
      // from Authorization (D-234): a wrong key in the body is 401 whatever the header holds.
      const session = path.split('?')[0].startsWith('/console/session');
      assert.ok(!credentials.valid || session, `${where}: a valid key was refused: ${text.slice(0, 200)}`);
    } else if (status === 403 && code === 'INSUFFICIENT_SCOPE') {
      tally.insufficientScope++;
      const scope = (parsed as Json).requiredScope;
      assert.equal(
        challenge,
        `${REALM}, error="insufficient_scope", scope="${scope}"`,
        `${where}: 403 INSUFFICIENT_SCOPE with ${challenge}`,
      );
      assert.ok(credentials.valid, `${where}: no valid key, yet 403 INSUFFICIENT_SCOPE`);
    } else {
      assert.equal(challenge, null, `${where}: ${status} ${code ?? ''} with WWW-Authenticate ${challenge}`);
    }
    // An operation that asks for a key is never served without a valid one.
    if (secured(op) && !credentials.valid && status < 400)
      assert.fail(`${where}: answered ${status} without a valid key: ${text.slice(0, 200)}`);
    // The keyless surfaces (ROOT's sandbox, the contract, the docs) answer the same to anyone.
    if (status >= 300 || !secured(op) || credentials.as?.kind !== 'seller') return;
    // No cross-tenant answer: a Seller's successful answer names no other Seller, nor its deals.
    const me = credentials.as;
    tally.sellerAnswers++;
    for (const other of cast.principals.filter((p) => p.kind === 'seller' && p.id !== me.id)) {
      assert.ok(!mentions(text, other.id), `${where}: the answer names ${other.id}: ${text.slice(0, 300)}`);
      for (const dealId of cast.deals.get(other.id) ?? [])
        assert.ok(!mentions(text, dealId), `${where}: the answer names ${other.id}'s ${dealId}: ${text.slice(0, 300)}`);
    }
    // What a Seller made is its own (a dry run's ids are only what would be).
    if (!path.includes('dryRun')) {
      const own = cast.deals.get(me.id) as Set<string>;
      for (const id of text.match(/deal_\d{4,}/g) ?? []) own.add(id);
    }
  }

  /**
   * Keys mode: each Seller reads every record of the setup by its id through every read that
   * takes one, its own and the other Seller's: no answer crosses tenants (send holds it), and
   * another tenant's record is answered as an unknown id is, that id aside (D-54).
   */
  async function crossTenantReads(operations: [string, string, Json][]) {
    const cast = keys as Keys;
    const unknownOf = (id: string) => id.replace(/\d+$/, '99990');
    for (const seller of cast.principals.filter((p) => p.kind === 'seller')) {
      forced = seller;
      try {
        for (const [template, method, op] of operations) {
          // The reads that take an id and a key (ROOT's sandbox is keyless, its own records).
          if (method !== 'GET' || !/\{[^}]+\}/.test(template) || !secured(op)) continue;
          for (const id of cast.ids) {
            const path = template.replace(/\{[^}]+\}/g, id);
            await send(method, path, {}, {}, op);
            const own = cast.owners.get(id);
            if (own === undefined || own === seller.id) continue;
            // Another Seller's: as an unknown id of its kind.
            const theirs = await as(path);
            const unknown = await as(template.replace(/\{[^}]+\}/g, unknownOf(id)));
            assert.equal(theirs.status, unknown.status, `GET ${path} as ${seller.id}: ${theirs.text.slice(0, 200)}`);
            assert.equal(
              theirs.text,
              unknown.text.split(unknownOf(id)).join(id),
              `GET ${path} as ${seller.id}, another Seller's, answered unlike an unknown id`,
            );
            tally.crossTenant++;
          }
        }
      } finally {
        forced = undefined;
      }
    }
  }

  /** A plain GET as the forced principal. */
  async function as(path: string) {
    const response = await fetch(t.url + path, { headers: { authorization: `Bearer ${(forced as Principal).key}` } });
    return { status: response.status, text: await response.text() };
  }

  it('answers every generated request within 5 s, without a 5xx, as the contract says', async (context) => {
    const operations: [string, string, Json][] = [];
    for (const [path, item] of Object.entries(contract.paths as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        // /demo/reset and /demo/clock would undo the setup.
        if (path !== '/demo/reset' && path !== '/demo/clock') operations.push([path, method.toUpperCase(), op]);
      }
    }
    const one = async (template: string, method: string, op: Json) => {
      const schema = op.requestBody?.content?.['application/json']?.schema;
      const valid = schema ? exampleOf(schema, contract.components.schemas) : undefined;
      const path = `${concretePath(template)}${query(op)}`;
      const headers: Json = {};
      if (rand() < 0.2) headers['idempotency-key'] = pick(['ok-key', '', 'bad key', 'k'.repeat(300), 'ünï']);
      if (rand() < 0.2) headers['x-request-id'] = pick(['mine', 'x'.repeat(200), 'a b']);
      if (template.endsWith('/mcp')) headers.accept = pick(['application/json, text/event-stream', 'text/html']);
      const body = method === 'GET' ? { text: undefined, type: undefined } : mutate(valid);
      await send(method, path, body, headers, op).catch((error) => {
        if (error instanceof TypeError && /header/i.test(String(error.cause ?? error.message))) return; // fetch refused the header
        throw error;
      });
    };
    const started = performance.now();
    // Every operation, its cases each, and a wrong method on its path.
    for (const [template, method, op] of operations) {
      for (let i = 0; i < cases; i++) await one(template, method, op);
      await send(pick(['DELETE', 'PATCH', 'PUT']), concretePath(template), { text: '{}', type: 'application/json' });
    }
    assert.ok(sent >= operations.length * cases * 0.8, `${sent} requests sent`);
    // Then random operations until the time budget is spent (FUZZ_SECONDS; CI gives it longer).
    while (performance.now() - started < seconds * 1000) await one(...pick(operations));
    if (keys) await crossTenantReads(operations);
    context.diagnostic(
      `fuzz (${mode}): ${sent} requests in ${Math.round(performance.now() - started) / 1000} s (seed ${SEED})` +
        (keys
          ? `; 401 UNAUTHENTICATED ${tally.unauthenticated}, 401 INVALID_KEY ${tally.invalidKey}, 403 INSUFFICIENT_SCOPE ${tally.insufficientScope}, ${tally.sellerAnswers} Sellers' answers held to their tenant, ${tally.crossTenant} reads of another Seller's record answered as unknown ids, deals known ${[...keys.deals].map(([s, d]) => `${s} ${d.size}`).join(', ')}`
          : ''),
    );
    assert.equal((await t.get('/health')).status, 200, 'still answering');
    if (keys) {
      assert.ok(
        tally.unauthenticated > 0 && tally.invalidKey > 0 && tally.insufficientScope > 0,
        JSON.stringify(tally),
      );
      assert.ok(tally.sellerAnswers > 0, 'no Seller was answered');
      assert.ok(tally.crossTenant > 0, "no Seller read another's record");
    }
    // Whatever the fuzzer got through, the books still hold.
    // Keys mode: read as the operator, who sees every record.
    const asOperator: typeof fetch = (input, init) =>
      fetch(input, { ...init, headers: { ...(init?.headers as Json), authorization: `Bearer ${OPERATOR_KEY}` } });
    const report = await auditDeployment(t.url, keys ? { fetch: asOperator } : {});
    assert.deepEqual(report.violations, [], JSON.stringify(report.violations.slice(0, 5)));
  });

  if (mode === 'keys') {
    // D-53: a closer's gigs:work releases a gig it claimed, never another's open gig.
    it("a closer's key cannot release an open gig it never claimed (another Seller's)", async () => {
      const cast = keys as Keys;
      const closer = cast.principals.find((p) => p.kind === 'closer') as Principal;
      const operator = { authorization: `Bearer ${OPERATOR_KEY}` };
      // The fuzzer may have claimed, cancelled or reset away every gig, and revoked the Sellers'
      // keys: a Seller's new key sells a deal escalated to a human closer, which posts one.
      const seller = cast.principals.find((p) => p.kind === 'seller') as Principal;
      const minted = await t.post('/keys', { name: 'release check', principal: seller.id }, operator);
      assert.equal(minted.status, 201, JSON.stringify(minted.body));
      const sold = await t.post('/pipeline/sell', dealBody({ mandate: HUMAN_CLOSER, listValueUsd: 150_000 }), {
        authorization: `Bearer ${(minted.body as Json).key}`,
      });
      assert.ok(sold.status === 200 || sold.status === 201, JSON.stringify(sold.body));
      const open = (await t.get('/closers/gigs?status=open', operator)).body as Json[];
      assert.ok(open.length > 0, 'an open gig to try');
      const gig = open[0];
      const answer = await t.post(`/closers/gigs/${gig.id}/release`, {}, { authorization: `Bearer ${closer.key}` });
      assert.ok(
        answer.status >= 400,
        `${closer.id} released ${gig.id} (${answer.status}): ${JSON.stringify(answer.body)}`,
      );
      assert.equal((await t.get(`/closers/gigs/${gig.id}`, operator)).body.status, 'open');
    });
  }
}

/** Whether the contract asks a key of an operation (keys mode declares each one's bearer scopes). */
const secured = (op: Json | undefined) => (op?.security as Json[] | undefined)?.some((s) => 'bearerKey' in s) === true;

/** Whether `text` names `id` (deal_0001, not deal_00012). */
const mentions = (text: string, id: string) => new RegExp(`${id}(?!\\d)`).test(text);

/** Well-formed keys no one was given, and tokens that could be one. */
const WRONG_KEYS = [
  `sp_sk_${'A'.repeat(43)}`,
  `sp_op_${'0'.repeat(43)}`,
  `sp_ck_${'z9'.repeat(21)}q`,
  `${OPERATOR_KEY}x`,
  OPERATOR_KEY.slice(1),
  'x'.repeat(32),
];

/** Keys mode's setup through the API: two Sellers and two closers with keys, their records, a revoked key. */
async function castOf(t: TestServer): Promise<Keys> {
  const op = { authorization: `Bearer ${OPERATOR_KEY}` };
  const made = async (path: string, body: unknown, headers: Json = op) => {
    const answer = await t.post(path, body, headers);
    assert.ok(
      answer.status === 201 || answer.status === 200,
      `${path}: ${answer.status} ${JSON.stringify(answer.body)}`,
    );
    return answer.body as Json;
  };
  const principals: Principal[] = [{ id: 'operator', kind: 'operator', key: OPERATOR_KEY }];
  const deals = new Map<string, Set<string>>();
  const ids: string[] = [];
  const owners = new Map<string, string>();
  for (const name of ['Fuzz Seller A', 'Fuzz Seller B']) {
    const seller = await made('/sellers', { name });
    const { key } = await made('/keys', { name: `${name} key`, principal: seller.id });
    principals.push({ id: seller.id, kind: 'seller', key });
    deals.set(seller.id, new Set());
    ids.push(seller.id);
    owners.set(seller.id, seller.id);
    const auth = { authorization: `Bearer ${key}` };
    // Each Seller's records: a deal escalated to a human closer (its open gig), and a plain deal.
    const sold = await made('/pipeline/sell', dealBody({ mandate: HUMAN_CLOSER, listValueUsd: 150_000 }), auth);
    const created = await made('/pipeline/deals', dealBody(), auth);
    for (const answer of [sold, created]) {
      for (const id of JSON.stringify(answer).match(/deal_\d{4,}|gig_\d{4,}/g) ?? []) {
        if (id.startsWith('deal_')) deals.get(seller.id)?.add(id);
        if (!ids.includes(id)) ids.push(id);
        owners.set(id, seller.id);
      }
    }
  }
  for (const name of ['Fuzz Closer One', 'Fuzz Closer Two']) {
    const closer = await made('/closers/closers', { name, industries: ['saas'] });
    const { key } = await made('/keys', { name: `${name} key`, principal: closer.id });
    principals.push({ id: closer.id, kind: 'closer', key });
    ids.push(closer.id);
  }
  const spare = await made('/keys', { name: 'revoked', principal: principals[1].id });
  await made(`/keys/${spare.id}/revoke`, undefined);
  return { principals, revoked: spare.key, deals, ids, owners };
}
