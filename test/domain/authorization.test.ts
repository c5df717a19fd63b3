// The one decision of who may do what (src/domain/authorization.ts) and the one writer of its
// denials (src/views/authorization-refusals.ts): every kind of credential against every kind of
// access rule, the rules on keys made and rolled (D-52, D-75), and ROOT's reserved scopes (D-227).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Access, Caller, KeyScope } from '../../src/domain/access.ts';
import {
  type Authorization,
  authorize,
  type Credential,
  mayGrant,
  mayRoll,
  tenantScopeCaller,
} from '../../src/domain/authorization.ts';
import { denialAnswer } from '../../src/views/authorization-refusals.ts';

const caller = (kind: Caller['kind'], scopes: KeyScope[]): Caller => ({
  principal: kind === 'operator' ? 'operator' : `${kind}_0001`,
  kind,
  keyId: 'key_0007',
  scopes: new Set(scopes),
});
const operator = caller('operator', ['admin']);
const seller = caller('seller', ['deals:read', 'deals:write', 'deals:propose', 'keys:manage']);
const agent = caller('seller', ['deals:read', 'deals:propose']);
const closer = caller('closer', ['gigs:read', 'gigs:work']);

const denial = (decided: Authorization) => {
  assert.equal(decided.ok, false, 'refused');
  return (decided as Extract<Authorization, { ok: false }>).denial;
};

describe('authorize: a credential against an access rule', () => {
  const rules: Access[] = ['key', ['deals:read'], ['gigs:work'], ['admin'], ['deals:read', 'gigs:read', 'admin']];

  it('no credential, or not a bearer key: 401 UNAUTHENTICATED for every rule, with a bare challenge', () => {
    for (const access of rules) {
      for (const header of ['absent', 'not-bearer'] as const) {
        const d = denial(authorize({ kind: 'none', header }, access));
        assert.equal(d.status, 401);
        assert.equal(d.code, 'UNAUTHENTICATED');
        assert.match(d.message, header === 'absent' ? /needs a key/ : /not a bearer key/);
        assert.equal(denialAnswer(d).challenge, 'Bearer realm="sales-pipeline"');
      }
    }
  });

  it('a key the ring does not know (or revoked, or expired): 401 INVALID_KEY, invalid_token', () => {
    for (const access of rules) {
      const d = denial(authorize({ kind: 'key', caller: undefined }, access));
      assert.deepEqual([d.status, d.code], [401, 'INVALID_KEY']);
      const answer = denialAnswer(d, 'resource_metadata="x"');
      assert.equal(answer.challenge, 'Bearer realm="sales-pipeline", error="invalid_token", resource_metadata="x"');
      assert.deepEqual(answer.body, {
        error: 'The key is not valid: unknown, revoked or expired.',
        code: 'INVALID_KEY',
      });
    }
  });

  it('a live key: the caller when any one scope of the rule is its own; any key for `key`', () => {
    const cases: [Caller, Access, boolean][] = [
      [seller, 'key', true],
      [closer, 'key', true],
      [seller, ['deals:read'], true],
      [agent, ['deals:read', 'gigs:read', 'admin'], true],
      [closer, ['deals:read', 'gigs:read', 'admin'], true],
      [caller('closer', ['gigs:work']), ['deals:read', 'gigs:read', 'admin'], false],
      [operator, ['admin'], true],
      [operator, ['deals:read'], false],
      [seller, ['gigs:work'], false],
      [agent, ['deals:write'], false],
      [closer, ['gigs:work'], true],
    ];
    for (const [who, access, allowed] of cases) {
      const decided = authorize({ kind: 'key', caller: who }, access);
      assert.equal(decided.ok, allowed, `${[...who.scopes]} for ${JSON.stringify(access)}`);
      if (decided.ok) assert.equal(decided.caller, who);
    }
  });

  it('a missing scope: 403 INSUFFICIENT_SCOPE naming the scope a key of its kind could carry', () => {
    const own = denial(authorize({ kind: 'key', caller: agent }, ['deals:write']));
    assert.equal(own.code, 'INSUFFICIENT_SCOPE');
    assert.equal(own.message, 'This key may not do this: it needs deals:write.');
    const foreign = denial(authorize({ kind: 'key', caller: operator }, ['deals:write']));
    assert.equal(foreign.message, "This key may not do this: it needs deals:write, which no operator's key carries.");
    // Of several scopes, the one of the caller's kind is named, not the first.
    const named = denial(
      authorize({ kind: 'key', caller: caller('closer', ['events:read']) }, ['deals:read', 'gigs:read']),
    );
    assert.equal(denialAnswer(named).body.requiredScope, 'gigs:read');
    const answer = denialAnswer(own);
    assert.equal(answer.status, 403);
    assert.equal(answer.challenge, 'Bearer realm="sales-pipeline", error="insufficient_scope", scope="deals:write"');
    assert.deepEqual(answer.body, { error: own.message, code: 'INSUFFICIENT_SCOPE', requiredScope: 'deals:write' });
  });

  it("the console's session: another origin is 403 whatever the session; a lapsed one says why", () => {
    const session = (standing: Extract<Credential, { kind: 'session' }>['standing'], ownOrigin = true): Credential => ({
      kind: 'session',
      standing,
      ownOrigin,
    });
    const foreign = denial(authorize(session({ ok: true, caller: seller }, false), 'key'));
    assert.deepEqual([foreign.status, foreign.code], [403, 'ORIGIN_NOT_ALLOWED']);
    assert.equal(denialAnswer(foreign).challenge, undefined, 'no challenge: no credential would help');
    const live = authorize(session({ ok: true, caller: agent }), ['deals:read']);
    assert.ok(live.ok);
    assert.equal(denial(authorize(session({ ok: true, caller: agent }), ['admin'])).code, 'INSUFFICIENT_SCOPE');
    for (const reason of ['absent', 'malformed', 'expired', 'ended'] as const) {
      const d = denial(authorize(session({ ok: false, reason }), 'key'));
      assert.deepEqual([d.status, d.code], [401, 'UNAUTHENTICATED'], reason);
      assert.match(d.message, reason === 'absent' ? /not signed in/ : /sign in again/);
    }
    const keyEnded = denial(authorize(session({ ok: false, reason: 'key' }), 'key'));
    assert.deepEqual([keyEnded.status, keyEnded.code], [401, 'INVALID_KEY']);
    assert.match(keyEnded.message, /no longer valid .*sign in again/);
  });
});

