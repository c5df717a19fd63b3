// Keys mode's keys (D-52, D-53, D-55): made, shown once, listed, rolled, expired and revoked
// through the API. A key's text is in the answer that makes it and nowhere else: not in any
// other answer, not in the server's log, and (on PGlite or PostgreSQL) not in any row of any
// table of the store, nor is OPERATOR_KEY.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CLOSER_SCOPES, SELLER_SCOPES } from '../../src/domain/access.ts';
import { createStore } from '../../src/store/create-store.ts';
import { PgliteDatabase } from '../../src/store/pglite/pglite-database.ts';
import { SqlStore } from '../../src/store/postgres/sql-store.ts';
import type { Store } from '../../src/store/store.ts';
import { startTestServer, type TestServer } from '../support/http.ts';
import { as, bearer, enrolCloser, type KeyedAnswer, makeSeller, OP } from '../support/keys.ts';
import { createTestSchema, sqlOn, type TestSchema } from '../support/postgres.ts';

const KEY_FORM = /^sp_(sk|ck|op)_[0-9A-Za-z]{43}$/;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The first answer that is a 401, asking every 100 ms for at most `ms` (then the last answer). */
async function eventually(ask: () => Promise<KeyedAnswer>, ms: number): Promise<KeyedAnswer> {
  const until = Date.now() + ms;
  for (;;) {
    const answer = await ask();
    if (answer.status === 401 || Date.now() > until) return answer;
    await sleep(100);
  }
}

/** Every row of every table of the store's schema, as text (PGlite or PostgreSQL), or undefined in memory. */
type Dump = () => Promise<string[]>;

async function storeForTest(): Promise<{ store?: Store; dump?: Dump; cleanup(): Promise<void> }> {
  const kind = process.env.TEST_STORE || 'memory';
  const tablesSql =
    "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1";
  if (kind === 'pglite') {
    const db = await PgliteDatabase.open(undefined);
    const store = await SqlStore.open(db);
    const dump: Dump = () =>
      db.session(async (sql) => {
        const rows: string[] = [];
        const tables = await sql.query<{ table_name: string }>(tablesSql);
        assert.ok(tables.length > 5, 'the schema has tables');
        for (const { table_name } of tables)
          for (const row of await sql.query<{ t: string }>(`SELECT r::text AS t FROM "${table_name}" r`))
            rows.push(`${table_name}: ${row.t}`);
        return rows;
      });
    return { store, dump, cleanup: async () => undefined };
  }
  if (kind === 'postgres') {
    const base = process.env.TEST_DATABASE_URL;
    if (!base) throw new Error('TEST_STORE=postgres needs TEST_DATABASE_URL');
    const schema: TestSchema = await createTestSchema(base, 'keys');
    const store = await createStore(schema.url, { poolSize: 5, ownerUrl: schema.ownerUrl });
    // Row-level security shows a connection nothing unless a principal is set: the operator's
    // (the platform's every row), transaction-local, as the store sets it.
    const dump: Dump = () =>
      sqlOn(schema.url, async (client) => {
        await client.query('BEGIN');
        const rows: string[] = [];
        for (const principal of ['operator', 'platform']) {
          await client.query("SELECT set_config('pipeline.principal', $1, true)", [principal]);
          const tables = (await client.query(tablesSql)).rows as { table_name: string }[];
          assert.ok(tables.length > 5, 'the schema has tables');
          for (const { table_name } of tables) {
            const result = await client.query(`SELECT r::text AS t FROM "${table_name}" r`);
            for (const row of result.rows) rows.push(`${table_name}: ${row.t}`);
          }
        }
        await client.query('COMMIT');
        return rows;
      });
    return { store, dump, cleanup: () => schema.drop() };
  }
  return { cleanup: async () => undefined };
}

