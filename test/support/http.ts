// End-to-end harness: a real service on a free loopback port, and a small fetch client.
import type { Config } from '../../src/config.ts';
import { type RunningServer, startServer } from '../../src/server.ts';
import type { Clock } from '../../src/service/pipeline-service.ts';
import type { Store } from '../../src/store/store.ts';

export interface Answer<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface TestServer {
  server: RunningServer;
  url: string;
  prefix: string;
  get<T = any>(path: string): Promise<Answer<T>>;
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer<T>>;
  /** Sends a raw string body (for malformed JSON and the like). */
  raw<T = any>(
    method: string,
    path: string,
    body: string | undefined,
    headers?: Record<string, string>,
  ): Promise<Answer<T>>;
  close(): Promise<void>;
}

export async function startTestServer(
  options: { config?: Partial<Config>; clock?: Clock; store?: Store } = {},
): Promise<TestServer> {
  const server = await startServer({
    config: { port: 0, host: '127.0.0.1', timerIntervalSeconds: 0, ...options.config },
    clock: options.clock,
    store: options.store,
    log: false,
  });
  const raw = async (method: string, path: string, body: string | undefined, headers: Record<string, string> = {}) => {
    const response = await fetch(server.url + path, { method, body, headers });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: parsed as any, headers: response.headers };
  };
  return {
    server,
    url: server.url,
    prefix: server.config.dealPrefix,
    get: (path) => raw('GET', path, undefined),
    post: (path, body, headers) =>
      body === undefined
        ? raw('POST', path, undefined, headers)
        : raw('POST', path, JSON.stringify(body), { 'content-type': 'application/json', ...headers }),
    raw,
    close: () => server.close(),
  };
}

export const account = (overrides: Record<string, unknown> = {}) => ({
  name: 'Fictional Widgets Ltd',
  industry: 'saas',
  actor: 'B2B',
  ...overrides,
});
