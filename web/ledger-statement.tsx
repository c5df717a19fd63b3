// A monthly statement (D-82, D-280), a closer's on its desk or a Seller's on its Statement page:
// a month picker (the platform clock's month unless another is chosen; none later), the month's
// figures (opening, each movement, closing) with the sum they make said in a sentence, its lines
// in a table (when, what, the deal, the signed effect on the balance), and a "Download CSV" of the
// lines as the service writes them. The lines add up too: opening + every line = closing.
import { useEffect, useRef, useState } from 'preact/hooks';
import { type Outcome, usd } from './api.ts';
import { downloadList } from './csv-download.ts';
import { DownloadCsv } from './download-button.tsx';
import { errorWords, unreachableWords } from './error-words.ts';
import type { StatementLine } from './ledger-api.ts';
import { kindWords, monthWords, type Side } from './ledger-words.ts';
import { dealName, gigName, when } from './words.ts';

/** One figure of a statement: the opening and the closing have no sign, each movement its own. */
export interface Figure {
  label: string;
  usd: number;
  /** How it counts toward the closing: added, or taken away. */
  sign?: '+' | '−';
}

/** A statement as both kinds answer it: the month, its lines, opening and closing. */
interface Statement {
  month: string;
  openingUsd: number;
  closingUsd: number;
  lines: StatementLine[];
}

/** A line's effect, signed: `+$500.00`, `-$500.00`. */
export const signedUsd = (amount: number): string => (amount > 0 ? `+${usd(amount)}` : usd(amount));

/** The sum the figures make, as a sentence: `$0.00 + earned $500.00 − paid out $500.00 = $0.00`. */
export function sumWords(figures: readonly Figure[]): string {
  const [opening, ...rest] = figures;
  const closing = rest.pop();
  if (!opening || !closing) return '';
  const moves = rest.map((f) => ` ${f.sign ?? '+'} ${f.label.toLowerCase()} ${usd(f.usd)}`).join('');
  return `${opening.label} ${usd(opening.usd)}${moves} = ${closing.label.toLowerCase()} ${usd(closing.usd)}.`;
}

export function MonthPicker({
  month,
  latest,
  onChange,
}: {
  month: string;
  latest: string;
  onChange: (month: string) => void;
}) {
  return (
    <label>
      Month{' '}
      <input
        type="month"
        value={month}
        max={latest}
        required
        // An emptied picker keeps the month shown: a statement is always of one month.
        onChange={(e) => e.currentTarget.value && onChange(e.currentTarget.value)}
      />
    </label>
  );
}

function Lines({ lines, month, side, idBase }: { lines: StatementLine[]; month: string; side: Side; idBase: string }) {
  return (
    <div class="table-scroll figure-table">
      <table id={`${idBase}-lines`}>
        <caption>Statement lines, {monthWords(month)}</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">What</th>
            <th scope="col">Deal</th>
            <th scope="col" class="figure">
              Amount
            </th>
          </tr>
        </thead>
        <tbody>
          {lines.map(({ transfer, effectUsd }) => (
            <tr key={transfer.id} title={`${transfer.id}: ${transfer.debit} → ${transfer.credit}`}>
              <th scope="row">
                <time dateTime={transfer.at}>{when(transfer.at)}</time>
              </th>
              <td>
                {kindWords(transfer, side)}
                {transfer.gigId ? ` (${gigName(transfer.gigId)})` : ''}
              </td>
              <td>
                {transfer.dealId ? (
                  <a href={`#/deals/${encodeURIComponent(transfer.dealId)}`}>{dealName(transfer.dealId)}</a>
                ) : (
                  '—'
                )}
              </td>
              <td class="figure">{signedUsd(effectUsd)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * A statement's section. `latest`: the platform clock's month (undefined while it is read), the
 * month shown until another is chosen. `again` changes when the page learns the ledger moved.
 */
export function StatementSection<S extends Statement>({
  idBase,
  latest,
  again,
  read,
  figures,
  side,
  about,
  empty,
  csv,
}: {
  idBase: string;
  latest: string | undefined;
  again: number;
  read: (month: string) => Promise<Outcome<S>>;
  figures: (statement: S) => Figure[];
  side: Side;
  about: string;
  /** What a month without a line says. */
  empty: (month: string) => string;
  /** The statement's path in the contract's form, and the file's name, for its CSV. */
  csv: { path: string; name: (month: string) => string };
}) {
  const [month, setMonth] = useState('');
  const [statement, setStatement] = useState<S | undefined>();
  const [error, setError] = useState<string | undefined>();
  // The platform's month followed until the person picks another one.
  const picked = useRef(false);
  useEffect(() => {
    if (latest && !picked.current) setMonth(latest);
  }, [latest]);
  // Reads overlap (a month picked while an event's read is out): only the newest shows.
  const newest = useRef(0);
  useEffect(() => {
    if (!month) return;
    const mine = ++newest.current;
    read(month).then(
      (answer) => {
        if (mine !== newest.current) return;
        if (answer.ok) {
          setStatement(answer.data);
          setError(undefined);
        } else setError(errorWords(answer.error));
      },
      (e) => mine === newest.current && setError(unreachableWords(e).replace(' Retrying…', '')),
    );
  }, [month, again]);

  const shown = statement && statement.month === month ? statement : undefined;
  const all = shown ? figures(shown) : [];
  return (
    <section aria-labelledby={`${idBase}-title`} class="statement">
      <h2 id={`${idBase}-title`}>Monthly statement</h2>
      <p class="hint">{about}</p>
      {latest === undefined ? null : (
        <form class="filters" aria-label="Statement month" onSubmit={(e) => e.preventDefault()}>
          <MonthPicker
            month={month}
            latest={latest}
            onChange={(m) => {
              picked.current = m !== latest;
              setMonth(m);
            }}
          />
        </form>
      )}
      {error ? <p role="alert">{error}</p> : null}
      {shown === undefined ? (
        error ? null : (
          <p>Reading the statement…</p>
        )
      ) : (
        <>
          <dl class="facts statement-figures" aria-label={`Figures of ${monthWords(month)}`}>
            {all.map((figure) => (
              <div key={figure.label}>
                <dt>{figure.label}</dt>
                <dd>{usd(figure.usd)}</dd>
              </div>
            ))}
          </dl>
          <p class="sum">{sumWords(all)}</p>
          {shown.lines.length === 0 ? (
            <p class="empty">{empty(month)}</p>
          ) : (
            <>
              <Lines lines={shown.lines} month={month} side={side} idBase={idBase} />
              <DownloadCsv
                what={`the statement of ${monthWords(month)}`}
                save={() => downloadList(csv.path, { month }, csv.name(month))}
              />
            </>
          )}
        </>
      )}
    </section>
  );
}
