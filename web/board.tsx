// The pipeline board: one region per stage (named by the stage, D-43) with its deals as cards
// linking to their pages, a summary above (a funnel of deals and list value per stage, won value,
// platform fees and commissions paid), filters, and live changes from the event stream. Each
// column head says how many deals it holds and their value; every number says what it is (D-228);
// a service that cannot be reached is said so and read again (D-230); an empty pipeline says how
// to start. The operator's board in keys mode holds every Seller's deals: each card names its
// Seller, and a Seller filter narrows the board and its summary to one (D-262). "Download CSV"
// saves the deals the service's filters choose, as the service writes them (D-74).
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
// The stage names and their order are the domain's own (pure, no I/O: bundled as they are).
import { GONE_DARK, STAGES, type Stage } from '../src/domain/stages.ts';
import { useSellerNames } from './actor-names.ts';
import { allDeals, api, type Deal, type Gig, usd } from './api.ts';
import { Summary } from './board-summary.tsx';
import { csvName, downloadList } from './csv-download.ts';
import { DownloadCsv } from './download-button.tsx';
import { unreachableWords } from './error-words.ts';
import { dealOf, type LiveEvent, useLive } from './live.ts';
import { SellerSelect } from './seller-select.tsx';
import { can } from './session.ts';
import { plural, STAGE_LABELS, signalWords, stageLabel } from './words.ts';

/** The filters the service applies (GET /pipeline/deals's query). */
type Filter = { stage?: Stage; role?: Gig['role']; humanTrack?: boolean; q?: string };

/** `seller`: the deal's Seller by name, on the operator's board (D-262). */
export function DealCard({ deal, seller }: { deal: Deal; seller?: string }) {
  const stalled = deal.signals.includes(GONE_DARK);
  return (
    <li class="card">
      <a href={`#/deals/${encodeURIComponent(deal.id)}`}>{deal.account.name}</a>
      {seller ? <span class="seller">Seller: {seller}</span> : null}
      <span class="value">
        {deal.finalValueUsd !== undefined ? `Won ${usd(deal.finalValueUsd)} · ` : ''}List {usd(deal.listValueUsd)}
      </span>
      <span class="badges">
        {deal.humanTrack ? <span class="badge human">human track</span> : null}
        {stalled ? <span class="badge stalled">stalled</span> : null}
        {deal.signals.length > 0 ? (
          <span class="badge" title={deal.signals.map(signalWords).join(', ')}>
            {deal.signals.length} signal{deal.signals.length === 1 ? '' : 's'}
          </span>
        ) : null}
      </span>
    </li>
  );
}

