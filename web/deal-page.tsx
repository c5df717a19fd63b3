// A deal's page: its stage (labelled `Stage`, D-43), account, mandate, activity, gigs and, once
// won, its settlement; and the moves a person can propose to the gate. Each possible advance is
// dry-run when the page opens and after every change (D-48): the ones the gate would refuse are
// shown disabled with its reason. Every move names the version the page shows (If-Match, D-47),
// so a move made on a stale page is refused with what changed instead of being made.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { nextStage, type Stage } from '../src/domain/stages.ts';
import { type ApiError, allGigs, api, type Deal, type DryRun, type Gig, ifMatch, type Settlement, usd } from './api.ts';
import { DealActivity, DealGigs, MandateFacts, SettlementFacts } from './deal-records.tsx';
import { useDryRuns, type Verdict, verdictOf } from './dry-runs.ts';
import { dealOf, type LiveEvent, useLive } from './live.ts';

type Proposal = { advanceTo: Stage; valueUsd?: number };

/** The advances a person may propose from a stage: the next one (a close needs a value), and closed_lost. */
function possibleMoves(deal: Deal): { label: string; proposal: Proposal; needsValue?: boolean }[] {
  if (deal.stage === 'closed_won' || deal.stage === 'closed_lost') return [];
  const next = nextStage(deal.stage);
  const moves: { label: string; proposal: Proposal; needsValue?: boolean }[] = [];
  if (next === 'closed_won')
    moves.push({ label: 'Close won', proposal: { advanceTo: 'closed_won' }, needsValue: true });
  else if (next) moves.push({ label: `Advance to ${next}`, proposal: { advanceTo: next } });
  moves.push({ label: 'Close lost', proposal: { advanceTo: 'closed_lost' } });
  return moves;
}

async function dryRun(deal: Deal, proposal: Proposal): Promise<Verdict> {
  const answer = await api.POST('/pipeline/deals/{id}/advance', {
    params: { path: { id: deal.id }, query: { dryRun: true }, header: ifMatch(deal) },
    body: proposal,
  });
  const dry = answer.data as DryRun | undefined;
  // On the human track the agent's advance changes nothing: the deal waits for its gig's closer.
  if (dry && dry.deal.version === deal.version) {
    return { ok: false, reason: 'A human works this deal now: its closer proposes the moves from the Closer desk.' };
  }
  return verdictOf(answer);
}

/** What a refusal says to the person who acted; a stale page says what the deal is now. */
function refusalWords(error: ApiError): string {
  if (error.code === 'PRECONDITION_FAILED' && error.current) {
    return `This deal changed since you opened it: it is now at ${error.current.stage} (version ${error.current.version}). Nothing was done; the page shows it as it is now.`;
  }
  return error.error;
}

