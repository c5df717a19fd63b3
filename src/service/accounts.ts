// The accounts of keys mode (D-51, D-52): Sellers, and keys issued, listed, rolled and revoked
// (the console's sessions are in sessions.ts).
// A key's text exists only in the answer that creates it: the store keeps its SHA-256. A key's
// powers never grow (D-75): a roll needs every scope of the key rolled and keeps exactly them,
// and a principal holds at most KEYS_PER_PRINCIPAL live keys.
import { hash } from 'node:crypto';
import { type Caller, isKeyScope, type KeyScope, kindOf, scopesOf, seesAll } from '../domain/access.ts';
import { mayGrant, mayRoll } from '../domain/authorization.ts';
import { couldBeId, formatId } from '../domain/ids.ts';
import { type ApiKey, DEFAULT_GRACE_SECONDS, DISPLAY_PREFIX_CHARS, isLive } from '../domain/keys.ts';
import type { KeyPolicy } from '../domain/policy.ts';
import type { Seller } from '../domain/records.ts';
import { refuse } from '../domain/refusal.ts';
import type { KeyFilter } from '../store/accounts.ts';
import type { Store, UnitOfWork } from '../store/store.ts';
import { boundedBy } from './key-policies.ts';
import type { DrawnKey, KeySeal } from './key-seal.ts';
import { ensureOperatorKey } from './operator-key.ts';
import { fail, ok, RefusedError, type Result } from './result.ts';
import type { UnitCommand } from './unit-command.ts';

/** SHA-256 in hex, in one call (crypto.hash: no Hash object per request, as the key ring hashes every key). */
export const sha256 = (text: string): string => hash('sha256', text, 'hex');

/** A key as the service answers it: the stored key, and its text once, when it was just made. */
export interface IssuedKey {
  key: ApiKey;
  text?: string;
  /** A roll's old key, as the roll left it (its grace period's end as its expiry). */
  rolled?: ApiKey;
  /** D-251: the text and the nonce it was drawn from, for an answer stored under an Idempotency-Key. */
  drawn?: DrawnKey;
}

/** D-75: live keys a principal may hold unless KEYS_PER_PRINCIPAL says otherwise. */
export const DEFAULT_KEYS_PER_PRINCIPAL = 100;
/** Keys read per page while counting a principal's live keys. */
const COUNT_PAGE = 1000;

export interface KeyInput {
  name: string;
  principal?: string;
  scopes?: readonly string[];
  /** Machine epoch ms. */
  expiresAt?: number;
  /** D-68: the key's bounds (a Seller's key only), never looser than the caller's own. */
  policy?: KeyPolicy;
}

interface MachineClock {
  now(): number;
}

/** What the key ring learns once a unit that changed a key committed. */
export type KeyListener = (key: ApiKey) => void;

const as = (caller: Caller | undefined) => (caller === undefined ? undefined : { principal: caller.principal });

/** Whether `caller` may act on keys of `principal`: its own, or any for the operator. */
const mayManage = (caller: Caller | undefined, principal: string) => seesAll(caller) || caller?.principal === principal;

export class Accounts {
  constructor(
    private readonly store: Store,
    private readonly clock: MachineClock,
    private readonly learned: KeyListener,
    /** A use this instance saw and has not written yet (the key ring's). */
    private readonly lastUsed: (keyId: string) => number | undefined = () => undefined,
    /** D-251: draws new keys' texts (keys mode has one; the demo makes no keys). */
    private readonly seal?: KeySeal,
    /** D-75: KEYS_PER_PRINCIPAL. */
    private readonly keysPerPrincipal = DEFAULT_KEYS_PER_PRINCIPAL,
  ) {}

  /** The key with this instance's latest use of it, written or not (D-52: at most a minute behind). */
  private withUse(key: ApiKey): ApiKey {
    const used = this.lastUsed(key.id);
    return used !== undefined && used > (key.lastUsedAt ?? 0) ? { ...key, lastUsedAt: used } : key;
  }

  createSeller(name: string): UnitCommand<Seller> {
    return {
      work: async (uow) => {
        const id = formatId('seller', await uow.accounts.takeNumber('seller'));
        const seller: Seller = { id, name, createdAt: this.clock.now() };
        await uow.accounts.putSeller(seller);
        return seller;
      },
    };
  }

  /**
   * A new key (D-52): of the caller's own principal unless the operator names another, with
   * the principal's every scope unless fewer are asked, never more than the caller's own.
   */
  createKey(input: KeyInput, caller: Caller): UnitCommand<IssuedKey> {
    return {
      work: async (uow) => {
        const principal = input.principal ?? caller.principal;
        if (!mayManage(caller, principal) || !(await this.exists(uow, principal)))
          throw new RefusedError(
            refuse.notFound('PRINCIPAL_NOT_FOUND', `No principal ${principal} for a key to belong to.`),
          );
        const scopes = this.scopesFor(principal, input.scopes, caller);
        if (input.expiresAt !== undefined && input.expiresAt <= this.clock.now())
          throw new RefusedError(
            refuse.rule('KEY_EXPIRY_PAST', 'A key must expire in the future.', ['expiresAt: must be in the future']),
          );
        boundedBy(principal, input.policy, caller);
        await this.roomForOneMore(uow, principal);
        // D-66: a key made by a person names them.
        const createdBy = caller.userId;
        const { name, expiresAt, policy } = input;
        return this.issue(uow, { name, principal, scopes, expiresAt, createdBy, policy });
      },
      committed: ({ key }) => this.learned(key),
      secretOf: ({ drawn }) => drawn,
    };
  }

