// The closer desk: the acting closer (chosen, or enrolled here), the open gigs with their brief
// and pricing and a `Claim` button (D-43), the acting closer's claimed gigs with the moves the
// gate allows (dry-run, D-48; sent with If-Match, D-47), its Register and payouts (Download CSV,
// D-74), and its balances, payouts made and monthly statement (closer-ledger.tsx, D-80, D-82).
import { useCallback, useEffect, useState } from 'preact/hooks';
import { nextStage, type Stage } from '../src/domain/stages.ts';
import {
  type ApiError,
  allClosers,
  allGigs,
  api,
  type Closer,
  type Deal,
  enrolCloser,
  type Gig,
  ifMatch,
  usd,
} from './api.ts';
import { CloserLedger } from './closer-ledger.tsx';
import { csvName, downloadList } from './csv-download.ts';
import { DownloadCsv } from './download-button.tsx';
import { useDryRuns, verdictOf } from './dry-runs.ts';
import { errorWords } from './error-words.ts';
import { type LiveEvent, useLive } from './live.ts';
import { useNotice } from './notice.ts';
import { dealName, gigName, gigTitle, percent, plural, signalWords, stageLabel } from './words.ts';

type Move = { label: string; body: { advanceTo: Stage; valueUsd?: number } };

/**
 * A gig's brief. `stage`: the deal's stage now, which a claimed gig shows (D-263: its brief keeps
 * the stage the gig was posted at, and the deal moves on as the closer works it).
 */
function Brief({ gig, stage = gig.brief.stage }: { gig: Gig; stage?: Stage }) {
  const { brief, pricing } = gig;
  return (
    <p class="brief">
      <strong>{brief.account.name}</strong> ({gig.role} role) · list {usd(brief.listValueUsd)} · at {stageLabel(stage)}{' '}
      · floor {usd(brief.floorUsd)} · pays{' '}
      {pricing.kind === 'commission' ? `${percent(pricing.pct)} commission` : `a ${usd(pricing.amountUsd)} fee`}
      {brief.signals.length > 0 ? ` · signals: ${brief.signals.map(signalWords).join(', ')}` : ''}
    </p>
  );
}

