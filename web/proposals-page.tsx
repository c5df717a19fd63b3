// The proposals page (D-61): how the executors behave at the gate. A scorecard per executor (the
// agent, human closers): the moves the gate committed against those it refused, and the refusal
// rate; the refusals by code; in keys mode one row per key the session may list (its own, a
// Seller's or a closer's; the operator every key), each from the summary of that key; a chart of
// the refusals over time, by hour or by day; and the newest refusals, each linking to its deal.
// The counts are the summary's (exact); the chart and the list are read from the newest refused
// proposals (at most READ_AT_MOST of them). Everything is read again on `proposal.refused`, and
// the counts on every committed move.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import {
  type ApiKeyRecord,
  type Executor,
  listProposals,
  type ProposalSummary,
  proposalSummary,
  type RefusedProposal,
} from './api.ts';
import { RefusalEntry } from './deal-records.tsx';
import { type LiveEvent, useLive } from './live.ts';
import type { Session } from './session.ts';
import {
  closerIdsIn,
  EXECUTOR_WORDS,
  listsKeys,
  plural,
  refusalCodeWords,
  refusalRate,
  unreachableWords,
  useActorNames,
  useCloserNames,
  when,
} from './words.ts';

/** The newest refused proposals the chart and the list are drawn from. */
const READ_AT_MOST = 5000;
/** How many of the newest refusals the page lists. */
const LISTED = 25;
/** Up to this span (hours) the chart has a bar per hour; beyond it, a bar per day. */
const HOURLY_UP_TO_HOURS = 48;
/** The hourly chart shows this many hours at least. */
const HOURS_AT_LEAST = 24;
/** Events arriving together are answered by one read, this long after the last. */
const SETTLE_MS = 250;
const HOUR = 3_600_000;

const EXECUTORS: readonly Executor[] = ['agent', 'human'];

type KeyRow = { key: ApiKeyRecord; summary: ProposalSummary };
type Summaries = ReadonlyMap<string, ProposalSummary>;
type Filter = { by?: Executor; code?: string; keyId?: string };

const proposed = (s: ProposalSummary) => s.accepted.agent + s.accepted.human + s.refused.agent + s.refused.human;
const refusedOf = (s: ProposalSummary) => s.refused.agent + s.refused.human;
const acceptedOf = (s: ProposalSummary) => s.accepted.agent + s.accepted.human;

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

