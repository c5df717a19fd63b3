// The web console (D-43): a Seller's pipeline board, a deal's page, the new-deal form, a
// closer's desk, the closers' directory and the proposals page (how the executors fare at the
// gate, D-61), over the public API only. Hash routes keep every page a link: #/ (board),
// #/deals/<id>, #/new, #/desk, #/closers, #/proposals, and the Insights page (#/insights, D-73, D-74):
// the pipeline's charts, each with its table and a CSV download, for whoever may read deals or gigs,
// and a Seller's Statement (#/statement, D-82): its month in the ledger (the operator's of a Seller
// it chooses; the demo's of `seller:none`); a closer's balances and statement are on its desk.
// In keys mode (D-59, D-235, D-66) the page first signs in, a person with an email and a password
// or anyone with a key, and then shows what the session's principal works with: a Seller its
// board, new deals, its proposals and the closers; a closer its desk, acting as itself, its own
// proposals and the closers; either its Team (#/team) and its keys (#/keys) when the session may
// manage them; the operator the admin page (#/admin), the board, every proposal, the closers and,
// when the deployment serves them (DEMO_CONTROLS=on, D-3), the demo's controls. A session that may
// read approvals (D-69, D-70) also has the Approvals page (#/approvals): what keys' policies held.
// A person (not a key, D-277) has an inbox (#/notifications, D-72), linked beside their name in the
// header with its unread count. Every link and control is shown by what the session's scopes allow
// (`can`), never by a role's name. A mailed link's page (#/accept/<token>, #/reset,
// #/reset/<token>) needs no session. The demo is as it always was.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { AcceptInvitation } from './accept-invitation.tsx';
import { Admin } from './admin.tsx';
import { readsApprovals } from './approvals-api.ts';
import { ApprovalsPage } from './approvals-page.tsx';
import { Board } from './board.tsx';
import { Closers } from './closers.tsx';
import { DealPage } from './deal-page.tsx';
import { DEMO_CONTROLS_SERVED, DemoControls } from './demo-controls.tsx';
import { Desk } from './desk.tsx';
import { hasInbox } from './inbox-api.ts';
import { InboxPage } from './inbox-page.tsx';
import { readsInsights } from './insights-api.ts';
import { InsightsPage } from './insights-page.tsx';
import { KeysPage } from './keys-page.tsx';
import { connectLive } from './live.ts';
import { AskReset, ConfirmReset, PASSWORD_CHANGED_ROUTE, PASSWORD_CHANGED_WORDS } from './password-reset.tsx';
import { ProposalsPage } from './proposals-page.tsx';
import { SellForm } from './sell-form.tsx';
import { AUTH, can, checkSession, KIND_WORDS, readSession, type Session, signOut, useSession } from './session.ts';
import { KEY_ROUTE, SignIn } from './sign-in.tsx';
import { StatementPage } from './statement-page.tsx';
import { TeamPage } from './team-page.tsx';
import { UnreadLink } from './unread-count.tsx';
import './console.css';
import './session.css';
import './people.css';
import './approvals.css';
import './notifications.css';
import './insights.css';
import './ledger.css';