function ClaimedGig({ gig, closerId, changed }: { gig: Gig; closerId: string; changed: () => void }) {
  const [deal, setDeal] = useState<Deal | undefined>();
  const [value, setValue] = useState('');
  const [said, setSaid] = useNotice<{ words: string; refused: boolean }>();

  useEffect(() => {
    api.GET('/pipeline/deals/{id}', { params: { path: { id: gig.dealId } } }).then((a) => {
      setDeal(a.data);
      if (a.data) setValue((v) => v || String(a.data.listValueUsd));
    });
  }, [gig]);

  const moves: Move[] = [];
  if (deal && gig.role !== 'nurturer') {
    const next = nextStage(deal.stage);
    if (next === 'closed_won')
      moves.push({ label: 'Close won', body: { advanceTo: 'closed_won', valueUsd: Number(value) } });
    else if (next) moves.push({ label: `Advance to ${stageLabel(next)}`, body: { advanceTo: next } });
  }
  if (deal) moves.push({ label: 'Close lost', body: { advanceTo: 'closed_lost' } });

  const verdicts = useDryRuns(
    [deal, value],
    deal &&
      moves.map((move) => ({
        label: move.label,
        dryRun: async () =>
          verdictOf(
            await api.POST('/closers/gigs/{id}/advance', {
              params: { path: { id: gig.id }, query: { dryRun: true }, header: ifMatch(deal) },
              body: { ...move.body, closerId },
            }),
          ),
      })),
  );

  /** `done`: what happened, in words (D-228), when the service took the move. */
  const answered = (answer: { data?: unknown; error?: unknown }, done: string) => {
    if (answer.data) setSaid({ words: done, refused: false });
    else {
      const error = answer.error as ApiError;
      setSaid({
        words:
          error.code === 'PRECONDITION_FAILED'
            ? 'The deal changed since this desk read it; nothing was done. Read it again and decide again.'
            : errorWords(error),
        refused: true,
      });
    }
    changed();
  };
  if (!deal) return <li>Loading {gigName(gig.id)}…</li>;
  return (
    <li class="gig" aria-label={gigTitle(gig)}>
      <Brief gig={gig} stage={deal.stage} />
      <p>
        Its deal, <a href={`#/deals/${deal.id}`}>{dealName(deal.id)}</a>, is at{' '}
        <strong>{stageLabel(deal.stage)}</strong>.
      </p>
      {moves.map((move) => {
        const verdict = verdicts[move.label];
        return (
          <div class="move" key={move.label}>
            {move.body.advanceTo === 'closed_won' ? (
              <label>
                Close value (USD){' '}
                <input type="number" step="0.01" value={value} onInput={(e) => setValue(e.currentTarget.value)} />
              </label>
            ) : null}
            <button
              type="button"
              disabled={verdict !== undefined && !verdict.ok}
              onClick={async () =>
                answered(
                  await api.POST('/closers/gigs/{id}/advance', {
                    params: { path: { id: gig.id }, header: ifMatch(deal) },
                    body: { ...move.body, closerId },
                  }),
                  move.body.advanceTo === 'closed_won'
                    ? `Closed won at ${usd(Number(value))}.`
                    : `Moved to ${stageLabel(move.body.advanceTo)}.`,
                )
              }
            >
              {move.label}
            </button>
            {verdict && !verdict.ok ? <span class="reason">{verdict.reason}</span> : null}
          </div>
        );
      })}
      <div class="move">
        {gig.role === 'nurturer' ? (
          <button
            type="button"
            onClick={async () =>
              answered(
                await api.POST('/closers/gigs/{id}/revive', {
                  params: { path: { id: gig.id }, header: ifMatch(deal) },
                  body: { closerId },
                }),
                `Revived ${deal.account.name}.`,
              )
            }
          >
            Revive
          </button>
        ) : null}
        <button
          type="button"
          onClick={async () =>
            answered(
              await api.POST('/closers/gigs/{id}/release', {
                params: { path: { id: gig.id }, header: ifMatch(deal) },
                body: { closerId },
              }),
              `Released ${gigName(gig.id)}.`,
            )
          }
        >
          Release
        </button>
      </div>
      {said ? <p role={said.refused ? 'alert' : 'status'}>{said.words}</p> : null}
    </li>
  );
}

/**
 * `closer`: keys mode's signed-in closer (D-59, D-235), who acts as itself: no closer to choose
 * and none to enrol (the operator enrols). Without it, the demo's desk, acting as any closer.
 */
