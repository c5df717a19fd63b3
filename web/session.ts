// The console's session in keys mode (D-59, D-235): who is signed in, signing in and out, and
// what happens when the session ends. The key a person types is sent once, in the body of
// `POST /console/session`, and kept nowhere: not in a variable that outlives the call, not in
// localStorage or sessionStorage, never in a URL. From then on the browser carries the session's
// HttpOnly cookie, which this script cannot read. In the demo (`<meta name="auth" content="demo">`)
// there is no session and nothing here is used.
import { useEffect, useState } from 'preact/hooks';

/** The service's mode, as the page names it. */
export const AUTH: 'demo' | 'keys' =
  document.querySelector<HTMLMetaElement>('meta[name="auth"]')?.content === 'keys' ? 'keys' : 'demo';

export type Kind = 'operator' | 'seller' | 'closer';

/** `GET /console/session`'s answer: who the console is signed in as. */
export interface Session {
  principal: string;
  kind: Kind;
  name: string;
  keyId: string;
  scopes: string[];
  expiresAt: string;
}

/** What a person reads when the session ended under them (signed out elsewhere, revoked, expired). */
export const ENDED_WORDS = 'Your session has ended; sign in again.';

/** The hash route the page reloads to when its session ended (it names no key, nothing secret). */
export const ENDED_ROUTE = '/signed-out';

export const KIND_WORDS: Record<Kind, string> = { operator: 'operator', seller: 'Seller', closer: 'closer' };

type State =
  | { status: 'unknown' }
  | { status: 'signed-out'; words?: string }
  | { status: 'signed-in'; session: Session };

let state: State = { status: 'unknown' };
const watchers = new Set<(state: State) => void>();

function set(next: State) {
  state = next;
  for (const watcher of watchers) watcher(next);
}

/** The session's state, re-rendering the component when it changes. */
export function useSession(): State {
  const [now, setNow] = useState(state);
  useEffect(() => {
    watchers.add(setNow);
    setNow(state);
    return () => {
      watchers.delete(setNow);
    };
  }, []);
  return now;
}

const json = { 'content-type': 'application/json', accept: 'application/json' };

/** Reads who is signed in (the cookie, if any): the page's first call in keys mode. */
export async function readSession(): Promise<State> {
  let response: Response;
  try {
    response = await fetch('/console/session', { headers: { accept: 'application/json' } });
  } catch {
    set({ status: 'signed-out', words: 'Cannot reach the service: reload the page to try again.' });
    return state;
  }
  if (response.ok) set({ status: 'signed-in', session: (await response.json()) as Session });
  else set({ status: 'signed-out', ...(location.hash === `#${ENDED_ROUTE}` ? { words: ENDED_WORDS } : {}) });
  return state;
}

/**
 * Trades a key for a session. Answers the words to show when it was refused. The key is only in
 * this call's body.
 */
export async function signIn(key: string): Promise<string | undefined> {
  let response: Response;
  try {
    response = await fetch('/console/session', { method: 'POST', headers: json, body: JSON.stringify({ key }) });
  } catch {
    return 'Cannot reach the service: try again.';
  }
  if (response.ok) {
    set({ status: 'signed-in', session: (await response.json()) as Session });
    return undefined;
  }
  if (response.status === 401) return 'That key is not valid: it is unknown, revoked or expired.';
  if (response.status === 400) return 'Type or paste a key.';
  if (response.status === 429) return 'Too many attempts: wait a minute and try again.';
  const error = (await response.json().catch(() => undefined)) as { error?: string } | undefined;
  return error?.error ?? `The sign-in was refused (HTTP ${response.status}).`;
}

/**
 * Signs out: the service ends the session and clears the cookie; the page then starts afresh
 * (so nothing of the session stays in memory, the event stream included).
 */
export async function signOut(): Promise<void> {
  await fetch('/console/session/end', { method: 'POST' }).catch(() => undefined);
  restart('/');
}

/**
 * A call answered 401 while signed in: the session ended (signed out elsewhere, its key revoked
 * or expired, 12 hours passed). The page starts afresh on the sign-in page, which says so.
 */
export function sessionEnded(): boolean {
  // Calls answered 401 while the page is already restarting (a navigation's check and the page's
  // own reads meet the same end) are held too.
  if (restarting) return true;
  if (AUTH !== 'keys' || state.status !== 'signed-in') return false;
  set({ status: 'signed-out', words: ENDED_WORDS });
  restart(ENDED_ROUTE);
  return true;
}

/**
 * The answer a call gets once its 401 restarted the page: none. The page is being replaced by the
 * sign-in page, so the component that asked is never told (it would show an error meanwhile).
 */
export const never = <T>() => new Promise<T>(() => undefined);

/** Whether the page is being restarted (signed out, or its session ended). */
let restarting = false;

function restart(route: string) {
  restarting = true;
  location.hash = `#${route}`;
  location.reload();
}

/** Whether the session's key carries a scope. */
export const may = (session: Session, scope: string) => session.scopes.includes(scope);
