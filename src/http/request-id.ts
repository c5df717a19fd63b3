// D-38: the caller's x-request-id when it sent a well-formed one (1 to 128 visible ASCII
// characters), else a fresh one: this process's random prefix and a counter, unique across
// instances and cheaper than a UUID per request.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const WELL_FORMED = /^[\x21-\x7e]{1,128}$/;
const PREFIX = randomBytes(6).toString('base64url');
let counter = 0;

/** A fresh id: for a request that sent none, or one the HTTP parser refused (src/http/client-errors.ts). */
export function freshRequestId(): string {
  counter++;
  return `${PREFIX}-${counter.toString(36)}`;
}

export function requestId(request: IncomingMessage): string {
  const sent = request.headers['x-request-id'];
  if (typeof sent === 'string' && WELL_FORMED.test(sent)) return sent;
  return freshRequestId();
}