export function Desk({ closer }: { closer?: { id: string; name: string } } = {}) {
  const [closers, setClosers] = useState<Closer[]>([]);
  const [acting, setActing] = useState(closer?.id ?? localStorage.getItem('acting-closer') ?? '');
  const [open, setOpen] = useState<Gig[]>([]);
  const [mine, setMine] = useState<Gig[]>([]);
  const [said, setSaid] = useNotice<string>();
  const [name, setName] = useState('');
  const [industries, setIndustries] = useState('');

  const load = useCallback(async () => {
    const [all, openGigs] = await Promise.all([allClosers(), allGigs({ status: 'open' })]);
    setClosers(all);
    setOpen(openGigs);
    const me = closer ? closer.id : acting && all.some((c) => c.id === acting) ? acting : (all[0]?.id ?? '');
    if (me !== acting) setActing(me);
    setMine(me ? await allGigs({ closerId: me, status: 'claimed' }) : []);
  }, [acting]);
  useEffect(() => {
    load();
  }, [load]);
  useLive(
    useCallback(
      (event: LiveEvent) => {
        if (event.type.startsWith('gig.') || event.type.startsWith('payout.') || event.type === 'demo.reset') load();
        else if (event.type === 'closer.enrolled' || event.type.startsWith('deal.')) load();
      },
      [load],
    ),
  );
  const choose = (id: string) => {
    localStorage.setItem('acting-closer', id);
    setActing(id);
  };
  const me = closers.find((c) => c.id === acting);

  return (
    <>
      <h1>Closer desk</h1>
      {closer ? (
        <section aria-label="Who is acting" class="acting">
          <p>
            Acting as <strong>{closer.name}</strong>.
          </p>
          <p role="status">{said}</p>
        </section>
      ) : (
        <section aria-label="Who is acting" class="acting">
          <label>
            Acting closer{' '}
            <select value={acting} onChange={(e) => choose(e.currentTarget.value)}>
              {closers.map((c) => (
                <option value={c.id} key={c.id}>
                  {c.name}
                </option>
              ))}
            </select>
          </label>
          <form
            onSubmit={async (e) => {
              e.preventDefault();
              const answer = await enrolCloser(name, industries);
              if (answer.data) {
                // Listed at once, so that the acting closer's select shows the new closer while
                // the desk reloads (it showed none until the list came back).
                const enrolled = answer.data;
                setClosers((all) => (all.some((c) => c.id === enrolled.id) ? all : [...all, enrolled]));
                choose(enrolled.id);
                setName('');
                setSaid(`Enrolled ${answer.data.name}.`);
              } else setSaid(errorWords(answer.error as ApiError));
            }}
          >
            <label>
              Name <input required value={name} onInput={(e) => setName(e.currentTarget.value)} />
            </label>
            <label>
              Industries{' '}
              <input
                value={industries}
                onInput={(e) => setIndustries(e.currentTarget.value)}
                placeholder="saas, fintech"
              />
            </label>
            <button type="submit">Enrol</button>
          </form>
          <p role="status">{said}</p>
        </section>
      )}

      <section aria-label="Open gigs" class="gigs">
        <h2>Open gigs</h2>
        {open.length === 0 ? <p>No open gig.</p> : null}
        <ul>
          {open.map((gig) => (
            <li class="gig" key={gig.id}>
              <Brief gig={gig} />
              <button
                type="button"
                disabled={!acting}
                aria-label={`Claim ${gigTitle(gig)}`}
                onClick={async () => {
                  const answer = await api.POST('/closers/gigs/{id}/claim', {
                    params: { path: { id: gig.id } },
                    body: { closerId: acting },
                  });
                  setSaid(answer.data ? `Claimed ${gigName(gig.id)}.` : errorWords(answer.error as ApiError));
                  load();
                }}
              >
                Claim
              </button>
            </li>
          ))}
        </ul>
      </section>

      <section aria-label="My gigs" class="gigs">
        <h2>My claimed gigs</h2>
        {mine.length === 0 ? <p>None claimed.</p> : null}
        <ul>
          {mine.map((gig) => (
            <ClaimedGig gig={gig} closerId={acting} changed={load} key={gig.id} />
          ))}
        </ul>
      </section>

      {me ? (
        <section aria-label="Register and payouts" class="register">
          <h2>Register</h2>
          <p>
            {plural(me.record.gigs, 'gig')}, {plural(me.record.wins, 'win')}, {usd(me.record.grossClosedUsd)} closed.
          </p>
          <h2 id="payouts-title">Payouts</h2>
          {(me.payouts ?? []).length === 0 ? (
            <p>No payouts yet: a won or revived gig pays.</p>
          ) : (
            <DownloadCsv
              what="the payouts"
              save={() =>
                downloadList(`/closers/closers/${encodeURIComponent(me.id)}`, {}, csvName(`payouts-${me.id}`))
              }
            />
          )}
          <table aria-labelledby="payouts-title" hidden={(me.payouts ?? []).length === 0}>
            <thead>
              <tr>
                <th>When</th>
                <th>Gig</th>
                <th>Deal</th>
                <th>Kind</th>
                <th>Amount</th>
              </tr>
            </thead>
            <tbody>
              {(me.payouts ?? []).map((p) => (
                <tr key={p.gigId}>
                  <td>{new Date(p.at).toLocaleString()}</td>
                  <td>{gigName(p.gigId)}</td>
                  <td>
                    <a href={`#/deals/${p.dealId}`}>{dealName(p.dealId)}</a>
                  </td>
                  <td>{p.kind}</td>
                  <td>{usd(p.amountUsd)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : null}
      {me ? <CloserLedger closerId={me.id} key={me.id} /> : null}
    </>
  );
}
