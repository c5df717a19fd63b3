// End to end over real HTTP: the ROOT origin's sandbox collections (spec "Envelopes (ROOT)", the
// ROOT endpoint table, "Authentication" 1 and 2; D-8, D-29, D-30). Keyless, read-only, typed
// envelopes over a fixed data set made by driving the real service with a fixed clock.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { encodeCursor } from '../../src/domain/cursor.ts';
import { RootCatalog } from '../../src/public/catalog.ts';
import { buildSandbox } from '../../src/public/sandbox.ts';
import { account, startTestServer, type TestServer } from '../support/http.ts';
import { NPM_START } from '../support/instances.ts';

const STAGES = ['sourced', 'qualified', 'meeting', 'proposal', 'negotiation', 'closed_won', 'closed_lost'];
const TERMINAL = ['closed_won', 'closed_lost'];
const ROLES = ['setter', 'closer', 'nurturer'];
const GIG_STATUSES = ['open', 'claimed', 'fulfilled', 'released', 'expired'];
const ROOT_GET_PATHS = [
  '/deals',
  '/deals/deal_0001',
  '/gigs',
  '/offer',
  '/pricing',
  '/family.json',
  '/verify',
  '/.well-known/agents.json',
  '/openapi.json',
  '/icp.json',
  '/docs',
  '/llms.txt',
];
const WRITES = ['POST', 'PUT', 'PATCH', 'DELETE'];

interface SandboxDeal {
  id: string;
  account: { name: string; industry?: string; actor: string };
  stage: string;
  signals: string[];
  humanTrack?: boolean;
  closedBy?: 'agent' | 'human';
  finalValueUsd?: number;
  lineage?: { revivedFrom: string };
  sandbox: true;
}

interface SandboxGig {
  id: string;
  role: string;
  status: string;
  dealId: string;
  sandbox: true;
}

interface Envelope {
  type: 'OK' | 'EMPTY' | 'BLOCKED';
  sandbox: true;
  label: string;
  message?: string;
  reason?: string;
  deals?: SandboxDeal[];
  deal?: SandboxDeal;
  gigs?: SandboxGig[];
  count?: number;
  total?: number;
  nextCursor?: string;
}

/** D-8: nurturer while the deal carries gone_dark; else setter at sourced/qualified, closer from meeting on. */
const owner = (deal: SandboxDeal) =>
  deal.signals.includes('gone_dark') ? 'nurturer' : ['sourced', 'qualified'].includes(deal.stage) ? 'setter' : 'closer';

const ids = (records: { id: string }[] | undefined) => (records ?? []).map((r) => r.id);

/** The body exactly as sent: the bytes, not a re-serialisation. */
async function bytes(url: string, path: string): Promise<{ status: number; text: string }> {
  const response = await fetch(url + path);
  return { status: response.status, text: await response.text() };
}

function assertEnvelope(body: Envelope, type: Envelope['type']) {
  assert.equal(body.type, type, JSON.stringify(body));
  assert.equal(body.sandbox, true, 'every envelope is labeled sandbox (D-29)');
  assert.match(body.label, /sandbox/i, 'the label says it is sandbox example data');
}

function assertEmpty(answer: { status: number; body: Envelope }, status = 200) {
  assert.equal(answer.status, status);
  assertEnvelope(answer.body, 'EMPTY');
  assert.equal(typeof answer.body.message, 'string');
  assert.ok(answer.body.message && answer.body.message.length > 0, 'EMPTY carries a message');
  assert.equal(answer.body.deals, undefined, 'never a bare empty array');
  assert.equal(answer.body.gigs, undefined, 'never a bare empty array');
}

function assertBadRequest(answer: { status: number; body: unknown; headers: Headers }) {
  assert.equal(answer.status, 400);
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
  const body = answer.body as { error?: unknown; code?: unknown };
  assert.equal(typeof body.error, 'string', 'a JSON error body with an error string (D-5)');
  assert.equal(typeof body.code, 'string');
}

