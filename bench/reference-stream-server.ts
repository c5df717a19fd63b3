// The floor of a sell watched by stream clients: bare `node:http`, no framework, no
// gate, no store, answering `POST /pipeline/sell` with the bytes the service answered
// (REFERENCE_BODY) and writing to every open `GET /events/stream` the bytes one sell sent each
// of the service's stream clients (REFERENCE_EVENTS, base64). The sells of one turn of the event
// loop go out together, one write per client, as the service's stream writes what the commits of
// a moment published. The bench runs the same 100 readers against it, so the service's CPU per
// sell with its readers is judged against what writing those bytes to them costs at the least.
import { createServer, type ServerResponse } from 'node:http';

const answer = Buffer.from(process.env.REFERENCE_BODY ?? '{}');
const events = Buffer.from(process.env.REFERENCE_EVENTS ?? '', 'base64');
const streams = new Set<ServerResponse>();
/** Sells answered since the last write to the streams. */
let pending = 0;
function flush() {
  const bytes = pending === 1 ? events : Buffer.concat(Array.from({ length: pending }, () => events));
  pending = 0;
  for (const stream of streams) stream.write(bytes);
}

const server = createServer((request, response) => {
  if (request.method === 'GET' && request.url === '/health') {
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    return;
  }
  if (request.method === 'GET' && request.url === '/events/stream') {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    response.write(': stream\n\n');
    streams.add(response);
    response.on('close', () => streams.delete(response));
    return;
  }
  if (request.method === 'POST' && request.url === '/pipeline/sell') {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      // What any implementation does with the body: parse it.
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      response.writeHead(201, { 'content-type': 'application/json; charset=utf-8' }).end(answer);
      if (pending++ === 0) setImmediate(flush);
    });
    return;
  }
  response.writeHead(404).end();
});
server.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
