// The writing of one page of the feed to the live event streams (src/http/stream-fan-out.ts): each
// client is written the events above its cursor that its filter wants, in one write; clients of
// one filter whose cursors are below the page share that write's bytes; a client written nothing,
// or written to, moves to the page's end, and one whose write failed stays where it was.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StreamClient, StreamFilter } from '../../src/http/stream-client.ts';
import { fanOut } from '../../src/http/stream-fan-out.ts';
import type { StoredEvent } from '../../src/store/store.ts';

const stalled = (seq: number, dealId: string): StoredEvent => ({
  seq,
  event: { type: 'deal.stalled', at: 1_800_000_000_000 + seq, data: { dealId } },
});
const deescalated = (seq: number, dealId: string): StoredEvent => ({
  seq,
  event: { type: 'deal.deescalated', at: 1_800_000_000_000 + seq, data: { dealId } },
});
const PAGE = [stalled(11, 'deal_0001'), deescalated(12, 'deal_0002'), stalled(13, 'deal_0002')];
const dealIdOf = (stored: StoredEvent) => (stored.event.data as { dealId?: string }).dealId;

function client(id: string, cursor: number, filter: Partial<StreamFilter> = {}): StreamClient {
  // fanOut only hands the client to `send`: its sink is never touched here.
  const sink = {} as StreamClient['sink'];
  return { sink, filter: { visibility: {}, ...filter }, cursor, live: true, closed: false, mustDrain: false, id };
}

/** Runs fanOut over PAGE, recording each write; `refuse` names the clients whose write fails. */
function run(clients: StreamClient[], refuse: string[] = []) {
  const writes: { id: string; batch: Buffer }[] = [];
  fanOut(PAGE, clients, dealIdOf, (c, batch) => {
    writes.push({ id: c.id, batch });
    return !refuse.includes(c.id);
  });
  return writes;
}

/** The seqs of the SSE frames in a write, in order. */
const seqsOf = (batch: Buffer) => [...batch.toString().matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));

describe('one page of the feed written to the live streams', () => {
  it('writes each client the events its filter wants, in one write, and moves it to the page end', () => {
    const all = client('all', 10);
    const stalls = client('stalls', 10, { type: 'deal.stalled' });
    const second = client('second', 10, { dealId: 'deal_0002' });
    const writes = run([all, stalls, second]);
    assert.deepEqual(
      writes.map(({ id, batch }) => [id, seqsOf(batch)]),
      [
        ['all', [11, 12, 13]],
        ['stalls', [11, 13]],
        ['second', [12, 13]],
      ],
    );
    assert.match(writes[0].batch.toString(), /^id: 11\nevent: deal\.stalled\ndata: \{.*"dealId":"deal_0001".*\}\n\n/);
    assert.deepEqual([all.cursor, stalls.cursor, second.cursor], [13, 13, 13]);
  });

  it('shares one write between the clients of one filter that are behind the page', () => {
    const a = client('a', 10, { type: 'deal.stalled' });
    const b = client('b', 5, { type: 'deal.stalled' });
    const writes = run([a, b]);
    assert.equal(writes.length, 2);
    assert.equal(writes[0].batch, writes[1].batch, 'the same bytes, encoded once');
  });

  it('writes a client whose cursor is inside the page only the events above it', () => {
    const caughtUp = client('inside', 11);
    const behind = client('behind', 10);
    const writes = run([caughtUp, behind]);
    assert.deepEqual(seqsOf(writes[0].batch), [12, 13]);
    assert.deepEqual(seqsOf(writes[1].batch), [11, 12, 13]);
    assert.notEqual(writes[0].batch, writes[1].batch);
  });

  it('writes nothing to a client that wants nothing of the page, and still moves it to the end', () => {
    const other = client('other', 10, { dealId: 'deal_0009' });
    assert.deepEqual(run([other]), []);
    assert.equal(other.cursor, 13);
  });

  it('leaves the cursor of a client whose write failed where it was', () => {
    const ended = client('ended', 10);
    const kept = client('kept', 10);
    run([ended, kept], ['ended']);
    assert.equal(ended.cursor, 10);
    assert.equal(kept.cursor, 13);
  });
});