  /**
   * A new key of the same principal, name and scopes; the old one keeps working for
   * `graceSeconds` more (then it is refused as expired), so a deployment swaps keys without
   * downtime. D-75: only a caller that holds every scope of the key may roll it (a key with
   * `keys:manage` alone would otherwise get a full key from a roll of its principal's).
   */
  rollKey(keyId: string, graceSeconds: number | undefined, caller: Caller): UnitCommand<IssuedKey> {
    return {
      work: async (uow) => {
        const old = await this.ownKey(uow, keyId, caller);
        const beyond = mayRoll(caller, old);
        if (beyond !== undefined) throw new RefusedError(beyond);
        // D-68: the caller receives the new key, so a key with a policy rolls none looser than itself.
        boundedBy(old.principal, old.policy, caller);
        const now = this.clock.now();
        if (!isLive(old, now)) {
          throw new RefusedError(
            refuse.conflict('KEY_REVOKED', `Key ${keyId} was revoked or has expired; issue a new key instead.`),
          );
        }
        const graceEnds = now + (graceSeconds ?? DEFAULT_GRACE_SECONDS) * 1000;
        const oldExpiry = old.expiresAt;
        const rolled = { ...old, expiresAt: Math.min(oldExpiry ?? graceEnds, graceEnds) };
        // The old key counts while its grace lasts: a roll that would hold one key too many is
        // refused (with graceSeconds 0 the old one ends now, and the roll needs no room). Counted
        // before any key is written: the principal's lock is always taken before the keys' own.
        await this.roomForOneMore(uow, old.principal, { id: old.id, live: isLive(rolled, now) });
        // The new key lives no longer than the old one was to (a roll never extends a key's life).
        const input = {
          name: old.name,
          principal: old.principal,
          scopes: old.scopes,
          expiresAt: oldExpiry,
          createdBy: caller.userId,
          policy: old.policy,
        };
        const issued = await this.issue(uow, input);
        // The old key names its successor (D-260): written once the new key has its id.
        const replaced = { ...rolled, replacedBy: issued.key.id };
        await uow.accounts.putKey(replaced);
        return { ...issued, rolled: replaced };
      },
      // Both keys are known here at once: with no grace, the old one is refused from now on.
      committed: ({ key, rolled }) => {
        this.learned(key);
        if (rolled) this.learned(rolled);
      },
      secretOf: ({ drawn }) => drawn,
    };
  }

  /**
   * D-68: a key's whole policy replaced (`null` removes it), never looser than the caller's own.
   * This instance binds it at once; every other within the key ring's refresh.
   */
  setPolicy(keyId: string, policy: KeyPolicy | null, caller: Caller): UnitCommand<IssuedKey> {
    return {
      work: async (uow) => {
        const key = await this.ownKey(uow, keyId, caller);
        boundedBy(key.principal, policy ?? undefined, caller);
        const { policy: _old, ...rest } = key;
        const changed: ApiKey = policy === null ? rest : { ...rest, policy };
        await uow.accounts.putKey(changed);
        // Answered as GET shows it: with this instance's latest use, written or not.
        return { key: this.withUse(changed) };
      },
      committed: ({ key }) => this.learned(key),
    };
  }

  revokeKey(keyId: string, caller: Caller): UnitCommand<IssuedKey> {
    return {
      work: async (uow) => {
        const key = await this.ownKey(uow, keyId, caller);
        // Revoking a revoked key changes nothing and answers when it was revoked.
        if (key.revokedAt !== undefined) return { key };
        const revoked = { ...key, revokedAt: this.clock.now() };
        await uow.accounts.putKey(revoked);
        return { key: revoked };
      },
      committed: ({ key }) => this.learned(key),
    };
  }

  async getKey(keyId: string, caller: Caller): Promise<Result<ApiKey>> {
    return this.store.read(async (reader) => {
      const key = couldBeId('key', keyId) ? await reader.accounts.getKey(keyId) : undefined;
      return key && mayManage(caller, key.principal) ? ok(this.withUse(key)) : fail(refuse.noKey(keyId));
    }, as(caller));
  }

