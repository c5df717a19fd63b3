// D-74: the lists answer RFC 4180 CSV with `Accept: text/csv`: a header row, every page from the
// one asked, the same filters and the same visibility; a field with a comma, a quote and a line
// break comes back whole. Read with csv-parse, as a spreadsheet's importer would.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { startTestServer, type TestServer } from '../support/http.ts';
import { as, bearer, makeKey, makeSeller, OP, startKeysServer } from '../support/keys.ts';
import { ADA, advanceGig, createDeal, negotiatingCloserGig } from '../support/marketplace-e2e.ts';

const CSV = { accept: 'text/csv' };

async function csvOf(t: TestServer, path: string, headers: Record<string, string> = CSV) {
  const response = await fetch(t.url + path, { headers });
  assert.equal(response.status, 200, path);
  assert.match(response.headers.get('content-type') ?? '', /^text\/csv; charset=utf-8/);
  assert.equal(response.headers.get('vary'), 'Accept');
  const text = await response.text();
  return { text, rows: parse(text, { columns: true }) as Record<string, string>[] };
}

describe('CSV exports (D-74)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it('a field with a comma, a quote and a line break round-trips; CRLF line ends; a header row', async () => {
    const name = 'Acme, "the Fictional"\nLtd';
    const deal = await createDeal(t, { account: { name, industry: 'saas' }, listValueUsd: 1234.5 });
    const { text, rows } = await csvOf(t, `${t.prefix}/deals`);
    assert.ok(text.startsWith('id,sellerId,version,account.name,'), text.slice(0, 60));
    assert.ok(text.includes('\r\n'));
    const row = rows.find((r) => r.id === deal.id);
    assert.equal(row?.['account.name'], name);
    assert.equal(row?.listValueUsd, '1234.5');
    assert.equal(row?.signals, '[]', 'a list as its JSON');
    assert.equal(row?.sellerId, '', 'absent: empty');
    // A bare line feed, with nothing else to quote for, is quoted all the same (RFC 4180).
    const fed = await createDeal(t, { account: { name: 'Two\nLines Fictional', industry: 'saas' } });
    const again = await csvOf(t, `${t.prefix}/deals`);
    assert.ok(again.text.includes(`${fed.id},,1,"Two\nLines Fictional",`), 'the field is quoted');
    assert.equal(again.rows.find((r) => r.id === fed.id)?.['account.name'], 'Two\nLines Fictional');
  });

  it('every page, in id order, with the list’s filters; without Accept: text/csv, JSON as before', async () => {
    const before = (await csvOf(t, `${t.prefix}/deals`)).rows.length;
    for (let i = 0; i < 1_005; i += 67)
      await Promise.all(
        Array.from({ length: Math.min(67, 1_005 - i) }, (_, j) =>
          createDeal(t, { account: { name: `Bulk ${i + j}` } }),
        ),
      );
    const all = (await csvOf(t, `${t.prefix}/deals`)).rows;
    assert.equal(all.length, before + 1_005, 'past one page of 1,000');
    const ids = all.map((r) => Number(r.id?.slice('deal_'.length)));
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
    );
    const sourced = (await csvOf(t, `${t.prefix}/deals?stage=sourced`)).rows;
    assert.ok(sourced.every((r) => r.stage === 'sourced'));
    const json = await fetch(`${t.url}${t.prefix}/deals?limit=2`);
    assert.match(json.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(((await json.json()) as unknown[]).length, 2);
    const either = await fetch(`${t.url}${t.prefix}/deals?limit=1`, { headers: { accept: '*/*' } });
    assert.match(either.headers.get('content-type') ?? '', /^application\/json/, '*/* is JSON');
  });

  it('refused proposals, and an unknown cursor is the JSON error it always was', async () => {
    const deal = await createDeal(t, {});
    await t.post(`${t.prefix}/deals/${deal.id}/advance`, { advanceTo: 'meeting', note: 'a "quoted", note' });
    const { rows } = await csvOf(t, `${t.prefix}/deals/${deal.id}/proposals`);
    assert.deepEqual(
      rows.map((r) => [r.dealId, r.code, r['proposal.advanceTo'], r['proposal.note']]),
      [[deal.id, 'GATE_ILLEGAL_MOVE', 'meeting', 'a "quoted", note']],
    );
    const bad = await fetch(`${t.url}${t.prefix}/deals?cursor=nonsense`, { headers: CSV });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { code: string }).code, 'INVALID_CURSOR');
  });
});

describe("a closer's payouts as CSV (D-74)", () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it('its ledger, a row per line; JSON without Accept: text/csv', async () => {
    const { gig } = await negotiatingCloserGig(t, ADA, { listValueUsd: 20_000 });
    await advanceGig(t, gig.id, { advanceTo: 'closed_won', valueUsd: 20_000 });
    const response = await fetch(`${t.url}/closers/closers/${ADA}`, { headers: CSV });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('vary'), 'Accept');
    const rows = parse(await response.text(), { columns: true }) as Record<string, string>[];
    assert.deepEqual(
      rows.map((r) => [r.gigId, r.kind, r.amountUsd]),
      [[gig.id, 'commission', '2000']],
    );
    const json = await t.get(`/closers/closers/${ADA}`);
    assert.equal(json.body.payouts.length, 1);
    const unknown = await fetch(`${t.url}/closers/closers/closer_9999`, { headers: CSV });
    assert.equal(unknown.status, 404, 'an unknown closer is the JSON error it always was');
  });
});

describe('CSV exports in keys mode: what the key may see (D-74)', () => {
  let t: TestServer;
  before(async () => {
    t = await startKeysServer();
  });
  after(() => t.close());

  it("a Seller's export holds its own deals only; approvals too", async () => {
    const a = await makeKey(t, OP, { name: 'a', principal: await makeSeller(t, 'CSV A Fictional') });
    const b = await makeKey(t, OP, { name: 'b', principal: await makeSeller(t, 'CSV B Fictional') });
    await as(t, bearer(a.key)).post(`${t.prefix}/deals`, { account: { name: 'Of A', actor: 'B2B' }, listValueUsd: 10 });
    await as(t, bearer(b.key)).post(`${t.prefix}/deals`, { account: { name: 'Of B', actor: 'B2B' }, listValueUsd: 10 });
    const ofA = (await csvOf(t, `${t.prefix}/deals`, { ...CSV, ...bearer(a.key) })).rows;
    assert.deepEqual(
      ofA.map((r) => r['account.name']),
      ['Of A'],
    );
    const everyone = (await csvOf(t, `${t.prefix}/deals`, { ...CSV, ...bearer(OP) })).rows;
    assert.equal(everyone.length, 2);
    const agent = await makeKey(t, a.key, {
      name: 'holds',
      scopes: ['deals:read', 'deals:propose'],
      policy: { allowedMoves: [] },
    });
    const dealId = ofA[0]?.id as string;
    const held = await as(t, bearer(agent.key)).post(`${t.prefix}/deals/${dealId}/advance`, {});
    assert.equal(held.status, 202, held.text);
    const approvals = (await csvOf(t, '/approvals', { ...CSV, ...bearer(a.key) })).rows;
    assert.deepEqual(
      approvals.map((r) => [r.dealId, r.status, r.keyId]),
      [[dealId, 'pending', agent.id]],
    );
    assert.deepEqual((await csvOf(t, '/approvals', { ...CSV, ...bearer(b.key) })).rows, []);
  });
});
