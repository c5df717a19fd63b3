// What a person may do on a deal's page: propose the moves (each dry-run, the ones the gate would
// refuse disabled with its reason, D-48), report a signal, give a human-track deal back to the
// agent, and re-engage a deal closed lost. Every move names the version the page read (If-Match,
// D-47). The page itself (deal-page.tsx) runs each call and says what came of it. In keys mode
// only what the session's scopes allow is shown (D-66): proposing and signals ask deals:propose,
// giving the deal back deals:write.
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { CONSOLE_NOTE } from './activity-words.ts';
import { type ApiError, api, type Deal, ifMatch } from './api.ts';
import { CloseLostDialog } from './close-lost-dialog.tsx';
import { type Move, type Proposal, possibleMoves, refusalWords } from './deal-moves.ts';
import type { Verdict } from './dry-runs.ts';
import { can } from './session.ts';
import { signalWords } from './words.ts';

type Answer = { data?: unknown; error?: unknown; response: Response };

export interface Acts {
  /** Runs a call, says what came of it beside `where`, and reads the deal again. */
  act(where: string, call: () => Promise<Answer>, words: (data: never) => string): Promise<void>;
  /** Proposes a move to the gate. */
  advance(label: string, proposal: Proposal): void;
  /** What was said beside `where`, if anything. */
  note(where: string): JSX.Element | null;
}

/** The close's value as the proposal sends it. */
export const withValue = (move: Move, value: string): Proposal =>
  move.needsValue ? { ...move.proposal, valueUsd: Number(value) } : move.proposal;

export function DealMoves({
  deal,
  verdicts,
  value,
  setValue,
  acts,
}: {
  deal: Deal;
  verdicts: Record<string, Verdict>;
  value: string;
  setValue: (value: string) => void;
  acts: Acts;
}) {
  const [signal, setSignal] = useState('');
  const [closing, setClosing] = useState(false);
  const { act, advance, note } = acts;
  const proposes = can('deals:propose');
  const givesBack = deal.humanTrack && can('deals:write');
  if (!proposes && !givesBack) return null;
  return (
    <section aria-label="Moves" class="moves">
      <h2>Propose a move</h2>
      <p class="hint">The gate decides. Moves it would refuse are disabled, with its reason.</p>
      {(proposes ? possibleMoves(deal) : []).map((move, i) => {
        const verdict = verdicts[move.label];
        return (
          <div class="move" key={move.label}>
            {move.needsValue ? (
              <label>
                Close value (USD){' '}
                <input
                  type="number"
                  min="0"
                  step="0.01"
                  value={value}
                  onInput={(e) => setValue(e.currentTarget.value)}
                />
              </label>
            ) : null}
            <button
              type="button"
              disabled={verdict !== undefined && !verdict.ok}
              aria-describedby={verdict && !verdict.ok ? `why-${i}` : undefined}
              onClick={() => (move.asksReason ? setClosing(true) : advance(move.label, withValue(move, value)))}
            >
              {move.label}
            </button>
            {verdict && !verdict.ok ? (
              <span class="reason" id={`why-${i}`}>
                {verdict.reason}
              </span>
            ) : null}
            {note(move.label)}
          </div>
        );
      })}
      {closing ? (
        <CloseLostDialog
          onCancel={() => setClosing(false)}
          onConfirm={(reason) => {
            setClosing(false);
            advance('Close lost', { advanceTo: 'closed_lost', note: `${CONSOLE_NOTE}. Reason: ${reason}` });
          }}
        />
      ) : null}
      {proposes ? (
        <form
          class="move"
          onSubmit={(e) => {
            e.preventDefault();
            const reported = signal.trim();
            act(
              'signals',
              () =>
                api.POST('/pipeline/deals/{id}/signals', {
                  params: { path: { id: deal.id }, header: ifMatch(deal) },
                  body: { signals: [reported] },
                }),
              () => `Reported the signal “${signalWords(reported)}”.`,
            );
          }}
        >
          <label>
            Signal{' '}
            <input
              value={signal}
              required
              onInput={(e) => setSignal(e.currentTarget.value)}
              placeholder="e.g. budget_approved"
            />
          </label>
          <button type="submit">Report signal</button>
          {note('signals')}
        </form>
      ) : null}
      {givesBack ? (
        <div class="move">
          <button
            type="button"
            onClick={() =>
              act(
                'deescalate',
                () =>
                  api.POST('/pipeline/deals/{id}/deescalate', {
                    params: { path: { id: deal.id }, header: ifMatch(deal) },
                  }),
                () => 'Taken off the human track: the agent works it again.',
              )
            }
          >
            Give it back to the agent
          </button>
          {note('deescalate')}
        </div>
      ) : null}
    </section>
  );
}

/** A deal closed lost: re-engaged as a new deal, whose page then opens. */
export function Reengage({
  deal,
  refused,
  closer,
  note,
}: {
  deal: Deal;
  refused: (words: string, raw?: string) => void;
  closer: (id: string) => string;
  note: Acts['note'];
}) {
  return (
    <section aria-label="Re-engage" class="moves">
      <button
        type="button"
        onClick={async () => {
          const answer = await api.POST('/pipeline/deals/{id}/reengage', {
            params: { path: { id: deal.id }, header: ifMatch(deal) },
          });
          if (answer.data) location.hash = `#/deals/${answer.data.id}`;
          else {
            const error = answer.error as ApiError;
            refused(refusalWords(error, closer), error?.error);
          }
        }}
      >
        Re-engage as a new deal
      </button>
      {note('reengage')}
    </section>
  );
}
