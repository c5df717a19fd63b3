// The list of keys (D-59, D-236, D-260), on the admin page and a Seller's or closer's keys page:
// each key's prefix, principal, scopes, the person who made it (D-66), last use and status. A key
// that ended (revoked, or expired: a rolled key once its grace is over) is shown as ended, with
// when, and offers neither Roll nor Revoke; a rolled key links to the key that replaced it
// (`#/admin?key=…` or `#/keys?key=…` shows that row), and that key to the one it replaced. A
// rolled key still in its grace may be revoked (ending its grace now) but not rolled again: its
// successor is the key to roll. A Seller's key shows its policy in words, its closes of the day
// and the button that opens the policy editor (policy-editor.tsx, D-68).
import { useEffect, useState } from 'preact/hooks';
import type { ApiKeyRecord, KeyUsage } from './api.ts';
import { isSellerKey, PolicyCell } from './policy-editor.tsx';

const when = (iso: string | null | undefined, never = '—') => (iso ? new Date(iso).toLocaleString() : never);

/** When the key ended (revoked, or expired by `now`), or undefined while it works. */
export function endOf(key: ApiKeyRecord, now: number): { how: 'revoked' | 'expired'; at: string } | undefined {
  if (key.revokedAt) return { how: 'revoked', at: key.revokedAt };
  if (key.expiresAt && Date.parse(key.expiresAt) <= now) return { how: 'expired', at: key.expiresAt };
  return undefined;
}

/** The time now, moved on when the next of the keys expires, so that a key ends on screen too. */
function useNow(keys: readonly ApiKeyRecord[]): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const next = Math.min(
      ...keys.map((k) => (k.expiresAt && !k.revokedAt ? Date.parse(k.expiresAt) : Infinity)).filter((t) => t > now),
    );
    if (!Number.isFinite(next)) return;
    // A timer longer than 2^31 - 1 ms fires at once: a far expiry is looked at again in a day.
    const timer = setTimeout(() => setNow(Date.now()), Math.min(next - now + 50, 86_400_000));
    return () => clearTimeout(timer);
  }, [keys, now]);
  return now;
}

/** A link to a key's row on the page the table is on (`page`: the admin page's, or the keys page's). */
function KeyLink({ id, keys, page }: { id: string; keys: readonly ApiKeyRecord[]; page: string }) {
  if (!keys.some((k) => k.id === id)) return <span>{id}</span>;
  return <a href={`#${page}?key=${encodeURIComponent(id)}`}>{id}</a>;
}

/** What a key's status says: ended and when, working until when, or working with no end. */
function Status({ k, keys, now, page }: { k: ApiKeyRecord; keys: readonly ApiKeyRecord[]; now: number; page: string }) {
  const ended = endOf(k, now);
  const replaces = keys.find((other) => other.replacedBy === k.id);
  return (
    <>
      {ended ? (
        <strong>
          Ended: {ended.how} at {when(ended.at)}
        </strong>
      ) : k.replacedBy ? (
        <>Rolled: works until {when(k.expiresAt)}</>
      ) : k.expiresAt ? (
        <>Works until {when(k.expiresAt)}</>
      ) : (
        <>Works, no expiry</>
      )}
      {k.replacedBy ? (
        <span class="link-line">
          Replaced by <KeyLink id={k.replacedBy} keys={keys} page={page} />
        </span>
      ) : null}
      {replaces ? (
        <span class="link-line">
          Replaces <KeyLink id={replaces.id} keys={keys} page={page} />
        </span>
      ) : null}
    </>
  );
}

export function KeysTable({
  keys,
  nameOf,
  madeBy,
  shown,
  page = '/admin',
  roll,
  revoke,
  usages,
  editPolicy,
}: {
  keys: readonly ApiKeyRecord[];
  nameOf: (principal: string) => string;
  /** The person who made a key, by name (their id when the session cannot list people, D-62). */
  madeBy: (userId: string) => string;
  /** The key whose row a link asked for: marked, scrolled to and focused. */
  shown?: string;
  /** The route of the page the table is on, which a link to a key's row goes to. */
  page?: string;
  roll: (key: ApiKeyRecord) => void;
  revoke: (key: ApiKeyRecord) => void;
  /** The day's usage of the Seller's keys with a policy, by key id. */
  usages?: ReadonlyMap<string, KeyUsage>;
  /** Opens the policy editor of a Seller's key. */
  editPolicy?: (key: ApiKeyRecord) => void;
}) {
  const now = useNow(keys);
  // Only a Seller's key carries a policy: a list without one (a closer's keys) has no such column.
  const policies = keys.some(isSellerKey);
  useEffect(() => {
    if (!shown) return;
    const row = document.getElementById(`key-row-${shown}`);
    row?.scrollIntoView({ block: 'center' });
    row?.focus();
  }, [shown, keys.some((k) => k.id === shown)]);
  return (
    <div class="table-scroll">
      <table aria-label="Keys list">
        <thead>
          <tr>
            <th>Name</th>
            <th>Prefix</th>
            <th>Principal</th>
            <th>Scopes</th>
            {policies ? <th>Policy</th> : null}
            <th>Made by</th>
            <th>Last used</th>
            <th>Status</th>
            <th>Actions</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => {
            const ended = endOf(k, now) !== undefined;
            return (
              <tr
                key={k.id}
                id={`key-row-${k.id}`}
                tabIndex={shown === k.id ? -1 : undefined}
                aria-current={shown === k.id ? 'true' : undefined}
                aria-label={`${k.name} (${k.id})`}
                class={[ended ? 'ended' : '', shown === k.id ? 'shown' : ''].join(' ').trim() || undefined}
              >
                <td>{k.name}</td>
                <td>
                  <code>{k.prefix}</code>
                </td>
                <td title={k.principal}>{nameOf(k.principal)}</td>
                <td>{k.scopes.join(' ')}</td>
                {policies ? (
                  <td class="policy-cell">
                    <PolicyCell k={k} usage={usages?.get(k.id)} ended={ended} edit={editPolicy} />
                  </td>
                ) : null}
                <td title={k.createdBy}>{k.createdBy ? madeBy(k.createdBy) : '—'}</td>
                <td>{when(k.lastUsedAt, 'never')}</td>
                <td>
                  <Status k={k} keys={keys} now={now} page={page} />
                </td>
                <td>
                  {ended ? null : k.principal === 'operator' && k.name === 'OPERATOR_KEY' ? (
                    // D-213: OPERATOR_KEY's key is replaced by changing the variable, not here.
                    <span class="muted">changed by OPERATOR_KEY</span>
                  ) : (
                    <>
                      {k.replacedBy ? null : (
                        <>
                          <button type="button" aria-label={`Roll ${k.name}`} onClick={() => roll(k)}>
                            Roll
                          </button>{' '}
                        </>
                      )}
                      <button type="button" aria-label={`Revoke ${k.name}`} onClick={() => revoke(k)}>
                        Revoke
                      </button>
                    </>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
