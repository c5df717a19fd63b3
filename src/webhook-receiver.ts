// A webhook receiver for trying the service's webhooks on one machine (docs/events-and-webhooks.md):
// it verifies each delivery's Standard Webhooks signature with the `standardwebhooks` package,
// as any receiver should, prints the event on one line, and answers 204 (or 401 for a delivery
// whose signature does not verify, which the service then retries). Not part of the service.
import { createServer, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';

export interface ReceiverOptions {
  port: number;
  host?: string;
  /** The webhook's secret (`whsec_…`), as POST /webhooks answered it. */
  secret: string;
  /** Where each line goes. */
  print: (line: string) => void;
}

/** The most a delivery may carry (the service's own body limit). */
const MAX_BODY = 64 * 1024;

export async function startReceiver(options: ReceiverOptions): Promise<{ server: Server; url: string }> {
  const verifier = new Webhook(options.secret);
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(
        ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(request.headers[name])]),
      );
      try {
        if (size > MAX_BODY) throw new Error('body over 64 KiB');
        const event = verifier.verify(body, headers) as { id: string; type: string; data: Record<string, unknown> };
        const record = (event.data.deal ?? event.data.gig) as { id?: string; dealId?: string } | undefined;
        const about = (event.data.dealId ?? record?.dealId ?? record?.id ?? '') as string;
        options.print(`${event.id} ${event.type}${about ? ` ${about}` : ''} (signature verified) ${body}`);
        response.writeHead(204).end();
      } catch (error) {
        options.print(`refused a delivery (${headers['webhook-id']}): ${(error as Error).message}`);
        response.writeHead(401, { 'content-type': 'text/plain' }).end('signature not verified');
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return { server, url: `http://${options.host ?? '127.0.0.1'}:${port}/` };
}
