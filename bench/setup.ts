// What scenarios do before they are measured: the requests that make their data, sent with some
// concurrency since setup is not measured, and the load that runs beside a measurement. The
// route prefix and the deal body every scenario sends are here too.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type autocannon from 'autocannon';

export const PREFIX = '/pipeline';

export const JSON_HEADERS = { 'content-type': 'application/json' };

/** Keys mode's operator key in the bench (D-52: 32 to 256 visible characters). */
export const BENCH_OPERATOR_KEY = 'bench-operator-key-0123456789abcdefghijklmnopqrstuv';
export const OPERATOR_HEADERS = { authorization: `Bearer ${BENCH_OPERATOR_KEY}` };

/**
 * The i-th of `items` counting from the newest: claims take the gigs posted last first, as a
 * marketplace's closers do. The instance's cache keeps the newest 25,000 deals (record-cache.ts);
 * a run that prepares more gigs than that (its estimate of the requests it may serve is generous)
 * and claims the oldest first measured the cache's misses, not a claim: with the warm-up's gigs
 * ahead of the measured run's, the demo's claim cost the server 1,054 µs instead of 428.
 */
export const newestFirst = <T>(items: readonly T[], i: number): T => items[items.length - 1 - (i % items.length)];

export const dealBody = (i: number, mandate?: unknown) =>
  JSON.stringify({
    account: { name: `Bench Fictional ${i}`, industry: 'saas', actor: 'B2B' },
    listValueUsd: 50_000 + (i % 1000),
    ...(mandate ? { mandate } : {}),
  });

export async function post(url: string, body?: string, headers: Record<string, string> = {}): Promise<any> {
  const response = await fetch(url, { method: 'POST', headers: { ...(body ? JSON_HEADERS : {}), ...headers }, body });
  if (!response.ok) throw new Error(`POST ${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Runs `count` setup requests with some concurrency (setup is not measured). */
export async function inParallel<T>(count: number, work: (i: number) => Promise<T>, width = 16): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await work(i);
      }
    }),
  );
  return results;
}

/** autocannon takes the path from `requests`, not from the top-level options. */
export const one = (request: autocannon.Request): Partial<autocannon.Options> => ({ requests: [request] });

/**
 * Advances of fresh deals, in turn: each deal takes five to close, and there are enough deals
 * that none is advanced past terminal. With `ifMatch` each names the version it expects: the
 * k-th pass finds every deal at version k + 1.
 */
export async function advances(url: string, expected: number, ifMatch: boolean): Promise<Partial<autocannon.Options>> {
  const ids = await inParallel(
    Math.ceil(expected / 5),
    async (i) => (await post(`${url}${PREFIX}/deals`, dealBody(i))).id,
  );
  let n = 0;
  return {
    // Never more advances than the deals can take before they close (five each), however fast.
    amount: ids.length * 5,
    requests: [
      {
        method: 'POST',
        setupRequest: (request: any) => {
          const k = n++;
          request.path = `${PREFIX}/deals/${ids[k % ids.length]}/advance`;
          if (ifMatch) request.headers = { ...request.headers, 'if-match': `"${1 + Math.floor(k / ids.length)}"` };
          return request;
        },
      },
    ],
  };
}

/**
 * Dry runs of a close (D-48) on deals at negotiation, in turn: a dry run changes
 * nothing, so the same deals serve every request. What an agent pays to look before it leaps.
 */
export async function dryRunCloses(url: string): Promise<Partial<autocannon.Options>> {
  return closesAtNegotiation(url, 45_000, '?dryRun=true');
}

/**
 * Closes below the floor on deals at negotiation, in turn, each refused by the gate and
 * kept on the record (D-61): what a misbehaving agent costs. The deals never move, so the same
 * ones serve every request (a deal keeps its newest 1,000 refusals: past that, each also drops one).
 */
export async function refusedCloses(url: string): Promise<Partial<autocannon.Options>> {
  return closesAtNegotiation(url, 1, '');
}

/** Proposals of a close at `valueUsd` on 100 deals at negotiation, in turn. */
async function closesAtNegotiation(url: string, valueUsd: number, query: string): Promise<Partial<autocannon.Options>> {
  const ids = await inParallel(100, async (i) => (await post(`${url}${PREFIX}/deals`, dealBody(i))).id);
  for (let step = 0; step < 4; step++)
    await inParallel(ids.length, (i) => post(`${url}${PREFIX}/deals/${ids[i]}/advance`));
  const close = JSON.stringify({ advanceTo: 'closed_won', valueUsd });
  let n = 0;
  return {
    requests: [
      {
        method: 'POST',
        headers: JSON_HEADERS,
        body: close,
        setupRequest: (request: any) => {
          request.path = `${PREFIX}/deals/${ids[n++ % ids.length]}/advance${query}`;
          return request;
        },
      },
    ],
  };
}

/**
 * `count` clients of GET /events/stream (from the oldest kept event: the service was just reset),
 * in a process of their own (bench/stream-clients.ts), each reading everything its stream sends.
 */
export async function streamClients(
  url: string,
  count: number,
  keys: readonly string[] = [],
): Promise<{ stop(): Promise<string> }> {
  const child = fork(fileURLToPath(new URL('./stream-clients.ts', import.meta.url)), [url, String(count)], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, BENCH_STREAM_KEYS: keys.join(',') },
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the stream clients exited with code ${code}`)));
  });
  return {
    stop: () =>
      new Promise<string>((resolve) => {
        child.removeAllListeners('exit');
        child.once('message', (report) => resolve(String(report)));
        child.send('stop');
      }),
  };
}
