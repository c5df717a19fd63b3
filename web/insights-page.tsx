// The Insights page (#/insights, D-73, D-74, D-279): four charts of the pipeline the session may
// see, each with its figures as a table beside it and a "Download CSV" of that table. The funnel
// by stage, the weighted forecast by month (the open deals now), the time in stage, and the win
// rate by executor (the agent against people). A range (from, to; the service's default when
// empty: the deals created in the last 90 days) narrows the three that count a cohort, and the
// operator picks one Seller's figures (`sellerId`) from the Sellers it lists. With no deal at all
// the page says so instead of drawing empty axes; a chart with nothing in its range says so too.
// The figures are read again when a deal or a gig changes (the event stream).
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { useSellerNames } from './actor-names.ts';
import { type ApiError, usd } from './api.ts';
import { csvName, saveCsv } from './csv-download.ts';
import { DownloadCsv } from './download-button.tsx';
import { errorWords, unreachableWords } from './error-words.ts';
import { type FigureTable, FigureTableView, tableCsv } from './figure-table.tsx';
import { BarChart, COLOURS, type Series } from './insight-charts.tsx';
import {
  forecastTable,
  funnelTable,
  nothingIn,
  performanceTable,
  rangeWords,
  velocityTable,
} from './insight-figures.ts';
import { InsightError, type Insights, type InsightsQuery, noDeals, readInsights } from './insights-api.ts';
import { type LiveEvent, useLive } from './live.ts';
import { SellerSelect } from './seller-select.tsx';
import { can } from './session.ts';
import { plural, when } from './words.ts';

/** Events arriving together are answered by one read, this long after the last. */
const SETTLE_MS = 500;

/** A table of more columns than this goes under its chart rather than beside it. */
const STACKED_FROM = 4;

interface Chart {
  id: string;
  title: string;
  about: string;
  table: FigureTable;
  series: Series[];
  /** What the section says when the table has nothing to chart. */
  empty: string;
}

function chartsOf(insights: Insights): Chart[] {
  const { pipeline, funnel, velocity, performance } = insights;
  const cohort = `the deals created ${rangeWords(funnel)}`;
  return [
    {
      id: 'funnel',
      title: 'Funnel',
      about: `Of ${cohort} (${plural(funnel.deals, 'deal')}): how many reached each stage, advanced to the next or were lost from it, and the conversion (advanced of reached).`,
      table: funnelTable(funnel),
      series: [
        { column: 0, colour: COLOURS.accent },
        { column: 1, colour: COLOURS.won },
        { column: 2, colour: COLOURS.lost },
      ],
      empty: 'No deal was created in this range, so there is no funnel to chart.',
    },
    {
      id: 'forecast',
      title: 'Weighted forecast',
      about: `The open deals now (${plural(pipeline.open.deals, 'deal')}, ${usd(pipeline.open.listValueUsd)} list, ${usd(pipeline.open.weightedValueUsd)} weighted by each stage's win rate), by the month each is forecast to close, as of ${when(pipeline.asOf)}. The range does not apply.`,
      table: forecastTable(pipeline),
      series: [{ column: 1, colour: COLOURS.accent }],
      empty: 'No open deal now, so there is nothing to forecast.',
    },
    {
      id: 'velocity',
      title: 'Time in stage',
      about: `The days ${cohort} spent at each stage they left, and from creation to a win or a loss: the median (p50) and the 90th percentile (p90).`,
      table: velocityTable(velocity),
      series: [
        { column: 1, colour: COLOURS.accent },
        { column: 2, colour: COLOURS.light },
      ],
      empty: 'No deal created in this range has left a stage yet, so there is no time to chart.',
    },
    {
      id: 'performance',
      title: 'Win rate by executor',
      about: `Of ${cohort}: those the agent or people closed, won and lost, the win rate, and the share of their proposals the gate refused.`,
      table: performanceTable(performance),
      series: [
        { column: 3, colour: COLOURS.won },
        { column: 7, colour: COLOURS.lost },
      ],
      empty: 'No deal created in this range was closed, moved or refused yet, so there is no win rate to chart.',
    },
  ];
}

function ChartSection({ chart }: { chart: Chart }) {
  const { id, title, about, table, series, empty } = chart;
  const nothing = nothingIn(table);
  return (
    <section class="panel insight" aria-labelledby={`${id}-title`} data-insight={id}>
      <h2 id={`${id}-title`}>{title}</h2>
      <p class="hint">{about}</p>
      {nothing ? (
        <p class="empty">{empty}</p>
      ) : (
        <>
          <div class={table.columns.length > STACKED_FROM ? 'insight-body stacked' : 'insight-body'}>
            <BarChart title={title} table={table} series={series} />
            <FigureTableView table={table} />
          </div>
          <DownloadCsv
            what={`the ${title.toLowerCase()}`}
            save={() => {
              saveCsv(tableCsv(table), csvName(`insights-${id}`));
              return undefined;
            }}
          />
        </>
      )}
    </section>
  );
}

