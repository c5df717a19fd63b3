// The Approvals page (#/approvals, D-69, D-70), keys mode only, for a session that may read
// approvals (deals:read, approvals:decide or admin): the proposals keys' policies held, pending
// first (a deal waits on at most one), or the decided ones by how they ended. Each is a card
// (approval-card.tsx); a session that may decide approves or denies it there, and the page says
// what came of it: the deal moved, "1 of 2 approvals", or the refusal in words. The page follows
// the event stream: an approval requested or ended anywhere, or a move of a listed deal, reads the
// list again without a reload. "Download CSV" saves the approvals shown (every decided one for
// "Decided"), as the service writes them (D-74).
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { useActorNames } from './actor-names.ts';
import { type Approval, api, type Outcome } from './api.ts';
import { ApprovalCard, type DealInfo, type Said } from './approval-card.tsx';
import { decisionRefusalWords, decisionWords, STATUS_WORDS } from './approval-words.ts';
import { type ApprovalStatus, approvals, DECIDED_SHOWN, decidesApprovals } from './approvals-api.ts';
import { csvName, downloadList } from './csv-download.ts';
import { DownloadCsv } from './download-button.tsx';
import { unreachableWords } from './error-words.ts';
import { dealOf, type LiveEvent, useLive } from './live.ts';
import { useNotice } from './notice.ts';
import { dealName } from './words.ts';

/** What the list shows: the pending ones, every decided one, or the decided ones of one status. */
type View = 'pending' | 'decided' | Exclude<ApprovalStatus, 'pending'>;

const VIEWS: { value: View; label: string }[] = [
  { value: 'pending', label: 'Waiting for a decision' },
  { value: 'decided', label: `Decided (the newest ${DECIDED_SHOWN})` },
  ...(['approved', 'denied', 'expired', 'superseded', 'refused'] as const).map((status) => ({
    value: status,
    label: STATUS_WORDS[status],
  })),
];

/** The deals' names and stages by id, read a few at a time (a deal page's GET), and kept. */
async function readDeals(ids: readonly string[]): Promise<Map<string, DealInfo>> {
  const found = new Map<string, DealInfo>();
  for (let i = 0; i < ids.length; i += 6) {
    await Promise.all(
      ids.slice(i, i + 6).map(async (id) => {
        const answer = await api.GET('/pipeline/deals/{id}', { params: { path: { id } } });
        if (answer.data) found.set(id, { name: answer.data.account.name, stage: answer.data.stage });
      }),
    );
  }
  return found;
}