describe('ROOT GET /deals: the sandbox deal collection (D-29, D-30)', () => {
  let t: TestServer;
  let all: SandboxDeal[];
  before(async () => {
    t = await startTestServer();
    const answer = await t.get<Envelope>('/deals');
    assert.equal(answer.status, 200);
    all = answer.body.deals ?? [];
  });
  after(() => t.close());

  it('answers 200 OK with deals, count, total, sandbox and label; every record carries sandbox: true', async () => {
    const answer = await t.get<Envelope>('/deals');
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
    assertEnvelope(answer.body, 'OK');
    assert.ok(Array.isArray(answer.body.deals));
    assert.ok(all.length > 0);
    assert.ok(all.length <= 100, 'the default page is at most 100');
    assert.equal(answer.body.count, all.length);
    assert.equal(answer.body.total, all.length, 'the whole data set fits one default page');
    assert.equal(answer.body.nextCursor, undefined, 'a last page carries no nextCursor');
    for (const deal of all) {
      assert.equal(deal.sandbox, true, `${deal.id} is labeled sandbox`);
      assert.match(deal.id, /^deal_\d{4,}$/);
    }
    assert.deepEqual(
      ids(all),
      [...ids(all)].sort((a, b) => a.localeCompare(b, 'en', { numeric: true })),
      'ordered by id',
    );
    assert.equal(new Set(ids(all)).size, all.length, 'no duplicates');
  });

  it('holds deals at every one of the 7 stages', () => {
    for (const stage of STAGES)
      assert.ok(
        all.some((d) => d.stage === stage),
        `a deal at ${stage}`,
      );
    for (const deal of all) assert.ok(STAGES.includes(deal.stage), `${deal.id} has a known stage`);
  });

  it('holds agent and human closes, won and lost', () => {
    const closed = all.filter((d) => TERMINAL.includes(d.stage));
    for (const deal of closed) assert.ok(deal.closedBy === 'agent' || deal.closedBy === 'human', deal.id);
    for (const deal of all.filter((d) => !TERMINAL.includes(d.stage))) assert.equal(deal.closedBy, undefined, deal.id);
    assert.ok(
      closed.some((d) => d.closedBy === 'agent' && d.stage === 'closed_won'),
      'an agent close won',
    );
    assert.ok(
      closed.some((d) => d.closedBy === 'human' && d.stage === 'closed_won'),
      'a human close won',
    );
    assert.ok(
      closed.some((d) => d.closedBy === 'human' && d.stage === 'closed_lost'),
      'a human close lost',
    );
    for (const won of closed.filter((d) => d.stage === 'closed_won')) {
      assert.equal(typeof won.finalValueUsd, 'number', `${won.id} has finalValueUsd`);
    }
  });

  it('holds stalled deals: gone_dark, on the human track', () => {
    const stalled = all.filter((d) => d.signals.includes('gone_dark'));
    assert.ok(stalled.length >= 2, 'several stalled deals');
    for (const deal of stalled) assert.equal(deal.humanTrack, true, `${deal.id} went human-track when it stalled`);
    assert.ok(
      stalled.some((d) => !TERMINAL.includes(d.stage)),
      'a stalled deal still open',
    );
  });

  it('holds a re-engaged deal whose lineage names a closed_lost predecessor', () => {
    const revived = all.filter((d) => d.lineage);
    assert.ok(revived.length >= 1);
    for (const deal of revived) {
      assert.equal(deal.stage, 'sourced');
      const from = all.find((d) => d.id === deal.lineage?.revivedFrom);
      assert.ok(from, `${deal.lineage?.revivedFrom} is in the data set`);
      assert.equal(from.stage, 'closed_lost', 'the original stays closed_lost');
      assert.equal(from.account.name, deal.account.name, 're-engagement copies the account (D-18)');
    }
  });

  it('uses fictional names only', () => {
    for (const deal of all) assert.match(deal.account.name, /Fictional/, `${deal.id}: ${deal.account.name}`);
  });

  it('filters by stage: each stage answers exactly the deals at it', async () => {
    for (const stage of STAGES) {
      const answer = await t.get<Envelope>(`/deals?stage=${stage}`);
      assert.equal(answer.status, 200, stage);
      assertEnvelope(answer.body, 'OK');
      const expected = all.filter((d) => d.stage === stage);
      assert.deepEqual(ids(answer.body.deals), ids(expected), stage);
      assert.equal(answer.body.count, expected.length);
      assert.equal(answer.body.total, expected.length);
    }
  });

  it('filters by owning role as D-8 says (nurturer = gone_dark; setter = sourced/qualified; closer = meeting on, terminal included)', async () => {
    const seen: Record<string, string[]> = {};
    for (const role of ROLES) {
      const answer = await t.get<Envelope>(`/deals?role=${role}`);
      assert.equal(answer.status, 200, role);
      assertEnvelope(answer.body, 'OK');
      const expected = all.filter((d) => owner(d) === role);
      assert.ok(expected.length > 0, `the data set has ${role}-owned deals`);
      assert.deepEqual(ids(answer.body.deals), ids(expected), role);
      seen[role] = ids(answer.body.deals);
    }
    for (const deal of all) {
      const roles = ROLES.filter((role) => seen[role].includes(deal.id));
      assert.equal(roles.length, 1, `${deal.id} has exactly one owning role`);
    }
    const nurtured = await t.get<Envelope>('/deals?role=nurturer');
    for (const deal of nurtured.body.deals ?? []) assert.ok(deal.signals.includes('gone_dark'), deal.id);
    const closers = await t.get<Envelope>('/deals?role=closer');
    assert.ok(
      (closers.body.deals ?? []).some((d) => TERMINAL.includes(d.stage)),
      'closer owns terminal deals',
    );
    for (const deal of closers.body.deals ?? []) assert.ok(!['sourced', 'qualified'].includes(deal.stage), deal.id);
  });

  it('combines stage and role filters', async () => {
    const answer = await t.get<Envelope>('/deals?stage=sourced&role=nurturer');
    assert.equal(answer.status, 200);
    const expected = all.filter((d) => d.stage === 'sourced' && owner(d) === 'nurturer');
    assert.ok(expected.length > 0);
    assert.deepEqual(ids(answer.body.deals), ids(expected));
  });

  it('an unknown stage or role value matches nothing: 200 EMPTY with a message, never a bare empty array', async () => {
    for (const path of [
      '/deals?stage=won',
      '/deals?stage=CLOSED_WON',
      '/deals?role=seller',
      '/deals?role=',
      '/deals?stage=negotiation&role=setter',
    ]) {
      assertEmpty(await t.get<Envelope>(path));
    }
  });

  it('scope absent or sandbox answers the collection', async () => {
    const absent = await bytes(t.url, '/deals');
    const sandbox = await bytes(t.url, '/deals?scope=sandbox');
    assert.equal(sandbox.status, 200);
    assert.equal(sandbox.text, absent.text);
  });

  it('the reserved scopes tenant and settlement are 403 BLOCKED with a worded reason', async () => {
    for (const scope of ['tenant', 'settlement']) {
      const answer = await t.get<Envelope>(`/deals?scope=${scope}`);
      assert.equal(answer.status, 403, scope);
      assertEnvelope(answer.body, 'BLOCKED');
      assert.equal(typeof answer.body.reason, 'string');
      assert.ok((answer.body.reason ?? '').split(' ').length >= 5, 'a worded reason, not a code');
      assert.ok(answer.body.reason?.includes(scope), 'the reason names the scope');
      assert.equal(answer.body.deals, undefined, 'no data behind a reserved scope');
      const filtered = await t.get<Envelope>(`/deals?scope=${scope}&stage=sourced&limit=2`);
      assert.equal(filtered.status, 403, 'filters do not open a reserved scope');
    }
  });

  it('any other scope is 200 EMPTY', async () => {
    for (const scope of ['public', 'Tenant', 'all', '']) {
      assertEmpty(await t.get<Envelope>(`/deals?scope=${encodeURIComponent(scope)}`));
    }
  });

  it('pages with limit and cursor: the union of the pages is the unpaged list, in order, without duplicates', async () => {
    const walked: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const answer: { status: number; body: Envelope } = await t.get<Envelope>(
        `/deals?limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      assert.equal(answer.status, 200);
      assertEnvelope(answer.body, 'OK');
      const page = ids(answer.body.deals);
      assert.ok(page.length >= 1 && page.length <= 5);
      assert.equal(answer.body.count, page.length);
      assert.equal(answer.body.total, all.length);
      walked.push(...page);
      pages++;
      const further = walked.length < all.length;
      if (further) assert.equal(typeof answer.body.nextCursor, 'string', 'a page that is not the last has nextCursor');
      else assert.equal(answer.body.nextCursor, undefined, 'the last page has no nextCursor');
      cursor = answer.body.nextCursor;
      assert.ok(pages <= all.length, 'paging terminates');
    } while (cursor);
    assert.equal(pages, Math.ceil(all.length / 5));
    assert.deepEqual(walked, ids(all));
    assert.equal(new Set(walked).size, walked.length);
  });

  it('pages a filtered collection too', async () => {
    const expected = all.filter((d) => owner(d) === 'closer');
    const walked: string[] = [];
    let cursor: string | undefined;
    do {
      const answer: { body: Envelope } = await t.get<Envelope>(
        `/deals?role=closer&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      assert.equal(answer.body.total, expected.length);
      walked.push(...ids(answer.body.deals));
      cursor = answer.body.nextCursor;
    } while (cursor);
    assert.deepEqual(walked, ids(expected));
  });

  it('limit: default 100, 1 and 100 accepted', async () => {
    const one = await t.get<Envelope>('/deals?limit=1');
    assert.equal(one.status, 200);
    assert.deepEqual(ids(one.body.deals), ids(all).slice(0, 1));
    assert.equal(typeof one.body.nextCursor, 'string');
    const hundred = await bytes(t.url, '/deals?limit=100');
    assert.equal(hundred.status, 200);
    assert.equal(hundred.text, (await bytes(t.url, '/deals')).text, 'limit 100 is the default');
  });

  it('limit outside 1..100 or not an integer is 400 JSON', async () => {
    for (const limit of ['0', '101', 'abc', '-1', '1.5', '']) {
      assertBadRequest(await t.get(`/deals?limit=${limit}`));
    }
  });

  it('a cursor the service never gave out is 400 JSON', async () => {
    const given = (await t.get<Envelope>('/deals?limit=5')).body.nextCursor as string;
    for (const cursor of [
      'bogus',
      'deal_0005', // an id, not a cursor
      encodeCursor('deal_9999'), // well-formed, but no such sandbox deal
      `${given}!!`, // junk after a real cursor
      '',
    ]) {
      assertBadRequest(await t.get(`/deals?cursor=${encodeURIComponent(cursor)}`));
    }
  });
});

