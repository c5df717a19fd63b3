// D-49, D-194: no web page can drive the service through a visitor's browser. One check, run by
// app.ts's onRequest hook on every request before anything else (so a refused request's body is
// never read and nothing changes):
// - Host, once: a request carrying `Host` more than once is 400 DUPLICATE_HOST (D-203; RFC 9112
//   section 3.2). Node keeps the first and drops the others, so a request could pass this guard
//   on one name and mean another to whatever reads the raw headers (a proxy in front).
// - Host: a request whose `Host` is not a name the service answers to is 403 HOST_NOT_ALLOWED.
//   This is what stops DNS rebinding: a page on evil.example whose name was re-pointed at
//   127.0.0.1 reaches the service with `Host: evil.example:3000`.
// - Origin: a POST, PUT, PATCH or DELETE, or a CORS preflight, outside ROOT, whose `Origin` is
//   neither the service's own nor listed is 403 ORIGIN_NOT_ALLOWED. A browser sends `Origin` on
//   every such request, also on a "simple" no-cors POST that no preflight guards; `Origin: null`
//   (sandboxed frames, data: and file: pages) is foreign. No `Origin` (curl, SDKs, agents):
//   unaffected. ROOT (read-only sandbox data, its MCP door) answers every origin.
// - The service's own origin is `http://` or `https://` followed by the request's own `Host`.
//   That is safe only because the Host rule runs first: a rebinding page's Origin always matches
//   its Host, and its Host was just refused. Where every host is answered (listening on a
//   non-loopback address with ALLOWED_HOSTS unset) the Origin rule still refuses every page whose
//   name is not the one the request was sent to; ALLOWED_HOSTS closes the rebinding door there.
// The common path (no Origin, an allowed Host) allocates nothing: the Host is compared in place
// against entries parsed once, here, when the app is built.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from '../views/errors.ts';

/** The names a service listening on a loopback address answers to by default, on any port. */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** What a page on an allowed origin may send to a DEMO path (its preflight's answer). */
export const DEMO_ALLOWED_HEADERS =
  'content-type, accept, idempotency-key, if-match, x-request-id, last-event-id, mcp-protocol-version';
/** What a page on an allowed origin may read of a DEMO answer, besides the safelisted headers. */
const DEMO_EXPOSED_HEADERS = 'etag, location, idempotent-replayed, x-request-id, retry-after, link, allow';

/** Whether an address to listen on is a loopback one (127.0.0.0/8, ::1, localhost). */
export function isLoopbackAddress(address: string): boolean {
  const host = address.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return (
    host === 'localhost' ||
    host === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) ||
    /^::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
  );
}

/**
 * The hosts answered when ALLOWED_HOSTS is unset: the loopback names when listening on a loopback
 * address (nothing else can reach it but a browser tricked by DNS), else every host (undefined).
 */
export function defaultAllowedHosts(listenAddress: string): readonly string[] | undefined {
  return isLoopbackAddress(listenAddress) ? LOOPBACK_HOSTS : undefined;
}

export interface HostEntry {
  /** Lower case; an IPv6 address in brackets. */
  readonly name: string;
  /** Digits, or undefined: any port. */
  readonly port: string | undefined;
}

/** An entry as config.ts validated it: `name`, `name:port`, `[v6]` or `[v6]:port`, lower case. */
export function hostEntry(entry: string): HostEntry {
  const close = entry.startsWith('[') ? entry.indexOf(']') : -1;
  const colon = entry.indexOf(':', close + 1);
  return colon === -1
    ? { name: entry.toLowerCase(), port: undefined }
    : { name: entry.slice(0, colon).toLowerCase(), port: entry.slice(colon + 1) };
}

const A = 65;
const Z = 90;

/** a[aStart..aStart+length) equals b[bStart..), ASCII case-insensitively, without a copy. */
function sameText(a: string, aStart: number, b: string, bStart: number, length: number): boolean {
  for (let i = 0; i < length; i++) {
    let x = a.charCodeAt(aStart + i);
    let y = b.charCodeAt(bStart + i);
    if (x === y) continue;
    if (x >= A && x <= Z) x += 32;
    if (y >= A && y <= Z) y += 32;
    if (x !== y) return false;
  }
  return true;
}

