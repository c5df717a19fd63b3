// `npm run bench:work-curve`: what a microsecond of handler work costs in throughput on this
// machine. The reference server (bench/reference-server.ts) answers a created deal's bytes
// after 0, 5, 10, 20 and 40 µs of busy work; each row says how many µs a request took in all
// and how many of them each µs of work added. Options: --duration <s> (default 5).
import autocannon from 'autocannon';
import { startServiceProcess } from './service-process.ts';

const durationAt = process.argv.indexOf('--duration');
const duration = durationAt > 0 ? Number(process.argv[durationAt + 1]) : 5;
const body = JSON.stringify({
  account: { name: 'Curve Fictional', industry: 'saas', actor: 'B2B' },
  listValueUsd: 50_000,
});
const json = { 'content-type': 'application/json' };

// The answer: what the service answers to a create, taken from a service started for it.
const service = await startServiceProcess({ DATABASE_URL: '', TIMER_INTERVAL_SECONDS: '0' });
let answer: string;
try {
  const response = await fetch(`${service.url}/pipeline/deals`, { method: 'POST', headers: json, body });
  answer = await response.text();
} finally {
  await service.stop();
}

const rows: { 'work µs': number; 'req/s': number; 'µs a request': number; 'µs per µs of work': string }[] = [];
let base = 0;
for (const work of [0, 5, 10, 20, 40]) {
  const reference = await startServiceProcess(
    { REFERENCE_BODY: answer, REFERENCE_WORK_US: String(work) },
    [],
    'bench/reference-server.ts',
  );
  try {
    const result = await autocannon({
      url: reference.url,
      connections: 10,
      duration,
      requests: [{ method: 'POST', path: '/reference', headers: json, body }],
    });
    const perRequest = 1e6 / result.requests.average;
    if (work === 0) base = perRequest;
    rows.push({
      'work µs': work,
      'req/s': Math.round(result.requests.average),
      'µs a request': Math.round(perRequest * 10) / 10,
      'µs per µs of work': work === 0 ? '' : ((perRequest - base) / work).toFixed(2),
    });
  } finally {
    await reference.stop();
  }
}
console.table(rows);
