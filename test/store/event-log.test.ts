// The memory store's feed (src/store/memory/event-log.ts) keeps a stage change as its deal's id
// and names its move by a shared kind: every event reads back exactly as it was appended, fields
// in the same order, whichever move and mover, filtered by type or deal, after a rollback and
// after a purge that compacts the log.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PublicEventDraft } from '../../src/domain/public-events.ts';
import { STAGES } from '../../src/domain/stages.ts';
import { EventLog } from '../../src/store/memory/event-log.ts';

const ALL = { after: 0, limit: 10_000 };

function stageChange(n: number, by: string): PublicEventDraft {
  const from = STAGES[n % STAGES.length];
  const to = STAGES[(n + 1) % STAGES.length];
  return {
    type: 'deal.stage_changed',
    at: 1_000 + n,
    data: { dealId: `deal_${n % 7}`, from, to, by },
  } as PublicEventDraft;
}

const stalled = (n: number): PublicEventDraft => ({
  type: 'deal.stalled',
  at: 1_000 + n,
  data: { dealId: `deal_${n % 7}` },
});

/** Each event as the feed would write it: the fields and their order. */
const written = (events: readonly PublicEventDraft[]) => events.map((event) => JSON.stringify(event));

describe('the in-memory feed', () => {
  // 'robot' is no mover the log knows: its stage change is kept whole, and reads back the same.
  const movers = ['agent', 'human', 'service', 'robot'];
  const appended = Array.from({ length: 120 }, (_, n) => (n % 5 === 4 ? stalled(n) : stageChange(n, movers[n % 4])));

  it('reads back every event as it was appended, stage changes of every move and mover included', () => {
    const log = new EventLog();
    for (const event of appended) log.append(event, 0);
    assert.deepEqual(written(log.page(ALL).map((stored) => stored.event)), written(appended));
    assert.deepEqual(
      log.page(ALL).map((stored) => stored.seq),
      appended.map((_, i) => i + 1),
    );
  });

  it('finds stage changes by type and by deal', () => {
    const log = new EventLog();
    for (const event of appended) log.append(event, 0);
    const changes = appended.filter((event) => event.type === 'deal.stage_changed');
    assert.deepEqual(written(log.page({ ...ALL, type: 'deal.stage_changed' }).map((s) => s.event)), written(changes));
    assert.deepEqual(
      written(log.page({ ...ALL, types: ['deal.stalled'] }).map((s) => s.event)),
      written(appended.filter((event) => event.type === 'deal.stalled')),
    );
    const ofDeal = appended.filter((event) => (event.data as { dealId: string }).dealId === 'deal_3');
    assert.deepEqual(written(log.page({ ...ALL, dealId: 'deal_3' }).map((s) => s.event)), written(ofDeal));
  });

  it('takes back a rolled-back unit and keeps its indexes true after a purge compacts it', () => {
    const log = new EventLog();
    appended.forEach((event, i) => {
      log.append(event, i);
    });
    log.truncate(10);
    assert.equal(log.lastSeq, appended.length - 10);
    // More than half purged: the log is rebuilt from the kinds it kept.
    assert.equal(log.purge(70), 70);
    const left = appended.slice(70, appended.length - 10);
    assert.deepEqual(written(log.page(ALL).map((s) => s.event)), written(left));
    assert.deepEqual(
      written(log.page({ ...ALL, type: 'deal.stage_changed' }).map((s) => s.event)),
      written(left.filter((event) => event.type === 'deal.stage_changed')),
    );
  });

  it("keeps every event true across its lists' chunks: appended, rolled back over a chunk's edge, purged", () => {
    // 10,000 events fill two chunks of 4,096 and part of a third; the rollback crosses the second edge.
    const many = Array.from({ length: 10_000 }, (_, n) => (n % 5 === 4 ? stalled(n) : stageChange(n, movers[n % 3])));
    const log = new EventLog();
    many.forEach((event, i) => {
      log.append(event, i);
    });
    log.truncate(10_000 - 8_000);
    assert.equal(log.lastSeq, 8_000);
    for (const event of many.slice(8_000, 8_300)) log.append(event, 9_000);
    const kept = [...many.slice(0, 8_000), ...many.slice(8_000, 8_300)];
    assert.deepEqual(written(log.page({ after: 0, limit: 20_000 }).map((s) => s.event)), written(kept));
    const stalls = log.page({ after: 4_000, limit: 20_000, type: 'deal.stalled' });
    assert.deepEqual(
      stalls.map((s) => s.seq),
      kept.flatMap((event, i) => (i + 1 > 4_000 && event.type === 'deal.stalled' ? [i + 1] : [])),
    );
    assert.equal(log.purge(5_000), 5_000);
    assert.deepEqual(written(log.page({ after: 0, limit: 20_000 }).map((s) => s.event)), written(kept.slice(5_000)));
    assert.equal(log.page({ after: 0, limit: 1, type: 'deal.stage_changed' })[0]?.seq, 5_001);
  });

  it("finds a Seller's events across chunks, after a rollback that empties another Seller's list", () => {
    const log = new EventLog();
    // Built as the log rebuilds an event that names its audience: the audience's fields first.
    const ofSeller = (n: number, sellerId: string) => ({ sellerId, ...stageChange(n, 'agent') }) as PublicEventDraft;
    // The first page filtered by a Seller builds the index; later appends and rollbacks keep it.
    log.page({ ...ALL, sellerId: 'sel_1' });
    const mine = Array.from({ length: 9_000 }, (_, n) => ofSeller(n, 'sel_1'));
    for (const event of mine) log.append(event, 0);
    log.append(ofSeller(9_000, 'sel_2'), 0);
    log.truncate(1);
    assert.deepEqual(log.page({ ...ALL, sellerId: 'sel_2' }), []);
    const page = log.page({ after: 4_000, limit: 20_000, sellerId: 'sel_1' });
    assert.deepEqual(
      page.map((s) => s.seq),
      mine.slice(4_000).map((_, i) => 4_001 + i),
    );
    assert.deepEqual(written(page.map((s) => s.event)), written(mine.slice(4_000)));
  });
});
