// D-46: a store that keeps colliding (STORE_BUSY) or cannot be reached (STORE_UNAVAILABLE) is
// answered 503 with Retry-After through every door, in the catalogue's shape, never as a 500.
// The store here is the memory store with failures switched on; the PostgreSQL store's own
// retries and the errors it raises are tested in test/store/postgres-store.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import { type Store, StoreBusyError, StoreUnavailableError } from '../../src/store/store.ts';
import { account, startTestServer, type TestServer } from '../support/http.ts';

/** The memory store, whose units of work and reads fail with `failure` while it is set. */
function failingStore(): { store: Store; fail(with_?: Error): void } {
  const inner = new MemoryStore();
  let failure: Error | undefined;
  const store: Store = {
    runsUnitsAgain: inner.runsUnitsAgain,
    read: (work) => (failure ? Promise.reject(failure) : inner.read(work)),
    transaction: (work) => (failure ? Promise.reject(failure) : inner.transaction(work)),
    events: (filter) => inner.events(filter),
    lastSeq: () => inner.lastSeq(),
    watchClockOffset: () => inner.watchClockOffset(),
    watchWebhooks: (listener) => inner.watchWebhooks(listener),
    close: () => inner.close(),
  };
  return {
    store,
    fail: (error) => {
      failure = error;
    },
  };
}

describe('store failures (D-46)', () => {
  let t: TestServer;
  const failing = failingStore();
  before(async () => {
    t = await startTestServer({ store: failing.store });
  });
  after(() => t.close());

  it('a write that kept colliding: 503 STORE_BUSY with Retry-After, and nothing changed', async () => {
    failing.fail(new StoreBusyError(Object.assign(new Error('deadlock detected'), { code: '40P01' })));
    const answer = await t.post(`${t.prefix}/deals`, { account: account(), listValueUsd: 1000 });
    failing.fail(undefined);
    assert.equal(answer.status, 503);
    assert.equal(answer.headers.get('retry-after'), '1');
    assert.equal(answer.body.code, 'STORE_BUSY');
    assert.match(answer.body.error, /try again/);
    assert.equal((await t.get('/health')).body.deals, 0);
  });

  it('a store that cannot be reached: 503 STORE_UNAVAILABLE with Retry-After, on reads too', async () => {
    failing.fail(new StoreUnavailableError(new Error('connect ECONNREFUSED 127.0.0.1:5432')));
    const read = await t.get(`${t.prefix}/deals/deal_0001`);
    const write = await t.post(`${t.prefix}/sell`, { account: account(), listValueUsd: 1000 });
    failing.fail(undefined);
    for (const answer of [read, write]) {
      assert.equal(answer.status, 503);
      assert.equal(answer.headers.get('retry-after'), '5');
      assert.equal(answer.body.code, 'STORE_UNAVAILABLE');
      assert.doesNotMatch(JSON.stringify(answer.body), /ECONNREFUSED|5432/, 'no internals in the answer');
    }
  });

  it('over MCP: an error result carrying the same body', async () => {
    const client = new Client({ name: 'store-failures', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/demo/mcp`)));
    try {
      failing.fail(new StoreBusyError(new Error('could not serialize access')));
      const result = await client.callTool({ name: 'sell', arguments: { account: account(), listValueUsd: 1000 } });
      failing.fail(undefined);
      assert.equal(result.isError, true);
      const body = JSON.parse((result.content as { text: string }[])[0].text);
      assert.equal(body.code, 'STORE_BUSY');
    } finally {
      await client.close();
    }
  });
});
