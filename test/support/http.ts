// End-to-end harness: a real service on a free loopback port, and a small fetch client.
// TEST_STORE picks the store of every test server: `memory` (default), `postgres` (each server
// on a fresh schema of TEST_DATABASE_URL, dropped when it closes, migrated as the owner role of
// TEST_DATABASE_OWNER_URL when set: D-77) or `pglite` (in memory), so
// the same end-to-end suite runs unchanged on every adapter. DATABASE_URL is never used here.
import type { Config } from '../../src/config.ts';
import type { LogStream } from '../../src/http/app.ts';
import { type RunningServer, startServer } from '../../src/server.ts';
import type { Clock } from '../../src/service/pipeline-service.ts';
import { createStore } from '../../src/store/create-store.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import type { Store } from '../../src/store/store.ts';
import { checkAgainstContract } from './contract-check.ts';
import { createTestSchema } from './postgres.ts';

export interface Answer<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface TestServer {
  server: RunningServer;
  url: string;
  prefix: string;
  get<T = any>(path: string, headers?: Record<string, string>): Promise<Answer<T>>;
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

/**
 * A small fetch client for a service at url (a test server, or a service process). Every answer
 * is held to the contract the service serves (contract-check.ts).
 */
export function httpClient(url: string): Pick<TestServer, 'get' | 'post' | 'raw'> {
  const raw = async (method: string, path: string, body: string | undefined, headers: Record<string, string> = {}) => {
    const response = await fetch(url + path, { method, body, headers });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    await checkAgainstContract(url, method, path, response.status, response.headers.get('content-type'), parsed);
    return { status: response.status, body: parsed as any, headers: response.headers };
  };
  return {
    get: (path, headers) => raw('GET', path, undefined, headers),
    post: (path, body, headers) =>
      body === undefined
        ? raw('POST', path, undefined, headers)
        : raw('POST', path, JSON.stringify(body), { 'content-type': 'application/json', ...headers }),
    raw,
  };
}

/** The store a test server runs on, and what to clean up after the server closed. */
async function testStore(): Promise<{ store: Store; cleanup(): Promise<void> }> {
  const kind = process.env.TEST_STORE || 'memory';
  const none = async () => undefined;
  if (kind === 'memory') return { store: new MemoryStore(), cleanup: none };
  if (kind === 'pglite') return { store: await createStore('pglite:memory://'), cleanup: none };
  if (kind === 'postgres') {
    const base = process.env.TEST_DATABASE_URL;
    if (!base) throw new Error('TEST_STORE=postgres needs TEST_DATABASE_URL (.ci/start-postgres prints one)');
    const schema = await createTestSchema(base, 'e2e');
    try {
      return {
        store: await createStore(schema.url, { poolSize: 5, ownerUrl: schema.ownerUrl }),
        cleanup: () => schema.drop(),
      };
    } catch (error) {
      await schema.drop();
      throw error;
    }
  }
  throw new Error(`TEST_STORE must be memory, postgres or pglite, got ${JSON.stringify(kind)}`);
}

export async function startTestServer(
  options: {
    config?: Partial<Config>;
    clock?: Clock;
    store?: Store;
    /** Log at info to this stream (a test server logs nothing otherwise). */
    logStream?: LogStream;
  } = {},
): Promise<TestServer> {
  const chosen = options.store ? { store: options.store, cleanup: async () => undefined } : await testStore();
  const logged = options.logStream !== undefined;
  const server = await startServer({
    config: {
      port: 0,
      host: '127.0.0.1',
      timerIntervalSeconds: 0,
      ...(logged ? { logLevel: 'info' } : {}),
      ...options.config,
    },
    clock: options.clock,
    store: chosen.store,
    log: logged,
    logStream: options.logStream,
  });
  return {
    server,
    url: server.url,
    prefix: server.config.dealPrefix,
    ...httpClient(server.url),
    async close() {
      await server.close();
      await chosen.cleanup();
    },
  };
}

export const account = (overrides: Record<string, unknown> = {}) => ({
  name: 'Fictional Widgets Ltd',
  industry: 'saas',
  actor: 'B2B',
  ...overrides,
});
