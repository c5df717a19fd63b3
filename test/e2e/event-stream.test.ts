// GET /events/stream end to end (real HTTP on a real port, every store via TEST_STORE): the feed
// live as Server-Sent Events, resumable without gap or duplicate, filtered, kept alive, a slow
// reader cut off, bad input refused in JSON before any stream starts, a reset seen as demo.reset
// with seq going on, and closing the server ending every stream.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { account, startTestServer, type TestServer } from '../support/http.ts';
import { openStream, type SseMessage, type Stream } from '../support/sse.ts';

/** Every event of the feed after `after` (GET /events, page by page). */
async function feed(t: TestServer, after = 0, query = ''): Promise<any[]> {
  const events: any[] = [];
  let cursor = after;
  for (;;) {
    const page = await t.get(`/events?after=${cursor}&limit=1000${query}`);
    assert.equal(page.status, 200);
    events.push(...page.body.events);
    if (page.body.events.length === 0) return events;
    cursor = page.body.nextAfter;
  }
}

const lastSeq = async (t: TestServer) => (await feed(t)).at(-1)?.seq ?? 0;

async function sell(t: TestServer, name = 'Fictional Widgets Ltd'): Promise<string> {
  const sold = await t.post(`${t.prefix}/sell`, { account: account({ name }), listValueUsd: 120_000 });
  assert.equal(sold.status, 201, JSON.stringify(sold.body));
  return sold.body.id;
}

/** The stream's messages as the feed's events: id is the seq, event the type, data the JSON. */
function asEvents(messages: SseMessage[]): any[] {
  return messages.map((m) => {
    const event = JSON.parse(m.data as string);
    assert.equal(m.id, String(event.seq), 'id: is the seq');
    assert.equal(m.event, event.type, 'event: is the type');
    return event;
  });
}

