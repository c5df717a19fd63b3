// The proposals page (D-61): how the executors behave at the gate. A scorecard per executor (the
// agent, people): the moves the gate committed against those it refused, and the refusal
// rate; the refusals by code; in keys mode one row per key the session may list (its own, a
// Seller's or a closer's; the operator every key), each from the summary of that key; a chart of
// the refusals over time, by hour or by day; and the newest refusals, each linking to its deal.
// The counts are the summary's (exact); the chart and the list are read from the newest refused
// proposals (at most READ_AT_MOST of them). Everything is read again on `proposal.refused`, and
// the counts on every committed move. "Download CSV" saves every refused proposal the filters
// choose, as the service writes them (D-74).
// The scorecard, the refusals by reason and the per-key table are drawn in proposal-scorecard.tsx,
// the chart in refusal-chart.tsx; this file reads, follows the live events, filters and lays out.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { keyOf, listsKeys, useActorNames } from './actor-names.ts';
import {
  type ApiKeyRecord,
  type Executor,
  listProposals,
  type ProposalSummary,
  proposalSummary,
  type RefusedProposal,
} from './api.ts';
import { closerIdsIn, useCloserNames } from './closer-names.ts';
import { csvName, downloadList } from './csv-download.ts';
import { RefusalEntry } from './deal-records.tsx';
import { DownloadCsv } from './download-button.tsx';
import { unreachableWords } from './error-words.ts';
import { type LiveEvent, useLive } from './live.ts';
import { acceptedOf, ByCode, PerKey, proposed, refusedOf, Scorecard } from './proposal-scorecard.tsx';
import { refusalCodeWords } from './proposal-words.ts';
import { Chart } from './refusal-chart.tsx';
import type { Session } from './session.ts';
import { plural } from './words.ts';

/** The newest refused proposals the chart and the list are drawn from. */
const READ_AT_MOST = 5000;
/** How many of the newest refusals the page lists. */
const LISTED = 25;
/** Events arriving together are answered by one read, this long after the last. */
const SETTLE_MS = 250;

type Summaries = ReadonlyMap<string, ProposalSummary>;
type Filter = { by?: Executor; code?: string; keyId?: string };

/** The summary, or an error thrown for the page to say. */
async function summaryOf(keyId?: string): Promise<ProposalSummary> {
  const answer = await proposalSummary(keyId);
  if (!answer.ok) throw new Error(`reading the summary: HTTP ${answer.status}`);
  return answer.data;
}

/** The summaries of many keys by id, a few at a time. */
async function keySummaries(keyIds: readonly string[]): Promise<Summaries> {
  const found = new Map<string, ProposalSummary>();
  for (let i = 0; i < keyIds.length; i += 6) {
    const batch = keyIds.slice(i, i + 6);
    const summaries = await Promise.all(batch.map((id) => summaryOf(id)));
    batch.forEach((id, j) => {
      found.set(id, summaries[j]);
    });
  }
  return found;
}

