// How a write runs, whichever door it came through (src/operations/run.ts, modeOf, and the runner
// of src/service/execute.ts): plain, keyed under an Idempotency-Key (D-37, D-54), dry (D-48), and
// the replay of a keyed answer. In-process on the memory store: each mode is held to what it must
// change and what it must leave exactly as it was.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Call, WriteOperation } from '../../src/operations/operation.ts';
import { modeOf, renderings, runWrite } from '../../src/operations/run.ts';
import { OPERATIONS } from '../../src/operations/table.ts';
import { type Execution, type Mode, PLAIN } from '../../src/service/execute.ts';
import { IDEMPOTENCY_TTL_MS } from '../../src/service/idempotency.ts';
import { createPipelineService } from '../../src/service/pipeline-service.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import type { Store } from '../../src/store/store.ts';
import { writeAnswers } from '../../src/views/answers.ts';
import { snapshotOf } from '../support/store-snapshot.ts';

const T0 = Date.parse('2030-03-04T09:00:00.000Z');
const SELL = { account: { name: 'Fictional Modes Co', actor: 'B2B', industry: 'saas' }, listValueUsd: 20_000 };
const rendering = renderings(writeAnswers('/pipeline'));

const op = (id: string) => {
  const found = OPERATIONS.find((o) => o.id === id);
  assert.ok(found?.kind === 'write', id);
  return found as WriteOperation;
};
const call = (fields: Partial<Call> = {}): Call => ({ id: '', body: undefined, query: {}, ...fields });

/** A service on the memory store (or `store`), its clock to move, and its commits counted. */
function world(store: Store = new MemoryStore()) {
  let now = T0;
  const service = createPipelineService(store, { now: () => now }, { claimTtlHours: 72 });
  let commits = 0;
  service.runner.onCommit(() => commits++);
  /** Runs a write of the table as its door would: its mode from the key and the dry-run flag. */
  const write = (id: string, fields: Partial<Call>, key?: string, dry = false) => {
    const o = op(id);
    const c = call(fields);
    return runWrite(service, o, c, modeOf(o, c, key, dry), rendering(o));
  };
  return {
    store,
    service,
    write,
    commits: () => commits,
    snapshot: () => snapshotOf(store),
    tick: (ms: number) => {
      now += ms;
    },
  };
}

/** The status and body of what a run answered, whichever way it ended. */
function answerOf(execution: Execution): { status: number; body: any } {
  if (execution.kind === 'answered' && execution.stored !== undefined)
    return { status: execution.stored.status, body: JSON.parse(execution.stored.body) };
  if (execution.kind === 'answered' || execution.kind === 'dry') return execution.answer;
  if (execution.kind === 'replayed')
    return { status: execution.answer.status, body: JSON.parse(execution.answer.body) };
  throw new Error(`no answer: ${execution.kind}`);
}

/** A deal the agent worked to negotiation: the next advance closes it. */
async function negotiating(w: ReturnType<typeof world>): Promise<string> {
  const id = answerOf(await w.write('createDeal', { body: SELL })).body.id;
  for (let i = 0; i < 4; i++) await w.write('advanceDeal', { id });
  return id;
}

describe('modeOf: how a request asks its write to run', () => {
  const sell = op('sell');

  it('no key and no dry run: plain', () => {
    assert.deepEqual(modeOf(sell, call({ body: SELL }), undefined, false), PLAIN);
  });

  it('a key: keyed, with the request’s fingerprint; in the demo no one owns the key', () => {
    const mode = modeOf(sell, call({ body: SELL }), 'k-1', false);
    assert.equal(mode.kind, 'keyed');
    assert.ok(mode.kind === 'keyed' && mode.key === 'k-1' && mode.fingerprint.length > 0);
    assert.equal((mode as { owner?: string }).owner, undefined);
  });

  it('the fingerprint is the request: its operation, its path’s id and its body, in any order of properties', () => {
    const print = (o: WriteOperation, fields: Partial<Call>) =>
      (modeOf(o, call(fields), 'k', false) as Extract<Mode, { kind: 'keyed' }>).fingerprint;
    const reordered = {
      listValueUsd: SELL.listValueUsd,
      account: { industry: 'saas', actor: 'B2B', name: SELL.account.name },
    };
    assert.equal(
      print(sell, { body: SELL }),
      print(sell, { body: reordered }),
      'the order of properties is no part of it',
    );
    assert.notEqual(
      print(sell, { body: SELL }),
      print(sell, { body: { ...SELL, listValueUsd: 20_001 } }),
      'the body is',
    );
    assert.notEqual(print(sell, { body: SELL }), print(op('createDeal'), { body: SELL }), 'the operation is');
    const advance = op('advanceDeal');
    assert.notEqual(print(advance, { id: 'deal_0001' }), print(advance, { id: 'deal_0002' }), 'the path’s id is');
    // If-Match and the query are not: a retry after reading the deal again is the same request.
    assert.equal(print(advance, { id: 'deal_0001', ifMatch: 1 }), print(advance, { id: 'deal_0001', ifMatch: 2 }));
    assert.equal(print(advance, { id: 'deal_0001' }), print(advance, { id: 'deal_0001', query: { dryRun: false } }));
  });

  it('keys mode: the key is its caller’s own (D-54)', () => {
    const caller = { principal: 'seller_0001', kind: 'seller', keyId: 'key_0002', scopes: new Set() } as never;
    assert.equal((modeOf(sell, call({ body: SELL, caller }), 'k-1', false) as { owner?: string }).owner, 'seller_0001');
  });

  it('a dry run of a write that has one is dry, its key ignored (a dry run stores nothing to replay)', () => {
    assert.deepEqual(modeOf(sell, call({ body: SELL }), 'k-1', true), { kind: 'dry' });
    assert.deepEqual(modeOf(sell, call({ body: SELL }), undefined, true), { kind: 'dry' });
  });

  it('a dry run asked of a write that has none runs it as it would without: keyed or plain', () => {
    const release = op('releaseGig');
    assert.equal(release.dryRunnable, undefined);
    assert.deepEqual(modeOf(release, call({ id: 'gig_0001' }), undefined, true), PLAIN);
    assert.equal(modeOf(release, call({ id: 'gig_0001' }), 'k-1', true).kind, 'keyed');
  });
});

