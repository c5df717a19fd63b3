// One delivery attempt over HTTP (D-42): POST the body, no redirect followed (a 3xx is an
// answer like any other, and not a 2xx), at most 64 KiB of the answer read then dropped, the
// whole attempt bounded by a timeout, and, unless private addresses are allowed, the address
// connected to checked (checkedLookup) so that no name can lead to a forbidden one.
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { checkedLookup, checkedLookupVia, hostOf, isForbiddenAddress } from '../service/webhooks/address-policy.ts';

export const MAX_ANSWER_BYTES = 64 * 1024;

export interface PostOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  /** Aborts the attempt (the worker stopping): the outcome is then not to be recorded. */
  signal?: AbortSignal;
  /** How a name is resolved before its address is checked: node's DNS lookup unless a test gives another. */
  resolve?: LookupFunction;
}

export interface PostOutcome {
  /** The receiver's status, when it answered in time. */
  status?: number;
  /** Why there is no status: refused, timed out, a forbidden address, … */
  error?: string;
  /** How many bytes of the answer were read (never more than MAX_ANSWER_BYTES). */
  bytesRead: number;
}

export function postOnce(
  target: string,
  headers: Record<string, string>,
  body: string,
  options: PostOptions,
): Promise<PostOutcome> {
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      resolve({ error: 'the url is not a URL', bytesRead: 0 });
      return;
    }
    const host = hostOf(url);
    // An address in the URL is connected to without any lookup: checked here.
    if (!options.allowPrivate && isIP(host) !== 0 && isForbiddenAddress(host)) {
      resolve({ error: `${host} is a loopback, private or link-local address`, bytesRead: 0 });
      return;
    }
    const client = url.protocol === 'https:' ? https : url.protocol === 'http:' ? http : undefined;
    if (!client) {
      resolve({ error: `${url.protocol} is not http: or https:`, bytesRead: 0 });
      return;
    }
    let settled = false;
    let status: number | undefined;
    let bytesRead = 0;
    const finish = (outcome: Omit<PostOutcome, 'bytesRead'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', abort);
      request.destroy();
      resolve({ ...outcome, bytesRead });
    };
    const request = client.request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      // A fresh connection per attempt, resolved (and checked) each time.
      agent: false,
      ...(options.allowPrivate
        ? options.resolve && { lookup: options.resolve }
        : { lookup: options.resolve ? checkedLookupVia(options.resolve) : checkedLookup }),
    });
    const timer = setTimeout(() => {
      // A status that came in time stands; only the rest of its body was cut.
      finish(
        status === undefined ? { error: `no answer within ${options.timeoutMs} ms` } : { status, error: undefined },
      );
    }, options.timeoutMs);
    const abort = () => finish({ error: 'the worker stopped' });
    options.signal?.addEventListener('abort', abort);
    request.on('response', (response) => {
      status = response.statusCode ?? 0;
      response.on('data', (chunk: Buffer) => {
        bytesRead = Math.min(MAX_ANSWER_BYTES, bytesRead + chunk.length);
        if (bytesRead >= MAX_ANSWER_BYTES) finish({ status });
      });
      response.on('end', () => finish({ status }));
      response.on('error', () => finish({ status }));
    });
    request.on('error', (error: NodeJS.ErrnoException) => finish({ error: error.message || error.code || 'failed' }));
    request.end(body);
  });
}