export function ProposalsPage({ session }: { session?: Session }) {
  const [summary, setSummary] = useState<ProposalSummary | undefined>();
  const [perKey, setPerKey] = useState<Summaries | undefined>();
  const [read, setRead] = useState<{ records: RefusedProposal[]; more: boolean } | undefined>();
  const [error, setError] = useState<{ words: string; raw: string } | undefined>();
  const [filter, setFilter] = useState<Filter>({});
  const [keysRead, setKeysRead] = useState(0);
  const names = useActorNames(keysRead);
  const closer = useCloserNames(
    (read?.records ?? []).flatMap((r) => [...closerIdsIn(r.reason), ...closerIdsIn(r.actor?.principal ?? '')]),
  );
  const retry = useRef<ReturnType<typeof setTimeout>>(undefined);
  const settle = useRef<ReturnType<typeof setTimeout>>(undefined);
  // In keys mode, the keys the session lists (undefined until they are read), or only its own
  // when it may not list them (a person who may not list them has none: D-62).
  const keys: readonly ApiKeyRecord[] | undefined = !session
    ? []
    : listsKeys(session)
      ? names.keys.length > 0
        ? names.keys
        : undefined
      : session.keyId
        ? [{ id: session.keyId, name: 'Your key', principal: session.principal } as ApiKeyRecord]
        : [];
  const keyIds = keys?.map((k) => k.id).join();

  const counts = useCallback(async () => {
    const [overall, byKey] = await Promise.all([
      summaryOf(),
      session && keyIds !== undefined ? keySummaries(keyIds ? keyIds.split(',') : []) : undefined,
    ]);
    setSummary(overall);
    setPerKey(byKey);
  }, [keyIds]);
  const load = useCallback(
    async (what: 'all' | 'counts' = 'all') => {
      clearTimeout(retry.current);
      try {
        await Promise.all([counts(), what === 'all' ? listProposals({}, READ_AT_MOST).then(setRead) : undefined]);
        setError(undefined);
      } catch (e) {
        setError({ words: unreachableWords(e), raw: String(e) });
        retry.current = setTimeout(() => load('all'), 2000);
      }
    },
    [counts],
  );
  useEffect(() => {
    load();
    return () => {
      clearTimeout(retry.current);
      clearTimeout(settle.current);
    };
  }, [load]);

  // A refusal (or a reset) changes everything shown; a committed move only the counts.
  const pending = useRef<'all' | 'counts' | undefined>(undefined);
  useLive(
    useCallback(
      (event: LiveEvent) => {
        let what: 'all' | 'counts' | undefined;
        if (event.type === 'proposal.refused' || event.type === 'demo.reset') what = 'all';
        else if (event.type.startsWith('deal.') || event.type.startsWith('gig.')) what = 'counts';
        if (!what) return;
        if (event.type === 'demo.reset') setKeysRead((n) => n + 1);
        pending.current = pending.current === 'all' || what === 'all' ? 'all' : 'counts';
        clearTimeout(settle.current);
        settle.current = setTimeout(() => {
          const next = pending.current ?? 'all';
          pending.current = undefined;
          load(next);
        }, SETTLE_MS);
      },
      [load],
    ),
  );

  const records = read?.records ?? [];
  const shown = records.filter(
    (r) =>
      (filter.by === undefined || r.by === filter.by) &&
      (filter.code === undefined || r.code === filter.code) &&
      (filter.keyId === undefined || keyOf(r.actor) === filter.keyId),
  );
  const filtered = filter.by !== undefined || filter.code !== undefined || filter.keyId !== undefined;
  const codes = [...new Set([...Object.keys(summary?.byCode ?? {}), ...records.map((r) => r.code)])].sort();
  const select = (name: keyof Filter, value: string) =>
    setFilter((f) => ({ ...f, [name]: value === '' ? undefined : value }));

  return (
    <>
      <h1>Proposals</h1>
      <p class="hint">
        The agent and people (closers, and the Seller's own) only propose moves; the gate commits or refuses each one.
        Every refused proposal is kept, with the gate’s reason.
      </p>
      {error ? (
        <p role="alert" class="unreachable" title={error.raw}>
          {error.words}
        </p>
      ) : null}
      {summary === undefined ? (
        error ? null : (
          <p>Reading the proposals…</p>
        )
      ) : (
        <>
          {proposed(summary) === 0 ? (
            <p class="empty">
              No proposal yet: neither the agent nor a person has proposed a move
              {session ? ' on a deal you can see' : ''}. When one does, the gate’s verdict is counted here, and a
              refusal is kept with its reason. <a href="#/">Go to the pipeline</a>
            </p>
          ) : refusedOf(summary) === 0 ? (
            <p class="empty">
              The gate has refused nothing: all {plural(acceptedOf(summary), 'proposed move')} were committed.
            </p>
          ) : null}
          <div class="proposal-panels">
            <Scorecard summary={summary} />
            <ByCode summary={summary} />
          </div>
          {/* A person who may not list keys has none to show (their moves are theirs, by name). */}
          {session && keys && keys.length > 0 && perKey ? (
            <PerKey
              rows={keys.flatMap((key) => {
                const found = perKey.get(key.id);
                return found ? [{ key, summary: found }] : [];
              })}
              records={records}
              principal={names.principal}
              chosen={filter.keyId}
              choose={(keyId) => setFilter((f) => ({ ...f, keyId }))}
            />
          ) : null}
          <form class="filters" aria-label="Chart and list filters" onSubmit={(e) => e.preventDefault()}>
            <label>
              Executor{' '}
              <select value={filter.by ?? ''} onChange={(e) => select('by', e.currentTarget.value)}>
                <option value="">any</option>
                <option value="agent">the agent</option>
                <option value="human">people</option>
              </select>
            </label>
            <label>
              Reason{' '}
              <select value={filter.code ?? ''} onChange={(e) => select('code', e.currentTarget.value)}>
                <option value="">any</option>
                {codes.map((code) => (
                  <option value={code} key={code}>
                    {refusalCodeWords(code)}
                  </option>
                ))}
              </select>
            </label>
            {session && (keys === undefined || keys.length > 0) ? (
              <label>
                Key{' '}
                <select value={filter.keyId ?? ''} onChange={(e) => select('keyId', e.currentTarget.value)}>
                  <option value="">any</option>
                  {(keys ?? []).map((key) => (
                    <option value={key.id} key={key.id}>
                      {key.name} ({key.id})
                    </option>
                  ))}
                </select>
              </label>
            ) : null}
          </form>
          <div class="list-actions">
            <DownloadCsv
              what="the refused proposals"
              save={() => downloadList('/pipeline/proposals', filter, csvName('refused-proposals'))}
            />
          </div>
          {read ? <Chart records={shown} more={read.more} readAtMost={READ_AT_MOST} filtered={filtered} /> : null}
          {read ? (
            <section aria-labelledby="newest-title" class="panel activity">
              <h2 id="newest-title">Newest refusals</h2>
              {shown.length === 0 ? (
                <p class="empty">
                  {filtered ? 'No refusal matches this choice.' : 'No refused proposal yet: nothing to list.'}
                </p>
              ) : (
                <>
                  {shown.length > LISTED ? (
                    <p class="hint">
                      The newest {LISTED} of {plural(shown.length, 'refusal')}
                      {read.more ? ' read' : ''}.
                    </p>
                  ) : null}
                  <ol aria-labelledby="newest-title">
                    {shown.slice(0, LISTED).map((record) => (
                      <RefusalEntry record={record} closer={closer} names={names} showDeal key={record.id} />
                    ))}
                  </ol>
                </>
              )}
            </section>
          ) : null}
        </>
      )}
    </>
  );
}