describe('the runner: plain', () => {
  it('runs every call, answers it, and tells the commit listeners', async () => {
    const w = world();
    const first = answerOf(await w.write('sell', { body: SELL }));
    const second = answerOf(await w.write('sell', { body: SELL }));
    assert.equal(first.status, 201);
    assert.deepEqual([first.body.id, second.body.id], ['deal_0001', 'deal_0002'], 'the same call twice is two deals');
    assert.equal(w.commits(), 2);
  });

  it('a refusal is answered, changes nothing and tells no one (D-6)', async () => {
    const w = world();
    await w.write('createDeal', { body: SELL });
    const before = await w.snapshot();
    const refused = answerOf(await w.write('advanceDeal', { id: 'deal_0404' }));
    assert.equal(refused.status, 404);
    assert.equal(refused.body.code, 'DEAL_NOT_FOUND');
    assert.deepEqual(await w.snapshot(), before);
    assert.equal(w.commits(), 1);
  });
});

describe('the runner: keyed, and the replay', () => {
  it('runs once and keeps its answer; the same request again replays those bytes and runs nothing', async () => {
    const w = world();
    const first = await w.write('sell', { body: SELL }, 'sell-1');
    assert.equal(first.kind, 'answered');
    assert.ok(first.kind === 'answered' && first.stored !== undefined, 'a keyed answer is the bytes it stored');
    assert.equal(first.stored.status, 201);
    assert.equal(first.stored.location, `/pipeline/deals/${JSON.parse(first.stored.body).id}`);
    const after = await w.snapshot();
    for (let i = 0; i < 3; i++) {
      const again = await w.write('sell', { body: SELL }, 'sell-1');
      assert.deepEqual(again, { kind: 'replayed', answer: first.stored });
    }
    assert.deepEqual(await w.snapshot(), after, 'a replay runs nothing');
    assert.equal(w.commits(), 1, 'and tells no one');
  });

  it('the key with another request is reused: nothing runs', async () => {
    const w = world();
    await w.write('sell', { body: SELL }, 'sell-1');
    const after = await w.snapshot();
    assert.deepEqual(await w.write('sell', { body: { ...SELL, listValueUsd: 1 } }, 'sell-1'), {
      kind: 'reused',
      key: 'sell-1',
    });
    assert.deepEqual(await w.write('createDeal', { body: SELL }, 'sell-1'), { kind: 'reused', key: 'sell-1' });
    assert.deepEqual(await w.snapshot(), after);
  });

  it('a refusal a retry would meet again is kept and replayed (404, 409, 422)', async () => {
    const w = world();
    const dealId = await negotiating(w);
    const cases: [string, Partial<Call>, number][] = [
      ['advanceDeal', { id: 'deal_0404' }, 404],
      ['deescalateDeal', { id: dealId }, 409],
      ['advanceDeal', { id: dealId, body: { advanceTo: 'closed_won', valueUsd: 1 } }, 422],
    ];
    for (const [id, fields, status] of cases) {
      const key = `refused-${status}`;
      const refused = await w.write(id, fields, key);
      assert.equal(answerOf(refused).status, status);
      const before = await w.snapshot();
      const again = await w.write(id, fields, key);
      assert.equal(again.kind, 'replayed', `${status} is kept`);
      assert.deepEqual(answerOf(again), answerOf(refused));
      assert.deepEqual(await w.snapshot(), before, `${status}: the replay runs nothing`);
    }
  });

  it('a 412 is not kept: the key is free for the retry that read the deal again', async () => {
    const w = world();
    const dealId = await negotiating(w);
    const stale = await w.write('advanceDeal', { id: dealId, ifMatch: 1 }, 'retry-412');
    assert.equal(answerOf(stale).status, 412);
    const current = answerOf(await w.write('advanceDeal', { id: dealId, ifMatch: 5 }, 'retry-412'));
    assert.equal(current.status, 200);
    assert.equal(current.body.stage, 'closed_won');
  });

  it('a kept answer lasts IDEMPOTENCY_TTL_MS of the machine’s time; after it the key is new again', async () => {
    const w = world();
    await w.write('sell', { body: SELL }, 'sell-ttl');
    w.tick(IDEMPOTENCY_TTL_MS - 1);
    assert.equal((await w.write('sell', { body: SELL }, 'sell-ttl')).kind, 'replayed');
    w.tick(1);
    const fresh = await w.write('sell', { body: SELL }, 'sell-ttl');
    assert.equal(fresh.kind, 'answered');
    assert.equal(answerOf(fresh).body.id, 'deal_0002');
  });

  it('one key of two owners is two requests, each replayed to its own owner (D-54)', async () => {
    const w = world();
    const sell = op('sell');
    const keyed = (owner: string): Mode => ({
      kind: 'keyed',
      key: 'shared-key',
      fingerprint: (modeOf(sell, call({ body: SELL }), 'shared-key', false) as { fingerprint: string }).fingerprint,
      owner,
    });
    const run = (owner: string) =>
      w.service.runner.execute(w.service.deals.sell(SELL as never), keyed(owner), rendering(sell) as never);
    const a = answerOf(await run('seller_0001'));
    const b = answerOf(await run('seller_0002'));
    assert.deepEqual([a.body.id, b.body.id], ['deal_0001', 'deal_0002']);
    assert.equal(answerOf(await run('seller_0002')).body.id, 'deal_0002');
    assert.equal(answerOf(await run('seller_0001')).body.id, 'deal_0001');
    assert.equal((await w.snapshot()).deals.length, 2);
  });

  it('the answer is kept in the unit of its effects: a unit that fails to commit leaves neither', async () => {
    const inner = new MemoryStore();
    let failNext = true;
    const failing: Store = Object.create(inner);
    failing.transaction = async (work) => {
      if (!failNext) return inner.transaction(work);
      failNext = false;
      // The work runs whole, then the commit fails: all of it is rolled back.
      return inner.transaction(async (uow) => {
        await work(uow);
        throw new Error('the commit failed');
      });
    };
    const w = world(failing);
    await assert.rejects(w.write('sell', { body: SELL }, 'crash-1'), /the commit failed/);
    assert.equal((await w.snapshot()).deals.length, 0, 'no deal without its answer');
    const retried = await w.write('sell', { body: SELL }, 'crash-1');
    assert.equal(retried.kind, 'answered', 'no answer without its deal: the retry runs');
    assert.equal((await w.snapshot()).deals.length, 1);
  });
});

