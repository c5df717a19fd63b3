// Keys mode's key management, cell by cell (D-52, D-54, D-55, D-75): every key-management
// operation (POST /keys in its forms, GET /keys, GET /keys/{id}, POST /keys/{id}/roll and
// /revoke) tried by every kind of caller (the operator, a Seller's full, agent and
// keys:manage-only keys, a closer's full and keys:manage-only keys, a revoked key, an expired
// key, no key, an Authorization that is no bearer key, a malformed key, a key no one was given)
// against keys of its own principal (stronger, equal, weaker, other scopes) and of another
// principal (another Seller's, a closer's, the operator's). Each cell's exact status and code
// comes from the rules below (`expected…`), written from the decisions:
// - D-55: no credential, or no bearer key: 401 UNAUTHENTICATED; a key unknown, revoked or
//   expired: 401 INVALID_KEY; neither keys:manage nor admin: 403 INSUFFICIENT_SCOPE naming
//   keys:manage.
// - D-54: another principal's key id is answered exactly as an unknown id (404 KEY_NOT_FOUND)
//   to anyone but the operator, whose admin manages every key.
// - D-52: POST /keys is of the caller's principal unless the operator names another; naming
//   another is answered as an unknown principal (404 PRINCIPAL_NOT_FOUND); no scope beyond the
//   caller's own (403 INSUFFICIENT_SCOPE), none foreign to the principal's kind (400).
// - D-75: a roll needs every scope of the key rolled (admin counts as every scope), else 403
//   INSUFFICIENT_SCOPE naming the first it lacks; the new key has exactly the old one's scopes.
//   A revoke needs keys:manage of the key's principal only.
// Every refused cell changes nothing: every key, as the operator lists them, is as it was.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type KeyScope, kindOf, OPERATOR, scopesOf } from '../../src/domain/access.ts';
import type { TestServer } from '../support/http.ts';
import {
  as,
  bearer,
  type KeyedAnswer,
  type KeyInfo,
  type KeysFixture,
  keysFixture,
  makeKey,
  OP,
  startKeysServer,
  wrongKey,
} from '../support/keys.ts';

const REALM = 'Bearer realm="sales-pipeline"';
const UNKNOWN_KEY = 'key_9999';
const UNKNOWN_PRINCIPAL = 'seller_9999';
/** An operation any valid key may call: whether a key works. */
const ANY_KEY_PATH = '/closers/closers';

interface Expect {
  status: number;
  code?: string;
  requiredScope?: string;
}

/** One cell: what it expects, the key it acts on (made before it runs), and the call. */
interface Cell {
  name: string;
  expected: Expect;
  /** The key acted on: shared by the cells that leave it as it is, made afresh for one that changes it. */
  target?: TargetSpec;
  fresh?: boolean;
  run: (subject: KeyInfo) => Promise<void>;
}

/** A caller: a key (its principal and scopes), or an Authorization the door refuses. */
interface CallerSpec {
  name: string;
  auth: Record<string, string>;
  /** The key, when the door admits it. */
  key?: KeyInfo;
  /** The door's refusal, when it does not (D-55). */
  refused?: Expect;
}

/** A key to act on: its principal and scopes, and what it is to the caller. */
interface TargetSpec {
  label: string;
  principal: string;
  scopes: readonly KeyScope[];
}

const isAdmin = (key: KeyInfo) => key.scopes.includes('admin');
const holds = (key: KeyInfo, scope: KeyScope) => isAdmin(key) || key.scopes.includes(scope);
/** D-54: its own principal's keys, or every key for the operator. */
const manages = (key: KeyInfo, principal: string) => isAdmin(key) || key.principal === principal;
const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((s) => b.includes(s));

/** D-55: what the door answers before the operation runs, if it refuses. */
function door(caller: CallerSpec): Expect | undefined {
  if (caller.refused) return caller.refused;
  const key = caller.key as KeyInfo;
  if (!key.scopes.includes('keys:manage') && !isAdmin(key)) {
    return { status: 403, code: 'INSUFFICIENT_SCOPE', requiredScope: 'keys:manage' };
  }
  return undefined;
}

const NOT_FOUND: Expect = { status: 404, code: 'KEY_NOT_FOUND' };