describe('GET /events/stream', () => {
  // The server's log: a stream that ends early says why in its warn and error lines.
  const lines: string[] = [];
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ logStream: { write: (line) => lines.push(line) } });
  });
  after(async () => {
    await t.close();
  });

  it("shows a sell's events live, in seq order, as the feed has them", async () => {
    const start = await lastSeq(t);
    const stream = await openStream(t, `/events/stream?after=${start}`);
    try {
      assert.equal(stream.response.statusCode, 200);
      assert.match(String(stream.response.headers['content-type']), /^text\/event-stream/);
      assert.ok(stream.response.headers['x-request-id'], 'the stream carries its request id');
      await stream.waitFor(() => stream.comments.length > 0); // the headers came before any event
      const dealId = await sell(t);
      const expected = await feed(t, start);
      assert.ok(expected.length >= 3, 'a sell publishes several events');
      assert.ok(expected.some((e) => e.type === 'deal.created' && e.data.deal.id === dealId));
      await stream.waitFor((m) => m.length >= expected.length);
      assert.deepEqual(asEvents(stream.messages), expected);
    } finally {
      stream.close();
    }
  });

  it('with neither Last-Event-ID nor after, starts from the oldest kept event', async () => {
    const expected = await feed(t);
    const stream = await openStream(t, '/events/stream');
    try {
      await stream.waitFor((m) => m.length >= expected.length);
      assert.deepEqual(asEvents(stream.messages).slice(0, expected.length), expected);
    } finally {
      stream.close();
    }
  });

  it('resumes with Last-Event-ID: exactly the events after it, including those written while away', async () => {
    const start = await lastSeq(t);
    const first = await openStream(t, `/events/stream?after=${start}`);
    await sell(t, 'Before Leaving Ltd');
    const seen = await feed(t, start);
    await first.waitFor((m) => m.length >= seen.length);
    // Leave in the middle of what was sent: resume after the third event.
    const kept = first.messages.slice(0, 3);
    first.close();
    await sell(t, 'While Away Ltd');
    const lastId = kept.at(-1)?.id as string;
    // Last-Event-ID wins over ?after=.
    const second = await openStream(t, '/events/stream?after=0', { 'last-event-id': lastId });
    try {
      await sell(t, 'After Return Ltd');
      const expected = await feed(t, Number(lastId));
      await second.waitFor((m) => m.length >= expected.length);
      // Give a duplicate the time to show up.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(asEvents(second.messages), expected, 'no gap, no duplicate');
      const all = [...asEvents(kept), ...asEvents(second.messages)];
      assert.deepEqual(all, await feed(t, start), 'together: the feed, once');
    } finally {
      second.close();
    }
  });

  it('clients that join while sells are under way each get the whole feed once, in order (the hand-over)', async () => {
    let selling = true;
    let n = 0;
    const sellers = Array.from({ length: 3 }, async () => {
      while (selling) await sell(t, `Hand-over ${n++}`);
    });
    const streams: Stream[] = [];
    try {
      for (let i = 0; i < 5; i++) {
        await new Promise((resolve) => setTimeout(resolve, 60));
        // From the start (a catch-up that races the live pump), and from the middle.
        streams.push(await openStream(t, i % 2 === 0 ? '/events/stream' : `/events/stream?after=${i * 7}`));
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      selling = false;
      await Promise.all(sellers);
    }
    try {
      const all = await feed(t);
      for (const [i, stream] of streams.entries()) {
        const expected = i % 2 === 0 ? all : all.filter((e) => e.seq > i * 7);
        await stream.waitFor((m) => m.length >= expected.length);
        await new Promise((resolve) => setTimeout(resolve, 100));
        assert.deepEqual(asEvents(stream.messages), expected, `stream ${i}`);
      }
    } finally {
      for (const stream of streams) stream.close();
    }
  });

  it('filters by type and by deal, live and caught up alike', async () => {
    const start = await lastSeq(t);
    const dealId = await sell(t, 'Filtered Ltd');
    const byType = await openStream(t, `/events/stream?after=${start}&type=deal.stage_changed`);
    const byDeal = await openStream(t, `/events/stream?after=${start}&dealId=${dealId}`);
    try {
      const other = await sell(t, 'Other Ltd');
      const stageChanges = await feed(t, start, '&type=deal.stage_changed');
      const ofDeal = await feed(t, start, `&dealId=${dealId}`);
      assert.ok(stageChanges.some((e) => e.data.dealId === other));
      await byType.waitFor((m) => m.length >= stageChanges.length);
      await byDeal.waitFor((m) => m.length >= ofDeal.length);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(asEvents(byType.messages), stageChanges);
      assert.deepEqual(asEvents(byDeal.messages), ofDeal);
      assert.ok(byType.messages.every((m) => m.event === 'deal.stage_changed'));
    } finally {
      byType.close();
      byDeal.close();
    }
  });

  it('bad after, type, a stray parameter or a garbage Last-Event-ID: 400 in JSON, no stream', async () => {
    const cases: [string, Record<string, string>, string][] = [
      ['/events/stream?after=-1', {}, 'INVALID_QUERY'],
      ['/events/stream?after=abc', {}, 'INVALID_QUERY'],
      ['/events/stream?after=1.5', {}, 'INVALID_QUERY'],
      ['/events/stream?type=deal.nope', {}, 'INVALID_QUERY'],
      ['/events/stream?limit=10', {}, 'INVALID_QUERY'],
      ['/events/stream', { 'last-event-id': 'garbage' }, 'INVALID_HEADER'],
      ['/events/stream', { 'last-event-id': '-3' }, 'INVALID_HEADER'],
      ['/events/stream?after=2', { 'last-event-id': '1e3' }, 'INVALID_HEADER'],
      ['/events/stream', { 'last-event-id': '99999999999999999999' }, 'INVALID_HEADER'],
    ];
    for (const [path, headers, code] of cases) {
      const answer = await t.raw('GET', path, undefined, { accept: 'text/event-stream', ...headers });
      assert.equal(answer.status, 400, `${path} ${JSON.stringify(headers)}`);
      assert.match(String(answer.headers.get('content-type')), /^application\/json/);
      assert.equal(answer.body.code, code);
      assert.ok(answer.body.violations.length > 0);
    }
  });

  it('a reset publishes demo.reset first, and seq goes on increasing', async () => {
    const start = await lastSeq(t);
    const stream = await openStream(t, `/events/stream?after=${start}`);
    try {
      const reset = await t.post('/demo/reset');
      assert.equal(reset.status, 200);
      await sell(t, 'After Reset Ltd');
      const kept = await feed(t);
      assert.equal(kept[0].type, 'demo.reset', 'the feed starts with demo.reset');
      assert.ok(kept[0].seq > start, 'seq goes on');
      await stream
        .waitFor((m) => m.some((e) => e.event === 'deal.created'))
        .catch((error: Error) => {
          // Once seen in CI on PostgreSQL (the stream ended with no event): what the server logged.
          const logged = lines.filter((line) => /"level":(40|50|60)/.test(line)).slice(-5);
          throw new Error(`${error.message}; the server logged: ${logged.join('\n') || 'nothing'}`);
        });
      const events = asEvents(stream.messages);
      assert.equal(events[0].type, 'demo.reset');
      assert.equal(events[0].seq, kept[0].seq);
      assert.deepEqual(
        events.map((e) => e.seq),
        [...events.map((e) => e.seq)].sort((a, b) => a - b),
      );
      assert.deepEqual(events, kept.slice(0, events.length));
    } finally {
      stream.close();
    }
  });

  it('appears in the contract, with a text/event-stream answer, and in GET /', async () => {
    const contract = await t.get('/openapi.json');
    const operation = contract.body.paths['/events/stream'].get;
    assert.equal(operation.operationId, 'streamEvents');
    assert.ok(operation.responses['200'].content['text/event-stream']);
    assert.ok(operation.parameters.some((p: any) => p.in === 'header' && p.name === 'last-event-id'));
    const head = await fetch(`${t.url}/events/stream`, { method: 'HEAD', signal: AbortSignal.timeout(5000) });
    assert.equal(head.status, 200, 'HEAD answers the headers, and is done');
    assert.match(String(head.headers.get('content-type')), /^text\/event-stream/);
    const index = await t.get('/');
    assert.ok(index.body.endpoints.some((e: any) => e.method === 'GET' && e.path === '/events/stream'));
  });
});

