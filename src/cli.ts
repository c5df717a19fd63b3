// The project's command line (bin/sales-pipeline-gate.mjs runs its build, dist/cli.js):
//   sales-pipeline-gate mcp               the demo's MCP server over stdio, on a fresh in-memory store
//   sales-pipeline-gate verify <base-url> the /verify probe suite against any deployment; exit 1 on a failure
//   sales-pipeline-gate audit <base-url>  the invariants over a deployment's records; exit 1 on a violation
//   sales-pipeline-gate receive           a local webhook receiver that verifies and prints deliveries
//   sales-pipeline-gate keys|sellers|users ...  keys mode's accounts (src/cli-keys.ts, src/cli-users.ts), with the key in PIPELINE_KEY
// In `mcp`, stdout carries MCP messages only: everything else goes to stderr.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { accountsCommand, type Io, KEY_VARIABLE } from './cli-keys.ts';
import { USER_COMMANDS } from './cli-users.ts';
import { COMMAND } from './command.ts';
import { loadConfig } from './config.ts';
import { createDemoMcpServer, DEMO_TOOLS } from './mcp/demo-server.ts';
import { createPipelineService } from './service/pipeline-service.ts';
import { MemoryStore } from './store/memory/memory-store.ts';

export type { Io } from './cli-keys.ts';

export const USAGE = `Usage: ${COMMAND} <command>

Commands:
  mcp                 Run the demo's MCP server over stdio (deal and marketplace tools: sell,
                      advance_deal, claim_gig, ...) on a fresh in-memory store seeded like the
                      demo. Logs go to stderr.
  verify <base-url>   Run the probe suite of /verify against a deployment, e.g.
                      ${COMMAND} verify http://127.0.0.1:3000; exits 1 if a probe fails.
  audit <base-url> [--prefix /pipeline] [--json]
                      Read every deal, gig, closer, settlement and event of a deployment
                      through its public API and check the invariants (money adds up, one
                      payout per paid gig, Registers match their gigs, legal stage moves,
                      activity times never back, one active gig per deal and role, ids in
                      creation order, the feed agrees with the records); prints each
                      violation with the records involved; exits 1 if there is any. In keys
                      mode set ${KEY_VARIABLE} to the operator's key: it reads everything.
  receive [--port N]  Run a local webhook receiver (default port 4000) that verifies each
                      delivery's signature with the secret in WEBHOOK_SECRET (the whsec_...
                      of POST /webhooks) and prints the event; a delivery that does not
                      verify is answered 401.

Keys mode (AUTH=keys): accounts, keys and people, with the key in ${KEY_VARIABLE}
  keys create <base-url> --name N [--principal P] [--scope S]... [--expires-at ISO]
                      Issue a key of P (operator, seller_NNNN or closer_NNNN; default: the
                      caller's own; only the operator may name another) with the scopes given
                      (default: every scope of P's kind). Prints the new key alone on stdout,
                      this once (the service keeps only its hash), and its id and prefix on
                      stderr.
  keys list <base-url> [--principal P]
                      A table of keys (the operator's key: every key, or P's): id, prefix,
                      name, principal, scopes, created, expires, last used, revoked.
  keys revoke <base-url> <key-id>
                      Revoke a key; every instance refuses it within 5 s.
  keys roll <base-url> <key-id> [--grace-seconds N]
                      A new key of the same principal and scopes, printed on stdout; the old
                      one keeps working N seconds more (default 86400, at most 604800).
  sellers create <base-url> --name N
                      Create a Seller (the operator's key); prints its id.
  sellers list <base-url>
                      A table of Sellers: id, name, created.
  users create <base-url> --email E --name N --role R [--principal P]
                      Invite a person of P (default: the caller's own principal; only the
                      operator may name another) with role R: admin, manager, rep or viewer
                      for a Seller, closer for a closer, operator for the operator. The
                      invitation's link is mailed (SMTP_URL), or written to the service's log.
                      Prints the user's id.
  users list <base-url> [--principal P]
                      A table of people: id, email, name, role, principal, status (invited,
                      active, disabled), last sign-in.
  users disable <base-url> <user-id>
                      Disable a person: every session of theirs ends within 5 s, and they
                      cannot sign in. users enable <base-url> <user-id> lets them in again.
                      These commands take the key they act with from the environment variable
                      ${KEY_VARIABLE}, never from the command line: every user of the machine
                      can read a command's arguments (ps). E.g.
                      read -rs ${KEY_VARIABLE} && export ${KEY_VARIABLE}
                      Exit 0 when done, 1 when the service refused (its error on stderr) or
                      could not be reached, 2 for a command line that cannot run.

  --help              Show this help.
`;

const processIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** Runs one command; resolves to the exit code, or undefined for a server that keeps running. */
export async function main(argv: readonly string[], io: Io = processIo): Promise<number | undefined> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'mcp':
      if (rest.length > 0) return usage(io, `${COMMAND} mcp takes no arguments, got: ${rest.join(' ')}`);
      await serveStdio(io);
      return undefined;
    case 'verify':
      if (rest.length !== 1) return usage(io, `${COMMAND} verify takes one argument: the base URL of a deployment`);
      return verify(rest[0], io);
    case 'audit':
      return audit(rest, io);
    case 'receive':
      return receive(rest, io);
    case 'keys':
    case 'sellers':
    case 'users':
      return accountsCommand(command, rest, io, (problem) => usage(io, problem), process.env, USER_COMMANDS);
    case '--help':
    case '-h':
    case 'help':
      io.out(USAGE.trimEnd());
      return 0;
    default:
      return usage(io, command === undefined ? 'no command given' : `unknown command: ${command}`);
  }
}