export function Board() {
  const [filter, setFilter] = useState<Filter>({});
  const [deals, setDeals] = useState<Deal[] | undefined>();
  // The operator's Sellers (none for anyone else): the cards' names and the Seller filter's.
  const sellers = useSellerNames();
  const [seller, setSeller] = useState('');
  // The search box's text, asked of the service (`q`, D-67) once typing pauses.
  const [text, setText] = useState('');
  useEffect(() => {
    const q = text.trim() === '' ? undefined : text.trim().slice(0, 100);
    const pause = setTimeout(() => setFilter((f) => (f.q === q ? f : { ...f, q })), 250);
    return () => clearTimeout(pause);
  }, [text]);
  const [error, setError] = useState<{ words: string; raw: string } | undefined>();
  const retry = useRef<ReturnType<typeof setTimeout>>(undefined);
  // Each read of the whole list is numbered: only the newest one's answer is shown, so that an
  // older filter's answer arriving after a newer one's cannot put its deals back on the board.
  const reads = useRef(0);

  const load = useCallback(async () => {
    clearTimeout(retry.current);
    const read = ++reads.current;
    try {
      const list = await allDeals(filter);
      if (read !== reads.current) return;
      setDeals(list);
      setError(undefined);
    } catch (e) {
      if (read !== reads.current) return;
      // Said in words, and read again until the service answers (the raw error in a title).
      setError({ words: unreachableWords(e), raw: String(e) });
      retry.current = setTimeout(load, 2000);
    }
  }, [filter.stage, filter.role, filter.humanTrack, filter.q]);
  useEffect(() => {
    load();
    return () => clearTimeout(retry.current);
  }, [load]);

  // A change to one deal: read it again and put it where it now belongs (or drop it when the
  // filter no longer holds). A reset or a payout: read everything again.
  const onEvent = useCallback(
    async (event: LiveEvent) => {
      if (event.type === 'demo.reset' || event.type === 'payout.posted') return load();
      const id = dealOf(event);
      if (!id) return;
      if (filter.role !== undefined) return load();
      const read = reads.current;
      const answer = await api.GET('/pipeline/deals/{id}', { params: { path: { id } } });
      const deal = answer.data;
      // A read of the whole list began meanwhile (a new filter): its answer holds this deal as it is.
      if (read !== reads.current) return;
      setDeals((current) => {
        if (!current) return current;
        const rest = current.filter((d) => d.id !== id);
        if (!deal) return rest;
        const keep =
          (filter.stage === undefined || deal.stage === filter.stage) &&
          (filter.humanTrack === undefined || Boolean(deal.humanTrack) === filter.humanTrack) &&
          (filter.q === undefined || deal.account.name.toLowerCase().includes(filter.q.toLowerCase()));
        return keep ? [...rest, deal].sort((a, b) => a.id.length - b.id.length || (a.id < b.id ? -1 : 1)) : rest;
      });
    },
    [load, filter.stage, filter.role, filter.humanTrack, filter.q],
  );
  useLive(onEvent);

  const select = (name: keyof Filter, value: string) =>
    setFilter((f) => ({
      ...f,
      [name]: value === '' ? undefined : name === 'humanTrack' ? value === 'true' : value,
    }));

  // The Seller filter acts here: the service's list has no Seller filter, and the operator's
  // board reads every deal anyway.
  const shown = deals && seller ? deals.filter((d) => d.sellerId === seller) : deals;
  const unfiltered =
    filter.stage === undefined &&
    filter.role === undefined &&
    filter.humanTrack === undefined &&
    filter.q === undefined &&
    !seller;

  return (
    <>
      <h1>Pipeline</h1>
      {shown ? <Summary deals={shown} seller={seller} /> : null}
      <form class="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Search{' '}
          <input
            type="search"
            placeholder="Account name"
            maxLength={100}
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
          />
        </label>
        <label>
          Stage{' '}
          <select value={filter.stage ?? ''} onChange={(e) => select('stage', e.currentTarget.value)}>
            <option value="">any</option>
            {STAGES.map((s) => (
              <option value={s}>{STAGE_LABELS[s]}</option>
            ))}
          </select>
        </label>
        <label>
          Role{' '}
          <select value={filter.role ?? ''} onChange={(e) => select('role', e.currentTarget.value)}>
            <option value="">any</option>
            <option value="setter">setter</option>
            <option value="closer">closer</option>
            <option value="nurturer">nurturer</option>
          </select>
        </label>
        <label>
          Human track{' '}
          <select
            value={filter.humanTrack === undefined ? '' : String(filter.humanTrack)}
            onChange={(e) => select('humanTrack', e.currentTarget.value)}
          >
            <option value="">any</option>
            <option value="true">on it</option>
            <option value="false">not on it</option>
          </select>
        </label>
        <SellerSelect sellers={sellers} value={seller} onChange={setSeller} everyLabel="any" />
      </form>
      <div class="list-actions">
        <DownloadCsv what="the deals" save={() => downloadList('/pipeline/deals', filter, csvName('deals'))} />
        {seller ? (
          <p class="hint">
            The CSV holds every Seller’s deals that match the other filters: its sellerId tells them apart.
          </p>
        ) : null}
      </div>
      {error ? (
        <p role="alert" class="unreachable" title={error.raw}>
          {error.words}
        </p>
      ) : null}
      {shown && shown.length === 0 ? (
        <p class="empty">
          {unfiltered ? (
            can('deals:write') ? (
              <>
                No deals yet. Create one with <a href="#/new">New deal</a>.
              </>
            ) : (
              'No deals yet.'
            )
          ) : (
            'No deal matches these filters.'
          )}
        </p>
      ) : null}
      {shown ? (
        <div class="board">
          {STAGES.filter((s) => filter.stage === undefined || s === filter.stage).map((stage) => {
            const inStage = shown.filter((d) => d.stage === stage);
            // A won column totals what the deals were won at; the others their list values.
            const total =
              stage === 'closed_won'
                ? inStage.reduce((sum, d) => sum + (d.finalValueUsd ?? 0), 0)
                : inStage.reduce((sum, d) => sum + d.listValueUsd, 0);
            // D-43: the region is named by the stage's id; its heading shows the label (D-228).
            return (
              <section class="column" aria-label={stage} data-stage={stage} key={stage}>
                <h2>
                  {stageLabel(stage)} <span class="count">{inStage.length}</span>
                </h2>
                <p class="column-total">
                  {plural(inStage.length, 'deal')} · {usd(total)} {stage === 'closed_won' ? 'won' : 'list'}
                </p>
                <ul>
                  {inStage.map((deal) => (
                    <DealCard deal={deal} seller={deal.sellerId && sellers.get(deal.sellerId)} key={deal.id} />
                  ))}
                </ul>
              </section>
            );
          })}
        </div>
      ) : error ? null : (
        <p>Loading the pipeline…</p>
      )}
    </>
  );
}
