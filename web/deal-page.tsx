// A deal's page: its stage (labelled `Stage`, D-43), account, signals and stall, mandate,
// activity, gigs and, once won, its settlement; and the moves a person can propose to the gate.
// Each possible advance is dry-run when the page opens and after every change (D-48): the ones
// the gate would refuse are shown disabled with its reason. Every move names the version the page
// read (If-Match, D-47; the version itself is not shown, D-230), so a move made on a stale page is
// refused with what changed instead of being made. Closing lost asks for a reason (D-229). The
// activity shows the proposals the gate refused on the deal (D-61), read again with the deal on
// every event about it (a `proposal.refused` included).
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { GONE_DARK, nextStage, owningRole, type Role, type Stage } from '../src/domain/stages.ts';
import {
  type ApiError,
  allGigs,
  api,
  type Deal,
  type DryRun,
  dealProposals,
  type Escalation,
  type Gig,
  ifMatch,
  type RefusedProposal,
  type Settlement,
  usd,
} from './api.ts';
import { DealActivity, DealGigs, MandateFacts, SettlementFacts } from './deal-records.tsx';
import { useDryRuns, type Verdict, verdictOf } from './dry-runs.ts';
import { dealOf, type LiveEvent, useLive } from './live.ts';
import {
  CONSOLE_NOTE,
  closerIdsIn,
  dealName,
  errorWords,
  gigName,
  humanize,
  money,
  plural,
  signalWords,
  stageLabel,
  stalledSince,
  unreachableWords,
  useActorNames,
  useCloserNames,
  useNotice,
} from './words.ts';

type Proposal = { advanceTo: Stage; valueUsd?: number; note?: string };
type Move = { label: string; proposal: Proposal; needsValue?: boolean; asksReason?: boolean };

/** Whether the role that owns the deal now is a human's (staffing.ts's needsHuman, in USD). */
function needsHuman(deal: Deal): Role | undefined {
  const role = owningRole(deal);
  if (deal.humanTrack === true || role === 'nurturer') return role;
  const rule = deal.mandate.staffing[role];
  if (rule === 'human') return role;
  if (rule === 'agent') return undefined;
  const { minDealSizeUsd, signals } = rule.humanIf;
  if (minDealSizeUsd !== undefined && deal.listValueUsd >= minDealSizeUsd) return role;
  return signals?.some((s) => deal.signals.includes(s)) ? role : undefined;
}

/**
 * The advances a person may propose from a stage: the next one (a close needs a value), and
 * closed_lost. When the owning role is a human's, the advance posts (or names) a gig for that
 * role instead of moving the deal, and is labelled for that.
 */
function possibleMoves(deal: Deal): Move[] {
  if (deal.stage === 'closed_won' || deal.stage === 'closed_lost') return [];
  const next = nextStage(deal.stage);
  const moves: Move[] = [];
  const human = needsHuman(deal);
  const note = CONSOLE_NOTE;
  if (human) {
    const label = deal.signals.includes(GONE_DARK)
      ? `Ask a human ${human} to revive it`
      : `Ask a human ${human} to take it`;
    moves.push({ label, proposal: next ? { advanceTo: next, note } : { advanceTo: 'closed_lost', note } });
  } else if (next === 'closed_won')
    moves.push({ label: 'Close won', proposal: { advanceTo: 'closed_won', note }, needsValue: true });
  else if (next) moves.push({ label: `Advance to ${stageLabel(next)}`, proposal: { advanceTo: next, note } });
  moves.push({ label: 'Close lost', proposal: { advanceTo: 'closed_lost', note }, asksReason: true });
  return moves;
}

const activeGig = (gigs: readonly Gig[]) => gigs.find((g) => g.status === 'open' || g.status === 'claimed');