describe('the runner: dry', () => {
  it('answers what the write would do, commits nothing, tells no one and keeps nothing under the key', async () => {
    const w = world();
    const before = await w.snapshot();
    const dry = await w.write('sell', { body: SELL }, 'dry-1', true);
    assert.equal(dry.kind, 'dry');
    const answer = answerOf(dry);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.dryRun, true);
    assert.equal(answer.body.deal.id, null, 'no id is handed out');
    assert.equal(answer.body.deal.stage, 'closed_won');
    assert.deepEqual(await w.snapshot(), before);
    assert.equal(w.commits(), 0);
    // The key was not used: the real request under it runs, and takes the first id.
    const real = await w.write('sell', { body: SELL }, 'dry-1');
    assert.equal(real.kind, 'answered');
    assert.equal(answerOf(real).body.id, 'deal_0001');
  });

  it('a refused dry run answers the real refusal and records nothing; the real one is recorded (D-61)', async () => {
    const w = world();
    const dealId = await negotiating(w);
    const below = { id: dealId, body: { advanceTo: 'closed_won', valueUsd: 1 } };
    const before = await w.snapshot();
    const commits = w.commits();
    const dry = answerOf(await w.write('advanceDeal', below, undefined, true));
    assert.equal(dry.status, 422);
    assert.equal(dry.body.code, 'GATE_BELOW_FLOOR');
    assert.deepEqual(await w.snapshot(), before);
    assert.equal(w.commits(), commits);
    const real = answerOf(await w.write('advanceDeal', below));
    assert.deepEqual(real, dry);
    assert.equal((await w.snapshot()).proposals.length, before.proposals.length + 1);
  });
});
