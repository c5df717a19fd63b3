// The web console (D-43): a Seller's pipeline board, a deal's page, the new-deal form, a
// closer's desk and the closers' directory, over the public API only. Hash routes keep every
// page a link: #/ (board), #/deals/<id>, #/new, #/desk, #/closers.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Board } from './board.tsx';
import { Closers } from './closers.tsx';
import { DealPage } from './deal-page.tsx';
import { DemoControls } from './demo-controls.tsx';
import { Desk } from './desk.tsx';
import { connectLive } from './live.ts';
import { SellForm } from './sell-form.tsx';
import './console.css';

function useRoute(): string {
  const [route, setRoute] = useState(location.hash.slice(1) || '/');
  useEffect(() => {
    const changed = () => setRoute(location.hash.slice(1) || '/');
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}

function Page({ route }: { route: string }) {
  const deal = /^\/deals\/([^/]+)$/.exec(route);
  if (deal) return <DealPage id={decodeURIComponent(deal[1])} />;
  if (route === '/new') return <SellForm />;
  if (route === '/desk') return <Desk />;
  if (route === '/closers') return <Closers />;
  return <Board />;
}

function App() {
  const route = useRoute();
  const current = (path: string) => (route === path ? 'page' : undefined);
  return (
    <>
      <header>
        <nav aria-label="Console">
          <a href="#/" aria-current={current('/')}>
            Pipeline
          </a>
          <a href="#/new" aria-current={current('/new')}>
            New deal
          </a>
          <a href="#/desk" aria-current={current('/desk')}>
            Closer desk
          </a>
          <a href="#/closers" aria-current={current('/closers')}>
            Closers
          </a>
        </nav>
        <DemoControls />
      </header>
      <main>
        <Page route={route} />
      </main>
    </>
  );
}

// The stream's anchor is read before any page reads the records it shows.
connectLive().finally(() => render(<App />, document.getElementById('app') as HTMLElement));
