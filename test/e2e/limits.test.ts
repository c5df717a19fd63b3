// End to end over real sockets: D-44, no client can exhaust the service. Slow clients are cut
// off (header, request and keep-alive timeouts), a flood of idle sockets cannot lock out a new
// client (the connection cap closes the longest-idle one, never one mid-request), and the
// optional per-address rate limit answers 429 in the catalogue's shape.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/http.ts';
import { closedWithin, openRawSocket, type RawSocket, sleep } from '../support/raw-socket.ts';

/** Open connections as the server counts them. */
function serverConnections(test: TestServer): Promise<number> {
  return new Promise((resolve, reject) =>
    test.server.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );
}

/** Waits (bounded) until the server counts `count` open connections. */
async function untilServerCounts(test: TestServer, count: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await serverConnections(test)) === count) return;
    await sleep(10);
  }
  assert.fail(`the server never counted ${count} connections (it counts ${await serverConnections(test)})`);
}

/** Opens n sockets one after the other, each seen by the server before the next (so their age is known). */
async function openInOrder(test: TestServer, n: number, first: (raw: RawSocket) => Promise<void>) {
  const sockets: RawSocket[] = [];
  for (let i = 0; i < n; i++) {
    const before = await serverConnections(test);
    const raw = await openRawSocket(test.url);
    sockets.push(raw);
    await untilServerCounts(test, before + 1);
    await first(raw);
  }
  return sockets;
}

const nothing = async () => undefined;

/** One keep-alive request answered, then the connection stays open and idle. */
const oneRequest = async (raw: RawSocket) => {
  raw.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  await raw.waitFor('"ok":true', 2000);
};

/**
 * Headers and the first byte of a body: the request is in flight until the rest comes. The
 * server's 100 Continue says it has read the headers, so the request has begun for it too.
 */
const BODY_LENGTH = 40;
const halfARequest = (prefix: string) => async (raw: RawSocket) => {
  raw.write(
    `POST ${prefix}/deals HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${BODY_LENGTH}\r\nExpect: 100-continue\r\n\r\n`,
  );
  await raw.waitFor('HTTP/1.1 100 Continue', 2000);
  raw.write('{');
};

function closeAll(sockets: RawSocket[]) {
  for (const raw of sockets) raw.socket.destroy();
}

describe('slow clients are cut off', () => {
  let test: TestServer;
  before(async () => {
    test = await startTestServer({
      config: { requestTimeoutMs: 2000, headersTimeoutMs: 500, keepAliveTimeoutMs: 300 },
    });
  });
  after(() => test.close());

  it('a client trickling its body one byte every 200 ms is answered 408 and closed after REQUEST_TIMEOUT_MS', async () => {
    const raw = await openRawSocket(test.url);
    raw.write(
      `POST ${test.prefix}/deals HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`,
    );
    // 1000 bytes at one per 200 ms would take 200 s; stop trickling at 30 bytes (6 s) at most.
    let sent = 0;
    const trickle = setInterval(() => {
      if (sent++ < 30) raw.write(' ');
    }, 200);
    try {
      const closedAt = await closedWithin(raw, 6000);
      assert.ok(closedAt !== undefined, 'the trickling client was never cut off');
      const elapsed = closedAt - raw.openedAt;
      assert.ok(elapsed >= 1800 && elapsed < 4500, `cut off after ${Math.round(elapsed)} ms, not about 2000 ms`);
      assert.match(raw.received(), /^HTTP\/1\.1 408 /);
      assert.match(raw.received(), /"code":"REQUEST_TIMEOUT"/, "the catalogue's body");
      assert.ok(sent >= 8, `only ${sent} bytes were trickled before the cut`);
    } finally {
      clearInterval(trickle);
      raw.socket.destroy();
    }
  });

  it('a client that never finishes its headers is cut off after the header timeout, well before the request timeout', async () => {
    const raw = await openRawSocket(test.url);
    raw.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    // Slowloris: one more header line every 100 ms, never the blank line that ends them.
    let sent = 0;
    const trickle = setInterval(() => {
      if (sent++ < 40) raw.write(`X-Slow-${sent}: 1\r\n`);
    }, 100);
    try {
      const closedAt = await closedWithin(raw, 4000);
      assert.ok(closedAt !== undefined, 'the client with unfinished headers was never cut off');
      const elapsed = closedAt - raw.openedAt;
      assert.ok(elapsed >= 400 && elapsed < 1800, `cut off after ${Math.round(elapsed)} ms, not about 500 ms`);
      assert.match(raw.received(), /^HTTP\/1\.1 408 /);
    } finally {
      clearInterval(trickle);
      raw.socket.destroy();
    }
  });

  it('a connection that sends nothing at all is cut off by the header timeout', async () => {
    const raw = await openRawSocket(test.url);
    try {
      const closedAt = await closedWithin(raw, 4000);
      assert.ok(closedAt !== undefined, 'the silent connection was never cut off');
      const elapsed = closedAt - raw.openedAt;
      assert.ok(elapsed >= 400 && elapsed < 1800, `cut off after ${Math.round(elapsed)} ms, not about 500 ms`);
    } finally {
      raw.socket.destroy();
    }
  });

  it('an idle keep-alive connection is closed after the keep-alive timeout, not before', async () => {
    const raw = await openRawSocket(test.url);
    try {
      await oneRequest(raw);
      const answeredAt = performance.now();
      assert.match(raw.received(), /^HTTP\/1\.1 200 /);
      assert.match(raw.received(), /keep-alive/i);
      const closedAt = await closedWithin(raw, 4000);
      assert.ok(closedAt !== undefined, 'the idle keep-alive connection was never closed');
      // Node closes it 1 s after the timeout it advertises (Keep-Alive: timeout=…), so that a
      // client reusing it at the last moment never races the close: 300 ms + 1 s here.
      const idle = closedAt - answeredAt;
      assert.ok(idle >= 250 && idle < 3000, `closed after ${Math.round(idle)} ms idle, not about 1300 ms`);
    } finally {
      raw.socket.destroy();
    }
  });
});

