// Demo controls: wipe the demo store, and move the demo clock to see claim expiry and stalls.
import { useState } from 'preact/hooks';
import { api } from './api.ts';

export function DemoControls() {
  const [hours, setHours] = useState('24');
  const [said, setSaid] = useState('');
  const reset = async () => {
    if (!confirm('Reset the demo: every deal, gig and payout is wiped for everyone.')) return;
    const answer = await api.POST('/demo/reset', {});
    setSaid(answer.data ? 'Demo reset.' : 'The reset was refused.');
  };
  const move = async (event: Event) => {
    event.preventDefault();
    const answer = await api.POST('/demo/clock', { body: { advanceHours: Number(hours) } });
    setSaid(
      answer.data ? `Demo time is now ${new Date(answer.data.now).toLocaleString()}.` : (answer.error?.error ?? ''),
    );
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
      <p role="status">{said}</p>
    </section>
  );
}