describe('ROOT GET /deals/{id}', () => {
  let t: TestServer;
  let all: SandboxDeal[];
  before(async () => {
    t = await startTestServer();
    all = (await t.get<Envelope>('/deals')).body.deals ?? [];
  });
  after(() => t.close());

  it('answers {type: OK, deal} equal to the record in the collection, for every deal', async () => {
    for (const deal of all) {
      const answer = await t.get<Envelope>(`/deals/${deal.id}`);
      assert.equal(answer.status, 200, deal.id);
      assertEnvelope(answer.body, 'OK');
      assert.deepEqual(answer.body.deal, deal);
    }
  });

  it('an unknown id is 404 with an EMPTY envelope', async () => {
    for (const id of ['deal_9999', 'gig_0001', 'nope']) {
      const answer = await t.get<Envelope>(`/deals/${id}`);
      assertEmpty(answer, 404);
      assert.ok(answer.body.message?.includes(id));
    }
  });
});

describe('ROOT GET /gigs', () => {
  let t: TestServer;
  let gigs: SandboxGig[];
  let dealIds: Set<string>;
  before(async () => {
    t = await startTestServer();
    const answer = await t.get<Envelope>('/gigs');
    assert.equal(answer.status, 200);
    gigs = answer.body.gigs ?? [];
    dealIds = new Set(ids((await t.get<Envelope>('/deals')).body.deals));
  });
  after(() => t.close());

  it('answers 200 OK {gigs, count}; every gig is a sandbox record of a sandbox deal', async () => {
    const answer = await t.get<Envelope>('/gigs');
    assertEnvelope(answer.body, 'OK');
    assert.equal(answer.body.count, gigs.length);
    for (const gig of gigs) {
      assert.equal(gig.sandbox, true, gig.id);
      assert.match(gig.id, /^gig_\d{4,}$/);
      assert.ok(dealIds.has(gig.dealId), `${gig.id} belongs to a sandbox deal`);
    }
  });

  it('holds gigs of every role in every status (all 15 combinations)', () => {
    for (const role of ROLES) {
      for (const status of GIG_STATUSES) {
        assert.ok(
          gigs.some((g) => g.role === role && g.status === status),
          `a ${role} gig that is ${status}`,
        );
      }
    }
  });

  it('filters by role, by status and by both', async () => {
    for (const role of ROLES) {
      const answer = await t.get<Envelope>(`/gigs?role=${role}`);
      assertEnvelope(answer.body, 'OK');
      assert.deepEqual(ids(answer.body.gigs), ids(gigs.filter((g) => g.role === role)), role);
    }
    for (const status of GIG_STATUSES) {
      const answer = await t.get<Envelope>(`/gigs?status=${status}`);
      assertEnvelope(answer.body, 'OK');
      assert.deepEqual(ids(answer.body.gigs), ids(gigs.filter((g) => g.status === status)), status);
    }
    for (const role of ROLES) {
      for (const status of GIG_STATUSES) {
        const answer = await t.get<Envelope>(`/gigs?role=${role}&status=${status}`);
        assert.equal(answer.status, 200);
        const expected = gigs.filter((g) => g.role === role && g.status === status);
        assert.deepEqual(ids(answer.body.gigs), ids(expected), `${role}/${status}`);
        assert.equal(answer.body.count, expected.length);
      }
    }
  });

  it('an unknown role or status is 200 EMPTY with a message', async () => {
    for (const path of ['/gigs?role=seller', '/gigs?status=done', '/gigs?role=closer&status=pending']) {
      assertEmpty(await t.get<Envelope>(path));
    }
  });
});