  /** The caller's principal's keys; the operator's: every key, or those of `principal`. */
  listKeys(filter: KeyFilter, caller: Caller): Promise<ApiKey[]> {
    if (!seesAll(caller)) {
      if (filter.principal !== undefined && filter.principal !== caller.principal) return Promise.resolve([]);
      filter = { ...filter, principal: caller.principal };
    }
    return this.store.read(
      async (reader) => (await reader.accounts.listKeys(filter)).map((key) => this.withUse(key)),
      as(caller),
    );
  }

  /** D-52: the operator's first key, from OPERATOR_KEY (operator-key.ts). */
  ensureOperatorKey(text: string): Promise<ApiKey> {
    return ensureOperatorKey(this.store, this.clock, text);
  }

  private async issue(
    uow: UnitOfWork,
    input: {
      name: string;
      principal: string;
      scopes: readonly KeyScope[];
      expiresAt: number | undefined;
      createdBy?: string;
      policy?: KeyPolicy;
    },
  ): Promise<IssuedKey> {
    if (this.seal === undefined) throw new Error('keys are made in keys mode only');
    const drawn = this.seal.draw(kindOf(input.principal) ?? 'seller');
    const { text } = drawn;
    const key: ApiKey = {
      id: formatId('key', await uow.accounts.takeNumber('key')),
      hash: sha256(text),
      prefix: text.slice(0, DISPLAY_PREFIX_CHARS),
      name: input.name,
      principal: input.principal,
      scopes: input.scopes,
      createdAt: this.clock.now(),
      ...(input.expiresAt !== undefined ? { expiresAt: input.expiresAt } : {}),
      ...(input.createdBy !== undefined ? { createdBy: input.createdBy } : {}),
      ...(input.policy !== undefined ? { policy: input.policy } : {}),
    };
    await uow.accounts.putKey(key);
    return { key, text, drawn };
  }

  /**
   * D-75: refuses one more key when the principal holds KEYS_PER_PRINCIPAL live ones. The
   * principal's lock makes two requests racing for the last place wait for each other.
   */
  private async roomForOneMore(
    uow: UnitOfWork,
    principal: string,
    rolled?: { id: string; live: boolean },
  ): Promise<void> {
    await uow.lock(`keys-of:${principal}`);
    const now = this.clock.now();
    // A key being rolled counts as the roll leaves it.
    let live = rolled?.live ? 1 : 0;
    let afterId: string | undefined;
    for (;;) {
      const page = await uow.accounts.listKeys({ principal, limit: COUNT_PAGE, ...(afterId ? { afterId } : {}) });
      for (const key of page) if (key.id !== rolled?.id && isLive(key, now)) live++;
      if (page.length < COUNT_PAGE) break;
      afterId = page[page.length - 1].id;
    }
    if (live >= this.keysPerPrincipal) {
      throw new RefusedError(
        refuse.conflict(
          'TOO_MANY_KEYS',
          `${principal} holds ${live} keys that are neither revoked nor expired, the most it may (KEYS_PER_PRINCIPAL ${this.keysPerPrincipal}): revoke one first.`,
        ),
      );
    }
  }

  /** A key the caller may manage, or unknown (D-54: another principal's key is unknown). */
  private async ownKey(uow: UnitOfWork, keyId: string, caller: Caller): Promise<ApiKey> {
    const key = couldBeId('key', keyId) ? await uow.accounts.getKey(keyId) : undefined;
    if (!key || !mayManage(caller, key.principal)) throw new RefusedError(refuse.noKey(keyId));
    return key;
  }

  private async exists(uow: UnitOfWork, principal: string): Promise<boolean> {
    const kind = kindOf(principal);
    if (kind === 'operator') return true;
    if (kind === 'seller') return (await uow.accounts.getSeller(principal)) !== undefined;
    if (kind === 'closer') return (await uow.readCloser(principal)) !== undefined;
    return false;
  }

  /** The scopes asked for, each one of the principal's kind and none beyond the caller's own. */
  private scopesFor(principal: string, asked: readonly string[] | undefined, caller: Caller): KeyScope[] {
    const own = scopesOf(kindOf(principal) ?? 'seller');
    const scopes = asked === undefined ? [...own] : [...new Set(asked)];
    const foreign = scopes.filter((scope) => !own.includes(scope as KeyScope));
    if (foreign.length > 0) {
      const whose = kindOf(principal) === 'operator' ? 'an operator' : `a ${kindOf(principal)}`;
      throw new RefusedError(
        refuse.rule(
          'KEY_SCOPE_NOT_OF_PRINCIPAL',
          `The key would be ${whose}'s, which may not carry ${foreign.join(', ')}.`,
          foreign.map((scope) => `scopes: ${JSON.stringify(scope)} is not a scope of ${whose}'s key`),
        ),
      );
    }
    if (scopes.length === 0) {
      throw new RefusedError(
        refuse.invalid('INVALID_BODY', 'The request body is invalid.', ['scopes: must hold at least one scope']),
      );
    }
    const granted = scopes.filter(isKeyScope);
    const beyond = mayGrant(caller, granted);
    if (beyond !== undefined) throw new RefusedError(beyond);
    return granted;
  }
}
