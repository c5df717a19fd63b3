// `npm run bench:profile -- <create|sell|keyed-sell|streamed-sell|advance|get|health>`: runs one scenario
// against a service started with --cpu-prof and prints where the service spent its CPU (self time,
// top 25). streamed-sell sells with 100 clients of GET /events/stream reading (bench/stream-clients.ts).
import { fork } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startServiceProcess } from './service-process.ts';

const scenario = process.argv[2] ?? 'create';
const dir = mkdtempSync(join(tmpdir(), 'pipeline-profile-'));
// The stream's readers share one address: each may hold a stream (D-238).
const service = await startServiceProcess({ TIMER_INTERVAL_SECONDS: '0', STREAMS_PER_CLIENT: '100' }, [
  '--cpu-prof',
  `--cpu-prof-dir=${dir}`,
]);
const json = { 'content-type': 'application/json' };
const body = JSON.stringify({
  account: { name: 'Profile Fictional', industry: 'saas', actor: 'B2B' },
  listValueUsd: 50_000,
});
const created = await (await fetch(`${service.url}/pipeline/deals`, { method: 'POST', headers: json, body })).json();
let keys = 0;
// Enough deals that no advance reaches a terminal deal (five advances close one).
const deals: string[] = [];
if (scenario === 'advance') {
  for (let i = 0; i < 8000; i++) {
    deals.push(
      (await (await fetch(`${service.url}/pipeline/deals`, { method: 'POST', headers: json, body })).json()).id,
    );
  }
}
const requests: Record<string, autocannon.Request> = {
  advance: {
    method: 'POST',
    setupRequest: (req: any) => {
      req.path = `/pipeline/deals/${deals[keys++ % deals.length]}/advance`;
      return req;
    },
  },
  create: { method: 'POST', path: '/pipeline/deals', headers: json, body },
  sell: { method: 'POST', path: '/pipeline/sell', headers: json, body },
  'streamed-sell': { method: 'POST', path: '/pipeline/sell', headers: json, body },
  'keyed-sell': {
    method: 'POST',
    path: '/pipeline/sell',
    body,
    setupRequest: (req: any) => {
      req.headers = { ...json, 'idempotency-key': `profile-${keys++}` };
      return req;
    },
  },
  get: { method: 'GET', path: `/pipeline/deals/${created.id}` },
  health: { method: 'GET', path: '/health' },
};
const request = requests[scenario];
if (!request) throw new Error(`scenario is one of ${Object.keys(requests).join(', ')}`);
const readers =
  scenario === 'streamed-sell'
    ? fork(fileURLToPath(new URL('./stream-clients.ts', import.meta.url)), [service.url, '100'], {
        execArgv: ['--import', 'tsx'],
      })
    : undefined;
if (readers) await new Promise((resolve) => readers.once('message', resolve));
const result = await autocannon({ url: service.url, connections: 10, duration: 5, requests: [request] });
readers?.kill();
await service.stop();
console.log(`${scenario}: ${Math.round(result.requests.average)} req/s, ${result.non2xx} non-2xx; profile in ${dir}`);

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
const file = readdirSync(dir)
  .filter((f) => f.endsWith('.cpuprofile'))
  .map((f) => join(dir, f))
  .sort((a, b) => readFileSync(b).length - readFileSync(a).length)[0];
const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const frame = (nodes.get(id) as Node).callFrame;
  const where = frame.url.includes('node_modules/') ? frame.url.split('node_modules/')[1] : frame.url.split('/').pop();
  const key = `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + profile.timeDeltas[i]);
  total += profile.timeDeltas[i];
});
for (const [key, time] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
  console.log(`${((time / total) * 100).toFixed(1).padStart(5)}%  ${key}`);
}