function usage(io: Io, problem: string): number {
  io.err(`${COMMAND}: ${problem}\n`);
  io.err(USAGE.trimEnd());
  return 2;
}

async function serveStdio(io: Io) {
  const config = loadConfig();
  const store = new MemoryStore();
  const service = createPipelineService(store, { now: () => Date.now() }, { claimTtlHours: config.claimTtlHours });
  await service.platform.seedIfEmpty();
  // The platform timers run as in the live service (claim expiry, unclaimed gigs, stalls).
  if (config.timerIntervalSeconds > 0) {
    let running = false;
    setInterval(() => {
      if (running) return;
      running = true;
      service.platform
        .runTimers()
        .catch((error) => io.err(`${COMMAND} mcp: platform timers failed: ${String(error)}`))
        .finally(() => {
          running = false;
        });
    }, config.timerIntervalSeconds * 1000).unref();
  }
  const server = createDemoMcpServer(service, config.dealPrefix);
  const transport = new StdioServerTransport();
  transport.onerror = (error) => io.err(`${COMMAND} mcp: ${error.message}`);
  // The stdio transport does not watch for the end of stdin: when the client goes, so do we.
  process.stdin.once('end', () => {
    void server.close().finally(() => process.exit(0));
  });
  await server.connect(transport);
  const tools = DEMO_TOOLS.map((tool) => tool.name).join(', ');
  io.err(`${COMMAND} mcp: demo MCP server on stdio (tools ${tools}); in-memory demo store`);
}

async function verify(baseUrl: string, io: Io): Promise<number> {
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    return usage(io, `not an http(s) URL: ${baseUrl}`);
  }
  const { runProbes } = await import('./public/probes.ts');
  const report = await runProbes(baseUrl);
  for (const result of report.results) io.out(`${result.ok ? 'ok  ' : 'FAIL'} ${result.id}: ${result.detail}`);
  const failed = report.results.filter((r) => !r.ok).length;
  io.out(
    failed === 0
      ? `all ${report.results.length} probes passed against ${baseUrl}`
      : `${failed} of ${report.results.length} probes failed against ${baseUrl}`,
  );
  return report.ok ? 0 : 1;
}

async function audit(args: readonly string[], io: Io): Promise<number> {
  let json = false;
  let prefix = '/pipeline';
  const urls: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--json') json = true;
    else if (args[i] === '--prefix' && i + 1 < args.length) prefix = args[++i];
    else urls.push(args[i]);
  }
  if (urls.length !== 1) return usage(io, `${COMMAND} audit takes one base URL (and --prefix P, --json)`);
  const [baseUrl] = urls;
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    return usage(io, `not an http(s) URL: ${baseUrl}`);
  }
  const { auditDeployment } = await import('./audit/audit.ts');
  let report: Awaited<ReturnType<typeof auditDeployment>>;
  try {
    // Keys mode: the key in PIPELINE_KEY on every read (the operator's reads everything).
    const key = process.env[KEY_VARIABLE]?.trim();
    const keyed: typeof fetch = (input, init) =>
      fetch(input, {
        ...init,
        headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${key}` },
      });
    report = await auditDeployment(baseUrl, { prefix, ...(key ? { fetch: keyed } : {}) });
  } catch (error) {
    io.err(`${COMMAND} audit: ${(error as Error).message}`);
    return 2;
  }
  if (json) io.out(JSON.stringify(report, null, 2));
  else {
    for (const violation of report.violations) {
      io.out(`VIOLATION ${violation.invariant}: ${violation.message} [${violation.ids.join(', ')}]`);
    }
    const { deals, gigs, closers, payouts, settlements, events, transfers, refunds } = report.read;
    io.out(
      `${report.violations.length === 0 ? 'no violation' : `${report.violations.length} violations`} in ${deals} deals, ${gigs} gigs, ${closers} closers, ${payouts} payouts, ${settlements} settlements, ${transfers} transfers, ${refunds} refunds and ${events} events of ${baseUrl}`,
    );
  }
  return report.violations.length === 0 ? 0 : 1;
}

async function receive(args: readonly string[], io: Io): Promise<number | undefined> {
  let port = 4000;
  if (args.length > 0) {
    const value = args[0] === '--port' && args.length === 2 ? Number(args[1]) : Number.NaN;
    if (!Number.isInteger(value) || value < 0 || value > 65535) {
      return usage(io, `${COMMAND} receive takes --port N (0 to 65535), got: ${args.join(' ')}`);
    }
    port = value;
  }
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret?.startsWith('whsec_')) {
    return usage(io, 'set WEBHOOK_SECRET to the secret POST /webhooks answered (whsec_...)');
  }
  const { startReceiver } = await import('./webhook-receiver.ts');
  const { url } = await startReceiver({ port, secret, print: io.out });
  io.err(`${COMMAND} receive: listening on ${url}; each verified event is printed on one line`);
  return undefined;
}
