// The scorecard of the proposals page (D-61), apart from the page that reads and lays it out: per
// executor (the agent, people: closers and the Seller's own) the moves the gate committed against those it refused and
// the refusal rate, drawn as a figure and a short bar; the refusals by code; and in keys mode the
// table of one row per key, with the span of its refusals and a button that charts that key alone.
import type { ApiKeyRecord, Executor, ProposalSummary, RefusedProposal } from './api.ts';
import { EXECUTOR_WORDS, refusalCodeWords, refusalRate } from './proposal-words.ts';
import { plural, when } from './words.ts';

const EXECUTORS: readonly Executor[] = ['agent', 'human'];

type KeyRow = { key: ApiKeyRecord; summary: ProposalSummary };

export const proposed = (s: ProposalSummary) => s.accepted.agent + s.accepted.human + s.refused.agent + s.refused.human;
export const refusedOf = (s: ProposalSummary) => s.refused.agent + s.refused.human;
export const acceptedOf = (s: ProposalSummary) => s.accepted.agent + s.accepted.human;

export function Scorecard({ summary }: { summary: ProposalSummary }) {
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

export function ByCode({ summary }: { summary: ProposalSummary }) {
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
    if (!r.actor || !('keyId' in r.actor) || r.actor.keyId !== keyId) continue;
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

export function PerKey({
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
