// No web page can drive the service through a visitor's browser (D-49, D-194), in a real browser:
// Debian's Chromium through playwright-core. A hostile page, served from another local port (so
// another origin), tries what any page could: a no-cors "simple" POST /demo/reset (no preflight
// guards it) and a JSON-RPC tools/call `sell` to /demo/mcp, both as a cors request (its preflight
// is refused) and as a no-cors text/plain one. From Node, the data is then checked intact. A name
// pointed at this machine (Chromium's host resolver rules stand in for a rebinding DNS) reaches
// only 403 HOST_NOT_ALLOWED. A page on the service's own origin still writes (the console's own
// test drives the whole console).
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { browserSkip, launchChromium } from '../support/browser.ts';
import { account, startTestServer, type TestServer } from '../support/http.ts';
import { createDeal, getDeal } from '../support/marketplace-e2e.ts';

const SOLD_BY_PAGE = 'Sold By A Hostile Page Ltd';

/** The hostile page: it attacks `service` as soon as it loads, then sets `window.done`. */
function hostilePage(service: string): string {
  const call = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'sell', arguments: { account: account({ name: SOLD_BY_PAGE }), listValueUsd: 5000 } },
  });
  return `<!doctype html><title>a page anyone may open</title><script>
  const service = ${JSON.stringify(service)};
  const call = ${JSON.stringify(call)};
  const outcome = (promise) => promise.then((r) => (r.type === 'opaque' ? 'opaque' : r.status), (e) => 'failed: ' + e.name);
  window.done = (async () => ({
    reset: await outcome(fetch(service + '/demo/reset', { method: 'POST', mode: 'no-cors' })),
    mcpCors: await outcome(fetch(service + '/demo/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: call,
    })),
    mcpNoCors: await outcome(fetch(service + '/demo/mcp', { method: 'POST', mode: 'no-cors', body: call })),
    dealsNoCors: await outcome(fetch(service + '/pipeline/deals', { method: 'POST', mode: 'no-cors', body: '{}' })),
  }))();
</script>`;
}

describe('a hostile web page in Chromium cannot drive the service (D-49)', { skip: browserSkip }, () => {
  let t: TestServer;
  let hostile: Server;
  let hostileUrl: string;
  let browser: Browser;
  /** Every request the service answered, as the service logged it. */
  const logged: { method: string; route: string | null; status: number; url?: string }[] = [];
  before(async () => {
    t = await startTestServer({ logStream: { write: (line: string) => void logged.push(JSON.parse(line)) } });
    hostile = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(hostilePage(t.url));
    });
    await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
    hostileUrl = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
    // evil.example resolves to this machine, as a rebinding DNS would make it.
    browser = await launchChromium(['--host-resolver-rules=MAP evil.example 127.0.0.1']);
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => hostile?.close(resolve));
    await t?.close();
  });

  it('its no-cors POST /demo/reset and its sell through /demo/mcp change nothing', async () => {
    const kept = await createDeal(t, { account: account({ name: 'Kept Through The Visit' }) });
    const before = (await t.get('/health')).body;
    const page = await browser.newPage();
    await page.goto(hostileUrl);
    const outcome = await page.evaluate(() => (window as unknown as { done: Promise<unknown> }).done);
    await page.close();
    // A no-cors answer is opaque to the page whatever it was; the cors call fails at its preflight.
    assert.deepEqual(outcome, {
      reset: 'opaque',
      mcpCors: 'failed: TypeError',
      mcpNoCors: 'opaque',
      dealsNoCors: 'opaque',
    });
    // The service saw the attempts and refused each one 403 (the preflight included).
    const refused = logged.filter((line) => line.status === 403).map((line) => `${line.method} ${line.route}`);
    for (const attempt of ['POST /demo/reset', 'OPTIONS /demo/mcp', 'POST /demo/mcp', `POST ${t.prefix}/deals`]) {
      assert.ok(refused.includes(attempt), `${attempt} was refused: ${refused.join(', ')}`);
    }
    // Nothing changed: the deal made before the visit is there, and no deal was sold or created.
    assert.equal((await getDeal(t, kept.id)).account.name, 'Kept Through The Visit');
    assert.deepEqual((await t.get('/health')).body, before);
    const deals = await t.get(`${t.prefix}/deals?limit=100`);
    assert.ok(!JSON.stringify(deals.body).includes(SOLD_BY_PAGE), 'the MCP call sold nothing');
  });

  it('a name pointed at the service (DNS rebinding) reaches only 403 HOST_NOT_ALLOWED', async () => {
    const port = new URL(t.url).port;
    const page = await browser.newPage();
    const answer = await page.goto(`http://evil.example:${port}/console`);
    assert.equal(answer?.status(), 403);
    assert.equal((await answer?.json())?.code, 'HOST_NOT_ALLOWED');
    // Its script, same-origin with the rebound name, cannot write either.
    const reset = await page.evaluate(async () => (await fetch('/demo/reset', { method: 'POST' })).status);
    assert.equal(reset, 403);
    await page.close();
  });

  it("a page on the service's own origin still writes and reads the answer", async () => {
    const page = await browser.newPage();
    await page.goto(`${t.url}/console`);
    const created = await page.evaluate(
      async ({ prefix, body }) => {
        const response = await fetch(`${prefix}/deals`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': 'own-origin-1' },
          body: JSON.stringify(body),
        });
        return { status: response.status, id: ((await response.json()) as { id: string }).id };
      },
      { prefix: t.prefix, body: { account: account({ name: 'Made At Home Ltd' }), listValueUsd: 1000 } },
    );
    await page.close();
    assert.equal(created.status, 201);
    assert.equal((await getDeal(t, created.id)).account.name, 'Made At Home Ltd');
  });
});
