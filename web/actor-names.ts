// Keys', principals' and people's names in keys mode: a key as `“agent of A” (key_0004)`, a
// principal as the operator, a closer's or a Seller's name, a person by the name their move
// carries (D-65), and who made a move (`actor`): the person, or the key by its name, never a bare
// id. Nothing is read in the demo, where there are no actors.
import { useEffect, useState } from 'preact/hooks';
import { type ApiKeyRecord, accounts, type RefusedProposal } from './api.ts';
import { useCloserNames } from './closer-names.ts';
import { people } from './people-api.ts';
import { AUTH, may, type Session, useSession } from './session.ts';

/** Who made a move, as records and events carry it (D-65): a key, or a person by name. */
export type ActorRef = NonNullable<RefusedProposal['actor']>;

/** The person of an actor, if a person made the move. */
export const personOf = (ref: ActorRef): { userId: string; name: string } | undefined =>
  'userId' in ref ? ref : undefined;

/** The key of an actor, if a key made the move. */
export const keyOf = (ref: ActorRef | undefined): string | undefined => (ref && 'keyId' in ref ? ref.keyId : undefined);

export interface ActorNames {
  /** The keys the session may list (GET /keys: a Seller's or a closer's own, the operator's all). */
  keys: readonly ApiKeyRecord[];
  /** A principal by name: the operator, a closer's or a Seller's name (its id when unknown). */
  principal(id: string): string;
  /** A key by its name and id: `“agent of A” (key_0004)`, or its id when the session cannot list it. */
  key(id: string): string;
  /**
   * Who made a move: the person by name; a closer or the operator by name; a Seller's key by its
   * name (`Key “agent of A”`), or as one of the Seller's keys when the session cannot list them.
   */
  actor(ref: ActorRef): string;
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
  const principal = (id: string) => {
    if (id === 'operator') return 'The operator';
    if (session && id === session.principal) return session.name;
    if (id.startsWith('closer_')) return closer(id);
    return sellers.get(id) ?? id;
  };
  return {
    keys,
    principal,
    key: (id: string) => {
      const found = keys.find((k) => k.id === id);
      return found ? `“${found.name}” (${id})` : id;
    },
    actor: (ref: ActorRef) => {
      const person = personOf(ref);
      if (person) return person.name;
      if (ref.principal === 'operator' || ref.principal.startsWith('closer_')) return principal(ref.principal);
      const found = keys.find((k) => k.id === keyOf(ref));
      if (found) return `Key “${found.name}”`;
      const seller = principal(ref.principal);
      // A Seller whose name is not read yet is not named by its id.
      return seller === ref.principal ? 'A Seller’s key' : `A key of ${seller}`;
    },
  };
}

/** Whether the session may list people (GET /users asks users:manage, or the operator's admin). */
export const listsPeople = (session: Session) => may(session, 'users:manage') || may(session, 'admin');

/**
 * The people's names by id, for a session that may list them (read when `again` changes); an id
 * stands for a name the session cannot read.
 */
export function useUserNames(again: unknown = undefined): (id: string) => string {
  const session = useKeysSession();
  const [names, setNames] = useState<ReadonlyMap<string, string>>(new Map());
  useEffect(() => {
    if (!session || !listsPeople(session)) return;
    let live = true;
    people.list().then(
      (all) => live && setNames(new Map(all.map((u) => [u.id, u.name]))),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [session?.principal, session?.user?.id, again]);
  return (id: string) => names.get(id) ?? id;
}