describe('GET /events/stream: heartbeats, limits and closing', () => {
  const lines: string[] = [];
  let t: TestServer;
  before(async () => {
    t = await startTestServer({
      config: {
        streamHeartbeatMs: 100,
        streamBufferBytes: 16 * 1024,
        // Short D-44 limits: a healthy stream outlives all of them. The request's is not shorter
        // than a second: the flood's sells below once took over 300 ms to arrive whole on a
        // loaded CI machine (408).
        headersTimeoutMs: 300,
        requestTimeoutMs: 1000,
        keepAliveTimeoutMs: 200,
        maxConnections: 20,
      },
      logStream: { write: (line) => lines.push(line) },
    });
  });
  after(async () => {
    await t.close();
  });

  it('sends a heartbeat comment every interval, and outlives the request and keep-alive timeouts', async () => {
    const stream = await openStream(t, `/events/stream?after=${await lastSeq(t)}`);
    try {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.ok(stream.comments.filter((c) => c === 'heartbeat').length >= 5, JSON.stringify(stream.comments));
      assert.equal(stream.isEnded(), false, 'the stream is still open');
      // Other clients still get in, while the stream stays open.
      for (let i = 0; i < 25; i++) assert.equal((await t.get('/health')).status, 200);
      await sell(t);
      await stream.waitFor((m) => m.some((e) => e.event === 'deal.created'));
    } finally {
      stream.close();
    }
  });

  it('disconnects a client that does not read, and keeps nothing of it', async () => {
    const { hostname, port } = new URL(t.url);
    const socket = connect({ host: hostname, port: Number(port) });
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`GET /events/stream?after=${await lastSeq(t)} HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
    socket.pause(); // never reads: what the server sends stays in the kernel's buffers, then the server's
    let closed = false;
    socket.once('close', () => {
      closed = true;
    });
    const cutOff = () => lines.some((line) => line.includes('the client reads too slowly'));
    // Sells until the server gives up on it (the kernel's buffers take a few MB first).
    let sells = 0;
    while (!cutOff() && sells < 4000) {
      await Promise.all(Array.from({ length: 8 }, (_, i) => sell(t, `Flood ${sells + i} ${'x'.repeat(180)}`)));
      sells += 8;
    }
    assert.ok(cutOff(), `cut off after ${sells} sells`);
    const logged = JSON.parse(lines.find((line) => line.includes('the client reads too slowly')) as string);
    // Past the bound by at most the one write that crossed it: a batch of at most one page of the
    // feed (1,000 events, each well under 2 KB here). On PostgreSQL the sequencer moves a run's
    // commits together, so that batch can hold hundreds of events (288 KB once in CI).
    assert.ok(logged.bufferedBytes > 16 * 1024 && logged.bufferedBytes < 16 * 1024 + 2_000_000, JSON.stringify(logged));
    // Reading now: what was in the buffers comes, then the end (a healthy stream never ends).
    socket.resume();
    const deadline = Date.now() + 10_000;
    while (!closed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(closed, 'the server closed the connection');
    // The other clients are unaffected, and one that reads the whole backlog (far more than the
    // bound) is paced, not cut off.
    const healthy = await openStream(t, `/events/stream?after=${await lastSeq(t)}`);
    const backlog = await openStream(t, '/events/stream');
    try {
      await sell(t);
      await healthy.waitFor((m) => m.some((e) => e.event === 'deal.created'));
      const all = await feed(t);
      await backlog
        .waitFor((m) => m.length >= all.length, 30_000)
        .catch((error: Error) => {
          // Once seen in CI on PostgreSQL (the backlog ended after its first page): what the server
          // logged at warn or above says why.
          const logged = lines.filter((line) => /"level":(40|50|60)/.test(line)).slice(-5);
          throw new Error(`${error.message}; the server logged: ${logged.join('\n') || 'nothing'}`);
        });
      assert.deepEqual(
        backlog.messages.map((m) => Number(m.id)),
        all.map((e) => e.seq),
      );
    } finally {
      healthy.close();
      backlog.close();
    }
  });

  it('closing the server ends every stream promptly', async () => {
    const streams = await Promise.all(Array.from({ length: 5 }, () => openStream(t, '/events/stream')));
    await Promise.all(streams.map((s) => s.waitFor(() => s.comments.length > 0)));
    const started = performance.now();
    await t.close();
    assert.ok(performance.now() - started < 3000, 'closed promptly');
    await Promise.all(streams.map((s) => s.ended));
    assert.ok(streams.every((s) => s.isEnded()));
  });
});
