// The web console (D-43): a Seller's pipeline board, a deal's page, the new-deal form, a
// closer's desk, the closers' directory and the proposals page (how the executors fare at the
// gate, D-61), over the public API only. Hash routes keep every page a link: #/ (board),
// #/deals/<id>, #/new, #/desk, #/closers, #/proposals.
// In keys mode (D-59, D-235) the page first signs in with a key, and then shows what the
// session's principal works with: a Seller its board, new deals, its proposals and the closers; a
// closer its desk, acting as itself, its own proposals and the closers; the operator the admin
// page (#/admin), the board, every proposal, the closers and, when the deployment serves them
// (DEMO_CONTROLS=on, D-3), the demo's controls. The demo is as it always was.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Admin } from './admin.tsx';
import { Board } from './board.tsx';
import { Closers } from './closers.tsx';
import { DealPage } from './deal-page.tsx';
import { DEMO_CONTROLS_SERVED, DemoControls } from './demo-controls.tsx';
import { Desk } from './desk.tsx';
import { connectLive } from './live.ts';
import { ProposalsPage } from './proposals-page.tsx';
import { SellForm } from './sell-form.tsx';
import { AUTH, KIND_WORDS, may, readSession, type Session, sessionEnded, signOut, useSession } from './session.ts';
import { SignIn } from './sign-in.tsx';
import './console.css';
import './session.css';

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
  { path: '/closers', label: 'Closers' },
];

/** D-235: the pages a session's principal works with, its home page first. */
function linksOf(session: Session | undefined): Link[] {
  if (session === undefined) return DEMO_LINKS;
  if (session.kind === 'closer')
    return [
      { path: '/desk', label: 'Closer desk' },
      { path: '/proposals', label: 'Proposals' },
      { path: '/closers', label: 'Closers' },
    ];
  if (session.kind === 'operator')
    return [
      { path: '/admin', label: 'Admin' },
      { path: '/pipeline', label: 'Pipeline' },
      { path: '/proposals', label: 'Proposals' },
      { path: '/closers', label: 'Closers' },
    ];
  return [
    { path: '/', label: 'Pipeline' },
    ...(may(session, 'deals:write') ? [{ path: '/new', label: 'New deal' }] : []),
    { path: '/proposals', label: 'Proposals' },
    { path: '/closers', label: 'Closers' },
  ];
}

/**
 * The page a route shows: in keys mode `#/` and a route the principal does not work with show its
 * home (a Seller's board, a closer's desk, the operator's admin page).
 */
function pageOf(route: string, session: Session | undefined): string {
  if (session === undefined || /^\/deals\//.test(route)) return route;
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
  if (route === '/admin' && session?.kind === 'operator') return <Admin shownKey={query.get('key') ?? undefined} />;
  return <Board />;
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
            <span>
              Signed in as <strong>{session.name}</strong> ({KIND_WORDS[session.kind]})
            </span>
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

/** Keys mode: the sign-in page until a session holds, then the console for its principal. */
function KeysApp() {
  const state = useSession();
  const [live, setLive] = useState(false);
  const signedIn = state.status === 'signed-in';
  useEffect(() => {
    if (!signedIn) return;
    // The stream's anchor is read before any page reads the records it shows.
    connectLive()
      .catch(() => undefined)
      .finally(() => setLive(true));
    // A session can end under an idle page (revoked, signed out elsewhere, 12 hours): asked on
    // every navigation and now and then, as well as by every call (a 401 ends it, api.ts).
    const check = () =>
      fetch('/console/session', { headers: { accept: 'application/json' } }).then(
        (response) => {
          if (response.status === 401) sessionEnded();
        },
        () => undefined,
      );
    const timer = setInterval(check, SESSION_CHECK_MS);
    addEventListener('hashchange', check);
    return () => {
      clearInterval(timer);
      removeEventListener('hashchange', check);
    };
  }, [signedIn]);
  if (state.status === 'unknown') return null;
  if (state.status === 'signed-out') return <SignIn words={state.words} />;
  return live ? <App session={state.session} /> : null;
}

const root = document.getElementById('app') as HTMLElement;
if (AUTH === 'keys') {
  readSession().finally(() => render(<KeysApp />, root));
} else {
  // The stream's anchor is read before any page reads the records it shows.
  connectLive().finally(() => render(<App />, root));
}