describe('keys made and rolled by a caller', () => {
  it('D-75: a roll needs every scope of the key rolled; admin holds them all', () => {
    const full = { id: 'key_0003', scopes: ['deals:read', 'deals:write'] as KeyScope[] };
    assert.equal(mayRoll(seller, full), undefined);
    assert.equal(mayRoll(operator, full), undefined);
    const refusal = mayRoll(caller('seller', ['keys:manage', 'deals:read']), full);
    assert.equal(refusal?.code, 'INSUFFICIENT_SCOPE');
    assert.equal(refusal?.requiredScope, 'deals:write');
    assert.match(refusal?.message ?? '', /key_0003 carries deals:write/);
  });

  it('D-52: a key is given no scope beyond its maker’s own', () => {
    assert.equal(mayGrant(seller, ['deals:read', 'keys:manage']), undefined);
    assert.equal(mayGrant(operator, ['gigs:work']), undefined);
    const refusal = mayGrant(agent, ['deals:read', 'deals:write']);
    assert.equal(refusal?.code, 'INSUFFICIENT_SCOPE');
    assert.equal(refusal?.requiredScope, 'deals:write');
  });
});

describe("ROOT's reserved scopes (D-227)", () => {
  it("open to a Seller's live key with deals:read, to nothing else", () => {
    assert.equal(tenantScopeCaller({ kind: 'key', caller: agent }), agent);
    assert.equal(tenantScopeCaller({ kind: 'key', caller: caller('seller', ['deals:write']) }), undefined);
    assert.equal(tenantScopeCaller({ kind: 'key', caller: operator }), undefined);
    assert.equal(tenantScopeCaller({ kind: 'key', caller: caller('closer', ['gigs:read']) }), undefined);
    assert.equal(tenantScopeCaller({ kind: 'key', caller: undefined }), undefined);
    assert.equal(tenantScopeCaller({ kind: 'none', header: 'absent' }), undefined);
  });
});