describe('the connection cap makes room instead of locking new clients out', () => {
  // Timeouts long enough that nothing here is cut off by them: only the cap acts.
  const config = { maxConnections: 20, requestTimeoutMs: 20_000, headersTimeoutMs: 20_000 };

  it('with MAX_CONNECTIONS (20) silent sockets open, a new client still gets /health, and the oldest socket made room', async () => {
    const test = await startTestServer({ config });
    let sockets: RawSocket[] = [];
    try {
      sockets = await openInOrder(test, 20, nothing);
      const answer = await fetch(`${test.url}/health`, { signal: AbortSignal.timeout(3000) });
      assert.equal(answer.status, 200);
      assert.equal((await answer.json()).ok, true);
      assert.ok((await closedWithin(sockets[0], 1000)) !== undefined, 'the oldest idle socket was not closed');
      await sleep(100);
      assert.deepEqual(
        sockets.slice(1).map((raw) => raw.isClosed()),
        sockets.slice(1).map(() => false),
        'only the oldest idle socket is closed',
      );
      assert.ok((await serverConnections(test)) <= 20);
    } finally {
      closeAll(sockets);
      await test.close();
    }
  });

  it('idle keep-alive connections make room, never a connection in the middle of a request', async () => {
    const test = await startTestServer({ config });
    let busy: RawSocket[] = [];
    let idle: RawSocket[] = [];
    let newer: RawSocket[] = [];
    try {
      // The five oldest are mid-request; then fifteen idle after one keep-alive request each.
      busy = await openInOrder(test, 5, halfARequest(test.prefix));
      idle = await openInOrder(test, 15, oneRequest);
      // Fifteen newcomers at the cap: each closes the longest-idle keep-alive connection.
      newer = [];
      for (let i = 0; i < 15; i++) {
        newer.push(await openRawSocket(test.url));
        assert.ok((await closedWithin(idle[i], 1000)) !== undefined, `idle connection ${i} did not make room`);
      }
      await untilServerCounts(test, 20);
      assert.deepEqual(
        busy.map((raw) => raw.isClosed()),
        [false, false, false, false, false],
        'a connection mid-request was closed',
      );
      const answer = await fetch(`${test.url}/health`, { signal: AbortSignal.timeout(3000) });
      assert.equal(answer.status, 200);
      await answer.body?.cancel();
      // The requests in flight are still served: their bodies arrive and they are answered.
      for (const raw of busy) raw.write(`${' '.repeat(BODY_LENGTH - 2)}}`);
      for (const raw of busy) await raw.waitFor('HTTP/1.1 400 ', 2000);
    } finally {
      closeAll([...busy, ...idle, ...newer]);
      await test.close();
    }
  });

  it('when every connection is mid-request, the newcomer is refused and none of them is closed', async () => {
    const test = await startTestServer({ config: { ...config, maxConnections: 5 } });
    let busy: RawSocket[] = [];
    let newcomer: RawSocket | undefined;
    try {
      busy = await openInOrder(test, 5, halfARequest(test.prefix));
      newcomer = await openRawSocket(test.url);
      assert.ok((await closedWithin(newcomer, 1000)) !== undefined, 'the newcomer was not refused');
      assert.equal(newcomer.received(), '');
      assert.deepEqual(
        busy.map((raw) => raw.isClosed()),
        [false, false, false, false, false],
      );
      // Once their requests are answered they are idle keep-alive connections, and make room again.
      for (const raw of busy) raw.write(`${' '.repeat(BODY_LENGTH - 2)}}`);
      for (const raw of busy) await raw.waitFor('HTTP/1.1 400 ', 2000);
      const answer = await fetch(`${test.url}/health`, { signal: AbortSignal.timeout(3000) });
      assert.equal(answer.status, 200);
      await answer.body?.cancel();
    } finally {
      closeAll(newcomer ? [...busy, newcomer] : busy);
      await test.close();
    }
  });
});

