// D-238: event streams are bounded per client and in all, so that one client cannot hold every
// connection: a stream is always mid-request, so the connection cap can never evict it. Real
// streams on a real port: the bound per address (the demo) and per principal (keys mode) is met
// with 429 TOO_MANY_STREAMS and its `limit`, a closed stream frees its place, another client is
// unaffected, and ordinary requests are still answered while the streams hold all they may.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { streamsInAll } from '../../src/http/stream-limits.ts';
import { startTestServer, type TestServer } from '../support/http.ts';
import { bearer, makeKey, makeSeller, OP, startKeysServer } from '../support/keys.ts';
import { openStream, type Stream } from '../support/sse.ts';

/** Opens a stream and waits for its first comment (it is then counted by the service). */
async function opened(t: TestServer, headers: Record<string, string> = {}): Promise<Stream> {
  const stream = await openStream(t, '/events/stream', headers);
  assert.equal(stream.response.statusCode, 200);
  await stream.waitFor(() => stream.comments.length > 0);
  return stream;
}

/** A stream request that must be refused: its status and body. */
async function refused(t: TestServer, headers: Record<string, string> = {}) {
  const answer = await fetch(`${t.url}/events/stream`, { headers: { accept: 'text/event-stream', ...headers } });
  return { status: answer.status, retryAfter: answer.headers.get('retry-after'), body: await answer.json() };
}

describe('event streams are bounded (D-238)', () => {
  it('keeps a tenth of the connections (at least 16, or half of a small cap) for ordinary requests', () => {
    assert.equal(streamsInAll(10_000), 9_000);
    assert.equal(streamsInAll(300), 270);
    assert.equal(streamsInAll(100), 84);
    assert.equal(streamsInAll(20), 10);
    assert.equal(streamsInAll(1), 1);
  });

  describe('in the demo, per address and in all', () => {
    let t: TestServer;
    const streams: Stream[] = [];
    before(async () => {
      // 20 connections: 10 streams in all; 4 per address.
      t = await startTestServer({ config: { streamsPerClient: 4, maxConnections: 20 } });
    });
    after(async () => {
      for (const stream of streams) stream.close();
      await t?.close();
    });

    it('refuses a fifth stream of one address with 429 TOO_MANY_STREAMS, and serves it once one closes', async () => {
      for (let i = 0; i < 4; i++) streams.push(await opened(t));
      const fifth = await refused(t);
      assert.equal(fifth.status, 429);
      assert.equal(fifth.body.code, 'TOO_MANY_STREAMS');
      assert.equal(fifth.body.limit, 4);
      assert.match(fifth.body.error, /address already holds 4 open event streams/);
      // Ordinary requests are answered meanwhile.
      assert.equal((await t.get('/health')).status, 200);
      assert.equal((await t.get(`${t.prefix}/deals`)).status, 200);
      (streams.pop() as Stream).close();
      // The place is freed when the service sees the connection close.
      for (let i = 0; ; i++) {
        const stream = await openStream(t, '/events/stream');
        if (stream.response.statusCode === 200) {
          streams.push(stream);
          break;
        }
        stream.close();
        assert.ok(i < 50, 'a closed stream frees its place');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });
  });

  it('refuses a stream past the bound in all with Retry-After, and still answers ordinary requests', async () => {
    // 20 connections: 10 streams in all, fewer than one address may hold.
    const t = await startTestServer({ config: { streamsPerClient: 50, maxConnections: 20 } });
    const streams: Stream[] = [];
    try {
      for (let i = 0; i < 10; i++) streams.push(await opened(t));
      const eleventh = await refused(t);
      assert.equal(eleventh.status, 429);
      assert.equal(eleventh.body.code, 'TOO_MANY_STREAMS');
      assert.equal(eleventh.body.limit, 10);
      assert.equal(eleventh.retryAfter, '30');
      const answers = await Promise.all(Array.from({ length: 8 }, () => t.get('/health')));
      assert.deepEqual(
        answers.map((answer) => answer.status),
        Array(8).fill(200),
      );
    } finally {
      for (const stream of streams) stream.close();
      await t.close();
    }
  });

  describe('in keys mode, per principal', () => {
    let t: TestServer;
    let a: string;
    let b: string;
    const streams: Stream[] = [];
    before(async () => {
      t = await startKeysServer({ streamsPerClient: 2 });
      a = (await makeKey(t, OP, { name: 'A', principal: await makeSeller(t, 'Stream Seller A') })).key;
      b = (await makeKey(t, OP, { name: 'B', principal: await makeSeller(t, 'Stream Seller B') })).key;
    });
    after(async () => {
      for (const stream of streams) stream.close();
      await t?.close();
    });

    it("counts a principal's streams whatever its key, and never another principal's", async () => {
      const a2 = (await makeKey(t, a, { name: 'A again', scopes: ['events:read'] })).key;
      streams.push(await opened(t, bearer(a)), await opened(t, bearer(a2)));
      const third = await refused(t, bearer(a));
      assert.equal(third.status, 429);
      assert.equal(third.body.code, 'TOO_MANY_STREAMS');
      assert.match(third.body.error, /principal already holds 2 open event streams/);
      // Another Seller, from the same address, is unaffected.
      streams.push(await opened(t, bearer(b)));
      // A key without events:read is refused for its scope first (and takes no place).
      const reader = (await makeKey(t, a, { name: 'A reader', scopes: ['deals:read'] })).key;
      const scope = await refused(t, bearer(reader));
      assert.equal(scope.status, 403);
      assert.equal(scope.body.code, 'INSUFFICIENT_SCOPE');
    });
  });
});
