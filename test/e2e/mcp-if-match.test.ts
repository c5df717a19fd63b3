// D-268: a demo tool's ifMatch names a version as an agent holds it: deal.version (3), the same
// as text ("3"), or the ETag HTTP answers with its quotes ("\"3\""), or "*" for any. Each means
// what `If-Match: "3"` means over HTTP: the move goes ahead at that version, and a stale one is the
// same 412 through either door. What HTTP refuses as no version (a weak tag, a list, 0, an
// unquoted number in the header: D-173) the tool refuses too, in one line, not one per branch of
// its schema, and nothing moves.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { account, startTestServer, type TestServer } from '../support/http.ts';
import { type DemoMcp, demoMcp } from '../support/mcp-client.ts';

const textOf = (result: CallToolResult) => (result.content as { type: string; text: string }[])[0].text;

describe('ifMatch on the demo MCP door takes the version as HTTP names it too (D-268)', () => {
  let t: TestServer;
  let mcp: DemoMcp;
  before(async () => {
    t = await startTestServer();
    mcp = await demoMcp(t, 'e2e-mcp-if-match');
  });
  after(async () => {
    await mcp.client.close();
    await t.close();
  });

  const call = (name: string, args: Record<string, unknown>) => mcp.call(name, args);

  async function freshDeal(): Promise<string> {
    const created = await t.post(`${t.prefix}/deals`, { account: account(), listValueUsd: 8_000 });
    assert.equal(created.status, 201);
    return created.body.id;
  }

  it('the version as an integer, as text, as the quoted ETag, or "*": each moves the deal at that version', async () => {
    const id = await freshDeal();
    const etag = (await t.get(`${t.prefix}/deals/${id}`)).headers.get('etag');
    assert.equal(etag, '"1"', 'HTTP sends the version as a quoted ETag');
    for (const [version, ifMatch] of [
      [1, etag],
      [2, '2'],
      [3, 3],
      [4, '*'],
    ] as const) {
      const moved = await call('advance_deal', { id, ifMatch });
      assert.notEqual(moved.isError, true, `${JSON.stringify(ifMatch)}: ${textOf(moved)}`);
      assert.equal(moved.structuredContent?.version, version + 1, JSON.stringify(ifMatch));
    }
  });

  it('a stale version in any of its forms is the 412 HTTP answers, with the deal as it is now', async () => {
    const id = await freshDeal();
    assert.equal((await t.post(`${t.prefix}/deals/${id}/advance`, undefined, { 'if-match': '"1"' })).status, 200);
    const http = await t.post(`${t.prefix}/deals/${id}/advance`, undefined, { 'if-match': '"1"' });
    assert.equal(http.status, 412);
    for (const ifMatch of [1, '1', '"1"']) {
      const stale = await call('advance_deal', { id, ifMatch });
      assert.equal(stale.isError, true, JSON.stringify(ifMatch));
      assert.deepEqual(JSON.parse(textOf(stale)), http.body, `${JSON.stringify(ifMatch)}: the same refusal`);
    }
    assert.equal((await t.get(`${t.prefix}/deals/${id}`)).body.version, 2, 'nothing moved');
  });

  it('what names no version is refused in one clear line, as HTTP refuses its header, and nothing moves', async () => {
    const id = await freshDeal();
    for (const bad of ['W/"1"', '"1", "2"', '"1', '1"', '0', 0, '"0"', '-1', 1.5, '', 'one', '**', ' 1', true]) {
      const refused = await call('advance_deal', { id, ifMatch: bad });
      assert.equal(refused.isError, true, JSON.stringify(bad));
      const body = JSON.parse(textOf(refused));
      assert.equal(body.code, 'INVALID_BODY', JSON.stringify(bad));
      assert.deepEqual(
        body.violations,
        [
          'ifMatch: must be the deal version: an integer (1 or more) like 3, the same as text "3" or as the ETag "\\"3\\"", or "*": not a weak W/"3", not a list',
        ],
        JSON.stringify(bad),
      );
    }
    // A bad ifMatch beside another bad argument: each said once.
    const both = JSON.parse(textOf(await call('advance_deal', { id, ifMatch: 'W/"1"', advanceTo: 'nowhere' })));
    assert.equal(both.violations.length, 2, JSON.stringify(both.violations));
    assert.ok(both.violations.some((line: string) => line.startsWith('ifMatch: must be the deal version')));
    assert.equal((await t.get(`${t.prefix}/deals/${id}`)).body.version, 1, 'nothing moved');
    // HTTP, as D-173 documents it: the quoted ETag or *; an unquoted number or a weak tag is a 400
    // that says what the header must be.
    for (const bad of ['1', 'W/"1"']) {
      const answer = await t.post(`${t.prefix}/deals/${id}/advance`, undefined, { 'if-match': bad });
      assert.equal(answer.status, 400, bad);
      assert.equal(answer.body.code, 'INVALID_HEADER', bad);
      assert.match(answer.body.error, /if-match: must be one quoted version .*not a weak W\/"3"/, bad);
    }
  });

  it('the tools publish what ifMatch takes: an integer, or text of a version, its ETag or *', async () => {
    const { tools } = await mcp.client.listTools();
    const schema = tools.find((tool) => tool.name === 'advance_deal')?.inputSchema.properties?.ifMatch as any;
    assert.deepEqual(
      schema.anyOf.map((branch: any) => branch.type),
      ['integer', 'string'],
    );
    assert.equal(schema.anyOf[1].pattern, '^(\\*|[1-9][0-9]{0,14}|"[1-9][0-9]{0,14}")$');
    assert.match(schema.description, /deal\.version \(3\), as text \("3"\) or the ETag HTTP answers/);
    assert.equal(
      Object.keys(schema).some((key) => key.startsWith('x-')),
      false,
      'no marker of our own is published',
    );
    const description = tools.find((tool) => tool.name === 'claim_gig')?.description ?? '';
    assert.match(description, /as the integer 3, the string "3" or the ETag HTTP answers/);
  });
});