const NO_QUERY: InsightsQuery = { from: '', to: '', sellerId: '' };

export function InsightsPage() {
  const [query, setQuery] = useState<InsightsQuery>(NO_QUERY);
  const [insights, setInsights] = useState<Insights | undefined>();
  const [error, setError] = useState<{ words: string; raw: string; refused: boolean } | undefined>();
  // The operator's Sellers (none for anyone else): the Seller filter's choices.
  const sellers = useSellerNames();
  const retry = useRef<ReturnType<typeof setTimeout>>(undefined);
  const settle = useRef<ReturnType<typeof setTimeout>>(undefined);
  // Reads overlap (a change of the range, a burst of events): only the newest shows.
  const latest = useRef(0);

  const load = useCallback(async () => {
    clearTimeout(retry.current);
    const mine = ++latest.current;
    try {
      const read = await readInsights(query);
      if (mine !== latest.current) return;
      setInsights(read);
      setError(undefined);
    } catch (e) {
      if (mine !== latest.current) return;
      if (e instanceof InsightError && e.status >= 400 && e.status < 500) {
        // A range the service refused (a date out of order, say): said, not retried.
        setError({ words: errorWords(e.body as ApiError | undefined), raw: e.message, refused: true });
        return;
      }
      setError({ words: unreachableWords(e), raw: String(e), refused: false });
      retry.current = setTimeout(load, 2000);
    }
  }, [query.from, query.to, query.sellerId]);
  useEffect(() => {
    load();
    return () => {
      clearTimeout(retry.current);
      clearTimeout(settle.current);
    };
  }, [load]);
  useLive(
    useCallback(
      (event: LiveEvent) => {
        const changes = event.type.startsWith('deal.') || event.type.startsWith('gig.') || event.type === 'demo.reset';
        if (!changes) return;
        clearTimeout(settle.current);
        settle.current = setTimeout(load, SETTLE_MS);
      },
      [load],
    ),
  );

  const set = (name: keyof InsightsQuery, value: string) => setQuery((q) => ({ ...q, [name]: value }));
  const ranged = query.from !== '' || query.to !== '';
  return (
    <section class="insights" aria-labelledby="insights-title">
      <h1 id="insights-title">Insights</h1>
      <p class="hint">
        Figures of the deals you can see, from their stage history. The funnel, the time in stage and the win rates
        count the deals created in the range (the last 90 days unless chosen; the first day included, the last one not,
        in UTC); the forecast is of the open deals now.
      </p>
      <form class="filters insight-filters" aria-label="Range" onSubmit={(e) => e.preventDefault()}>
        <label>
          From{' '}
          <input
            type="date"
            value={query.from}
            max={query.to || undefined}
            onChange={(e) => set('from', e.currentTarget.value)}
          />
        </label>
        <label>
          To{' '}
          <input
            type="date"
            value={query.to}
            min={query.from || undefined}
            onChange={(e) => set('to', e.currentTarget.value)}
          />
        </label>
        <SellerSelect
          sellers={sellers}
          value={query.sellerId}
          onChange={(id) => set('sellerId', id)}
          everyLabel="every Seller"
        />
        {ranged ? (
          <button type="button" class="secondary" onClick={() => setQuery((q) => ({ ...q, from: '', to: '' }))}>
            The last 90 days
          </button>
        ) : null}
      </form>
      {error ? (
        <p role="alert" class={error.refused ? 'refused' : 'unreachable'} title={error.raw}>
          {error.words}
        </p>
      ) : null}
      {insights === undefined ? (
        error ? null : (
          <p>Reading the insights…</p>
        )
      ) : noDeals(insights) ? (
        <p class="empty">
          {query.sellerId ? 'This Seller has no deals yet' : 'No deals yet'}, so there is nothing to chart: the insights
          show here once deals are created and move through the stages.
          {can('deals:write') && !query.sellerId ? (
            <>
              {' '}
              Create one with <a href="#/new">New deal</a>.
            </>
          ) : null}
        </p>
      ) : (
        <div class="insight-list">
          {chartsOf(insights).map((chart) => (
            <ChartSection chart={chart} key={chart.id} />
          ))}
        </div>
      )}
    </section>
  );
}
