// D-202: the files of the API reference (/docs/static/…, served by @fastify/static for
// @fastify/swagger-ui) answer what they refuse in the catalogue's shape, never 500. A path the
// plugin will not serve (`..` or `.` segments, spelt out or percent-encoded, an empty segment, a
// backslash) names no file: 404 ROUTE_NOT_FOUND, as any other path that names nothing. A `Range`
// that no part of the file satisfies is 416 RANGE_NOT_SATISFIABLE; an `If-Match` or
// `If-Unmodified-Since` the file does not meet is 412 FILE_PRECONDITION_FAILED. Sent over a raw
// socket: fetch and Node's client would normalise the paths before sending them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/http.ts';
import { type RawAnswer, rawRequest } from '../support/raw-socket.ts';

const FILE = '/docs/static/swagger-ui.css';

describe('static files answer in the catalogue (D-202)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  const get = (path: string, headers = '', method = 'GET') =>
    rawRequest(t.url, `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}Connection: close\r\n\r\n`);

  function assertCatalogue(answer: RawAnswer, status: number, code: string, what: string) {
    assert.equal(answer.status, status, `${what}: ${JSON.stringify(answer.body)}`);
    assert.match(answer.headers['content-type'] ?? '', /^application\/json/, what);
    assert.deepEqual(Object.keys(answer.body).sort(), ['code', 'error'], what);
    assert.equal(answer.body.code, code, what);
    assert.ok(answer.body.error.length > 0, what);
    assert.ok(answer.headers['x-request-id'], `${what}: the answer carries its request's id`);
  }

  it('a path that leaves its folder, or is not spelt as a file, is 404 ROUTE_NOT_FOUND', async () => {
    const paths = [
      '/docs/static/../x',
      '/docs/static/%2e%2e/x',
      '/docs/static/%2E%2E/%2e%2e/package.json',
      '/docs/static/..',
      '/docs/static/swagger-ui.css/..',
      '/docs/static/./swagger-ui.css',
      '/docs/static//swagger-ui.css',
      '/docs/static/%5c..%5cpackage.json',
      '/docs/static/\\..\\package.json',
      '/console/../x',
      '/console/assets/%2e%2e/x',
    ];
    for (const path of paths) {
      const answer = await get(path);
      assertCatalogue(answer, 404, 'ROUTE_NOT_FOUND', path);
      assert.ok(answer.body.error.includes(path), `${path}: the message names the path: ${answer.body.error}`);
      // HEAD gets the same status, without a body.
      assert.equal((await get(path, '', 'HEAD')).status, 404, `HEAD ${path}`);
    }
  });

  it('a Range no part of the file satisfies is 416 RANGE_NOT_SATISFIABLE; a good one is served', async () => {
    for (const range of ['bytes=99999999-', 'bytes=5-1']) {
      assertCatalogue(await get(FILE, `Range: ${range}\r\n`), 416, 'RANGE_NOT_SATISFIABLE', range);
    }
    const part = await get(FILE, 'Range: bytes=0-9\r\n');
    assert.equal(part.status, 206);
    assert.equal(String(part.body).length, 10);
  });

  it('an If-Match or If-Unmodified-Since the file does not meet is 412 FILE_PRECONDITION_FAILED', async () => {
    for (const header of ['If-Match: "not-its-etag"', 'If-Unmodified-Since: Mon, 01 Jan 1990 00:00:00 GMT']) {
      assertCatalogue(await get(FILE, `${header}\r\n`), 412, 'FILE_PRECONDITION_FAILED', header);
    }
    const whole = await get(FILE);
    assert.equal(whole.status, 200);
    assert.equal((await get(FILE, `If-Match: ${whole.headers.etag}\r\n`)).status, 200);
  });
});