function expectedGetOrRevoke(caller: CallerSpec, target: TargetSpec, success: number): Expect {
  return door(caller) ?? (manages(caller.key as KeyInfo, target.principal) ? { status: success } : NOT_FOUND);
}

/** D-75: a roll needs every scope of the key rolled. */
function expectedRoll(caller: CallerSpec, target: TargetSpec): Expect {
  const refused = door(caller);
  if (refused) return refused;
  const key = caller.key as KeyInfo;
  if (!manages(key, target.principal)) return NOT_FOUND;
  const beyond = target.scopes.find((scope) => !holds(key, scope));
  return beyond === undefined ? { status: 201 } : { status: 403, code: 'INSUFFICIENT_SCOPE', requiredScope: beyond };
}

interface CreateBody {
  name: string;
  principal?: string;
  scopes?: KeyScope[];
}

/** D-52: the key a POST /keys makes, or its refusal. */
function expectedCreate(
  caller: CallerSpec,
  body: CreateBody,
  known: readonly string[],
): Expect & { principal?: string; scopes?: readonly string[] } {
  const refused = door(caller);
  if (refused) return refused;
  const key = caller.key as KeyInfo;
  const principal = body.principal ?? key.principal;
  if (!manages(key, principal) || !known.includes(principal)) return { status: 404, code: 'PRINCIPAL_NOT_FOUND' };
  const own = scopesOf(kindOf(principal) ?? 'seller');
  const scopes = body.scopes ?? [...own];
  if (scopes.some((scope) => !own.includes(scope))) return { status: 422, code: 'KEY_SCOPE_NOT_OF_PRINCIPAL' };
  const beyond = scopes.find((scope) => !holds(key, scope));
  if (beyond !== undefined) return { status: 403, code: 'INSUFFICIENT_SCOPE', requiredScope: beyond };
  return { status: 201, principal, scopes };
}

/** The same answer, the id it was about written as <id>. */
const idless = (answer: KeyedAnswer, id: string) => ({
  status: answer.status,
  contentType: answer.headers.get('content-type'),
  body: answer.text.replaceAll(id, '<id>'),
});

