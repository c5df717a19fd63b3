import autocannon from 'autocannon';

const [url, path, secs] = [process.argv[2], process.argv[3], Number(process.argv[4] ?? 5)];
const body = JSON.stringify({ account: { name: 'P', industry: 'saas', actor: 'B2B' }, listValueUsd: 50000 });
const headers = {
  'content-type': 'application/json',
  ...(process.env.KEY ? { authorization: `Bearer ${process.env.KEY}` } : {}),
};
const r = await autocannon({
  url,
  connections: 10,
  duration: secs,
  requests: [{ method: 'POST', path, headers, body }],
});
console.log(JSON.stringify({ rps: r.requests.average, total: r.requests.total, non2xx: r.non2xx, p99: r.latency.p99 }));