describe('the per-address rate limit (RATE_LIMIT_PER_MINUTE)', () => {
  it('at 3 a minute, the 4th request is 429 RATE_LIMITED with Retry-After and the RateLimit-* headers', async () => {
    const test = await startTestServer({ config: { rateLimitPerMinute: 3 } });
    // Plain fetch: the harness's client reads /openapi.json once to check answers, which would
    // count against the limit too.
    const send = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(test.url + path, {
        method,
        ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      });
      return { status: response.status, headers: response.headers, body: await response.json() };
    };
    try {
      for (const remaining of ['2', '1', '0']) {
        const answer = await send('GET', '/health');
        assert.equal(answer.status, 200);
        assert.equal(answer.headers.get('ratelimit-limit'), '3');
        assert.equal(answer.headers.get('ratelimit-remaining'), remaining);
        const reset = Number(answer.headers.get('ratelimit-reset'));
        assert.ok(reset > 0 && reset <= 60, `RateLimit-Reset ${reset}`);
      }
      const refused = await send('GET', '/health');
      assert.equal(refused.status, 429);
      const retryAfter = Number(refused.headers.get('retry-after'));
      assert.ok(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      assert.equal(refused.headers.get('ratelimit-limit'), '3');
      assert.equal(refused.headers.get('ratelimit-remaining'), '0');
      assert.equal(refused.headers.get('ratelimit-reset'), String(retryAfter));
      assert.ok(refused.headers.get('x-request-id'));
      assert.deepEqual(Object.keys(refused.body).sort(), ['code', 'error']);
      assert.equal(refused.body.code, 'RATE_LIMITED');
      assert.match(refused.body.error, /More than 3 requests from this address in a minute/);
      // Every path counts, an unknown one and a write too.
      const unknown = await send('GET', '/no-such-path');
      assert.equal(unknown.status, 429);
      assert.equal(unknown.body.code, 'RATE_LIMITED');
      const write = await send('POST', `${test.prefix}/deals`, {});
      assert.equal(write.status, 429);
      assert.equal(write.body.code, 'RATE_LIMITED');
    } finally {
      await test.close();
    }
  });

  it('unset, nothing is limited and no RateLimit header is sent', async () => {
    const test = await startTestServer({ config: { rateLimitPerMinute: undefined } });
    try {
      for (let i = 0; i < 5; i++) {
        const answer = await test.get('/health');
        assert.equal(answer.status, 200);
        const names = [...answer.headers.keys()].filter((name) => name.includes('ratelimit') || name === 'retry-after');
        assert.deepEqual(names, []);
      }
    } finally {
      await test.close();
    }
  });
});