describe('keys mode: every key-management operation, by every kind of key, on every kind of key', () => {
  let t: TestServer;
  let fx: KeysFixture;
  let callers: CallerSpec[];
  let principals: { A: string; B: string; C1: string; C2: string };
  const shared = new Map<string, KeyInfo>();

  /** Every key, as the operator lists them, without when each was last used (a use is no change). */
  async function everyKey(): Promise<unknown[]> {
    const all: unknown[] = [];
    let next: string | undefined = '/keys?limit=1000';
    while (next !== undefined) {
      const response: Response = await fetch(t.url + next, { headers: bearer(OP) });
      assert.equal(response.status, 200);
      for (const { lastUsedAt, ...rest } of (await response.json()) as { lastUsedAt: unknown }[]) all.push(rest);
      const link = response.headers.get('link');
      next = link ? /<[^>]*?(\/[^>]*)>; rel="next"/.exec(link)?.[1] : undefined;
    }
    return all;
  }

  /** A key of this spec made by the operator: once (`shared`), or afresh (for a cell that changes it). */
  async function keyFor(target: TargetSpec, fresh: boolean): Promise<KeyInfo> {
    const id = `${target.principal} ${target.scopes.join(' ')}`;
    const found = shared.get(id);
    if (found && !fresh) return found;
    const made = await makeKey(t, OP, {
      name: 'matrix target',
      principal: target.principal,
      scopes: [...target.scopes],
    });
    if (!fresh) shared.set(id, made);
    return made;
  }

  /** Whether a key is admitted by the door (any valid key may list the closers). */
  const works = async (key: string) => (await as(t, bearer(key)).get(ANY_KEY_PATH)).status === 200;

  /** Revokes, as the operator, what a cell made (so that no principal nears KEYS_PER_PRINCIPAL). */
  async function cleanUp(...ids: string[]): Promise<void> {
    for (const id of ids) assert.equal((await as(t, bearer(OP)).post(`/keys/${id}/revoke`, {})).status, 200);
  }

  /**
   * The targets of a caller: its own principal's keys, stronger, equal, weaker and with other
   * scopes (a full key has none stronger, a keys:manage-only key none weaker: a key holds at least
   * one scope), and another Seller's, a closer's and the operator's keys. A caller the door
   * refuses gets Seller A's.
   */
  function targetsFor(caller: CallerSpec): TargetSpec[] {
    const { A, B, C1, C2 } = principals;
    const key = caller.key ?? fx.sellerA;
    const targets: TargetSpec[] = [];
    const own = key.principal;
    const every = scopesOf(kindOf(own) ?? 'seller');
    if (!sameSet(key.scopes, every))
      targets.push({ label: 'own principal, stronger (every scope)', principal: own, scopes: every });
    targets.push({ label: 'own principal, equal scopes', principal: own, scopes: key.scopes });
    const lesser = key.scopes.filter((scope) => scope !== 'keys:manage');
    if (key.scopes.length >= 2 && lesser.length > 0) {
      targets.push({ label: `own principal, weaker (${lesser[0]})`, principal: own, scopes: [lesser[0]] });
    }
    const lacked = every.find((scope) => !key.scopes.includes(scope));
    if (lacked !== undefined && !key.scopes.every((scope) => scope === lacked)) {
      targets.push({ label: `own principal, other scopes (${lacked})`, principal: own, scopes: [lacked] });
    }
    const seller = own === A ? B : A;
    const closer = own === C1 ? C2 : C1;
    targets.push({ label: "another Seller's full key", principal: seller, scopes: scopesOf('seller') });
    targets.push({ label: "another Seller's read-only key", principal: seller, scopes: ['deals:read'] });
    if (own !== closer) targets.push({ label: "a closer's full key", principal: closer, scopes: scopesOf('closer') });
    if (own !== OPERATOR) targets.push({ label: "the operator's key", principal: OPERATOR, scopes: ['admin'] });
    return targets;
  }

  before(async () => {
    t = await startKeysServer();
    fx = await keysFixture(t);
    principals = { A: fx.A.sellerId, B: fx.B.sellerId, C1: fx.closer1.principal, C2: fx.closer2.principal };
    const expiresAt = Date.now() + 1500;
    const expired = await makeKey(t, fx.sellerA.key, {
      name: 'expiring',
      expiresAt: new Date(expiresAt).toISOString(),
    });
    const revoked = await makeKey(t, fx.sellerA.key, { name: 'revoked' });
    assert.equal((await fx.by(OP).post(`/keys/${revoked.id}/revoke`, {})).status, 200);
    const sellerManager = await makeKey(t, fx.sellerA.key, { name: 'A manages keys', scopes: ['keys:manage'] });
    const closerManager = await makeKey(t, fx.closer1.key, { name: 'C1 manages keys', scopes: ['keys:manage'] });
    const unauthenticated: Expect = { status: 401, code: 'UNAUTHENTICATED' };
    const invalid: Expect = { status: 401, code: 'INVALID_KEY' };
    callers = [
      { name: 'the operator', auth: bearer(OP), key: fx.operator },
      { name: "Seller A's full key", auth: bearer(fx.sellerA.key), key: fx.sellerA },
      { name: "Seller A's agent key (deals:read deals:propose)", auth: bearer(fx.agentA.key), key: fx.agentA },
      { name: "Seller A's keys:manage-only key", auth: bearer(sellerManager.key), key: sellerManager },
      { name: "closer 1's full key", auth: bearer(fx.closer1.key), key: fx.closer1 },
      { name: "closer 1's keys:manage-only key", auth: bearer(closerManager.key), key: closerManager },
      { name: "Seller A's revoked key", auth: bearer(revoked.key), refused: invalid },
      { name: "Seller A's expired key", auth: bearer(expired.key), refused: invalid },
      { name: 'a key no one was given', auth: bearer(wrongKey()), refused: invalid },
      { name: 'a malformed key (no key shape)', auth: bearer('not-a-key'), refused: invalid },
      { name: 'a malformed key (two words)', auth: { authorization: 'Bearer two words' }, refused: unauthenticated },
      { name: 'no key', auth: {}, refused: unauthenticated },
      { name: 'no bearer key (Basic)', auth: { authorization: 'Basic dXNlcjpwYXNz' }, refused: unauthenticated },
    ];
    // The expiring key is refused once its time has passed (machine time).
    const wait = expiresAt - Date.now() + 50;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    assert.equal(await works(expired.key), false, 'the expired key is refused');
    assert.equal(await works(revoked.key), false, 'the revoked key is refused');
  });
  after(async () => {
    await t?.close();
  });

  /** Checks one answer against what is expected of it; the door's refusals say so in WWW-Authenticate. */
  function check(answer: KeyedAnswer, expected: Expect, caller: CallerSpec): void {
    assert.equal(
      answer.status,
      expected.status,
      `expected ${expected.status} ${expected.code ?? ''}, got ${answer.text}`,
    );
    if (expected.code !== undefined) assert.equal(answer.body.code, expected.code, answer.text);
    if (expected.status === 403) {
      assert.deepEqual(Object.keys(answer.body).sort(), ['code', 'error', 'requiredScope'], answer.text);
      assert.equal(answer.body.requiredScope, expected.requiredScope, answer.text);
    }
    const atDoor = door(caller) !== undefined;
    if (answer.status === 401) {
      const error = expected.code === 'INVALID_KEY' ? ', error="invalid_token"' : '';
      assert.equal(answer.headers.get('www-authenticate'), `${REALM}${error}`);
    } else if (answer.status === 403 && atDoor) {
      assert.equal(
        answer.headers.get('www-authenticate'),
        `${REALM}, error="insufficient_scope", scope="${expected.requiredScope}"`,
      );
    }
  }

  /**
   * Runs each cell of a row and collects what went wrong, so that one wrong cell does not hide
   * the others; a refused cell must leave every key as it was.
   */
  async function row(cells: Cell[]): Promise<void> {
    const wrong: string[] = [];
    for (const cell of cells) {
      try {
        const subject = cell.target ? await keyFor(cell.target, cell.fresh === true) : undefined;
        const keysBefore = cell.expected.status >= 400 ? await everyKey() : undefined;
        await cell.run(subject as KeyInfo);
        if (keysBefore) assert.deepEqual(await everyKey(), keysBefore, 'a refusal changed the keys');
      } catch (error) {
        wrong.push(
          `${cell.name} (expected ${cell.expected.status} ${cell.expected.code ?? ''}): ${(error as Error).message}`,
        );
      }
    }
    assert.ok(cells.length > 0);
    assert.deepEqual(wrong, [], `${wrong.length} of ${cells.length} cells:\n${wrong.join('\n')}`);
  }

  it('the callers are what they say: each key admitted or refused at the door as its cells expect', async () => {
    for (const caller of callers) {
      const answer = await as(t, caller.auth).get(ANY_KEY_PATH);
      assert.equal(answer.status, caller.refused?.status ?? 200, `${caller.name}: ${answer.text}`);
    }
  });

  const CALLERS = [
    'the operator',
    "Seller A's full key",
    "Seller A's agent key (deals:read deals:propose)",
    "Seller A's keys:manage-only key",
    "closer 1's full key",
    "closer 1's keys:manage-only key",
    "Seller A's revoked key",
    "Seller A's expired key",
    'a key no one was given',
    'a malformed key (no key shape)',
    'a malformed key (two words)',
    'no key',
    'no bearer key (Basic)',
  ];
  const callerNamed = (name: string) => {
    const found = callers.find((c) => c.name === name);
    assert.ok(found, name);
    return found;
  };

  for (const name of CALLERS) {
    it(`POST /keys by ${name}: with and without principal, scopes equal to, fewer than and more than its own`, async () => {
      const caller = callerNamed(name);
      const { A, B, C1, C2 } = principals;
      const key = caller.key ?? fx.sellerA;
      const own = key.principal;
      const every = scopesOf(kindOf(own) ?? 'seller');
      const lacked = every.find((scope) => !key.scopes.includes(scope));
      const foreign: KeyScope = kindOf(own) === 'seller' ? 'gigs:work' : 'deals:read';
      const bodies: [string, CreateBody][] = [
        ['no principal, no scopes (every scope of its kind)', { name: 'm' }],
        ['scopes equal to its own', { name: 'm', scopes: [...key.scopes] }],
        ['more scopes than its own', { name: 'm', scopes: [...key.scopes, lacked ?? foreign] }],
        ['its own principal named', { name: 'm', principal: own }],
        ['its own principal named, scopes equal to its own', { name: 'm', principal: own, scopes: [...key.scopes] }],
        ['another Seller named', { name: 'm', principal: own === A ? B : A }],
        ['another Seller named, one scope', { name: 'm', principal: own === A ? B : A, scopes: ['deals:read'] }],
        ['a closer named', { name: 'm', principal: own === C1 ? C2 : C1 }],
        ['a closer named, one scope', { name: 'm', principal: own === C1 ? C2 : C1, scopes: ['gigs:read'] }],
        ['an unknown principal named', { name: 'm', principal: UNKNOWN_PRINCIPAL }],
      ];
      if (key.scopes.length >= 2) bodies.push(['fewer scopes than its own', { name: 'm', scopes: [key.scopes[0]] }]);
      if (own !== OPERATOR) bodies.push(['the operator named', { name: 'm', principal: OPERATOR }]);
      const known = [A, B, C1, C2, OPERATOR];
      const client = as(t, caller.auth);
      const unknownAnswer = await client.post('/keys', { name: 'm', principal: UNKNOWN_PRINCIPAL });
      await row(
        bodies.map(([what, body]) => {
          const expected = expectedCreate(caller, body, known);
          return {
            name: what,
            expected,
            run: async () => {
              const answer = await client.post('/keys', body);
              check(answer, expected, caller);
              if (expected.status === 201) {
                assert.equal(answer.body.principal, expected.principal);
                assert.deepEqual(answer.body.scopes, expected.scopes);
                assert.equal(typeof answer.body.key, 'string');
                assert.equal(await works(answer.body.key), true, 'the new key works');
                await cleanUp(answer.body.id);
              }
              if (expected.code === 'PRINCIPAL_NOT_FOUND' && body.principal !== undefined) {
                // D-54: another principal is answered exactly as one that does not exist.
                assert.deepEqual(
                  idless(answer, body.principal),
                  idless(unknownAnswer, UNKNOWN_PRINCIPAL),
                  'answered exactly as an unknown principal',
                );
              }
            },
          };
        }),
      );
    });
  }

  for (const name of CALLERS) {
    it(`GET /keys by ${name}: its principal's keys; another's asked for: none (the operator: every key)`, async () => {
      const caller = callerNamed(name);
      const client = as(t, caller.auth);
      const key = caller.key ?? fx.sellerA;
      const other = key.principal === principals.B ? principals.A : principals.B;
      const queries: [string, string, string | undefined][] = [
        ['no principal asked', '/keys?limit=1000', undefined],
        ['its own principal asked', `/keys?limit=1000&principal=${key.principal}`, key.principal],
        ['another Seller asked', `/keys?limit=1000&principal=${other}`, other],
        ['a closer asked', `/keys?limit=1000&principal=${principals.C2}`, principals.C2],
      ];
      await row(
        queries.map(([what, path, asked]) => {
          const expected = door(caller) ?? { status: 200 };
          return {
            name: what,
            expected,
            run: async () => {
              const answer = await client.get(path);
              check(answer, expected, caller);
              if (expected.status !== 200) return;
              const listed = answer.body.map((k: { principal: string }) => k.principal) as string[];
              assert.ok(!answer.text.includes('"key"'), 'no key text in a list');
              if (isAdmin(key)) {
                if (asked === undefined) {
                  for (const p of Object.values(principals))
                    assert.ok(listed.includes(p), `the operator sees ${p}'s keys`);
                } else {
                  assert.ok(listed.length > 0 && listed.every((p) => p === asked), `only ${asked}'s keys`);
                }
              } else if (asked === undefined || asked === key.principal) {
                assert.ok(
                  answer.body.some((k: { id: string }) => k.id === key.id),
                  'its own key is listed',
                );
                assert.ok(
                  listed.every((p) => p === key.principal),
                  `only ${key.principal}'s keys: ${listed}`,
                );
              } else {
                assert.deepEqual(answer.body, [], "another principal's keys are none of its business");
              }
            },
          };
        }),
      );
    });
  }

  for (const name of CALLERS) {
    it(`GET /keys/{id} by ${name}, on each kind of key: its principal's shown, another's unknown`, async () => {
      const caller = callerNamed(name);
      const client = as(t, caller.auth);
      const unknownAnswer = await client.get(`/keys/${UNKNOWN_KEY}`);
      const targets = targetsFor(caller);
      await row([
        {
          name: 'an unknown key id',
          expected: door(caller) ?? NOT_FOUND,
          run: async () => check(unknownAnswer, door(caller) ?? NOT_FOUND, caller),
        },
        ...targets.map((target) => {
          const expected = expectedGetOrRevoke(caller, target, 200);
          return {
            name: target.label,
            expected,
            target,
            run: async (subject: KeyInfo) => {
              const answer = await client.get(`/keys/${subject.id}`);
              check(answer, expected, caller);
              if (expected.status === 200) {
                assert.equal(answer.body.id, subject.id);
                assert.deepEqual(answer.body.scopes, [...target.scopes]);
                assert.equal(answer.body.key, undefined, 'never the key itself');
              }
              if (expected.status === 404) {
                assert.deepEqual(idless(answer, subject.id), idless(unknownAnswer, UNKNOWN_KEY), 'as an unknown id');
              }
            },
          };
        }),
      ]);
    });
  }

  for (const name of CALLERS) {
    it(`POST /keys/{id}/roll by ${name}, on each kind of key: only a key holding every scope of it (D-75)`, async () => {
      const caller = callerNamed(name);
      const client = as(t, caller.auth);
      const unknownAnswer = await client.post(`/keys/${UNKNOWN_KEY}/roll`, { graceSeconds: 60 });
      const targets = targetsFor(caller);
      await row([
        {
          name: 'an unknown key id',
          expected: door(caller) ?? NOT_FOUND,
          run: async () => check(unknownAnswer, door(caller) ?? NOT_FOUND, caller),
        },
        ...targets.map((target) => {
          const expected = expectedRoll(caller, target);
          return {
            name: target.label,
            expected,
            target,
            fresh: expected.status === 201,
            run: async (subject: KeyInfo) => {
              const answer = await client.post(`/keys/${subject.id}/roll`, { graceSeconds: 60 });
              check(answer, expected, caller);
              if (expected.status === 201) {
                assert.notEqual(answer.body.id, subject.id);
                assert.equal(answer.body.principal, subject.principal);
                assert.equal(answer.body.name, subject.created.name);
                assert.deepEqual(answer.body.scopes, subject.scopes, "exactly the old key's scopes");
                assert.equal(await works(answer.body.key), true, 'the new key works');
                assert.equal(await works(subject.key), true, 'the old key works during its grace');
                const old = await as(t, bearer(OP)).get(`/keys/${subject.id}`);
                assert.ok(old.body.expiresAt !== null, 'the old key now expires');
                await cleanUp(subject.id, answer.body.id);
                return;
              }
              if (expected.status === 404) {
                assert.deepEqual(idless(answer, subject.id), idless(unknownAnswer, UNKNOWN_KEY), 'as an unknown id');
              }
              assert.equal(await works(subject.key), true, 'the key is untouched: it still works');
            },
          };
        }),
      ]);
    });
  }

  for (const name of CALLERS) {
    it(`POST /keys/{id}/revoke by ${name}, on each kind of key: any keys:manage key of its principal`, async () => {
      const caller = callerNamed(name);
      const client = as(t, caller.auth);
      const unknownAnswer = await client.post(`/keys/${UNKNOWN_KEY}/revoke`, {});
      const targets = targetsFor(caller);
      await row([
        {
          name: 'an unknown key id',
          expected: door(caller) ?? NOT_FOUND,
          run: async () => check(unknownAnswer, door(caller) ?? NOT_FOUND, caller),
        },
        ...targets.map((target) => {
          const expected = expectedGetOrRevoke(caller, target, 200);
          return {
            name: target.label,
            expected,
            target,
            fresh: expected.status === 200,
            run: async (subject: KeyInfo) => {
              const answer = await client.post(`/keys/${subject.id}/revoke`, {});
              check(answer, expected, caller);
              if (expected.status === 200) {
                assert.equal(answer.body.id, subject.id);
                assert.ok(answer.body.revokedAt, 'revoked');
                assert.equal(await works(subject.key), false, 'the revoked key is refused');
                return;
              }
              if (expected.status === 404) {
                assert.deepEqual(idless(answer, subject.id), idless(unknownAnswer, UNKNOWN_KEY), 'as an unknown id');
              }
              assert.equal(await works(subject.key), true, 'the key is untouched: it still works');
            },
          };
        }),
      ]);
    });
  }
});