describe('ROOT collections treat scope, limit and cursor alike: /deals and /gigs (D-30)', () => {
  let t: TestServer;
  const all: Record<string, { id: string }[]> = {};
  const COLLECTIONS = [
    { path: '/deals', key: 'deals' as const, filter: 'stage=negotiation', other: '/gigs' },
    { path: '/gigs', key: 'gigs' as const, filter: 'role=closer', other: '/deals' },
  ];
  before(async () => {
    t = await startTestServer();
    for (const { path, key } of COLLECTIONS) {
      const answer = await t.get<Envelope>(path);
      assert.equal(answer.status, 200, path);
      all[path] = answer.body[key] ?? [];
      assert.ok(all[path].length > 5, `${path}: enough records to page`);
    }
  });
  after(() => t.close());

  it('scope absent or sandbox: the collection, with count and total', async () => {
    for (const { path, key } of COLLECTIONS) {
      const absent = await bytes(t.url, path);
      assert.equal((await bytes(t.url, `${path}?scope=sandbox`)).text, absent.text, path);
      const body = JSON.parse(absent.text) as Envelope;
      assertEnvelope(body, 'OK');
      assert.equal(body.count, body[key]?.length, path);
      assert.equal(body.total, all[path].length, path);
      assert.equal(body.nextCursor, undefined, `${path}: one default page, the last`);
    }
  });

  it('tenant or settlement: 403 BLOCKED with a reason naming the scope, whatever the filters', async () => {
    for (const { path, key, filter } of COLLECTIONS) {
      for (const scope of ['tenant', 'settlement']) {
        for (const query of [`scope=${scope}`, `scope=${scope}&${filter}&limit=2`]) {
          const answer = await t.get<Envelope>(`${path}?${query}`);
          assert.equal(answer.status, 403, `${path}?${query}`);
          assertEnvelope(answer.body, 'BLOCKED');
          assert.ok(answer.body.reason?.includes(scope), answer.body.reason);
          assert.equal(answer.body[key], undefined, 'no data behind a reserved scope');
        }
      }
    }
  });

  it('any other scope: 200 EMPTY', async () => {
    for (const { path } of COLLECTIONS) {
      for (const scope of ['public', 'Tenant', 'all', '']) {
        assertEmpty(await t.get<Envelope>(`${path}?scope=${encodeURIComponent(scope)}`));
      }
    }
  });

  it('limit and cursor page the collection, filtered or not: the pages make up the list, nextCursor on all but the last', async () => {
    for (const { path, key, filter } of COLLECTIONS) {
      for (const [query, expected] of [
        ['', all[path]],
        [filter, (await t.get<Envelope>(`${path}?${filter}`)).body[key] ?? []],
      ] as [string, { id: string }[]][]) {
        for (const limit of [1, 2, 5]) {
          const walked: string[] = [];
          let cursor: string | undefined;
          let pages = 0;
          do {
            const answer: { status: number; body: Envelope } = await t.get<Envelope>(
              `${path}?${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
            );
            assert.equal(answer.status, 200);
            assertEnvelope(answer.body, 'OK');
            const page = ids(answer.body[key]);
            assert.ok(page.length >= 1 && page.length <= limit);
            assert.equal(answer.body.count, page.length);
            assert.equal(answer.body.total, expected.length);
            walked.push(...page);
            pages++;
            if (walked.length < expected.length) assert.equal(typeof answer.body.nextCursor, 'string');
            else assert.equal(answer.body.nextCursor, undefined, 'the last page has no nextCursor');
            cursor = answer.body.nextCursor;
          } while (cursor && pages <= expected.length);
          assert.equal(pages, Math.ceil(expected.length / limit), `${path}?${query} limit ${limit}`);
          assert.deepEqual(walked, ids(expected), `${path}?${query} limit ${limit}`);
        }
      }
    }
  });

  it('limit: default 100; outside 1..100 or not an integer is 400 INVALID_QUERY', async () => {
    for (const { path } of COLLECTIONS) {
      assert.equal((await bytes(t.url, `${path}?limit=100`)).text, (await bytes(t.url, path)).text, path);
      for (const limit of ['0', '101', 'abc', '-1', '1.5', '']) {
        const answer = await t.get(`${path}?limit=${limit}`);
        assertBadRequest(answer);
        assert.equal(answer.body.code, 'INVALID_QUERY', `${path}?limit=${limit}`);
      }
    }
  });

  it('a cursor this collection never gave out is 400 INVALID_CURSOR, a cursor of the other collection too', async () => {
    for (const { path, other } of COLLECTIONS) {
      const foreign = (await t.get<Envelope>(`${other}?limit=1`)).body.nextCursor as string;
      for (const cursor of ['bogus', '', foreign, encodeCursor('gig_9999'), encodeCursor('deal_9999')]) {
        const answer = await t.get(`${path}?cursor=${encodeURIComponent(cursor)}`);
        assertBadRequest(answer);
        assert.equal(answer.body.code, 'INVALID_CURSOR', `${path}?cursor=${cursor}`);
      }
    }
  });
});

/** `npm start` in a new process (its own sandbox build), on a free port; stopped by its pid. */
async function startProcess(): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, NPM_START, {
    cwd: fileURLToPath(new URL('../../', import.meta.url)),
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      TIMER_INTERVAL_SECONDS: '0',
      DATABASE_URL: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new Error(`the service did not start:\n${output}`)), 30_000);
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        const found = /listening on (http:\/\/[^\s"]+)/.exec(output);
        if (found) {
          clearTimeout(timer);
          resolve(found[1]);
        }
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the service exited (${code}):\n${output}`));
      });
    });
    return { url, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

describe('ROOT: the same request always gives the same bytes (D-29)', () => {
  const PATHS = [
    '/deals',
    '/deals?limit=5',
    '/deals?stage=meeting',
    '/deals?role=nurturer',
    '/deals?scope=tenant',
    '/deals?stage=nope',
    '/deals/deal_0001',
    '/deals/deal_9999',
    '/gigs',
    '/gigs?role=closer&status=claimed',
  ];
  const first: Record<string, { status: number; text: string }> = {};

  it('twice on one server', async () => {
    const t = await startTestServer();
    try {
      for (const path of PATHS) {
        first[path] = await bytes(t.url, path);
        assert.deepEqual(await bytes(t.url, path), first[path], path);
      }
      const page2 = (await t.get<Envelope>('/deals?limit=5')).body.nextCursor as string;
      assert.deepEqual(
        await bytes(t.url, `/deals?limit=5&cursor=${page2}`),
        await bytes(t.url, `/deals?limit=5&cursor=${page2}`),
      );
    } finally {
      await t.close();
    }
  });

  it('across a restart: a second, separately started server answers the same bytes', async () => {
    const t = await startTestServer();
    try {
      for (const path of PATHS) assert.deepEqual(await bytes(t.url, path), first[path], path);
    } finally {
      await t.close();
    }
  });

  it('across a process restart: a service started in a new process answers the same bytes', async () => {
    const child = await startProcess();
    try {
      for (const path of PATHS) assert.deepEqual(await bytes(child.url, path), first[path], path);
    } finally {
      await child.stop();
    }
  });

  it('across buildSandbox() runs: a freshly built data set serialises to the served bytes', async () => {
    // The test servers of one process share one catalogue; a new process builds it anew.
    // Two fresh builds must agree with each other and with what was served.
    const [a, b] = [new RootCatalog(await buildSandbox()), new RootCatalog(await buildSandbox())];
    const cases: [string, (c: RootCatalog) => ReturnType<RootCatalog['listDeals']>][] = [
      ['/deals', (c) => c.listDeals()],
      ['/deals?limit=5', (c) => c.listDeals({ limit: 5 })],
      ['/deals?stage=meeting', (c) => c.listDeals({ stage: 'meeting' })],
      ['/deals?role=nurturer', (c) => c.listDeals({ role: 'nurturer' })],
      ['/deals?scope=tenant', (c) => c.listDeals({ scope: 'tenant' })],
      ['/deals/deal_0001', (c) => c.getDeal('deal_0001')],
      ['/gigs', (c) => c.listGigs()],
      ['/gigs?role=closer&status=claimed', (c) => c.listGigs({ role: 'closer', status: 'claimed' })],
    ];
    for (const [path, call] of cases) {
      const [x, y] = [call(a), call(b)];
      assert.equal(JSON.stringify(x.body), JSON.stringify(y.body), `two builds agree on ${path}`);
      assert.equal(x.status, first[path].status, path);
      assert.equal(JSON.stringify(x.body), first[path].text, `a fresh build serves the same bytes for ${path}`);
    }
  });
});

describe('ROOT is read-only and readable from any origin', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it('every write method on every ROOT GET path is 405 JSON {error, code: METHOD_NOT_ALLOWED} with Allow', async () => {
    for (const path of ROOT_GET_PATHS) {
      for (const method of WRITES) {
        const answer = await t.raw(method, path, '{}', { 'content-type': 'application/json' });
        assert.equal(answer.status, 405, `${method} ${path}`);
        assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
        assert.equal(typeof answer.body.error, 'string');
        assert.equal(answer.body.code, 'METHOD_NOT_ALLOWED');
        const allow = answer.headers.get('allow') ?? '';
        assert.ok(allow.includes('GET'), `${method} ${path}: Allow lists GET`);
        assert.ok(!WRITES.some((w) => allow.includes(w)), 'Allow lists no write method');
      }
    }
  });

  it('a write is 405 whatever its body: none, malformed JSON, another media type, oversized', async () => {
    const cases: [string | undefined, Record<string, string>][] = [
      [undefined, {}],
      ['{not json', { 'content-type': 'application/json' }],
      ['null', { 'content-type': 'application/json' }],
      ['hello', { 'content-type': 'text/plain' }],
      [JSON.stringify({ pad: 'x'.repeat(70 * 1024) }), { 'content-type': 'application/json' }],
    ];
    for (const [body, headers] of cases) {
      for (const path of ['/deals', '/deals/deal_0001', '/pricing']) {
        const answer = await t.raw('POST', path, body, headers);
        assert.equal(answer.status, 405, `POST ${path} with ${headers['content-type'] ?? 'no body'}`);
        assert.equal(answer.body.code, 'METHOD_NOT_ALLOWED');
      }
    }
  });

  it('the 405 names the path that was asked for', async () => {
    const answer = await t.raw('DELETE', '/deals/deal_0002', undefined);
    assert.equal(answer.status, 405);
    assert.ok(answer.body.error.includes('/deals/deal_0002'), answer.body.error);
  });

  it('GET answers on ROOT paths carry access-control-allow-origin: *', async () => {
    for (const path of [...ROOT_GET_PATHS, '/deals?scope=tenant', '/deals/deal_9999', '/deals?stage=nope']) {
      const answer = await t.get(path);
      assert.equal(answer.headers.get('access-control-allow-origin'), '*', path);
    }
  });

  it('OPTIONS preflight is 204 with CORS headers', async () => {
    for (const path of ['/deals', '/deals/deal_0001', '/gigs', '/pricing']) {
      const answer = await t.raw('OPTIONS', path, undefined, {
        origin: 'https://elsewhere.example',
        'access-control-request-method': 'GET',
      });
      assert.equal(answer.status, 204, path);
      assert.equal(answer.headers.get('access-control-allow-origin'), '*');
      assert.match(answer.headers.get('access-control-allow-methods') ?? '', /GET/);
    }
  });

  it('DEMO paths do not carry CORS *', async () => {
    for (const path of [`${t.prefix}/deals/deal_0001`, '/closers/gigs', '/health', '/']) {
      const answer = await t.get(path);
      assert.equal(answer.headers.get('access-control-allow-origin'), null, path);
    }
    const created = await t.post(`${t.prefix}/deals`, { account: account(), listValueUsd: 1000 });
    assert.equal(created.headers.get('access-control-allow-origin'), null);
  });
});

describe('ROOT sandbox data is separate from the demo store (D-29)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it('creating, advancing and resetting demo deals changes nothing at ROOT', async () => {
    const paths = ['/deals', '/deals/deal_0001', '/gigs', '/deals?stage=sourced'];
    const before = await Promise.all(paths.map((p) => bytes(t.url, p)));
    const created = await t.post(`${t.prefix}/deals`, {
      account: account({ name: 'Demo-only Widgets' }),
      listValueUsd: 2500,
    });
    assert.equal(created.status, 201);
    const id = created.body.id as string;
    assert.equal((await t.post(`${t.prefix}/deals/${id}/advance`)).status, 200);
    await t.post(`${t.prefix}/sell`, { account: account({ name: 'Demo-only Gadgets' }), listValueUsd: 900 });
    const after = await Promise.all(paths.map((p) => bytes(t.url, p)));
    assert.deepEqual(after, before);
    // The demo deal is not in the sandbox, and the sandbox deal of the same id is not the demo one.
    const demo = await t.get(`${t.prefix}/deals/${id}`);
    const root = await t.get<Envelope>(`/deals/${id}`);
    assert.equal(demo.body.account.name, 'Demo-only Widgets');
    if (root.status === 200) assert.notEqual(root.body.deal?.account.name, 'Demo-only Widgets');
    assert.equal(root.body.deal?.sandbox ?? true, true);
    assert.equal((await t.post('/demo/reset')).status, 200);
    assert.deepEqual(
      await Promise.all(paths.map((p) => bytes(t.url, p))),
      before,
      'a demo reset leaves ROOT as it was',
    );
  });
});
