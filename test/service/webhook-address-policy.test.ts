// The SSRF rule (D-42, D-162) for IPv6 addresses that carry an IPv4 one (D-77, D-252): an
// IPv4-mapped, IPv4-compatible, NAT64 or 6to4 address is judged as the IPv4 address inside it,
// and every Teredo address is refused. Checked as the policy, at registration (the url check) and
// at delivery (the address a name resolves to, with a resolver the test controls).
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { describe, it } from 'node:test';
import { postOnce } from '../../src/delivery/http-post.ts';
import { checkedLookupVia, isForbiddenAddress } from '../../src/service/webhooks/address-policy.ts';
import { checkWebhookUrl } from '../../src/service/webhooks/url-check.ts';
import { startReceiver } from '../support/receiver.ts';

/** Each form carrying a refused IPv4 address: [the IPv6 address, the IPv4 one inside]. */
const REFUSED_INSIDE: [string, string][] = [
  ['::ffff:127.0.0.1', '127.0.0.1'],
  ['::ffff:7f00:1', '127.0.0.1'],
  ['0:0:0:0:0:ffff:a9fe:a9fe', '169.254.169.254'],
  ['::127.0.0.1', '127.0.0.1'], // IPv4-compatible (::/96)
  ['::a00:1', '10.0.0.1'],
  ['::ffff:0:c0a8:101', '192.168.1.1'], // IPv4-translated (::ffff:0:0:0/96)
  ['64:ff9b::127.0.0.1', '127.0.0.1'], // NAT64
  ['64:ff9b::a9fe:a9fe', '169.254.169.254'],
  ['64:ff9b::c0a8:101', '192.168.1.1'],
  ['2002:7f00:1::', '127.0.0.1'], // 6to4: bits 16 to 47
  ['2002:7f00:0001:0:0:0:0:1', '127.0.0.1'],
  ['2002:a9fe:a9fe::1', '169.254.169.254'],
  ['2002:a00:1:1234::5', '10.0.0.1'],
  ['2002:c0a8:101::', '192.168.1.1'],
  ['2002:ac10:1::', '172.16.0.1'],
  ['2002::', '0.0.0.0'],
];

/** Each form carrying a public IPv4 address: allowed as that address is. */
const PUBLIC_INSIDE: [string, string][] = [
  ['::ffff:8.8.8.8', '8.8.8.8'],
  ['64:ff9b::808:808', '8.8.8.8'],
  ['64:ff9b::1.1.1.1', '1.1.1.1'],
  ['2002:808:808::', '8.8.8.8'],
  ['2002:0101:0101:abcd::1', '1.1.1.1'],
];

/** Teredo (2001::/32): refused whatever it carries. */
const TEREDO = [
  '2001::',
  '2001:0:4136:e378:8000:63bf:3fff:fdd2', // the RFC 4380 example
  '2001:0:808:808::',
  '2001:0:ffff:ffff:ffff:ffff:ffff:ffff',
];

describe('the SSRF rule: IPv4 inside IPv6 (D-252)', () => {
  it('refuses each form that carries a loopback, private or link-local IPv4 address, as the address itself', () => {
    for (const [v6, v4] of REFUSED_INSIDE) {
      assert.equal(isForbiddenAddress(v4), true, v4);
      assert.equal(isForbiddenAddress(v6), true, `${v6} carries ${v4}`);
    }
  });

  it('allows each form that carries a public IPv4 address, as the address itself', () => {
    for (const [v6, v4] of PUBLIC_INSIDE) {
      assert.equal(isForbiddenAddress(v4), false, v4);
      assert.equal(isForbiddenAddress(v6), false, `${v6} carries ${v4}`);
    }
  });

  it('refuses every Teredo address; the IPv6 addresses beside it stay as they were', () => {
    for (const address of TEREDO) assert.equal(isForbiddenAddress(address), true, address);
    // Outside 2001::/32: public ones allowed, the documentation range refused as before.
    assert.equal(isForbiddenAddress('2001:1::1'), false);
    assert.equal(isForbiddenAddress('2001:4860:4860::8888'), false);
    assert.equal(isForbiddenAddress('2606:4700:4700::1111'), false);
    assert.equal(isForbiddenAddress('2001:db8::1'), true);
    assert.equal(isForbiddenAddress('::1'), true);
    assert.equal(isForbiddenAddress('::'), true);
  });

  it('at registration: a url at such an address is 422 WEBHOOK_URL_FORBIDDEN; one carrying a public address passes', async () => {
    for (const [v6] of [...REFUSED_INSIDE, ...TEREDO.map((t) => [t])]) {
      const refusal = await checkWebhookUrl(`http://[${v6}]:8080/hook`, false);
      assert.equal(refusal?.code, 'WEBHOOK_URL_FORBIDDEN', v6);
      assert.equal(refusal?.kind, 'forbidden', v6);
    }
    for (const [v6] of PUBLIC_INSIDE) assert.equal(await checkWebhookUrl(`https://[${v6}]/hook`, false), undefined, v6);
    // WEBHOOK_ALLOW_PRIVATE=true allows them all.
    assert.equal(await checkWebhookUrl('http://[2002:7f00:1::]/hook', true), undefined);
  });
});

