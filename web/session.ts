// The console's session in keys mode (D-59, D-235, D-66): who is signed in (a person, or a key),
// signing in and out, what the session may do (`can`), and what happens when the session ends.
// The key or the password a person types is sent once, in the body of `POST /console/session`,
// and kept nowhere: not in a variable that outlives the call, not in localStorage or
// sessionStorage, never in a URL. From then on the browser carries the session's HttpOnly cookie,
// which this script cannot read. In the demo (`<meta name="auth" content="demo">`) there is no
// session and nothing here is used.
import { useEffect, useState } from 'preact/hooks';

/** The service's mode, as the page names it. */
export const AUTH: 'demo' | 'keys' =
  document.querySelector<HTMLMetaElement>('meta[name="auth"]')?.content === 'keys' ? 'keys' : 'demo';

export type Kind = 'operator' | 'seller' | 'closer';

/** `GET /console/session`'s answer: who the console is signed in as. */
export interface Session {
  principal: string;
  kind: Kind;
  /** The Seller's or the closer's name, or `Operator`. */
  name: string;
  /** The key a key's session was signed in with; absent for a person (D-62). */
  keyId?: string;
  /** The person signed in; absent for a key. */
  user?: { id: string; name: string; email: string; role: string };
  /** What the session may do: the key's scopes, or the person's role's. */
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

/** When to try again, from a Retry-After in seconds: `in 15 minutes (at 14:05)`. */
export function retryWords(seconds: number): string {
  const at = new Date(Date.now() + seconds * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  const wait = seconds < 90 ? `${Math.max(1, Math.round(seconds))} seconds` : `${Math.ceil(seconds / 60)} minutes`;
  return `in ${wait} (at ${at})`;
}

/**
 * D-63: a person signs in with an email and a password. Answers the words to show when it was
 * refused: every failure is the same INVALID_CREDENTIALS (the service tells no one which part was
 * wrong), and a locked email says when to try again.
 */
export async function signInWithPassword(email: string, password: string): Promise<string | undefined> {
  let response: Response;
  try {
    response = await fetch('/console/session', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email, password }),
    });
  } catch {
    return 'Cannot reach the service: try again.';
  }
  if (response.ok) {
    set({ status: 'signed-in', session: (await response.json()) as Session });
    return undefined;
  }
  if (response.status === 401) return 'The email or password is not right.';
  if (response.status === 400) return 'Type your email and your password.';
  if (response.status === 429) {
    const seconds = Number(response.headers.get('retry-after'));
    const when = Number.isFinite(seconds) && seconds > 0 ? retryWords(seconds) : 'in a few minutes';
    // The email's lock (TOO_MANY_ATTEMPTS), or the service's limit on requests (RATE_LIMITED).
    const error = (await response.json().catch(() => undefined)) as { code?: string } | undefined;
    return error?.code === 'TOO_MANY_ATTEMPTS'
      ? `Too many failed sign-ins for this email: try again ${when}.`
      : `Too many requests: try again ${when}.`;
  }
  if (response.status === 503) return 'The service is busy: try again in a moment.';
  const error = (await response.json().catch(() => undefined)) as { error?: string } | undefined;
  return error?.error ?? `The sign-in was refused (HTTP ${response.status}).`;
}

/**
 * Asks whether the session still holds: a 401 ends it (sessionEnded); an answer that differs
 * (a person's role changed, D-62) replaces it, so the page shows what the session may do now.
 */
export async function checkSession(): Promise<void> {
  let response: Response;
  try {
    response = await fetch('/console/session', { headers: { accept: 'application/json' } });
  } catch {
    return;
  }
  if (response.status === 401) {
    sessionEnded();
    return;
  }
  if (!response.ok) return;
  const now = (await response.json().catch(() => undefined)) as Session | undefined;
  if (now === undefined || state.status !== 'signed-in') return;
  const before = state.session;
  if (now.scopes.join() !== before.scopes.join() || now.user?.role !== before.user?.role) {
    set({ status: 'signed-in', session: now });
  }
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

/**
 * The page starts afresh at `route` with whatever cookie the browser now holds (an accepted
 * invitation signs a person in): nothing of an earlier session stays, its event stream included.
 */
export const startAfresh = (route: string) => restart(route);

/** Whether the session (its key's scopes, or its person's role's) carries a scope. */
export const may = (session: Session, scope: string) => session.scopes.includes(scope);

/**
 * Whether the signed-in session may do what needs `scope` (D-66): pages show a control only when
 * it may, derived from the scopes and never from a role's name. In the demo everyone may.
 */
export function can(scope: string): boolean {
  if (AUTH !== 'keys') return true;
  return state.status === 'signed-in' && may(state.session, scope);
}
