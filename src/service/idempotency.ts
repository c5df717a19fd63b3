// Safe retries (D-37): what identifies a request under an idempotency key, and how long an
// answer is kept. The service stores the answer in the unit of work of the request's effects.
import { createHash } from 'node:crypto';

/** Keys are kept 24 hours of real time (machine time, not the demo clock). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** 1 to 255 visible ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** An answer as a door sends it: status, JSON bytes, and the Location of what a 201 created. */
export interface RenderedAnswer {
  status: number;
  body: string;
  location?: string;
}

/** The request a key was first used with. */
export interface KeyedRequest {
  key: string;
  fingerprint: string;
}

/** JSON with object keys sorted, so that key order does not make two bodies differ. */
function canonical(value: unknown): string {
  if (value === undefined) return '';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonical(v))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Method, path (with its query string) and the parsed body, key order ignored. The demo MCP
 * tools compute the fingerprint of the HTTP operation they stand for, so one key means one
 * request whichever door it came through.
 */
export function fingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${path}\n${canonical(body)}`)
    .digest('base64url');
}

/** Statuses of requests that got past validation: their answers are stored (D-37). */
export function isStoredStatus(status: number): boolean {
  return (status >= 200 && status < 300) || status === 404 || status === 409 || status === 422;
}
