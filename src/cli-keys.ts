// The operator's commands of keys mode (D-51, D-52), against a deployment's URL, without the
// console: `keys create|list|revoke|roll`, `sellers create|list` and `users create|list|disable|enable`. The key they act with is
// read from PIPELINE_KEY, never from the command line, which any user of the machine can read
// (`ps`). A new key is printed once, alone on stdout (so `KEY=$(… keys create …)` keeps it and
// nothing else); everything said about it goes to stderr.
import { COMMAND } from './command.ts';

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** The environment variable the commands read their key from. */
export const KEY_VARIABLE = 'PIPELINE_KEY';

/** A refusal of the command line itself (exit 2), as opposed to a failure of the request (exit 1). */
export class UsageError extends Error {}

class RequestError extends Error {}

/** `http(s)://host[:port][/path]`, without a trailing slash; a usage error otherwise. */
export function baseUrlOf(text: string | undefined): string {
  if (text === undefined) throw new UsageError('a base URL is needed, e.g. http://127.0.0.1:3000');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`not an http(s) URL: ${text}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`not an http(s) URL: ${text}`);
  if (url.search !== '' || url.hash !== '') throw new UsageError(`a base URL has no query or fragment: ${text}`);
  return url.toString().replace(/\/+$/, '');
}

/** The key from PIPELINE_KEY; a usage error, naming the variable, when it is unset. */
export function keyFromEnvironment(env: NodeJS.ProcessEnv = process.env): string {
  const key = env[KEY_VARIABLE]?.trim();
  if (!key) {
    throw new UsageError(
      `set ${KEY_VARIABLE} to the key to act with (the operator's for keys create --principal, sellers and every key); a key is never taken from the command line`,
    );
  }
  return key;
}

/** The options of a command: repeated ones (`--scope`) collect, the rest are positional. */
interface Parsed {
  positional: string[];
  options: Map<string, string[]>;
}

export function parse(args: readonly string[], known: readonly string[]): Parsed {
  const positional: string[] = [];
  const options = new Map<string, string[]>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    if (!known.includes(name)) throw new UsageError(`unknown option --${name}`);
    let value: string | undefined = eq === -1 ? undefined : arg.slice(eq + 1);
    if (value === undefined) {
      value = args[i + 1];
      if (value === undefined || value.startsWith('--')) throw new UsageError(`--${name} needs a value`);
      i++;
    }
    options.set(name, [...(options.get(name) ?? []), value]);
  }
  return { positional, options };
}

export function single(parsed: Parsed, name: string): string | undefined {
  const values = parsed.options.get(name);
  if (values === undefined) return undefined;
  if (values.length > 1) throw new UsageError(`--${name} may be given once`);
  return values[0];
}

/** `<base-url>` and `count - 1` more positional arguments, exactly. */
export function positionals(parsed: Parsed, names: readonly string[]): string[] {
  if (parsed.positional.length !== names.length) {
    throw new UsageError(
      `expected ${names.map((n) => `<${n}>`).join(' ')}, got ${parsed.positional.length === 0 ? 'none' : parsed.positional.join(' ')}`,
    );
  }
  return parsed.positional;
}

// biome-ignore lint/suspicious/noExplicitAny: the service's JSON, read field by field
export type Json = Record<string, any>;

/** One request with the key; the JSON answer and the next page's URL, or a RequestError with the service's error. */
export async function call(
  key: string,
  method: 'GET' | 'POST',
  url: string,
  body?: unknown,
): Promise<{ body: Json; next?: string }> {
  let answer: Response;
  try {
    answer = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        accept: 'application/json',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    throw new RequestError(`${method} ${url} failed: ${cause ?? (error as Error).message}`);
  }
  const text = await answer.text();
  let parsed: Json | undefined;
  try {
    parsed = JSON.parse(text) as Json;
  } catch {
    parsed = undefined;
  }
  if (!answer.ok) {
    if (parsed?.code !== undefined) {
      const extra = [
        // Violations the message does not already say, one a line.
        ...(Array.isArray(parsed.violations)
          ? parsed.violations
              .map(String)
              .filter((v: string) => !String(parsed.error).includes(v))
              .map((v: string) => `  ${v}`)
          : []),
        ...(parsed.requiredScope !== undefined ? [`  the key needs the scope ${parsed.requiredScope}`] : []),
      ];
      throw new RequestError(
        [`${method} ${url} answered ${answer.status} ${parsed.code}: ${parsed.error}`, ...extra].join('\n'),
      );
    }
    throw new RequestError(`${method} ${url} answered ${answer.status}: ${text.slice(0, 300)}`);
  }
  if (parsed === undefined) throw new RequestError(`${method} ${url} answered something that is not JSON`);
  const link = answer.headers.get('link');
  const next = link ? /<([^>]+)>\s*;\s*rel="next"/.exec(link)?.[1] : undefined;
  return { body: parsed, ...(next !== undefined ? { next: new URL(next, url).toString() } : {}) };
}

