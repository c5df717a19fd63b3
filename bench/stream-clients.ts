// Clients of GET /events/stream for `npm run bench`, in a process of their own so that reading
// does not take the CPU of the process that drives the load: `node --import tsx
// bench/stream-clients.ts <url> <count>`. Each client reads everything its stream sends (counted,
// not parsed). Sends 'ready' once every stream is open; on 'stop', sends a report and exits.
// In keys mode BENCH_STREAM_KEYS holds keys (comma-separated, never in the arguments): client i
// streams with key i modulo their number.
import { type ClientRequest, request as httpRequest } from 'node:http';

const [url, countText] = process.argv.slice(2);
const count = Number(countText);
/** How every event's message begins (the message before it, or the opening comment, ends with a blank line). */
const ID_LINE = Buffer.from('\nid: ');
const events = new Array<number>(count).fill(0);
const requests: ClientRequest[] = [];
const keys = process.env.BENCH_STREAM_KEYS?.split(',').filter(Boolean) ?? [];
let ended = 0;

await Promise.all(
  Array.from(
    { length: count },
    (_, i) =>
      new Promise<void>((resolve, reject) => {
        const headers = keys.length > 0 ? { authorization: `Bearer ${keys[i % keys.length]}` } : {};
        const req = httpRequest(`${url}/events/stream`, { headers }, (response) => {
          if (response.statusCode !== 200) reject(new Error(`stream ${i}: ${response.statusCode}`));
          response.on('data', (chunk: Buffer) => {
            for (let at = chunk.indexOf(ID_LINE); at >= 0; at = chunk.indexOf(ID_LINE, at + 1)) events[i]++;
          });
          response.once('end', () => ended++);
          resolve();
        });
        req.on('error', () => undefined);
        req.end();
        requests.push(req);
      }),
  ),
);
process.send?.('ready');
process.on('message', (message) => {
  if (message !== 'stop') return;
  for (const req of requests) req.destroy();
  const report = `${count} stream clients, ${ended} ended early; events read per client: ${Math.min(...events)} to ${Math.max(...events)}`;
  process.send?.(report, () => process.exit(0));
});