/** Whether a `Host` header names an allowed entry: the name case-insensitively, then the port. */
export function hostMatches(host: string, entries: readonly HostEntry[]): boolean {
  const close = host.charCodeAt(0) === 91 /* [ */ ? host.indexOf(']') : -1;
  const colon = host.indexOf(':', close + 1);
  const end = colon === -1 ? host.length : colon;
  const portLength = colon === -1 ? 0 : host.length - colon - 1;
  if (colon !== -1) {
    // A port is 1 to 5 digits; anything else is no port this service listens on.
    if (portLength === 0 || portLength > 5) return false;
    for (let i = colon + 1; i < host.length; i++) {
      const c = host.charCodeAt(i);
      if (c < 48 || c > 57) return false;
    }
  }
  for (const entry of entries) {
    if (entry.name.length !== end || !sameText(host, 0, entry.name, 0, end)) continue;
    if (entry.port === undefined) return true;
    if (portLength === entry.port.length && host.endsWith(entry.port)) return true;
  }
  return false;
}

/**
 * Whether a request carries `Host` more than once (D-203). Node's headers keep only the first, so
 * the raw list (name, value, name, value, …) is read, in place.
 */
export function repeatsHost(rawHeaders: readonly string[]): boolean {
  let seen = false;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    if (name.length !== 4 || !sameText(name, 0, 'host', 0, 4)) continue;
    if (seen) return true;
    seen = true;
  }
  return false;
}

/** `http://<host>` or `https://<host>`: the page is on the service's own origin. */
function isOwnOrigin(origin: string, host: string): boolean {
  const scheme = origin.length - host.length;
  if (scheme === 7) return sameText(origin, 0, 'http://', 0, 7) && sameText(origin, 7, host, 0, host.length);
  if (scheme === 8) return sameText(origin, 0, 'https://', 0, 8) && sameText(origin, 8, host, 0, host.length);
  return false;
}

export interface OriginGuardOptions {
  /** config.ts's entries (or LOOPBACK_HOSTS); undefined: every host is answered. */
  allowedHosts?: readonly string[];
  /** config.ts's normalized origins (lower case, no default port). */
  allowedOrigins?: readonly string[];
}

/** Answers the refusal; the request goes no further (false). */
function refuse(reply: FastifyReply, code: 'HOST_NOT_ALLOWED' | 'ORIGIN_NOT_ALLOWED' | 'DUPLICATE_HOST'): false {
  reply.code(code === 'DUPLICATE_HOST' ? 400 : 403).send(errorBody(code));
  return false;
}

/**
 * The check of every request, for the first onRequest hook: true if the request may go on, false
 * if it was refused (and answered).
 */
export function originGuard(options: OriginGuardOptions): (request: FastifyRequest, reply: FastifyReply) => boolean {
  const hosts = options.allowedHosts?.map(hostEntry);
  const origins = new Set(options.allowedOrigins ?? []);
  const listed = (origin: string) => origins.size > 0 && (origins.has(origin) || origins.has(origin.toLowerCase()));

  return function passesOrigin(request, reply) {
    const headers = request.raw.headers;
    if (repeatsHost(request.raw.rawHeaders)) {
      return refuse(reply, 'DUPLICATE_HOST');
    }
    const host = headers.host;
    if (hosts !== undefined && (host === undefined || !hostMatches(host, hosts))) {
      return refuse(reply, 'HOST_NOT_ALLOWED');
    }
    const origin = headers.origin;
    if (origin === undefined) {
      return true;
    }
    // Only now is the route's surface looked up (request.routeOptions builds an object).
    if (!request.is404 && request.routeOptions.config.surface === 'root') {
      return true;
    }
    if ((host !== undefined && isOwnOrigin(origin, host)) || listed(origin)) {
      // A page on an allowed origin may read the demo's answers, and send what its preflight lists
      // (src/http/methods.ts answers the preflight). Set on the raw response, so that an answer
      // the MCP transport writes itself carries them too.
      reply.raw.setHeader('access-control-allow-origin', origin);
      reply.raw.setHeader('access-control-expose-headers', DEMO_EXPOSED_HEADERS);
      reply.raw.setHeader('vary', 'Origin');
      return true;
    }
    const method = request.method;
    const unsafe =
      method === 'POST' ||
      method === 'PUT' ||
      method === 'PATCH' ||
      method === 'DELETE' ||
      (method === 'OPTIONS' && headers['access-control-request-method'] !== undefined);
    if (unsafe) {
      return refuse(reply, 'ORIGIN_NOT_ALLOWED');
    }
    // A safe read from a foreign page is answered without CORS headers: its browser withholds it.
    return true;
  };
}