function useRoute(): string {
  const [route, setRoute] = useState(location.hash.slice(1) || '/');
  useEffect(() => {
    const changed = () => setRoute(location.hash.slice(1) || '/');
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}

type Link = { path: string; label: string };

const DEMO_LINKS: Link[] = [
  { path: '/', label: 'Pipeline' },
  { path: '/new', label: 'New deal' },
  { path: '/desk', label: 'Closer desk' },
  { path: '/proposals', label: 'Proposals' },
  { path: '/insights', label: 'Insights' },
  { path: '/statement', label: 'Statement' },
  { path: '/closers', label: 'Closers' },
];

/** D-66: a Seller's or a closer's people and keys, for a session that may manage them. */
const managed = (): Link[] => [
  ...(can('users:manage') ? [{ path: '/team', label: 'Team' }] : []),
  ...(can('keys:manage') ? [{ path: '/keys', label: 'Keys' }] : []),
];

/** D-73: the Insights page, for a session that may read deals or gigs (or the operator's admin). */
const insightsLink = (): Link[] => (readsInsights() ? [{ path: '/insights', label: 'Insights' }] : []);

/** D-82: a Seller's monthly statement, for a session that may read its deals (or the operator's admin). */
const statementLink = (): Link[] =>
  can('deals:read') || can('admin') ? [{ path: '/statement', label: 'Statement' }] : [];

/** D-69: the proposals keys' policies held, for a session that may read them (keys mode only). */
const approvalsLink = (): Link[] => (readsApprovals() ? [{ path: '/approvals', label: 'Approvals' }] : []);

/** D-235: the pages a session's principal works with, its home page first. */
function linksOf(session: Session | undefined): Link[] {
  if (session === undefined) return DEMO_LINKS;
  if (session.kind === 'closer')
    return [
      { path: '/desk', label: 'Closer desk' },
      { path: '/proposals', label: 'Proposals' },
      ...insightsLink(),
      { path: '/closers', label: 'Closers' },
      ...managed(),
    ];
  if (session.kind === 'operator')
    return [
      { path: '/admin', label: 'Admin' },
      { path: '/pipeline', label: 'Pipeline' },
      { path: '/proposals', label: 'Proposals' },
      ...insightsLink(),
      ...statementLink(),
      ...approvalsLink(),
      { path: '/closers', label: 'Closers' },
    ];
  return [
    { path: '/', label: 'Pipeline' },
    ...(can('deals:write') ? [{ path: '/new', label: 'New deal' }] : []),
    { path: '/proposals', label: 'Proposals' },
    ...insightsLink(),
    ...statementLink(),
    ...approvalsLink(),
    { path: '/closers', label: 'Closers' },
    ...managed(),
  ];
}

/** A person's inbox (D-72): not in the menu, but beside their name with its unread count. */
const INBOX_ROUTE = '/notifications';

/**
 * The page a route shows: in keys mode `#/` and a route the principal does not work with show its
 * home (a Seller's board, a closer's desk, the operator's admin page).
 */
function pageOf(route: string, session: Session | undefined): string {
  if (session === undefined || /^\/deals\//.test(route)) return route;
  if (route === INBOX_ROUTE && hasInbox(session)) return route;
  const links = linksOf(session);
  return links.some((link) => link.path === route) ? route : links[0].path;
}

/** A route's path and its query: `/admin?key=key_0009` shows the admin page at that key's row. */
function splitRoute(route: string): [string, URLSearchParams] {
  const at = route.indexOf('?');
  return at < 0 ? [route, new URLSearchParams()] : [route.slice(0, at), new URLSearchParams(route.slice(at + 1))];
}

function Page({ route, query, session }: { route: string; query: URLSearchParams; session?: Session }) {
  const deal = /^\/deals\/([^/]+)$/.exec(route);
  if (deal) return <DealPage id={decodeURIComponent(deal[1])} />;
  if (route === '/new') return <SellForm />;
  if (route === '/desk')
    return session?.kind === 'closer' ? <Desk closer={{ id: session.principal, name: session.name }} /> : <Desk />;
  if (route === '/closers') return <Closers />;
  if (route === '/proposals') return <ProposalsPage session={session} />;
  if (route === '/approvals' && session) return <ApprovalsPage />;
  if (route === '/insights') return <InsightsPage />;
  if (route === '/statement' && session?.kind !== 'closer') return <StatementPage session={session} />;
  if (route === INBOX_ROUTE && hasInbox(session)) return <InboxPage />;
  if (route === '/admin' && session?.kind === 'operator') return <Admin shownKey={query.get('key') ?? undefined} />;
  if (route === '/team' && session) return <TeamPage session={session} />;
  if (route === '/keys' && session) return <KeysPage session={session} shownKey={query.get('key') ?? undefined} />;
  return <Board />;
}

/** Who is signed in: the person, their role and their principal's name; or the key's principal. */
function Who({ session }: { session: Session }) {
  const { user } = session;
  return user ? (
    <span>
      Signed in as <strong>{user.name}</strong> · {user.role} · {session.name}
    </span>
  ) : (
    <span>
      Signed in as <strong>{session.name}</strong> ({KIND_WORDS[session.kind]})
    </span>
  );
}

/** A mailed link's page (D-63), shown whoever is signed in, or undefined for any other route. */
function accountPage(route: string) {
  const accept = /^\/accept\/([^/]+)$/.exec(route);
  if (accept) return <AcceptInvitation token={decodeURIComponent(accept[1])} />;
  if (route === '/reset') return <AskReset />;
  const reset = /^\/reset\/([^/]+)$/.exec(route);
  if (reset) return <ConfirmReset token={decodeURIComponent(reset[1])} />;
  return undefined;
}

function App({ session }: { session?: Session }) {
  const [path, query] = splitRoute(useRoute());
  const route = pageOf(path, session);
  const current = (path: string) => (route === path ? 'page' : undefined);
  return (
    <>
      <header>
        <nav aria-label="Console">
          {linksOf(session).map((link) => (
            <a href={`#${link.path}`} aria-current={current(link.path)} key={link.path}>
              {link.label}
            </a>
          ))}
        </nav>
        {session ? (
          <section class="who" aria-label="Signed in">
            <Who session={session} />
            {hasInbox(session) ? <UnreadLink current={route === INBOX_ROUTE} /> : null}
            <button type="button" onClick={() => signOut()}>
              Sign out
            </button>
          </section>
        ) : null}
        {DEMO_CONTROLS_SERVED && (session === undefined || session.kind === 'operator') ? <DemoControls /> : null}
      </header>
      <main>
        <Page route={route} query={query} session={session} />
      </main>
    </>
  );
}

/** How often an open console asks whether its session still holds (besides every call it makes). */
const SESSION_CHECK_MS = 60_000;

/**
 * Keys mode: the sign-in page until a session holds (or a mailed link's page), then the console
 * for its principal.
 */
function KeysApp() {
  const state = useSession();
  const [path] = splitRoute(useRoute());
  const [live, setLive] = useState(false);
  const signedIn = state.status === 'signed-in';
  useEffect(() => {
    if (!signedIn) return;
    // The stream's anchor is read before any page reads the records it shows.
    connectLive()
      .catch(() => undefined)
      .finally(() => setLive(true));
    // A session can end under an idle page (revoked, signed out elsewhere, the person disabled,
    // 12 hours): asked on every navigation and now and then, as well as by every call (a 401 ends
    // it, api.ts). A person's new role shows from the next ask on (D-62).
    const check = () => checkSession();
    const timer = setInterval(check, SESSION_CHECK_MS);
    addEventListener('hashchange', check);
    return () => {
      clearInterval(timer);
      removeEventListener('hashchange', check);
    };
  }, [signedIn]);
  const account = accountPage(path);
  if (account) return account;
  if (state.status === 'unknown') return null;
  if (state.status === 'signed-out') {
    const words = state.words ?? (path === PASSWORD_CHANGED_ROUTE ? PASSWORD_CHANGED_WORDS : undefined);
    return <SignIn key={path} words={words} way={path === KEY_ROUTE ? 'key' : 'person'} />;
  }
  return live ? <App session={state.session} /> : null;
}

const root = document.getElementById('app') as HTMLElement;
if (AUTH === 'keys') {
  readSession().finally(() => render(<KeysApp />, root));
} else {
  // The stream's anchor is read before any page reads the records it shows.
  connectLive().finally(() => render(<App />, root));
}
