// Safe retries (D-37): what identifies a request under an idempotency key, and how long an
// answer is kept. The service stores the answer in the unit of work of the request's effects.
import { createHash, hash } from 'node:crypto';

/** Keys are kept 24 hours of real time (machine time, not the demo clock). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** 1 to 255 visible ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** An answer as every door gives it: status, body, and the Location of what a 201 created (D-4). */
export interface Answer {
  status: number;
  body: unknown;
  location?: string;
  /** D-47: the version of the one deal the answer carries, as an entity tag. */
  etag?: string;
}

/** An answer as a key stores it: its body as the JSON bytes sent. */
export interface RenderedAnswer {
  status: number;
  body: string;
  location?: string;
  /** The ETag of the one deal the answer carries (D-47), replayed with it. */
  etag?: string;
}

/** JSON with object keys sorted, so that key order does not make two bodies differ. */
function canonical(value: unknown): string {
  if (value === undefined) return '';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += value[i] === undefined ? 'null' : canonical(value[i]);
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  let out = '{';
  for (const key of Object.keys(record).sort()) {
    const item = record[key];
    if (item === undefined) continue;
    if (out.length > 1) out += ',';
    out += `${JSON.stringify(key)}:${canonical(item)}`;
  }
  return `${out}}`;
}

// One-shot hashing where the runtime has it (Node 20.12+): a third of createHash's cost.
const sha256 =
  typeof hash === 'function'
    ? (text: string) => hash('sha256', text, 'base64url')
    : (text: string) => createHash('sha256').update(text).digest('base64url');

/**
 * What one request is, whichever door it came through: the operation, the ids its path names
 * and the parsed body, key order ignored. A query string is not part of it (a write's only one
 * is `dryRun`, and a dry run is never keyed), so `?dryRun=false`, no query at all and the MCP
 * tool of the same operation are one request.
 */
export function fingerprint(operationId: string, pathIds: readonly string[], body: unknown): string {
  return sha256(`${operationId} ${pathIds.join('/')}\n${canonical(body)}`);
}

/** Statuses of requests that got past validation: their answers are stored (D-37). */
export function isStoredStatus(status: number): boolean {
  return (status >= 200 && status < 300) || status === 404 || status === 409 || status === 422;
}
