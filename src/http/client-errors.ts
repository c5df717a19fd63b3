// A request Node's HTTP parser refuses (a control character in the path or a header, headers
// over the size limit, not HTTP at all) never reaches a route or a hook. It is answered here in
// the catalogue's shape with a fresh x-request-id (D-5, D-38), not with the framework's own body,
// and logged like any other request.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { errorBody, type TransportCode } from '../views/errors.ts';
import { freshRequestId } from './request-id.ts';

function answerOf(code: string | undefined): [number, TransportCode] {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'REQUEST_TIMEOUT'];
  if (code === 'HPE_HEADER_OVERFLOW') return [431, 'HEADERS_TOO_LARGE'];
  return [400, 'MALFORMED_REQUEST'];
}

/** Fastify's clientErrorHandler (called with the instance as `this`). */
export function answerClientError(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset or closed connection has no one left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code] = answerOf(error.code);
  const requestId = freshRequestId();
  this.log.info({ requestId, method: null, route: null, status, parserError: error.code ?? null }, 'request');
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(errorBody(code));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      `x-request-id: ${requestId}\r\n` +
      'content-type: application/json; charset=utf-8\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      'connection: close\r\n\r\n' +
      body,
    // The connection cannot carry another request: closed once the answer is written.
    () => socket.destroy(),
  );
}