async function dryRun(deal: Deal, proposal: Proposal, gigs: readonly Gig[], closer: (id: string) => string) {
  const closingLost = proposal.advanceTo === 'closed_lost';
  const answer = await api.POST('/pipeline/deals/{id}/advance', {
    params: { path: { id: deal.id }, query: { dryRun: true }, header: ifMatch(deal) },
    body: proposal,
  });
  const dry = answer.data as DryRun | undefined;
  // On the human track the agent's advance changes nothing: the deal waits for its gig's human.
  if (dry && dry.deal.version === deal.version) {
    const gig = activeGig(gigs);
    const reason = closingLost
      ? 'A human works this deal now: to close it lost yourself, give it back to the agent first.'
      : !gig
        ? 'A human works this deal now: its closer proposes the moves from the Closer desk.'
        : gig.status === 'open'
          ? `${gigName(gig.id).replace('gig', 'Gig')} is open for a human ${gig.role}: one claims it at the Closer desk.`
          : `${closer(gig.closerId ?? '')} works this deal on ${gigName(gig.id)}: they propose its moves from the Closer desk.`;
    return { ok: false, reason } satisfies Verdict;
  }
  const verdict = verdictOf(answer);
  return verdict.ok ? verdict : { ...verdict, reason: humanize(verdict.reason, closer) };
}

/** What a refusal says to the person who acted; a stale page says what the deal is now. */
function refusalWords(error: ApiError, closer: (id: string) => string): string {
  if (error?.code === 'PRECONDITION_FAILED' && error.current) {
    return `This deal changed since you opened it: it is now at ${stageLabel(error.current.stage)}. Nothing was done; the page shows it as it is now.`;
  }
  return errorWords(error, closer);
}

/** What a committed move did, in words. */
function doneWords(before: Deal, answer: Deal | Escalation, gigs: readonly Gig[]): string {
  if ('escalated' in answer) {
    const { gig } = answer;
    const name = gigName(gig.id);
    return gigs.some((g) => g.id === gig.id)
      ? `${name[0].toUpperCase()}${name.slice(1)} is already waiting for a ${gig.role}.`
      : `Posted ${name} for a ${gig.role}.`;
  }
  if (answer.stage === 'closed_won') return `Closed won at ${money(answer.finalValueUsd ?? 0)}.`;
  if (answer.stage === 'closed_lost') return 'Closed lost.';
  if (answer.stage !== before.stage) return `Moved to ${stageLabel(answer.stage)}.`;
  return 'Done.';
}

/** The close-lost dialog: a reason is required; confirm or cancel (D-229). */
function CloseLostDialog({ onConfirm, onCancel }: { onConfirm: (reason: string) => void; onCancel: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [reason, setReason] = useState('');
  useEffect(() => {
    ref.current?.showModal();
  }, []);
  return (
    <dialog ref={ref} aria-labelledby="close-lost-title" class="confirm" onCancel={onCancel}>
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          if (reason.trim()) onConfirm(reason.trim());
        }}
      >
        <h2 id="close-lost-title" class="dialog-title">
          Close this deal as lost?
        </h2>
        <p>It leaves the pipeline; it can be re-engaged later as a new deal.</p>
        <label>
          Reason{' '}
          <textarea
            required
            rows={3}
            value={reason}
            onInput={(e) => setReason(e.currentTarget.value)}
            placeholder="e.g. chose a competitor"
          />
        </label>
        <div class="actions">
          <button type="submit">Confirm close lost</button>
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}

type Said = { where: string; words: string; refused: boolean; raw?: string };

