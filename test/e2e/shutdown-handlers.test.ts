// D-286: a shutdown closes the store only after the last handler has finished, including one
// whose client went away mid-request (its connection closed at once, so closing the HTTP server
// did not wait for it). A create is held inside its unit of work by the store, its client aborts,
// the server is closed: the close waits for the create, whose unit runs on an open store.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import type { UnitOfWork } from '../../src/store/store.ts';
import { account, startTestServer } from '../support/http.ts';

/** A memory store that holds units of work at a gate and notes what ran after it closed. */
class GatedStore extends MemoryStore {
  closed = false;
  ranAfterClose = 0;
  committed = 0;
  private gate: Promise<void> | undefined;
  private open = () => {};
  private entered = () => {};
  /** Settles once a unit of work waits at the gate. */
  readonly waiting = new Promise<void>((resolve) => {
    this.entered = resolve;
  });

  shut() {
    this.gate = new Promise((resolve) => {
      this.open = resolve;
    });
  }
  release() {
    this.open();
  }
  override async transaction<T>(work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
    if (this.gate) {
      this.entered();
      await this.gate;
    }
    if (this.closed) this.ranAfterClose++;
    const result = await super.transaction(work);
    this.committed++;
    return result;
  }
  override async close() {
    this.closed = true;
  }
}

describe('shutdown waits for handlers whose clients went away (D-286)', () => {
  it('closes the store only after an abandoned create has run', async () => {
    const store = new GatedStore();
    const t = await startTestServer({ store });
    store.shut();
    const abort = new AbortController();
    const sent = fetch(`${t.url}${t.prefix}/deals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ account: account(), listValueUsd: 12_000 }),
      signal: abort.signal,
    }).catch((error: unknown) => error);
    await store.waiting;
    abort.abort();
    assert.ok((await sent) instanceof Error, 'the client went away');
    const before = store.committed;
    let closed = false;
    const closing = t.close().then(() => {
      closed = true;
    });
    // The server has no connection left, yet the close waits for the create's handler.
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(closed, false, 'the close waits for the handler still running');
    assert.equal(store.closed, false, 'the store stays open meanwhile');
    store.release();
    await closing;
    assert.equal(store.committed, before + 1, 'the abandoned create committed');
    assert.equal(store.ranAfterClose, 0, 'no unit of work ran on a closed store');
    assert.equal(store.closed, true);
  });

  it('closes at once when no handler is running', async () => {
    const store = new GatedStore();
    const t = await startTestServer({ store });
    const created = await t.post(`${t.prefix}/deals`, { account: account(), listValueUsd: 12_000 });
    assert.equal(created.status, 201);
    const start = Date.now();
    await t.close();
    assert.ok(Date.now() - start < 2_000, `closed after ${Date.now() - start} ms`);
    assert.equal(store.closed, true);
  });
});