/** Every record of a paged list, following `Link: <…>; rel="next"`. */
export async function everyPage(key: string, first: string): Promise<Json[]> {
  const all: Json[] = [];
  let url: string | undefined = first;
  while (url !== undefined) {
    const page: { body: Json; next?: string } = await call(key, 'GET', url);
    if (!Array.isArray(page.body)) throw new RequestError(`GET ${url} answered something that is not a list`);
    all.push(...page.body);
    url = page.next;
  }
  return all;
}

/** Columns padded to their widest cell; an absent value is `-`. */
export function table(header: readonly string[], rows: readonly (readonly (string | null | undefined)[])[]): string[] {
  const cells = [header, ...rows.map((row) => row.map((cell) => (cell === null || cell === undefined ? '-' : cell)))];
  const widths = header.map((_, c) => Math.max(...cells.map((row) => row[c].length)));
  return cells.map((row) =>
    row
      .map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c])))
      .join('  ')
      .trimEnd(),
  );
}

const describeKey = (key: Json) =>
  `${key.id} (${key.prefix}…) "${key.name}" of ${key.principal}, scopes ${key.scopes.join(' ')}, expires ${key.expiresAt ?? 'never'}`;

async function keysCreate(args: readonly string[], io: Io, key: () => string): Promise<number> {
  const parsed = parse(args, ['name', 'principal', 'scope', 'expires-at']);
  const [base] = positionals(parsed, ['base-url']);
  const baseUrl = baseUrlOf(base);
  const name = single(parsed, 'name');
  if (name === undefined) throw new UsageError('keys create needs --name N (what the key is for)');
  const principal = single(parsed, 'principal');
  const scopes = parsed.options.get('scope')?.flatMap((s) => s.split(/[ ,]+/).filter(Boolean));
  const expiresAt = single(parsed, 'expires-at');
  const body = {
    name,
    ...(principal !== undefined ? { principal } : {}),
    ...(scopes !== undefined ? { scopes } : {}),
    ...(expiresAt !== undefined ? { expiresAt } : {}),
  };
  const { body: made } = await call(key(), 'POST', `${baseUrl}/keys`, body);
  io.out(String(made.key));
  io.err(`created ${describeKey(made)}`);
  io.err('the key is shown this once (above, on stdout): the service keeps only its hash');
  return 0;
}

async function keysList(args: readonly string[], io: Io, key: () => string): Promise<number> {
  const parsed = parse(args, ['principal']);
  const [base] = positionals(parsed, ['base-url']);
  const baseUrl = baseUrlOf(base);
  const principal = single(parsed, 'principal');
  const query = principal === undefined ? '' : `?${new URLSearchParams({ principal })}`;
  const keys = await everyPage(key(), `${baseUrl}/keys${query}`);
  const lines = table(
    ['ID', 'PREFIX', 'NAME', 'PRINCIPAL', 'SCOPES', 'CREATED', 'EXPIRES', 'LAST USED', 'REVOKED'],
    keys.map((k) => [
      k.id,
      k.prefix,
      k.name,
      k.principal,
      (k.scopes as string[]).join(','),
      k.createdAt,
      k.expiresAt,
      k.lastUsedAt,
      k.revokedAt,
    ]),
  );
  for (const line of lines) io.out(line);
  io.err(`${keys.length} key${keys.length === 1 ? '' : 's'}`);
  return 0;
}