function Scorecard({ summary }: { summary: ProposalSummary }) {
  return (
    <section aria-labelledby="scorecard-title" class="panel">
      <h2 id="scorecard-title">Scorecard</h2>
      <div class="table-scroll">
        <table aria-labelledby="scorecard-title" class="scorecard">
          <thead>
            <tr>
              <th scope="col">Executor</th>
              <th scope="col">Committed</th>
              <th scope="col">Refused</th>
              <th scope="col">Refusal rate</th>
            </tr>
          </thead>
          <tbody>
            {EXECUTORS.map((by) => (
              <tr key={by} data-executor={by}>
                <th scope="row">{EXECUTOR_WORDS[by]}</th>
                <td data-figure="accepted">{summary.accepted[by].toLocaleString('en-US')}</td>
                <td data-figure="refused">{summary.refused[by].toLocaleString('en-US')}</td>
                <td data-figure="rate">
                  <Rate accepted={summary.accepted[by]} refused={summary.refused[by]} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** A refusal rate as a figure and a short bar (the figure says it; the bar only shows it). */
function Rate({ accepted, refused }: { accepted: number; refused: number }) {
  const all = accepted + refused;
  return (
    <span class="rate">
      <span class="rate-figure">{refusalRate(accepted, refused)}</span>
      {all > 0 ? (
        <span class="rate-track" aria-hidden="true">
          <span class="rate-fill" style={{ width: `${(100 * refused) / all}%` }} />
        </span>
      ) : null}
    </span>
  );
}

function ByCode({ summary }: { summary: ProposalSummary }) {
  const codes = Object.entries(summary.byCode)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return (
    <section aria-labelledby="by-code-title" class="panel">
      <h2 id="by-code-title">Refusals by reason</h2>
      {codes.length === 0 ? (
        <p class="empty">No refusals, so no reasons yet.</p>
      ) : (
        <div class="table-scroll">
          <table aria-labelledby="by-code-title">
            <thead>
              <tr>
                <th scope="col">Why the gate refused</th>
                <th scope="col">Code</th>
                <th scope="col">Refusals</th>
              </tr>
            </thead>
            <tbody>
              {codes.map(([code, n]) => (
                <tr key={code} data-code={code}>
                  <th scope="row">{refusalCodeWords(code)}</th>
                  <td>
                    <code>{code}</code>
                  </td>
                  <td>{n.toLocaleString('en-US')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** Since when and until when a key's refusals go, from the refusals read. */
function spanOf(records: readonly RefusedProposal[], keyId: string) {
  let first: string | undefined;
  let last: string | undefined;
  for (const r of records) {
    if (r.actor?.keyId !== keyId) continue;
    if (last === undefined || r.at > last) last = r.at;
    if (first === undefined || r.at < first) first = r.at;
  }
  return { first, last };
}

const COLUMNS = [
  'Key',
  'Belongs to',
  'Committed',
  'Refused',
  'Refusal rate',
  'Refused since',
  'Latest refusal',
] as const;

function PerKey({
  rows,
  records,
  principal,
  chosen,
  choose,
}: {
  rows: readonly KeyRow[];
  records: readonly RefusedProposal[];
  principal: (id: string) => string;
  chosen?: string;
  choose: (keyId: string | undefined) => void;
}) {
  const active = rows
    .filter((row) => proposed(row.summary) > 0)
    .sort((a, b) => refusedOf(b.summary) - refusedOf(a.summary) || (a.key.id < b.key.id ? -1 : 1));
  const idle = rows.filter((row) => proposed(row.summary) === 0);
  return (
    <section aria-labelledby="per-key-title" class="panel">
      <h2 id="per-key-title">By key</h2>
      {active.length === 0 ? (
        <p class="empty">
          None of {rows.length === 1 ? 'your key' : `the ${plural(rows.length, 'key')}`} has proposed a move yet. An
          agent proposes with a key that carries deals:propose; a closer with its gigs:work key.
        </p>
      ) : (
        <div class="table-scroll">
          {/* A narrow screen scrolls the table, the key's name staying in view. */}
          <table aria-labelledby="per-key-title" class="per-key">
            <thead>
              <tr>
                {COLUMNS.map((column) => (
                  <th scope="col" key={column}>
                    {column}
                  </th>
                ))}
                <th scope="col">
                  <span class="visually-hidden">Chart</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {active.map(({ key, summary }) => {
                const { first, last } = spanOf(records, key.id);
                const refused = refusedOf(summary);
                return (
                  <tr
                    key={key.id}
                    aria-label={`${key.name} (${key.id})`}
                    data-key={key.id}
                    class={refused > 0 ? 'has-refusals' : undefined}
                  >
                    <th scope="row">
                      {key.name} <span class="muted">({key.id})</span>
                      {key.revokedAt ? <span class="badge">revoked</span> : null}
                    </th>
                    <td title={key.principal}>{principal(key.principal)}</td>
                    <td data-figure="accepted">{acceptedOf(summary).toLocaleString('en-US')}</td>
                    <td data-figure="refused">{refused.toLocaleString('en-US')}</td>
                    <td data-figure="rate">
                      <Rate accepted={acceptedOf(summary)} refused={refused} />
                    </td>
                    <td>{first ? <time dateTime={first}>{when(first)}</time> : '—'}</td>
                    <td>{last ? <time dateTime={last}>{when(last)}</time> : '—'}</td>
                    <td>
                      {refused > 0 ? (
                        <button
                          type="button"
                          class="secondary"
                          aria-pressed={chosen === key.id}
                          onClick={() => choose(chosen === key.id ? undefined : key.id)}
                        >
                          {chosen === key.id ? 'Chart every key' : `Chart ${key.name}`}
                        </button>
                      ) : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {idle.length > 0 && active.length > 0 ? (
        <p class="hint">
          No proposals yet with {idle.length === 1 ? 'the key' : 'the keys'}{' '}
          {idle.map((row) => `${row.key.name} (${row.key.id})`).join(', ')}.
        </p>
      ) : null}
    </section>
  );
}

type Bucket = { start: number; agent: number; human: number };

/** The start of the hour or of the (local) day of a time. */
function bucketStart(at: number, hourly: boolean): number {
  const d = new Date(at);
  if (hourly) d.setMinutes(0, 0, 0);
  else d.setHours(0, 0, 0, 0);
  return d.getTime();
}

function nextBucket(start: number, hourly: boolean): number {
  const d = new Date(start);
  if (hourly) d.setHours(d.getHours() + 1);
  else d.setDate(d.getDate() + 1);
  return d.getTime();
}

/**
 * The refusals by hour (when they span HOURLY_UP_TO_HOURS or less) or by day, in the person's
 * time zone, from the oldest refusal's hour or day (HOURS_AT_LEAST hours back at least) to now
 * (or to the newest refusal, when the platform's clock is ahead: the demo's can be moved), every
 * bucket shown, empty ones too.
 */
export function bucketsOf(
  records: readonly RefusedProposal[],
  now = Date.now(),
): { hourly: boolean; buckets: Bucket[] } {
  if (records.length === 0) return { hourly: true, buckets: [] };
  const times = records.map((r) => Date.parse(r.at));
  const oldest = Math.min(...times);
  const newest = Math.max(now, ...times);
  const hourly = newest - oldest <= HOURLY_UP_TO_HOURS * HOUR;
  const buckets: Bucket[] = [];
  const index = new Map<number, Bucket>();
  // By the hour, a day at least: a refusal stands against the quiet hours before it.
  const from = bucketStart(hourly ? Math.min(oldest, newest - (HOURS_AT_LEAST - 1) * HOUR) : oldest, hourly);
  for (let start = from; start <= newest; start = nextBucket(start, hourly)) {
    const bucket = { start, agent: 0, human: 0 };
    buckets.push(bucket);
    index.set(start, bucket);
  }
  records.forEach((r, i) => {
    const bucket = index.get(bucketStart(times[i], hourly));
    if (bucket) bucket[r.by] += 1;
  });
  return { hourly, buckets };
}

const hourFormat = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: 'numeric' });
const dayFormat = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', year: 'numeric' });

function Chart({ records, more, filtered }: { records: readonly RefusedProposal[]; more: boolean; filtered: boolean }) {
  const { hourly, buckets } = bucketsOf(records);
  const label = (start: number) => (hourly ? hourFormat : dayFormat).format(start);
  const highest = Math.max(1, ...buckets.map((b) => b.agent + b.human));
  const per = hourly ? 'hour' : 'day';
  return (
    <section aria-labelledby="chart-title" class="panel">
      <h2 id="chart-title">Refusals over time</h2>
      {buckets.length === 0 ? (
        <p class="empty">
          {filtered
            ? 'No refusal matches this choice, so there is nothing to chart.'
            : 'No refusals to chart: when the gate refuses a proposal, it shows here by the hour it happened.'}
        </p>
      ) : (
        <figure class="refusal-chart">
          <figcaption id="chart-caption">
            Refused proposals per {per},{' '}
            {buckets.length === 1
              ? label(buckets[0].start)
              : `from ${label(buckets[0].start)} to ${label(buckets.at(-1)?.start ?? 0)}`}
            {more ? ` (the newest ${READ_AT_MOST.toLocaleString('en-US')} refusals)` : ''}. The highest bar is{' '}
            {plural(highest, 'refusal')}.
          </figcaption>
          <p class="legend" aria-hidden="true">
            <span class="swatch agent" /> {EXECUTOR_WORDS.agent} <span class="swatch human" /> {EXECUTOR_WORDS.human}
          </p>
          <ol class="bars" aria-labelledby="chart-caption">
            {buckets.map((b) => {
              const n = b.agent + b.human;
              const words = `${label(b.start)}: ${plural(n, 'refusal')}${
                n > 0 ? ` (${b.agent} by the agent, ${b.human} by human closers)` : ''
              }`;
              return (
                <li key={b.start} aria-label={words} title={words} data-refusals={n}>
                  <span class="stack" style={{ height: `${(100 * n) / highest}%` }}>
                    {b.human > 0 ? <span class="part human" style={{ flexGrow: b.human }} /> : null}
                    {b.agent > 0 ? <span class="part agent" style={{ flexGrow: b.agent }} /> : null}
                  </span>
                </li>
              );
            })}
          </ol>
          <p class="axis" aria-hidden="true">
            <span>{label(buckets[0].start)}</span>
            {buckets.length > 1 ? <span>{label(buckets.at(-1)?.start ?? 0)}</span> : null}
          </p>
        </figure>
      )}
    </section>
  );
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
  // when it may not list them.
  const keys: readonly ApiKeyRecord[] | undefined = !session
    ? []
    : listsKeys(session)
      ? names.keys.length > 0
        ? names.keys
        : undefined
      : [{ id: session.keyId, name: 'Your key', principal: session.principal } as ApiKeyRecord];
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
      (filter.keyId === undefined || r.actor?.keyId === filter.keyId),
  );
  const filtered = filter.by !== undefined || filter.code !== undefined || filter.keyId !== undefined;
  const codes = [...new Set([...Object.keys(summary?.byCode ?? {}), ...records.map((r) => r.code)])].sort();
  const select = (name: keyof Filter, value: string) =>
    setFilter((f) => ({ ...f, [name]: value === '' ? undefined : value }));

  return (
    <>
      <h1>Proposals</h1>
      <p class="hint">
        The agent and human closers only propose moves; the gate commits or refuses each one. Every refused proposal is
        kept, with the gate’s reason.
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
              No proposal yet: neither the agent nor a human closer has proposed a move
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
          {session && keys && perKey ? (
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
                <option value="human">human closers</option>
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
            {session ? (
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
          {read ? <Chart records={shown} more={read.more} filtered={filtered} /> : null}
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
