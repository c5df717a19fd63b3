// D-68: the rules of a key's policy outside the gate: a policy binds only a Seller's key, no key
// sets or makes one looser than its own, and a Seller's key shows what it committed today (its
// usage, counted in the platform clock's UTC day as the policy's daily limits are).
import { type Caller, kindOf } from '../domain/access.ts';
import type { ApiKey } from '../domain/keys.ts';
import { type KeyPolicy, type KeyUsage, loosening, usageDay } from '../domain/policy.ts';
import { refuse } from '../domain/refusal.ts';
import type { Store } from '../store/store.ts';
import type { PlatformClock } from './platform-clock.ts';
import { RefusedError } from './result.ts';

/**
 * A policy only on a Seller's key, and never looser than the caller's own (a key with a policy
 * makes no key without one, nor one with a wider limit): 422 and 403 otherwise.
 */
export function boundedBy(principal: string, policy: KeyPolicy | undefined, caller: Caller): void {
  if (policy !== undefined && kindOf(principal) !== 'seller') {
    throw new RefusedError(
      refuse.rule('POLICY_NOT_OF_SELLER', `A policy binds a Seller's key; ${principal}'s keys propose no moves.`, [
        "policy: only a Seller's key carries one",
      ]),
    );
  }
  const looser = loosening(policy, caller.policy);
  if (looser !== undefined)
    throw new RefusedError(
      refuse.denied('POLICY_WIDENING', `No key may be looser than the key that sets it: ${looser}.`),
    );
}

export class KeyPolicies {
  constructor(
    private readonly store: Store,
    private readonly platform: PlatformClock,
  ) {}

  /** A Seller's key's usage of the platform clock's day (every other key commits no closes). */
  async usage(key: ApiKey): Promise<KeyUsage | undefined> {
    if (kindOf(key.principal) !== 'seller') return undefined;
    const day = usageDay(await this.platform.now());
    return this.store.read((reader) => reader.accounts.keyUsage(key.id, day), {
      oneStatement: true,
      principal: key.principal,
    });
  }
}
