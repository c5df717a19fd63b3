// D-76 (and D-58): a reader's cursor does not stall on what it may not see. In keys mode a
// Seller's view of the feed has gaps (other tenants' events); a page that is not full holds every
// event the Seller may see up to the feed's newest seq, so its `nextAfter` moves there, over
// HTTP (GET /events) and the MCP door (list_events) alike, and the next page reads only what is
// new; a full page still ends at its last event; and a reader following `nextAfter` while others
// write gets each of its events once, in order (the store of TEST_STORE).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { account, type TestServer } from '../support/http.ts';
import { as, bearer, makeKey, makeSeller, OP, startKeysServer } from '../support/keys.ts';

interface Page {
  events: { seq: number; type: string; data: any }[];
  nextAfter: number;
  lastSeq: number;
}

describe("keys mode: a reader's nextAfter moves past what it may not see (D-76)", () => {
  let t: TestServer;
  let a: string;
  let b: string;

  before(async () => {
    t = await startKeysServer();
    a = (await makeKey(t, OP, { name: 'A', principal: await makeSeller(t, 'Seller A (fictional)') })).key;
    b = (await makeKey(t, OP, { name: 'B', principal: await makeSeller(t, 'Seller B (fictional)') })).key;
  });
  after(() => t?.close());

  const sell = async (key: string, name: string): Promise<string> => {
    const sold = await as(t, bearer(key)).post(`${t.prefix}/sell`, {
      account: account({ name }),
      listValueUsd: 40_000,
    });
    assert.equal(sold.status, 201, sold.text);
    return sold.body.id;
  };

  const page = async (key: string, query: string): Promise<Page> => {
    const answer = await as(t, bearer(key)).get(`/events?${query}`);
    assert.equal(answer.status, 200, answer.text);
    return answer.body;
  };

  /** The feed's newest seq, as the operator (who sees every event) reads it. */
  const newest = async () => (await page(OP, 'limit=1')).lastSeq;

  /** A's cursor at its view's end: every page read until one comes back empty. */
  const caughtUp = async (from = 0): Promise<number> => {
    let cursor = from;
    for (;;) {
      const read = await page(a, `after=${cursor}&limit=1000`);
      cursor = read.nextAfter;
      if (read.events.length === 0) return cursor;
    }
  };

  async function mcp(key: string): Promise<Client> {
    const client = new Client({ name: 'e2e-feed-cursor', version: '0.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/demo/mcp`), {
      requestInit: { headers: bearer(key) },
    });
    await client.connect(transport);
    return client;
  }

  it("GET /events: a Seller that sees none of the newest events gets nextAfter at the feed's end, and reads on only what is new", async () => {
    await sell(a, 'A first');
    const mine = await caughtUp();
    for (let i = 0; i < 3; i++) await sell(b, `B ${i}`);
    const end = await newest();
    assert.ok(end > mine, "B's sales are in the feed after A's");
    const empty = await page(a, `after=${mine}`);
    assert.deepEqual(empty, { events: [], nextAfter: end, lastSeq: end }, "past B's events, at the feed's end");
    // Reading on from there: only A's new sale, none of what came before.
    await sell(b, 'B later');
    const dealId = await sell(a, 'A second');
    const next = await page(a, `after=${empty.nextAfter}`);
    assert.ok(next.events.length > 0);
    assert.ok(next.events.every((e) => e.seq > end && (e.data.dealId ?? e.data.deal?.id) === dealId));
    assert.equal(next.nextAfter, await newest(), 'a page that is not full ends at the newest seq');
  });

  it('a full page still ends at its last event', async () => {
    const from = await newest();
    await sell(a, 'A paged');
    await sell(b, 'B after A');
    const full = await page(a, `after=${from}&limit=2`);
    assert.equal(full.events.length, 2);
    assert.equal(full.nextAfter, full.events[1].seq);
    assert.ok(full.nextAfter < full.lastSeq);
    const rest = await page(a, `after=${full.nextAfter}&limit=1000`);
    assert.ok(rest.events.length > 0, 'the rest of the sale comes on the next page');
    assert.ok(rest.events[0].seq > full.nextAfter);
    assert.equal(rest.nextAfter, rest.lastSeq);
  });

  it('list_events (MCP): the same pages and the same nextAfter', async () => {
    const client = await mcp(a);
    try {
      const mine = await caughtUp();
      await sell(b, 'B for MCP');
      const end = await newest();
      const call = async (args: Record<string, number>) => {
        const result = await client.callTool({ name: 'list_events', arguments: args });
        assert.notEqual(result.isError, true, JSON.stringify(result.content));
        return result.structuredContent as unknown as Page;
      };
      const empty = await call({ after: mine });
      assert.deepEqual(empty, { events: [], nextAfter: end, lastSeq: end });
      assert.deepEqual(empty, await page(a, `after=${mine}`), 'as GET /events answers it');
      const dealId = await sell(a, 'A for MCP');
      const full = await call({ after: empty.nextAfter, limit: 1 });
      assert.equal(full.nextAfter, full.events[0].seq, 'a full page ends at its last event');
      assert.equal(full.events[0].data.deal.id, dealId);
      const rest = await call({ after: full.nextAfter });
      assert.ok(rest.events.every((e) => e.seq > full.nextAfter && (e.data.dealId ?? e.data.deal?.id) === dealId));
      assert.equal(rest.nextAfter, await newest());
    } finally {
      await client.close();
    }
  });

  it('following nextAfter while both Sellers write gives each of its events once, in order', async () => {
    const from = await newest();
    const got: Page['events'] = [];
    let cursor = from;
    let writing = true;
    const writes = (async () => {
      try {
        for (let i = 0; i < 8; i++) {
          await sell(b, `B busy ${i}`);
          if (i % 2 === 0) await sell(a, `A busy ${i}`);
        }
      } finally {
        writing = false;
      }
    })();
    while (writing) {
      const read = await page(a, `after=${cursor}&limit=3`);
      got.push(...read.events);
      assert.ok(read.nextAfter >= cursor, 'the cursor never goes back');
      cursor = read.nextAfter;
    }
    await writes;
    for (;;) {
      const read = await page(a, `after=${cursor}&limit=3`);
      got.push(...read.events);
      cursor = read.nextAfter;
      if (read.events.length === 0) break;
    }
    const all = await page(a, `after=${from}&limit=1000`);
    assert.deepEqual(
      got.map((e) => e.seq),
      all.events.map((e) => e.seq),
      'every event of A once, in order',
    );
    assert.equal(cursor, await newest(), "the cursor ends at the feed's end");
  });
});