async function keysRevoke(args: readonly string[], io: Io, key: () => string): Promise<number> {
  const parsed = parse(args, []);
  const [base, id] = positionals(parsed, ['base-url', 'key-id']);
  const baseUrl = baseUrlOf(base);
  const { body: revoked } = await call(key(), 'POST', `${baseUrl}/keys/${encodeURIComponent(id)}/revoke`, {});
  io.out(
    `revoked ${revoked.id} (${revoked.prefix}…) "${revoked.name}" of ${revoked.principal} at ${revoked.revokedAt}`,
  );
  return 0;
}

async function keysRoll(args: readonly string[], io: Io, key: () => string): Promise<number> {
  const parsed = parse(args, ['grace-seconds']);
  const [base, id] = positionals(parsed, ['base-url', 'key-id']);
  const baseUrl = baseUrlOf(base);
  const grace = single(parsed, 'grace-seconds');
  if (grace !== undefined && !/^\d+$/.test(grace)) {
    throw new UsageError(`--grace-seconds takes a whole number of seconds (0 to 604800), got ${grace}`);
  }
  const body = grace === undefined ? {} : { graceSeconds: Number(grace) };
  const { body: made } = await call(key(), 'POST', `${baseUrl}/keys/${encodeURIComponent(id)}/roll`, body);
  io.out(String(made.key));
  io.err(`rolled ${id} into ${describeKey(made)}`);
  io.err(
    `${id} keeps working for ${grace ?? 86400} s more (or until its own expiry, if sooner); the new key is shown this once (above, on stdout)`,
  );
  return 0;
}

async function sellersCreate(args: readonly string[], io: Io, key: () => string): Promise<number> {
  const parsed = parse(args, ['name']);
  const [base] = positionals(parsed, ['base-url']);
  const baseUrl = baseUrlOf(base);
  const name = single(parsed, 'name');
  if (name === undefined) throw new UsageError('sellers create needs --name N');
  const { body: seller } = await call(key(), 'POST', `${baseUrl}/sellers`, { name });
  io.out(String(seller.id));
  io.err(`created Seller ${seller.id} "${seller.name}" at ${seller.createdAt}`);
  return 0;
}

async function sellersList(args: readonly string[], io: Io, key: () => string): Promise<number> {
  const parsed = parse(args, []);
  const [base] = positionals(parsed, ['base-url']);
  const sellers = await everyPage(key(), `${baseUrlOf(base)}/sellers`);
  for (const line of table(
    ['ID', 'NAME', 'CREATED'],
    sellers.map((s) => [s.id, s.name, s.createdAt]),
  ))
    io.out(line);
  io.err(`${sellers.length} Seller${sellers.length === 1 ? '' : 's'}`);
  return 0;
}

export type Action = (args: readonly string[], io: Io, key: () => string) => Promise<number>;

/** The groups of this file; `users` is cli-users.ts's, handed in by the command line (cli.ts). */
const COMMANDS: Record<'keys' | 'sellers', Record<string, Action>> = {
  keys: { create: keysCreate, list: keysList, revoke: keysRevoke, roll: keysRoll },
  sellers: { create: sellersCreate, list: sellersList },
};

/**
 * `keys …`, `sellers …` or `users …`: 0 when the service did it, 1 when it refused or could not be reached
 * (its error on stderr), 2 for a command line it cannot run (`usage` prints why, and the usage).
 */
export async function accountsCommand(
  group: 'keys' | 'sellers' | 'users',
  args: readonly string[],
  io: Io,
  usage: (problem: string) => number,
  env: NodeJS.ProcessEnv = process.env,
  /** The `users` group's commands (cli-users.ts, which builds on this file). */
  users: Record<string, Action> = {},
): Promise<number> {
  const [sub, ...rest] = args;
  const actions = group === 'users' ? users : COMMANDS[group];
  const action = sub === undefined ? undefined : actions[sub];
  if (action === undefined) {
    const known = Object.keys(actions).join(', ');
    return usage(`${COMMAND} ${group} takes one of: ${known}${sub === undefined ? '' : `; got ${sub}`}`);
  }
  try {
    return await action(rest, io, () => keyFromEnvironment(env));
  } catch (error) {
    if (error instanceof UsageError) return usage(`${group} ${sub}: ${error.message}`);
    if (error instanceof RequestError) {
      io.err(`${COMMAND} ${group} ${sub}: ${error.message}`);
      return 1;
    }
    throw error;
  }
}