/** A resolver that answers `address` for every name, as node's dns.lookup does (one, or all). */
function resolvingTo(address: string): LookupFunction {
  const family = address.includes(':') ? 6 : 4;
  return (_hostname, options, callback) => {
    const found: LookupAddress = { address, family };
    setImmediate(() => (options.all ? callback(null, [found]) : callback(null, address, family)));
  };
}

describe('the SSRF rule at delivery: a name that resolves to IPv4 inside IPv6 (D-252)', () => {
  it('the checked lookup refuses a name resolving to each refused form, and passes one carrying a public address', async () => {
    const look = (address: string, all: boolean) =>
      new Promise<Error | null>((resolve) =>
        checkedLookupVia(resolvingTo(address))('hooks.example', { all }, (error) => resolve(error)),
      );
    for (const [v6] of [...REFUSED_INSIDE, ...TEREDO.map((t) => [t])]) {
      for (const all of [false, true]) {
        const error = await look(v6, all);
        assert.equal((error as { code?: string } | null)?.code, 'WEBHOOK_ADDRESS_FORBIDDEN', v6);
        assert.match(String(error?.message), /hooks\.example resolves to .* a loopback, private or link-local address/);
      }
    }
    for (const [v6] of PUBLIC_INSIDE) assert.equal(await look(v6, true), null, v6);
  });

  it('an attempt to a name resolving to 6to4, NAT64 or Teredo is refused before connecting; the receiver gets nothing', async () => {
    const r = await startReceiver();
    try {
      const send = (url: string, resolve: LookupFunction, allowPrivate = false) =>
        postOnce(url, { 'content-type': 'application/json' }, '{"id":"evt_1"}', {
          timeoutMs: 2000,
          allowPrivate,
          resolve,
        });
      // The resolver is the one used: with private addresses allowed, the name reaches the receiver.
      const reached = await send(`http://hooks.example:${r.port}/hook`, resolvingTo('127.0.0.1'), true);
      assert.equal(reached.status, 204);
      assert.equal(r.received.length, 1);
      for (const address of [
        '2002:7f00:1::',
        '64:ff9b::7f00:1',
        '::ffff:7f00:1',
        '::127.0.0.1',
        '2001:0:4136:e378::1',
      ]) {
        const outcome = await send(`http://hooks.example:${r.port}/hook`, resolvingTo(address));
        assert.equal(outcome.status, undefined, address);
        assert.match(String(outcome.error), /resolves to .* a loopback, private or link-local address/, address);
      }
      // An address written in the url is checked without any lookup.
      for (const address of ['2002:7f00:1::', '64:ff9b::7f00:1', '2001:0:4136:e378::1']) {
        const outcome = await send(`http://[${address}]:${r.port}/hook`, resolvingTo('127.0.0.1'));
        assert.equal(outcome.status, undefined, address);
        assert.match(String(outcome.error), /is a loopback, private or link-local address/, address);
      }
      assert.equal(r.received.length, 1);
    } finally {
      await r.close();
    }
  });
});
