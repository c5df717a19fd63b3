// D-52: the operator's first key comes from OPERATOR_KEY: made at start when no key has its hash,
// and an earlier OPERATOR_KEY's key revoked (the variable was changed to replace it).
import { hash as digest } from 'node:crypto';
import { OPERATOR, scopesOf } from '../domain/access.ts';
import { formatId } from '../domain/ids.ts';
import type { ApiKey } from '../domain/keys.ts';
import type { Store } from '../store/store.ts';

/** How much of OPERATOR_KEY a list shows (D-213). */
const OPERATOR_KEY_PREFIX_CHARS = 4;

interface MachineClock {
  now(): number;
}

/**
 * D-52: the operator's first key, from OPERATOR_KEY. Made at start when no key has its hash;
 * an earlier OPERATOR_KEY's key is revoked (the variable was changed to replace it). A
 * revoked OPERATOR_KEY is refused: the deployment must be given a new one.
 */
export async function ensureOperatorKey(store: Store, clock: MachineClock, text: string): Promise<ApiKey> {
  // Stored as every key is, by its SHA-256 (accounts.ts's sha256, not imported: accounts.ts imports this).
  const hash = digest('sha256', text, 'hex');
  return store.transaction(async (uow) => {
    await uow.lock('operator-key');
    const now = clock.now();
    const found = await uow.accounts.keyByHash(hash);
    if (found && found.revokedAt !== undefined)
      throw new Error(`OPERATOR_KEY (${found.id}) was revoked: set OPERATOR_KEY to a new value`);
    for (const key of await uow.accounts.listKeys({ principal: OPERATOR })) {
      if (key.fromEnvironment && key.hash !== hash && key.revokedAt === undefined)
        await uow.accounts.putKey({ ...key, revokedAt: now });
    }
    if (found) return found;
    const key: ApiKey = {
      id: formatId('key', await uow.accounts.takeNumber('key')),
      hash,
      // Not a key of the service's making, so no prefix of its own: a few characters tell it apart
      // without showing a third of a 32-character secret in every list.
      prefix: `${text.slice(0, OPERATOR_KEY_PREFIX_CHARS)}…`,
      name: 'OPERATOR_KEY',
      principal: OPERATOR,
      scopes: scopesOf('operator'),
      createdAt: now,
      fromEnvironment: true,
    };
    await uow.accounts.putKey(key);
    return key;
  });
}
