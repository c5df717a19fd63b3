// The chart of the proposals page (D-61): the refusals over time, a bar per hour or per day in the
// person's time zone, each bar split between the agent and people, with the bucketing it is
// drawn from (bucketsOf) kept apart from the page that reads the refusals and filters them.
import type { RefusedProposal } from './api.ts';
import { EXECUTOR_WORDS } from './proposal-words.ts';
import { plural } from './words.ts';

/** Up to this span (hours) the chart has a bar per hour; beyond it, a bar per day. */
const HOURLY_UP_TO_HOURS = 48;
/** The hourly chart shows this many hours at least. */
const HOURS_AT_LEAST = 24;
const HOUR = 3_600_000;

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

export function Chart({
  records,
  more,
  readAtMost,
  filtered,
}: {
  records: readonly RefusedProposal[];
  /** Whether there are more refusals than the readAtMost read (the caption then says so). */
  more: boolean;
  readAtMost: number;
  filtered: boolean;
}) {
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
            {more ? ` (the newest ${readAtMost.toLocaleString('en-US')} refusals)` : ''}. The highest bar is{' '}
            {plural(highest, 'refusal')}.
          </figcaption>
          <p class="legend" aria-hidden="true">
            <span class="swatch agent" /> {EXECUTOR_WORDS.agent} <span class="swatch human" /> {EXECUTOR_WORDS.human}
          </p>
          <ol class="bars" aria-labelledby="chart-caption">
            {buckets.map((b) => {
              const n = b.agent + b.human;
              const words = `${label(b.start)}: ${plural(n, 'refusal')}${
                n > 0 ? ` (${b.agent} by the agent, ${b.human} by people)` : ''
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
