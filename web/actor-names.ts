// Keys' and principals' names in keys mode: a key as `“agent of A” (key_0004)`, a principal as
// the operator, a closer's or a Seller's name. Nothing is read in the demo, where ids stand.
import { useEffect, useState } from 'preact/hooks';
import { type ApiKeyRecord, accounts } from './api.ts';
import { useCloserNames } from './closer-names.ts';
import { AUTH, may, type Session, useSession } from './session.ts';

export interface ActorNames {
  /** The keys the session may list (GET /keys: a Seller's or a closer's own, the operator's all). */
  keys: readonly ApiKeyRecord[];
  /** A principal by name: the operator, a closer's or a Seller's name (its id when unknown). */
  principal(id: string): string;
  /** A key by its name and id: `“agent of A” (key_0004)`, or its id when the session cannot list it. */
  key(id: string): string;
}

/** Whether the session may list keys (GET /keys asks keys:manage, or the operator's admin). */
export const listsKeys = (session: Session) => may(session, 'keys:manage') || may(session, 'admin');

/** The signed-in session in keys mode, or undefined (the demo, or not signed in). */
export function useKeysSession(): Session | undefined {
  const state = useSession();
  return AUTH === 'keys' && state.status === 'signed-in' ? state.session : undefined;
}

/** The Sellers' names by id, for the operator (read when `again` changes); empty for anyone else. */
export function useSellerNames(again: unknown = undefined): ReadonlyMap<string, string> {
  const session = useKeysSession();
  const [sellers, setSellers] = useState<ReadonlyMap<string, string>>(new Map());
  useEffect(() => {
    if (session?.kind !== 'operator') return;
    let live = true;
    accounts.sellers().then(
      (all) => live && setSellers(new Map(all.map((s) => [s.id, s.name]))),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [session?.keyId, again]);
  return sellers;
}

/**
 * The names of the keys and principals a session may read (keys mode; nothing in the demo): read
 * when the component mounts and again whenever `again` changes. A list the session may not read is
 * left empty, so ids stand for names.
 */
export function useActorNames(again: unknown = undefined): ActorNames {
  const session = useKeysSession();
  const [keys, setKeys] = useState<readonly ApiKeyRecord[]>([]);
  const sellers = useSellerNames(again);
  const closer = useCloserNames();
  useEffect(() => {
    if (!session || !listsKeys(session)) return;
    let live = true;
    accounts.keys().then(
      (all) => live && setKeys(all),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [session?.keyId, again]);
  return {
    keys,
    principal: (id: string) => {
      if (id === 'operator') return 'The operator';
      if (session && id === session.principal) return session.name;
      if (id.startsWith('closer_')) return closer(id);
      return sellers.get(id) ?? id;
    },
    key: (id: string) => {
      const found = keys.find((k) => k.id === id);
      return found ? `“${found.name}” (${id})` : id;
    },
  };
}