export function DealPage({ id }: { id: string }) {
  const [deal, setDeal] = useState<Deal | undefined>();
  const [missing, setMissing] = useState(false);
  const [unreachable, setUnreachable] = useState('');
  const [gigs, setGigs] = useState<Gig[]>([]);
  const [settlement, setSettlement] = useState<Settlement | undefined>();
  const [refusals, setRefusals] = useState<RefusedProposal[]>([]);
  const [value, setValue] = useState('');
  const [said, setSaid] = useNotice<Said>();
  const [signal, setSignal] = useState('');
  const [closing, setClosing] = useState(false);
  const retry = useRef<ReturnType<typeof setTimeout>>(undefined);
  /**
   * Loads overlap (a live event's, a move's): the version shown only grows, so an answer read
   * before a move that lands after it is dropped instead of showing the deal as it was.
   */
  const shown = useRef(0);

  const load = useCallback(async () => {
    clearTimeout(retry.current);
    let version = 0;
    const stale = () => version < shown.current;
    try {
      const answer = await api.GET('/pipeline/deals/{id}', { params: { path: { id } } });
      version = answer.data?.version ?? 0;
      if (answer.data && stale()) return;
      if (answer.data) shown.current = version;
      if (!answer.data) {
        if (answer.response.status === 404) setMissing(true);
        else throw new Error(`reading the deal: HTTP ${answer.response.status}`);
        return;
      }
      const current = answer.data;
      setDeal(current);
      setValue((v) => v || String(current.listValueUsd));
      const [found, refused] = await Promise.all([allGigs({ dealId: id }), dealProposals(id)]);
      if (stale()) return;
      setGigs(found);
      // A session that may not read them (or a service without them) shows the activity alone.
      setRefusals(refused.ok ? refused.data : []);
      if (current.stage === 'closed_won') {
        const s = await api.GET('/pipeline/deals/{id}/settlement', { params: { path: { id } } });
        if (stale()) return;
        setSettlement(s.data);
      } else setSettlement(undefined);
      setUnreachable('');
    } catch (error) {
      setUnreachable(unreachableWords(error));
      retry.current = setTimeout(load, 2000);
    }
  }, [id]);
  useEffect(() => {
    shown.current = 0;
    setDeal(undefined);
    setRefusals([]);
    setSaid(undefined);
    setValue('');
    setClosing(false);
    load();
    return () => clearTimeout(retry.current);
  }, [load]);
  useLive(
    useCallback(
      (event: LiveEvent) => {
        if (event.type === 'demo.reset' || dealOf(event) === id) load();
      },
      [id, load],
    ),
  );
  const closer = useCloserNames([
    ...gigs.flatMap((g) => (g.closerId ? [g.closerId] : [])),
    ...(deal?.activity ?? []).flatMap((e) => closerIdsIn(e.note)),
    ...refusals.flatMap((r) => [...closerIdsIn(r.reason), ...(r.actor ? closerIdsIn(r.actor.principal) : [])]),
  ]);
  const names = useActorNames();

  // Dry-run every possible move of the deal as it is now (and the close at the value typed).
  const verdicts = useDryRuns(
    [deal, value, load, gigs, closer],
    deal &&
      possibleMoves(deal).map((move) => ({
        label: move.label,
        dryRun: () =>
          dryRun(deal, move.needsValue ? { ...move.proposal, valueUsd: Number(value) } : move.proposal, gigs, closer),
      })),
    load,
  );

  if (missing) return <p role="alert">There is no {dealName(id)}: it may have been wiped by a demo reset.</p>;
  if (!deal)
    return unreachable ? (
      <p role="alert" class="unreachable">
        {unreachable}
      </p>
    ) : (
      <p>Loading the deal…</p>
    );

  const act = async (
    where: string,
    call: () => Promise<{ data?: unknown; error?: unknown; response: Response }>,
    words: (data: never) => string,
  ) => {
    let notice: Said;
    try {
      const answer = await call();
      if (answer.data) notice = { where, words: words(answer.data as never), refused: false };
      else {
        const error = answer.error as ApiError;
        notice = { where, words: refusalWords(error, closer), refused: true, raw: error?.error };
      }
    } catch (error) {
      notice = { where, words: unreachableWords(error).replace(' Retrying…', ' Nothing was done.'), refused: true };
    }
    // The notice comes with the deal as the move left it, never before it.
    await load();
    setSaid(notice);
  };
  const advance = (label: string, proposal: Proposal) =>
    act(
      label,
      () =>
        api.POST('/pipeline/deals/{id}/advance', {
          params: { path: { id: deal.id }, header: ifMatch(deal) },
          body: proposal,
        }),
      (data: Deal | Escalation) => doneWords(deal, data, gigs),
    );
  const note = (where: string) =>
    said?.where === where ? (
      <p role={said.refused ? 'alert' : 'status'} class={said.refused ? 'refused' : 'done'} title={said.raw}>
        {said.words}
      </p>
    ) : null;
  const open = deal.stage !== 'closed_won' && deal.stage !== 'closed_lost';
  const since = stalledSince(deal);
  const lastActivity = deal.activity.at(-1)?.at;

  return (
    <article class="deal">
      <h1>{deal.account.name}</h1>
      {unreachable ? (
        <p role="alert" class="unreachable">
          {unreachable}
        </p>
      ) : null}
      <dl class="facts">
        <div>
          <dt>
            <label for="deal-stage">Stage</label>
          </dt>
          <dd>
            <output id="deal-stage" data-stage={deal.stage}>
              {stageLabel(deal.stage)}
            </output>
          </dd>
        </div>
        <div>
          <dt>List value</dt>
          <dd>{usd(deal.listValueUsd)}</dd>
        </div>
        {deal.finalValueUsd !== undefined ? (
          <div>
            <dt>Won value</dt>
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
        {open ? (
          <div>
            <dt>Worked by</dt>
            <dd>{deal.humanTrack ? `A human (${owningRole(deal)} role)` : 'The agent'}</dd>
          </div>
        ) : null}
        <div>
          <dt>Signals</dt>
          <dd>{deal.signals.length === 0 ? 'None' : deal.signals.map(signalWords).join(', ')}</dd>
        </div>
        {open ? (
          <div>
            <dt>Stall</dt>
            <dd>
              {since
                ? `Stalled since ${new Date(since).toLocaleString()}`
                : `Stalls after ${plural(deal.mandate.stallTimeoutDays, 'day')} without activity`}
            </dd>
          </div>
        ) : null}
        {lastActivity ? (
          <div>
            <dt>Last activity</dt>
            <dd>
              <time dateTime={lastActivity}>{new Date(lastActivity).toLocaleString()}</time>
            </dd>
          </div>
        ) : null}
        {deal.lineage ? (
          <div>
            <dt>Revived from</dt>
            <dd>
              <a href={`#/deals/${deal.lineage.revivedFrom}`}>{dealName(deal.lineage.revivedFrom)}</a>
            </dd>
          </div>
        ) : null}
      </dl>
      {open ? null : (note('Close won') ?? note('Close lost'))}
      {since && open ? (
        <p class="next-step">
          This deal went dark: nobody has acted on it for {plural(deal.mandate.stallTimeoutDays, 'day')}. Next step: a
          human nurturer revives it from the Closer desk.
        </p>
      ) : null}

      {open ? (
        <section aria-label="Moves" class="moves">
          <h2>Propose a move</h2>
          <p class="hint">The gate decides. Moves it would refuse are disabled, with its reason.</p>
          {possibleMoves(deal).map((move, i) => {
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
                  aria-describedby={verdict && !verdict.ok ? `why-${i}` : undefined}
                  onClick={() => (move.asksReason ? setClosing(true) : advance(move.label, proposal))}
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
          {deal.humanTrack ? (
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
              else
                setSaid({
                  where: 'reengage',
                  words: refusalWords(answer.error as ApiError, closer),
                  refused: true,
                  raw: (answer.error as ApiError)?.error,
                });
            }}
          >
            Re-engage as a new deal
          </button>
          {note('reengage')}
        </section>
      ) : null}

      {settlement ? <SettlementFacts settlement={settlement} /> : null}
      <MandateFacts mandate={deal.mandate} listValueUsd={deal.listValueUsd} />
      <DealGigs gigs={gigs} closer={closer} />
      <DealActivity activity={deal.activity} refusals={refusals} closer={closer} names={names} />
    </article>
  );
}
