// Everything `audit` checks, read from a live deployment through its public API only: every deal,
// gig and closer (with its Register and payout ledger) page by page, following each page's
// `Link: <…>; rel="next"`; the settlement of every closed-won deal; the whole event feed,
// following `nextAfter`; and the books (D-79 to D-82): every transfer and every payout, the
// balance of every account a transfer names, and the refunds of every deal whose settlement
// says it was refunded. Nothing here writes, and nothing needs more than the public URLs.
// Numbers are read exactly (D-205): one with more digits than a double holds is kept as its text.

/** The JSON of the API, as it answers (USD amounts, ISO 8601 times; see parseJsonExactly). */
// biome-ignore lint/suspicious/noExplicitAny: the wire's JSON, read field by field by from-views.ts
export type Json = Record<string, any>;

export interface Deployment {
  deals: Json[];
  gigs: Json[];
  closers: Json[];
  /** dealId → its settlement, for every closed-won deal. */
  settlements: Map<string, Json>;
  events: Json[];
  /** Every transfer, in id order. */
  transfers: Json[];
  /** account → its balance as answered, for every account a transfer names. */
  balances: Map<string, Json>;
  /** Every payout of a closer, newest first. */
  payouts: Json[];
  /** dealId → its refunds, for every deal whose settlement has `refundedUsd`. */
  refunds: Map<string, Json[]>;
}

export interface ReadOptions {
  /** The deal service's path prefix (DEAL_PREFIX), default /pipeline. */
  prefix?: string;
  fetch?: typeof fetch;
  /** Requests at once while reading settlements, balances and refunds. */
  concurrency?: number;
}

export class AuditReadError extends Error {}

/** A JSON string (skipped whole, so that no digit inside one is touched), or a JSON number. */
const TOKEN = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/** Significant digits of a JSON number's text (its mantissa, without leading zeros). */
function significantDigits(number: string): number {
  const exponent = number.search(/[eE]/);
  const mantissa = (exponent === -1 ? number : number.slice(0, exponent)).replace(/[-.]/g, '');
  return mantissa.replace(/^0+/, '').length;
}

/**
 * D-205: JSON.parse, except that a number of more than 15 significant digits, which a double may
 * not hold exactly, is kept as its text (a string): a closer's gross past 2^53 cents is written
 * with every digit (D-198) and must be compared to the cent. One pass over the text quotes the
 * long numbers, strings matched whole so that no digit inside one is touched, rather than a
 * reviver reading `context.source` (Node 21 and later), called back for every value of a page of
 * a thousand records. Every other number is parsed as JSON.parse parses it.
 */
export function parseJsonExactly(text: string): unknown {
  let long = false;
  const quoted = text.replace(TOKEN, (token) => {
    if (token.charCodeAt(0) === 34 /* " */ || significantDigits(token) <= 15) return token;
    long = true;
    return `"${token}"`;
  });
  return JSON.parse(long ? quoted : text);
}

async function getJson(get: typeof fetch, url: string): Promise<{ body: unknown; next?: string }> {
  let answer: Response;
  try {
    answer = await get(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(30_000) });
  } catch (error) {
    throw new AuditReadError(`GET ${url} failed: ${(error as Error).message}`);
  }
  const text = await answer.text();
  if (!answer.ok) throw new AuditReadError(`GET ${url} answered ${answer.status}: ${text.slice(0, 300)}`);
  let body: unknown;
  try {
    body = parseJsonExactly(text);
  } catch {
    throw new AuditReadError(`GET ${url} answered something that is not JSON: ${text.slice(0, 120)}`);
  }
  const link = answer.headers.get('link');
  const next = link ? /<([^>]+)>\s*;\s*rel="next"/.exec(link)?.[1] : undefined;
  return { body, next: next === undefined ? undefined : new URL(next, url).toString() };
}

/** Every record of a paged list, in the order the pages give them. */
async function everyPage(get: typeof fetch, first: string): Promise<Json[]> {
  const all: Json[] = [];
  for (let url: string | undefined = first; url !== undefined; ) {
    const { body, next } = await getJson(get, url);
    if (!Array.isArray(body)) throw new AuditReadError(`GET ${url} did not answer a list`);
    all.push(...(body as Json[]));
    url = next;
  }
  return all;
}

/** Reads each item's answer, `concurrency` requests at once, into a map by item. */
async function eachOf(items: readonly string[], concurrency: number, read: (item: string) => Promise<unknown>) {
  const answers = new Map<string, Json>();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.max(1, concurrency) }, async () => {
      while (next < items.length) {
        const item = items[next++] as string;
        answers.set(item, (await read(item)) as Json);
      }
    }),
  );
  return answers;
}

export async function readDeployment(baseUrl: string, options: ReadOptions = {}): Promise<Deployment> {
  const base = baseUrl.replace(/\/+$/, '');
  const get = options.fetch ?? fetch;
  const prefix = options.prefix ?? '/pipeline';
  const concurrency = options.concurrency ?? 8;
  const body = async (url: string) => (await getJson(get, url)).body;
  const [deals, gigs, closers, transfers, payouts] = await Promise.all([
    everyPage(get, `${base}${prefix}/deals?limit=1000`),
    everyPage(get, `${base}/closers/gigs?limit=1000`),
    everyPage(get, `${base}/closers/closers?limit=1000`),
    everyPage(get, `${base}/ledger/transfers?limit=1000`),
    everyPage(get, `${base}/payouts?limit=1000`),
  ]);
  const won = deals.filter((deal) => deal.stage === 'closed_won').map((deal) => String(deal.id));
  const accounts = [...new Set(transfers.flatMap((t) => [String(t.debit), String(t.credit)]))];
  const [settlements, balances] = await Promise.all([
    eachOf(won, concurrency, (id) => body(`${base}${prefix}/deals/${encodeURIComponent(id)}/settlement`)),
    eachOf(accounts, concurrency, (account) => body(`${base}/ledger/balances?account=${encodeURIComponent(account)}`)),
  ]);
  const refunded = won.filter((id) => settlements.get(id)?.refundedUsd !== undefined);
  const refunds = (await eachOf(refunded, concurrency, (id) =>
    body(`${base}${prefix}/deals/${encodeURIComponent(id)}/refunds`),
  )) as unknown as Map<string, Json[]>;
  const events: Json[] = [];
  for (let after = 0; ; ) {
    const { body } = await getJson(get, `${base}/events?after=${after}&limit=1000`);
    const page = body as { events?: Json[]; nextAfter?: number };
    if (!Array.isArray(page.events)) throw new AuditReadError('GET /events did not answer {events, nextAfter}');
    events.push(...page.events);
    if (page.events.length === 0 || page.nextAfter === undefined || page.nextAfter <= after) break;
    after = page.nextAfter;
  }
  return { deals, gigs, closers, settlements, events, transfers, balances, payouts, refunds };
}