export function ApprovalsPage() {
  const [view, setView] = useState<View>('pending');
  const [list, setList] = useState<Approval[] | undefined>();
  const [more, setMore] = useState(false);
  const [deals, setDeals] = useState<ReadonlyMap<string, DealInfo>>(new Map());
  const [unreachable, setUnreachable] = useState('');
  const [said, setSaid] = useNotice<Said>();
  const names = useActorNames();
  const decides = decidesApprovals();
  const known = useRef(new Map<string, DealInfo>());
  const debounce = useRef<ReturnType<typeof setTimeout>>(undefined);

  /** Reads the deals named (all of them, or only those not read yet) and shows what is known. */
  const learnDeals = useCallback(async (ids: readonly string[]) => {
    if (ids.length === 0) return;
    for (const [id, info] of await readDeals([...new Set(ids)])) known.current.set(id, info);
    setDeals(new Map(known.current));
  }, []);

  // Reads overlap (a decision's, a burst of events', a change of the filter): only the newest shows.
  const latest = useRef(0);
  const load = useCallback(async () => {
    const mine = ++latest.current;
    try {
      if (view === 'pending') {
        const pending = await approvals.pending();
        if (mine !== latest.current) return;
        setList(pending);
        setMore(false);
      } else {
        const decided = await approvals.decided(view === 'decided' ? undefined : view);
        if (mine !== latest.current) return;
        setList(decided.records);
        setMore(decided.more);
      }
      setUnreachable('');
    } catch (error) {
      setUnreachable(unreachableWords(error).replace(' Retrying…', ' The page reads it again on the next change.'));
    }
  }, [view]);
  useEffect(() => {
    setList(undefined);
    load();
  }, [load]);
  useEffect(() => {
    const unknown = (list ?? []).map((a) => a.dealId).filter((id) => !known.current.has(id));
    learnDeals(unknown);
  }, [list, learnDeals]);

  // An approval requested or ended (here or anywhere), or a listed deal that moved: read again,
  // once a burst of events is over.
  useLive(
    useCallback(
      (event: LiveEvent) => {
        const deal = dealOf(event);
        const listed = deal !== undefined && (list ?? []).some((a) => a.dealId === deal);
        if (!event.type.startsWith('approval.') && !listed && event.type !== 'demo.reset') return;
        clearTimeout(debounce.current);
        debounce.current = setTimeout(() => {
          load();
          if (listed && deal) learnDeals([deal]);
        }, 100);
      },
      [list, load, learnDeals],
    ),
  );
  useEffect(() => () => clearTimeout(debounce.current), []);

  /** What a decision answered, on its card; the list (and the deal) read again. */
  const decided = async (approval: Approval, outcome: Outcome<unknown>, words: (data: never) => string) => {
    const about = known.current.get(approval.dealId)?.name ?? dealName(approval.dealId);
    setSaid(
      outcome.ok
        ? { id: approval.id, about, text: words(outcome.data as never), refused: false }
        : {
            id: approval.id,
            about,
            text: decisionRefusalWords(outcome.error),
            refused: true,
            raw: outcome.error.error,
          },
    );
    await Promise.all([load(), learnDeals([approval.dealId])]);
  };

  const shown = list ?? [];
  // A decision that took its approval off the list (approved, denied) is said atop the page.
  const away = said && !shown.some((a) => a.id === said.id) ? said : undefined;
  return (
    <section class="approvals" aria-label="Approvals">
      <h1>Approvals</h1>
      <p class="hint">
        Proposals a key’s policy held: nothing moved, and each waits for the people (or keys) that may approve it. The
        last approval required runs the proposal again through the gate, against the deal as it is then; a denial’s
        reason is what the key’s agent reads.
      </p>
      <form class="approvals-filter" aria-label="Which approvals" onSubmit={(e) => e.preventDefault()}>
        <label>
          Show{' '}
          <select value={view} onChange={(e) => setView(e.currentTarget.value as View)}>
            {VIEWS.map((v) => (
              <option value={v.value} key={v.value}>
                {v.label}
              </option>
            ))}
          </select>
        </label>
      </form>
      <div class="list-actions">
        <DownloadCsv
          what="the approvals"
          save={() =>
            downloadList('/approvals', { status: view === 'decided' ? undefined : view }, csvName('approvals'))
          }
        />
        {view === 'decided' ? <p class="hint">The CSV holds every approval, the pending ones too.</p> : null}
      </div>
      {away ? (
        <p role={away.refused ? 'alert' : 'status'} class={away.refused ? 'refused' : 'done'} title={away.raw}>
          {away.about}: {away.text}
        </p>
      ) : null}
      {unreachable ? (
        <p role="alert" class="unreachable">
          {unreachable}
        </p>
      ) : null}
      {list === undefined ? (
        <p>Reading the approvals…</p>
      ) : shown.length === 0 ? (
        <p class="empty">
          {view === 'pending' ? 'No proposal waits for approval.' : 'No approval ended that way yet.'}
        </p>
      ) : (
        <div class="approval-list">
          {shown.map((approval) => (
            <ApprovalCard
              key={approval.id}
              approval={approval}
              deal={deals.get(approval.dealId)}
              names={names}
              decides={decides}
              said={said?.id === approval.id ? said : undefined}
              approve={async (note) =>
                decided(approval, await approvals.approve(approval.id, note || undefined), decisionWords)
              }
              deny={async (reason) =>
                decided(approval, await approvals.deny(approval.id, reason), () => `Denied: “${reason}”.`)
              }
            />
          ))}
        </div>
      )}
      {more ? <p class="hint">Older ones are not shown: the list holds the newest {DECIDED_SHOWN}.</p> : null}
      {list !== undefined && shown.length > 0 && !decides ? (
        <p class="hint">Deciding them takes a role or a key that may approve (approvals:decide).</p>
      ) : null}
    </section>
  );
}
