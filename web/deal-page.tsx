// A deal's page: its facts (deal-facts.tsx), its Edit (deal-edit.tsx, D-67), the moves a person
// can propose to the gate (deal-actions.tsx, deal-moves.ts), its records (deal-records.tsx:
// settlement once won, mandate, gigs, activity), a won deal's refunds (deal-refunds.tsx, D-81).
// In keys mode each control shows only when the session's scopes allow it (D-66): a viewer sees
// the deal and no control. Each possible advance is dry-run when the page opens and after every
// change (D-48): the ones the gate would refuse are shown disabled with its reason. Every move
// names the version the page read (If-Match, D-47; the version itself is not shown, D-230), so a
// move made on a stale page is refused with what changed instead of being made. The activity shows the
// proposals the gate refused on the deal (D-61), read again with the deal on every event about
// it (a `proposal.refused` included). A deal that is not found is said so in what is true of the
// deployment (D-263). A deal that waits on an approval says so (deal-approval.tsx, D-69).
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { stalledSince } from './activity-words.ts';
import { useActorNames, useKeysSession } from './actor-names.ts';
import {
  type ApiError,
  allGigs,
  api,
  type Deal,
  dealProposals,
  type Escalation,
  type Gig,
  type Held,
  ifMatch,
  type RefusedProposal,
  type Settlement,
} from './api.ts';
import { closerIdsIn, useCloserNames } from './closer-names.ts';
import { type Acts, DealMoves, Reengage, withValue } from './deal-actions.tsx';
import { DealApproval } from './deal-approval.tsx';
import { DealEdit } from './deal-edit.tsx';
import { DealFacts } from './deal-facts.tsx';
import { doneWords, dryRunMove, type Proposal, possibleMoves, refusalWords } from './deal-moves.ts';
import { DealActivity, DealGigs, MandateFacts, SettlementFacts } from './deal-records.tsx';
import { DealRefunds } from './deal-refunds.tsx';
import { DEMO_CONTROLS_SERVED } from './demo-controls.tsx';
import { useDryRuns } from './dry-runs.ts';
import { unreachableWords } from './error-words.ts';
import { dealOf, type LiveEvent, useLive } from './live.ts';
import { useNotice } from './notice.ts';
import { can, type Session } from './session.ts';
import { dealName, plural } from './words.ts';

/**
 * D-263: why there is no such deal, as is true of this deployment: a demo reset only where one is
 * served; in keys mode, what the session's principal may see.
 */
export function missingWords(id: string, session: Session | undefined): string {
  const name = dealName(id);
  if (session === undefined) return `There is no ${name}: it may have been wiped by a demo reset.`;
  const reset = DEMO_CONTROLS_SERVED ? ' A demo reset may also have wiped it.' : '';
  if (session.kind === 'seller')
    return `There is no ${name} among the deals of ${session.name}: no deal has that id, or it is another Seller’s.${reset}`;
  if (session.kind === 'closer')
    return `There is no ${name} on a gig of yours: a closer sees only the deals of its own gigs.${reset}`;
  return `There is no ${name}: no deal has that id.${reset}`;
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
  const session = useKeysSession();
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
    setMissing(false);
    setDeal(undefined);
    setRefusals([]);
    setSaid(undefined);
    setValue('');
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
    ...(deal?.activity ?? []).flatMap((e) => [...closerIdsIn(e.note), ...(e.closerId ? [e.closerId] : [])]),
    ...refusals.flatMap((r) => [...closerIdsIn(r.reason), ...(r.actor ? closerIdsIn(r.actor.principal) : [])]),
  ]);
  const names = useActorNames();

  // Dry-run every possible move of the deal as it is now (and the close at the value typed), for
  // a session that may propose them.
  const verdicts = useDryRuns(
    [deal, value, load, gigs, closer],
    deal && can('deals:propose')
      ? possibleMoves(deal).map((move) => ({
          label: move.label,
          dryRun: () => dryRunMove(deal, withValue(move, value), gigs, closer),
        }))
      : undefined,
    load,
  );

  if (missing) return <p role="alert">{missingWords(id, session)}</p>;
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
      (data: Deal | Escalation | Held) => doneWords(deal, data, gigs),
    );
  const note = (where: string) =>
    said?.where === where ? (
      <p role={said.refused ? 'alert' : 'status'} class={said.refused ? 'refused' : 'done'} title={said.raw}>
        {said.words}
      </p>
    ) : null;
  const open = deal.stage !== 'closed_won' && deal.stage !== 'closed_lost';
  const acts: Acts = { act, advance, note };

  return (
    <article class="deal">
      <h1>{deal.account.name}</h1>
      {unreachable ? (
        <p role="alert" class="unreachable">
          {unreachable}
        </p>
      ) : null}
      <DealFacts deal={deal} />
      {open && can('deals:write') ? <DealEdit key={deal.id} deal={deal} acts={acts} /> : null}
      {open ? null : (note('Close won') ?? note('Close lost'))}
      {stalledSince(deal) && open ? (
        <p class="next-step">
          This deal went dark: nobody has acted on it for {plural(deal.mandate.stallTimeoutDays, 'day')}. Next step: a
          human nurturer revives it from the Closer desk.
        </p>
      ) : null}
      {open ? <DealApproval dealId={deal.id} stage={deal.stage} names={names} /> : null}
      {open ? (
        <DealMoves key={deal.id} deal={deal} verdicts={verdicts} value={value} setValue={setValue} acts={acts} />
      ) : null}
      {deal.stage === 'closed_lost' && can('deals:write') ? (
        <Reengage
          deal={deal}
          closer={closer}
          note={note}
          refused={(words, raw) => setSaid({ where: 'reengage', words, refused: true, raw })}
        />
      ) : null}

      {settlement ? <SettlementFacts settlement={settlement} /> : null}
      {deal.stage === 'closed_won' ? <DealRefunds deal={deal} settlement={settlement} reload={load} /> : null}
      <MandateFacts mandate={deal.mandate} listValueUsd={deal.listValueUsd} />
      <DealGigs gigs={gigs} closer={closer} />
      <DealActivity activity={deal.activity} refusals={refusals} closer={closer} names={names} />
    </article>
  );
}