export function DealPage({ id }: { id: string }) {
  const [deal, setDeal] = useState<Deal | undefined>();
  const [missing, setMissing] = useState(false);
  const [gigs, setGigs] = useState<Gig[]>([]);
  const [settlement, setSettlement] = useState<Settlement | undefined>();
  const [value, setValue] = useState('');
  const [said, setSaid] = useState<{ where: string; words: string; refused: boolean } | undefined>();
  const [signal, setSignal] = useState('');

  const load = useCallback(async () => {
    const answer = await api.GET('/pipeline/deals/{id}', { params: { path: { id } } });
    if (!answer.data) {
      setMissing(true);
      return;
    }
    const current = answer.data;
    setDeal(current);
    setValue((v) => v || String(current.listValueUsd));
    setGigs(await allGigs({ dealId: id }));
    if (current.stage === 'closed_won') {
      const s = await api.GET('/pipeline/deals/{id}/settlement', { params: { path: { id } } });
      setSettlement(s.data);
    } else setSettlement(undefined);
  }, [id]);
  useEffect(() => {
    setDeal(undefined);
    setSaid(undefined);
    setValue('');
    load();
  }, [load]);
  useLive(
    useCallback(
      (event: LiveEvent) => {
        if (event.type === 'demo.reset' || dealOf(event) === id) load();
      },
      [id, load],
    ),
  );

  // Dry-run every possible move of the deal as it is now (and the close at the value typed).
  const verdicts = useDryRuns(
    [deal, value, load],
    deal &&
      possibleMoves(deal).map((move) => ({
        label: move.label,
        dryRun: () => dryRun(deal, move.needsValue ? { ...move.proposal, valueUsd: Number(value) } : move.proposal),
      })),
    load,
  );

  if (missing) return <p role="alert">No deal {id}.</p>;
  if (!deal) return <p>Loading the deal…</p>;

  const act = async (where: string, call: () => Promise<{ data?: unknown; error?: unknown; response: Response }>) => {
    const answer = await call();
    if (answer.data) setSaid({ where, words: 'Done.', refused: false });
    else setSaid({ where, words: refusalWords(answer.error as ApiError), refused: true });
    await load();
  };
  const advance = (label: string, proposal: Proposal) =>
    act(label, () =>
      api.POST('/pipeline/deals/{id}/advance', {
        params: { path: { id: deal.id }, header: ifMatch(deal) },
        body: proposal,
      }),
    );
  const note = (where: string) =>
    said?.where === where ? (
      <p role={said.refused ? 'alert' : 'status'} class={said.refused ? 'refused' : 'done'}>
        {said.words}
      </p>
    ) : null;
  const open = deal.stage !== 'closed_won' && deal.stage !== 'closed_lost';

  return (
    <article class="deal">
      <h1>{deal.account.name}</h1>
      <dl class="facts">
        <div>
          <dt>
            <label for="deal-stage">Stage</label>
          </dt>
          <dd>
            <output id="deal-stage">{deal.stage}</output>
          </dd>
        </div>
        <div>
          <dt>List value</dt>
          <dd>{usd(deal.listValueUsd)}</dd>
        </div>
        {deal.finalValueUsd !== undefined ? (
          <div>
            <dt>Closed at</dt>
            <dd>{usd(deal.finalValueUsd)}</dd>
          </div>
        ) : null}
        <div>
          <dt>Account</dt>
          <dd>
            {deal.account.actor}
            {deal.account.industry ? `, ${deal.account.industry}` : ''}
          </dd>
        </div>
        <div>
          <dt>Version</dt>
          <dd>{deal.version}</dd>
        </div>
        {deal.humanTrack ? (
          <div>
            <dt>Track</dt>
            <dd>human</dd>
          </div>
        ) : null}
        {deal.lineage ? (
          <div>
            <dt>Revived from</dt>
            <dd>
              <a href={`#/deals/${deal.lineage.revivedFrom}`}>{deal.lineage.revivedFrom}</a>
            </dd>
          </div>
        ) : null}
      </dl>

      {open ? (
        <section aria-label="Moves" class="moves">
          <h2>Propose a move</h2>
          <p class="hint">The gate decides. Moves it would refuse are disabled, with its reason.</p>
          {possibleMoves(deal).map((move) => {
            const verdict = verdicts[move.label];
            const proposal = move.needsValue ? { ...move.proposal, valueUsd: Number(value) } : move.proposal;
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
                  aria-describedby={verdict && !verdict.ok ? `why-${move.label}` : undefined}
                  onClick={() => advance(move.label, proposal)}
                >
                  {move.label}
                </button>
                {verdict && !verdict.ok ? (
                  <span class="reason" id={`why-${move.label}`}>
                    {verdict.reason}
                  </span>
                ) : null}
                {note(move.label)}
              </div>
            );
          })}
          <form
            class="move"
            onSubmit={(e) => {
              e.preventDefault();
              act('signals', () =>
                api.POST('/pipeline/deals/{id}/signals', {
                  params: { path: { id: deal.id }, header: ifMatch(deal) },
                  body: { signals: [signal] },
                }),
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
          {deal.humanTrack ? (
            <div class="move">
              <button
                type="button"
                onClick={() =>
                  act('deescalate', () =>
                    api.POST('/pipeline/deals/{id}/deescalate', {
                      params: { path: { id: deal.id }, header: ifMatch(deal) },
                    }),
                  )
                }
              >
                De-escalate
              </button>
              {note('deescalate')}
            </div>
          ) : null}
        </section>
      ) : null}
      {deal.stage === 'closed_lost' ? (
        <section aria-label="Re-engage" class="moves">
          <button
            type="button"
            onClick={async () => {
              const answer = await api.POST('/pipeline/deals/{id}/reengage', {
                params: { path: { id: deal.id }, header: ifMatch(deal) },
              });
              if (answer.data) location.hash = `#/deals/${answer.data.id}`;
              else setSaid({ where: 'reengage', words: refusalWords(answer.error as ApiError), refused: true });
            }}
          >
            Re-engage
          </button>
          {note('reengage')}
        </section>
      ) : null}

      {settlement ? <SettlementFacts settlement={settlement} /> : null}
      <MandateFacts mandate={deal.mandate} />
      <DealGigs gigs={gigs} />
      <DealActivity activity={deal.activity} />
    </article>
  );
}
