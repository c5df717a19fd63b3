// In-process harness: the service's very app (src/server.ts, composeServer) on the memory store,
// called through Fastify's inject: no port, no socket, no database server, no child process, so
// a test of the HTTP door costs what its work costs. Every answer is held to the contract the app
// serves, as test/support/http.ts holds a real server's; a snapshot of the store says whether a
// request changed anything.
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../src/config.ts';
import { composeServer } from '../../src/server.ts';
import type { Clock, PipelineService } from '../../src/service/pipeline-service.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import type { Store } from '../../src/store/store.ts';
import { ERRORS } from '../../src/views/errors.ts';
import { contractCheck } from './contract-check.ts';
import { type Snapshot, snapshotOf } from './store-snapshot.ts';

export interface Answer<T = any> {
  status: number;
  body: T;
  headers: Headers;
  /** The body as sent. */
  text: string;
}

export interface SendOptions {
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as it is (malformed JSON and the like); no content-type unless headers name one. */
  raw?: string;
  headers?: Record<string, string>;
}

export interface InjectServer {
  app: FastifyInstance;
  service: PipelineService;
  store: Store;
  prefix: string;
  send<T = any>(method: string, path: string, options?: SendOptions): Promise<Answer<T>>;
  get<T = any>(path: string, headers?: Record<string, string>): Promise<Answer<T>>;
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer<T>>;
  snapshot(): Promise<Snapshot>;
  close(): Promise<void>;
}

/** A fixed demo clock, so that answers made twice are alike to the byte. */
export const FIXED_CLOCK: Clock = { now: () => Date.parse('2026-03-02T10:00:00.000Z') };

/** The check of each contract served, made once: most servers of a file serve the same one. */
const checks = new Map<string, ReturnType<typeof contractCheck>>();

export async function injectServer(
  options: { config?: Partial<Config>; clock?: Clock; store?: Store } = {},
): Promise<InjectServer> {
  const composed = await composeServer({
    config: { port: 0, host: '127.0.0.1', timerIntervalSeconds: 0, metrics: false, ...options.config },
    clock: options.clock ?? FIXED_CLOCK,
    store: options.store ?? new MemoryStore(),
    log: false,
  });
  const { app, service, store, config } = composed;
  const contract = (await app.inject({ method: 'GET', url: '/openapi.json' })).body;
  let check = checks.get(contract);
  if (check === undefined) {
    check = contractCheck(JSON.parse(contract));
    checks.set(contract, check);
  }
  const checkAnswer = check;

  const send = async <T>(method: string, path: string, { body, raw, headers = {} }: SendOptions = {}) => {
    const json = body !== undefined;
    const response = await app.inject({
      method: method as 'GET',
      url: path,
      headers: { ...(json ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(json ? { payload: JSON.stringify(body) } : raw !== undefined ? { payload: raw } : {}),
    });
    const text = response.body;
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    const answered = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined) answered.set(name, Array.isArray(value) ? value.join(', ') : String(value));
    }
    checkAnswer(method, path, response.statusCode, answered.get('content-type'), parsed);
    return { status: response.statusCode, body: parsed as T, headers: answered, text };
  };

  return {
    app,
    service,
    store,
    prefix: config.dealPrefix,
    send,
    get: (path, headers) => send('GET', path, { headers }),
    post: (path, body, headers) => send('POST', path, { body, headers }),
    snapshot: () => snapshotOf(store),
    async close() {
      await app.close();
      await service.close();
      await store.close();
    },
  };
}

/**
 * Asserts an error answer of the catalogue (src/views/errors.ts): this status and code, the status
 * the catalogue gives the code, and words saying what went wrong. Answers the body.
 */
export function assertError(answer: Answer, status: number, code: string): { error: string; code: string } {
  assert.equal(answer.status, status, `expected ${status} ${code}, got ${answer.status}: ${answer.text}`);
  assert.equal(answer.body?.code, code, answer.text);
  assert.equal(
    ERRORS[code as keyof typeof ERRORS]?.status,
    status,
    `${code} is the catalogue's, with status ${status}`,
  );
  assert.ok(typeof answer.body.error === 'string' && answer.body.error.length > 0, 'the error says what went wrong');
  return answer.body;
}