describe('keys mode: keys made, shown once, rolled, expired and revoked', () => {
  let t: TestServer;
  let dump: Dump | undefined;
  let cleanup: () => Promise<void>;
  const logLines: string[] = [];
  /** Every answer but those that make a key (the only ones that may show one). */
  const seen: string[] = [];
  /** Every key text made. */
  const texts: string[] = [];
  let sellerA: string;
  let sellerB: string;
  let closer: string;
  let keyA: string;
  let keyAId: string;

  /** A request as `key`, its answer recorded unless it made a key. */
  const call = async (key: string | undefined, method: string, path: string, body?: unknown): Promise<KeyedAnswer> => {
    const answer = await as(t, key === undefined ? {} : bearer(key)).send(method, path, body);
    const makesKey = method === 'POST' && answer.status === 201 && /^\/keys(\/[^/]+\/roll)?$/.test(path);
    if (makesKey) {
      assert.match(answer.body.key, KEY_FORM);
      texts.push(answer.body.key);
    } else {
      seen.push(`${method} ${path} ${answer.status} ${JSON.stringify([...answer.headers])} ${answer.text}`);
    }
    return answer;
  };

  before(async () => {
    const chosen = await storeForTest();
    dump = chosen.dump;
    cleanup = chosen.cleanup;
    t = await startTestServer({
      config: { auth: 'keys', operatorKey: OP },
      ...(chosen.store ? { store: chosen.store } : {}),
      logStream: { write: (line: string) => void logLines.push(line) },
    });
    sellerA = await makeSeller(t, 'Key Seller A');
    sellerB = await makeSeller(t, 'Key Seller B');
    closer = await enrolCloser(t, 'Key Closer');
    const made = await call(OP, 'POST', '/keys', { name: 'A full', principal: sellerA });
    keyA = made.body.key;
    keyAId = made.body.id;
  });
  after(async () => {
    await t?.close();
    await cleanup?.();
  });

  it('a made key is shown once: prefix its first 12 characters, the principal kind’s prefix, every scope by default', async () => {
    const cases = [
      ['operator', 'sp_op_', ['admin']],
      [sellerA, 'sp_sk_', [...SELLER_SCOPES]],
      [closer, 'sp_ck_', [...CLOSER_SCOPES]],
    ] as const;
    for (const [principal, prefix, scopes] of cases) {
      const made = await call(OP, 'POST', '/keys', { name: `default ${principal}`, principal });
      assert.equal(made.status, 201, made.text);
      assert.ok(made.body.key.startsWith(prefix), `${principal}'s key starts ${prefix}`);
      assert.equal(made.body.prefix, made.body.key.slice(0, 12));
      assert.equal(made.body.principal, principal);
      assert.deepEqual([...made.body.scopes].sort(), [...scopes].sort(), `${principal}: every scope of its kind`);
      assert.equal(made.body.lastUsedAt, null);
      assert.equal(made.body.expiresAt, null);
      assert.match(made.body.id, /^key_\d{4,}$/);
      const one = await call(OP, 'GET', `/keys/${made.body.id}`);
      assert.equal(one.status, 200);
      assert.equal('key' in one.body, false, 'GET /keys/{id} never shows the key');
      const { key: _shown, ...rest } = made.body;
      const { usage, ...kept } = one.body;
      assert.deepEqual({ ...kept, lastUsedAt: null }, rest, 'the same key, but its text');
      // D-68: a Seller's key shows what it committed today; no other key commits closes.
      if (principal.startsWith('seller_'))
        assert.deepEqual(Object.keys(usage).sort(), ['closedValueUsd', 'closes', 'day']);
      else assert.equal(usage, undefined, `${principal}: no usage`);
      const list = await call(OP, 'GET', `/keys?principal=${principal}`);
      assert.ok(list.body.some((k: any) => k.id === made.body.id));
      for (const k of list.body) assert.equal('key' in k, false, 'GET /keys never shows a key');
    }
    // A Seller's own key, made by itself: its principal, no more than its scopes.
    const own = await call(keyA, 'POST', '/keys', { name: 'own' });
    assert.equal(own.status, 201, own.text);
    assert.equal(own.body.principal, sellerA);
    assert.ok(own.body.key.startsWith('sp_sk_'));
    const closerKey = await call(OP, 'POST', '/keys', { name: 'closer own', principal: closer });
    const closerOwn = await call(closerKey.body.key, 'POST', '/keys', { name: 'closer made' });
    assert.equal(closerOwn.status, 201);
    assert.ok(closerOwn.body.key.startsWith('sp_ck_'));
    assert.equal(closerOwn.body.principal, closer);
  });

  it('a key never gets more than its maker has, nor another principal’s', async () => {
    const limited = await call(keyA, 'POST', '/keys', { name: 'limited', scopes: ['deals:read', 'keys:manage'] });
    assert.equal(limited.status, 201, limited.text);
    const beyond = await call(limited.body.key, 'POST', '/keys', { name: 'beyond', scopes: ['deals:write'] });
    assert.equal(beyond.status, 403, beyond.text);
    assert.equal(beyond.body.code, 'INSUFFICIENT_SCOPE');
    assert.equal(beyond.body.requiredScope, 'deals:write');
    const byDefault = await call(limited.body.key, 'POST', '/keys', { name: 'default beyond' });
    assert.equal(byDefault.status, 403, `every Seller scope by default is beyond it: ${byDefault.text}`);
    assert.equal(byDefault.body.code, 'INSUFFICIENT_SCOPE');
    const within = await call(limited.body.key, 'POST', '/keys', { name: 'within', scopes: ['deals:read'] });
    assert.equal(within.status, 201, within.text);
    const other = await call(keyA, 'POST', '/keys', { name: 'for B', principal: sellerB });
    assert.equal(other.status, 404, other.text);
    assert.equal(other.body.code, 'PRINCIPAL_NOT_FOUND');
    for (const principal of ['operator', closer, 'seller_9999']) {
      const answer = await call(keyA, 'POST', '/keys', { name: 'x', principal });
      assert.equal(answer.status, 404, `${principal}: ${answer.text}`);
      assert.equal(answer.body.code, 'PRINCIPAL_NOT_FOUND');
    }
    // The operator names any principal that exists, and none that does not.
    assert.equal((await call(OP, 'POST', '/keys', { name: 'x', principal: 'seller_9999' })).status, 404);
    assert.equal((await call(OP, 'POST', '/keys', { name: 'x', principal: 'nobody' })).status, 404);
  });

  it('malformed scopes, grace periods and dates are 400; a scope or expiry a rule refuses is 422 (D-258)', async () => {
    const malformed: [string, unknown][] = [
      ['an unknown scope', { name: 'x', scopes: ['deals:delete'] }],
      ['no scope at all', { name: 'x', scopes: [] }],
      ['an unparseable expiry', { name: 'x', expiresAt: 'tomorrow' }],
      ['an impossible date', { name: 'x', expiresAt: '2030-13-45T00:00:00Z' }],
      ['no name', {}],
    ];
    for (const [what, body] of malformed) {
      const answer = await call(OP, 'POST', '/keys', { principal: sellerA, ...(body as object) });
      assert.equal(answer.status, 400, `${what}: ${answer.text}`);
      assert.equal(answer.body.code, 'INVALID_BODY', what);
    }
    const refused: [string, unknown, string, string][] = [
      [
        "a closer's scope on a Seller's key",
        { name: 'x', scopes: ['gigs:read'] },
        'KEY_SCOPE_NOT_OF_PRINCIPAL',
        'gigs:read',
      ],
      ["admin on a Seller's key", { name: 'x', scopes: ['admin'] }, 'KEY_SCOPE_NOT_OF_PRINCIPAL', 'admin'],
      ['an expiry in the past', { name: 'x', expiresAt: '2020-01-01T00:00:00Z' }, 'KEY_EXPIRY_PAST', 'expiresAt'],
    ];
    for (const [what, body, code, named] of refused) {
      for (const [who, key, extra] of [
        ['the operator', OP, { principal: sellerA }],
        ["a Seller's own key", keyA, {}],
      ] as const) {
        const before = (await call(OP, 'GET', `/keys?principal=${sellerA}`)).body.keys.length;
        const answer = await call(key, 'POST', '/keys', { ...extra, ...(body as object) });
        assert.equal(answer.status, 422, `${who}, ${what}: ${answer.text}`);
        assert.equal(answer.body.code, code, `${who}, ${what}`);
        assert.match(answer.body.violations.join('\n'), new RegExp(named), `${who}, ${what}: the breach is named`);
        assert.equal((await call(OP, 'GET', `/keys?principal=${sellerA}`)).body.keys.length, before, 'no key made');
      }
    }
    for (const [what, body] of malformed.slice(0, 1)) {
      const answer = await call(keyA, 'POST', '/keys', body);
      assert.equal(answer.status, 400, `a Seller's own key, ${what}: ${answer.text}`);
    }
    const subject = await call(OP, 'POST', '/keys', { name: 'roll subject', principal: sellerA });
    for (const graceSeconds of [-1, 604_801, 1.5, 'x', null]) {
      const answer = await call(OP, 'POST', `/keys/${subject.body.id}/roll`, { graceSeconds });
      assert.equal(answer.status, 400, `graceSeconds ${JSON.stringify(graceSeconds)}: ${answer.text}`);
    }
    // The bounds themselves are fine.
    assert.equal((await call(OP, 'POST', `/keys/${subject.body.id}/roll`, { graceSeconds: 604_800 })).status, 201);
    const still = await call(subject.body.key, 'GET', `${t.prefix}/deals`);
    assert.equal(still.status, 200, 'the old key works during its grace period');
  });

  it('roll: the new key works, the old one during its grace period, and with graceSeconds 0 not at all', async () => {
    const old = await call(OP, 'POST', '/keys', { name: 'to roll', principal: sellerA, scopes: ['deals:read'] });
    const rolled = await call(old.body.key, 'POST', `/keys/${old.body.id}/roll`, { graceSeconds: 60 });
    assert.equal(rolled.status, 403, "a key without keys:manage can't roll itself");
    const roll = await call(keyA, 'POST', `/keys/${old.body.id}/roll`, { graceSeconds: 60 });
    assert.equal(roll.status, 201, roll.text);
    assert.notEqual(roll.body.id, old.body.id);
    assert.notEqual(roll.body.key, old.body.key);
    assert.equal(roll.body.principal, sellerA);
    assert.deepEqual(roll.body.scopes, ['deals:read']);
    assert.equal(roll.body.name, 'to roll');
    assert.equal((await call(roll.body.key, 'GET', `${t.prefix}/deals`)).status, 200, 'the new key works');
    assert.equal((await call(old.body.key, 'GET', `${t.prefix}/deals`)).status, 200, 'the old one, for now');
    const oldNow = await call(OP, 'GET', `/keys/${old.body.id}`);
    assert.equal(oldNow.body.replacedBy, roll.body.id, 'the old key names the key that replaced it (D-260)');
    assert.equal(roll.body.replacedBy, undefined, 'the new key is replaced by none');
    const graceEnds = Date.parse(oldNow.body.expiresAt);
    assert.ok(
      Math.abs(graceEnds - (Date.now() + 60_000)) < 10_000,
      `its grace ends in a minute: ${oldNow.body.expiresAt}`,
    );
    // Grace 0: the old key is refused, the new one works.
    const again = await call(keyA, 'POST', `/keys/${roll.body.id}/roll`, { graceSeconds: 0 });
    assert.equal(again.status, 201, again.text);
    const refused = await eventually(() => call(roll.body.key, 'GET', `${t.prefix}/deals`), 5_000);
    assert.equal(refused.status, 401);
    assert.equal(refused.body.code, 'INVALID_KEY');
    assert.equal(refused.headers.get('www-authenticate'), 'Bearer realm="sales-pipeline", error="invalid_token"');
    assert.equal((await call(again.body.key, 'GET', `${t.prefix}/deals`)).status, 200);
    // A Seller rolls only its own keys.
    const other = await call(OP, 'POST', '/keys', { name: 'B', principal: sellerB });
    const foreign = await call(keyA, 'POST', `/keys/${other.body.id}/roll`, {});
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.code, 'KEY_NOT_FOUND');
    assert.equal((await call(other.body.key, 'GET', `${t.prefix}/deals`)).status, 200, "B's key untouched");
  });

  it('roll with graceSeconds 0: the old key is refused at once by the instance that rolled it', async () => {
    const old = await call(OP, 'POST', '/keys', { name: 'grace 0', principal: sellerA });
    assert.equal((await call(old.body.key, 'GET', `${t.prefix}/deals`)).status, 200);
    const roll = await call(OP, 'POST', `/keys/${old.body.id}/roll`, { graceSeconds: 0 });
    assert.equal(roll.status, 201, roll.text);
    const refused = await call(old.body.key, 'GET', `${t.prefix}/deals`);
    assert.equal(refused.status, 401, `the old key right after the roll: ${refused.text}`);
    assert.equal(refused.body.code, 'INVALID_KEY');
  });

  it('a key past its expiresAt is refused as INVALID_KEY', async () => {
    const expiresAt = new Date(Date.now() + 2_000).toISOString();
    const made = await call(OP, 'POST', '/keys', { name: 'short-lived', principal: sellerA, expiresAt });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.expiresAt, expiresAt);
    assert.equal((await call(made.body.key, 'GET', `${t.prefix}/deals`)).status, 200, 'before it expires');
    await sleep(Date.parse(expiresAt) - Date.now() + 300);
    const late = await call(made.body.key, 'GET', `${t.prefix}/deals`);
    assert.equal(late.status, 401, late.text);
    assert.equal(late.body.code, 'INVALID_KEY');
    const roll = await call(OP, 'POST', `/keys/${made.body.id}/roll`, {});
    assert.equal(roll.status, 409, `an expired key is not rolled: ${roll.text}`);
  });

  it('revoke: refused at once, revokedAt shown, a second revoke changes nothing', async () => {
    const made = await call(keyA, 'POST', '/keys', { name: 'to revoke' });
    assert.equal((await call(made.body.key, 'GET', `${t.prefix}/deals`)).status, 200);
    const revoke = await call(keyA, 'POST', `/keys/${made.body.id}/revoke`, {});
    assert.equal(revoke.status, 200, revoke.text);
    assert.equal(typeof revoke.body.revokedAt, 'string');
    assert.equal('key' in revoke.body, false);
    const refused = await call(made.body.key, 'GET', `${t.prefix}/deals`);
    assert.equal(refused.status, 401);
    assert.equal(refused.body.code, 'INVALID_KEY');
    const twice = await call(keyA, 'POST', `/keys/${made.body.id}/revoke`, {});
    assert.equal(twice.status, 200);
    assert.equal(twice.body.revokedAt, revoke.body.revokedAt);
    const shown = await call(OP, 'GET', `/keys/${made.body.id}`);
    assert.equal(shown.body.revokedAt, revoke.body.revokedAt);
    const roll = await call(keyA, 'POST', `/keys/${made.body.id}/roll`, {});
    assert.equal(roll.status, 409, roll.text);
    assert.equal(roll.body.code, 'KEY_REVOKED');
    // A revoked key cannot revoke anything (it is no key at all).
    const self = await call(made.body.key, 'POST', `/keys/${made.body.id}/revoke`, {});
    assert.equal(self.status, 401);
  });

  it('lastUsedAt is set once a key is used', async () => {
    const made = await call(OP, 'POST', '/keys', { name: 'used', principal: sellerA });
    assert.equal((await call(OP, 'GET', `/keys/${made.body.id}`)).body.lastUsedAt, null);
    const before = Date.now();
    assert.equal((await call(made.body.key, 'GET', `${t.prefix}/deals`)).status, 200);
    const shown = await call(OP, 'GET', `/keys/${made.body.id}`);
    assert.equal(typeof shown.body.lastUsedAt, 'string', `lastUsedAt after a use: ${shown.text}`);
    assert.ok(Date.parse(shown.body.lastUsedAt) >= before - 1_000);
    const listed = await call(OP, 'GET', `/keys?principal=${sellerA}&limit=1000`);
    const entry = listed.body.find((k: any) => k.id === made.body.id);
    assert.equal(typeof entry.lastUsedAt, 'string', 'the list shows it too');
    assert.equal(typeof (await call(made.body.key, 'GET', `/keys/${made.body.id}`)).body.lastUsedAt, 'string');
  });

  it('the operator lists every key and filters by principal; a Seller and a closer list their own', async () => {
    const all = await call(OP, 'GET', '/keys?limit=1000');
    const principals = new Set(all.body.map((k: any) => k.principal));
    for (const p of ['operator', sellerA, sellerB, closer]) assert.ok(principals.has(p), `the operator lists ${p}'s`);
    for (const p of ['operator', sellerA, sellerB, closer]) {
      const filtered = await call(OP, 'GET', `/keys?principal=${p}&limit=1000`);
      assert.ok(filtered.body.length > 0);
      assert.deepEqual(
        filtered.body.map((k: any) => k.id),
        all.body.filter((k: any) => k.principal === p).map((k: any) => k.id),
        `?principal=${p}`,
      );
    }
    const mine = await call(keyA, 'GET', '/keys?limit=1000');
    assert.deepEqual(
      mine.body.map((k: any) => k.id),
      all.body.filter((k: any) => k.principal === sellerA).map((k: any) => k.id),
      "a Seller's list: its own keys",
    );
    assert.ok(mine.body.some((k: any) => k.id === keyAId));
    assert.deepEqual((await call(keyA, 'GET', `/keys?principal=${sellerB}`)).body, []);
    const other = all.body.find((k: any) => k.principal === sellerB);
    assert.equal((await call(keyA, 'GET', `/keys/${other.id}`)).status, 404);
  });

  it('D-75: a roll needs every scope of the key it rolls, and the new key has exactly its scopes', async () => {
    const managerOnly = await call(keyA, 'POST', '/keys', { name: 'manager only', scopes: ['keys:manage'] });
    assert.equal(managerOnly.status, 201, managerOnly.text);
    const full = await call(OP, 'POST', '/keys', { name: 'full victim', principal: sellerA });
    const before = await call(OP, 'GET', `/keys?principal=${sellerA}&limit=1000`);
    const escalation = await call(managerOnly.body.key, 'POST', `/keys/${full.body.id}/roll`, {
      graceSeconds: 604_800,
    });
    assert.equal(escalation.status, 403, escalation.text);
    assert.equal(escalation.body.code, 'INSUFFICIENT_SCOPE');
    assert.ok(full.body.scopes.includes(escalation.body.requiredScope), escalation.text);
    assert.equal(escalation.headers.get('www-authenticate'), null, 'a refusal of the service, not of the door');
    const after = await call(OP, 'GET', `/keys?principal=${sellerA}&limit=1000`);
    assert.deepEqual(
      after.body.map((k: any) => ({ ...k, lastUsedAt: null })),
      before.body.map((k: any) => ({ ...k, lastUsedAt: null })),
      'nothing changed: no new key, the victim key keeps no expiry',
    );
    assert.equal((await call(full.body.key, 'GET', `${t.prefix}/deals`)).status, 200, 'the victim key works');
    // A closer's key that manages keys only, on its closer's full key: the same.
    const closerFull = await call(OP, 'POST', '/keys', { name: 'closer full', principal: closer });
    const closerManager = await call(closerFull.body.key, 'POST', '/keys', { name: 'cm', scopes: ['keys:manage'] });
    const closerEscalation = await call(closerManager.body.key, 'POST', `/keys/${closerFull.body.id}/roll`, {});
    assert.equal(closerEscalation.status, 403, closerEscalation.text);
    assert.equal(closerEscalation.body.code, 'INSUFFICIENT_SCOPE');
    // Its own key, or a weaker one, it may roll: the new key has exactly the old scopes.
    const self = await call(managerOnly.body.key, 'POST', `/keys/${managerOnly.body.id}/roll`, { graceSeconds: 0 });
    assert.equal(self.status, 201, self.text);
    assert.deepEqual(self.body.scopes, ['keys:manage']);
    const weaker = await call(keyA, 'POST', '/keys', { name: 'weaker', scopes: ['deals:read', 'events:read'] });
    const rolled = await call(keyA, 'POST', `/keys/${weaker.body.id}/roll`, { graceSeconds: 0 });
    assert.equal(rolled.status, 201, rolled.text);
    assert.deepEqual(rolled.body.scopes, ['deals:read', 'events:read']);
    // The operator (admin) rolls any key.
    const byOperator = await call(OP, 'POST', `/keys/${full.body.id}/roll`, { graceSeconds: 0 });
    assert.equal(byOperator.status, 201, byOperator.text);
    assert.deepEqual([...byOperator.body.scopes].sort(), [...full.body.scopes].sort());
  });

  it('D-75: a key made or rolled under an Idempotency-Key is answered again, the same key, and made once', async () => {
    const count = async () => (await call(OP, 'GET', `/keys?principal=${sellerA}&limit=1000`)).body.length;
    const before = await count();
    const headers = { 'idempotency-key': `make-${Date.now()}` };
    const send = (body: unknown, extra: Record<string, string> = headers) =>
      as(t, bearer(keyA)).send('POST', '/keys', body, extra);
    const first = await send({ name: 'keyed', scopes: ['deals:read'] });
    assert.equal(first.status, 201, first.text);
    texts.push(first.body.key);
    const again = await send({ scopes: ['deals:read'], name: 'keyed' });
    assert.equal(again.status, 201, again.text);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.text, first.text, 'the same answer, byte for byte: the same secret');
    assert.equal(again.headers.get('location'), first.headers.get('location'));
    assert.equal(await count(), before + 1, 'one key made');
    assert.equal((await call(first.body.key, 'GET', `${t.prefix}/deals`)).status, 200, 'the key answered works');
    const reused = await send({ name: 'another', scopes: ['deals:read'] });
    assert.equal(reused.status, 422, reused.text);
    assert.equal(reused.body.code, 'IDEMPOTENCY_KEY_REUSED');
    seen.push(reused.text);
    // Another principal's same Idempotency-Key is another request (D-54).
    const other = await as(t, bearer(OP)).send('POST', '/keys', { name: 'keyed', principal: sellerB }, headers);
    assert.equal(other.status, 201, other.text);
    assert.notEqual(other.body.key, first.body.key);
    texts.push(other.body.key);
    // A roll likewise: one new key, the same one again.
    const rollHeaders = { 'idempotency-key': `roll-${Date.now()}` };
    const roll = await as(t, bearer(keyA)).send(
      'POST',
      `/keys/${first.body.id}/roll`,
      { graceSeconds: 60 },
      rollHeaders,
    );
    assert.equal(roll.status, 201, roll.text);
    texts.push(roll.body.key);
    const rollAgain = await as(t, bearer(keyA)).send(
      'POST',
      `/keys/${first.body.id}/roll`,
      { graceSeconds: 60 },
      rollHeaders,
    );
    assert.equal(rollAgain.headers.get('idempotent-replayed'), 'true');
    assert.equal(rollAgain.text, roll.text);
    assert.equal(await count(), before + 2, 'one roll made one key');
    // A malformed Idempotency-Key is refused before anything is made.
    const malformed = await send({ name: 'x' }, { 'idempotency-key': 'two words' });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.code, 'IDEMPOTENCY_KEY_INVALID');
    seen.push(malformed.text);
    assert.equal(await count(), before + 2);
  });

  it('no key text anywhere but in the answer that made it: answers, the log, the store', async () => {
    assert.ok(texts.length >= 10, `keys were made: ${texts.length}`);
    assert.ok(seen.length > 50, `answers were recorded: ${seen.length}`);
    const secrets = [...texts, OP];
    // A key's randomness, whatever wraps it (its first 12 characters are its shown prefix).
    const leaks = (haystack: string) => secrets.filter((s) => haystack.includes(s) || haystack.includes(s.slice(12)));
    for (const answer of seen) assert.deepEqual(leaks(answer), [], `an answer shows a key: ${answer.slice(0, 300)}`);
    assert.ok(logLines.length > 0, 'the server logged');
    const log = logLines.join('\n');
    assert.deepEqual(leaks(log), [], 'the log shows no key');
    assert.ok(!log.toLowerCase().includes('authorization'), 'the log shows no Authorization header');
    if (dump) {
      const rows = await dump();
      assert.ok(
        rows.some((r) => r.includes(keyAId)),
        'the dump holds the keys table',
      );
      for (const row of rows) assert.deepEqual(leaks(row), [], `a row holds a key: ${row.slice(0, 300)}`);
    }
  });
});
