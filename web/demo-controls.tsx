// Demo controls: wipe the demo store, and move the demo clock to see claim expiry and stalls.
// What they answer is a notice that ends (D-230): it goes after a few seconds and on navigation.
// A keys-mode deployment serves them only with DEMO_CONTROLS=on (D-3): the page says whether
// (`<meta name="demo-controls">`, written by the service that serves the routes), and without them
// the console shows none.
import { useState } from 'preact/hooks';
import { api } from './api.ts';
import { errorWords } from './error-words.ts';
import { useNotice } from './notice.ts';

/** Whether this deployment serves `POST /demo/reset` and `POST /demo/clock`, as the page says. */
export const DEMO_CONTROLS_SERVED =
  document.querySelector<HTMLMetaElement>('meta[name="demo-controls"]')?.content === 'on';

export function DemoControls() {
  const [hours, setHours] = useState('24');
  const [said, setSaid] = useNotice<string>();
  const reset = async () => {
    if (!confirm('Reset the demo: every deal, gig and payout is wiped for everyone.')) return;
    try {
      const answer = await api.POST('/demo/reset', {});
      setSaid(answer.data ? 'Demo reset.' : `The reset was refused: ${errorWords(answer.error)}`);
    } catch {
      setSaid('Cannot reach the service: nothing was reset.');
    }
  };
  const move = async (event: Event) => {
    event.preventDefault();
    try {
      const answer = await api.POST('/demo/clock', { body: { advanceHours: Number(hours) } });
      setSaid(
        answer.data ? `Demo time is now ${new Date(answer.data.now).toLocaleString()}.` : errorWords(answer.error),
      );
    } catch {
      setSaid('Cannot reach the service: the clock did not move.');
    }
  };
  return (
    <section class="demo" aria-label="Demo controls">
      <button type="button" onClick={reset}>
        Reset demo
      </button>
      <form onSubmit={move}>
        <label>
          Move the clock (hours){' '}
          <input
            type="number"
            min="0"
            max="2160"
            step="any"
            value={hours}
            onInput={(e) => setHours(e.currentTarget.value)}
          />
        </label>
        <button type="submit">Move clock</button>
      </form>
      <p role="status">{said ?? ''}</p>
    </section>
  );
}
