// The SSRF rule of D-42: a webhook may not reach a loopback, private, link-local, unique-local
// (or otherwise non-public) address, unless WEBHOOK_ALLOW_PRIVATE=true. Checked on the name at
// registration, and on the address actually connected to at every attempt (so that a name that
// resolves elsewhere later, DNS rebinding, cannot slip through). An IPv6 address that carries an
// IPv4 one (mapped, compatible, NAT64, 6to4) is judged as that IPv4 address, and every Teredo
// address is refused (D-77, D-252).
import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

const FORBIDDEN = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata lives here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  FORBIDDEN.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): a local network behind it
  ['2001::', 32], // Teredo: the addresses inside are obfuscated, and it tunnels anywhere
  ['2001:db8::', 32], // documentation
] as const) {
  FORBIDDEN.addSubnet(net, prefix, 'ipv6');
}

/** The eight 16-bit groups of an IPv6 address (isIP says it is one; a trailing dotted quad is two). */
function groupsOf(address: string): number[] {
  let text = address.replace(/%.*$/, ''); // a zone (fe80::1%eth0) says nothing of the address
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number);
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((g) => Number.parseInt(g, 16)) : []);
  const front = parse(head);
  const back = parse(tail);
  return tail === undefined ? front : [...front, ...Array(8 - front.length - back.length).fill(0), ...back];
}

/**
 * The IPv4 address an IPv6 address carries, when it is one of the forms that reach it: IPv4-mapped
 * (::ffff:0:0/96), IPv4-compatible (::/96), IPv4-translated (::ffff:0:0:0/96), NAT64
 * (64:ff9b::/96), all in the last 32 bits, or 6to4 (2002::/16), in bits 16 to 47.
 */
function embeddedIpv4(address: string): string | undefined {
  const g = groupsOf(address);
  const zero = (from: number, to: number) => g.slice(from, to).every((group) => group === 0);
  const v4 = (high: number, low: number) => [high >> 8, high & 255, low >> 8, low & 255].join('.');
  if (zero(0, 5) && (g[5] === 0 || g[5] === 0xffff)) return v4(g[6], g[7]);
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return v4(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return v4(g[6], g[7]);
  if (g[0] === 0x2002) return v4(g[1], g[2]);
  return undefined;
}

/** Whether an IP address (v4 or v6, no brackets) is one a webhook may not reach. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return FORBIDDEN.check(address, 'ipv4');
  if (family !== 6) return true; // not an address: never connect to it
  const v4 = embeddedIpv4(address);
  if (v4 !== undefined) return FORBIDDEN.check(v4, 'ipv4');
  return FORBIDDEN.check(address.replace(/%.*$/, ''), 'ipv6');
}

/** A host name that names the machine itself whatever DNS says (RFC 6761). */
export const isLocalName = (host: string) => /(^|\.)localhost\.?$/i.test(host);

/** The host of a URL as an address or a name (IPv6 without its brackets). */
export const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

export class ForbiddenAddressError extends Error {
  readonly code = 'WEBHOOK_ADDRESS_FORBIDDEN';
  constructor(host: string, address: string) {
    super(`${host} resolves to ${address}, a loopback, private or link-local address`);
  }
}

/**
 * A `lookup` for node:http(s) requests that refuses a forbidden address: the check is on the
 * address the socket connects to, after resolution by `resolve` (node's own DNS lookup unless
 * a test gives another).
 */
export const checkedLookupVia =
  (resolve: LookupFunction): LookupFunction =>
  (hostname, options, callback) =>
    resolve(hostname, options, (error, address, family) => {
      if (error) return callback(error, address, family);
      const all = Array.isArray(address) ? address : [{ address, family }];
      const forbidden = all.find((a) => isForbiddenAddress(a.address));
      if (forbidden) return callback(new ForbiddenAddressError(hostname, forbidden.address), address, family);
      callback(null, address, family);
    });

export const checkedLookup: LookupFunction = checkedLookupVia(dnsLookup);

/** The addresses a host name resolves to (all of them), or undefined when it does not resolve in time. */
export function resolveAll(host: string, timeoutMs = 5000): Promise<string[] | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), timeoutMs);
    dnsLookup(host, { all: true }, (error, addresses) => {
      clearTimeout(timer);
      resolve(error ? undefined : addresses.map((a) => a.address));
    });
  });
}
