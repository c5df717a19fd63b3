// The environment → Config of src/config.ts, for D-44's limits and D-49's hosts and origins:
// their defaults, and every bad value refused at start with a message naming the variable.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../src/config.ts';
import { defaultAllowedHosts, hostEntry, hostMatches, LOOPBACK_HOSTS } from '../src/http/origin-guard.ts';
import { defaultMaxConnections, FALLBACK_MAX_CONNECTIONS, openFileLimit } from '../src/open-files.ts';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            20000                1048576              files
Max locked memory         8388608              8388608              bytes
`;

describe('the limits in the configuration', () => {
  it('defaults: headers 10 s, request 30 s, keep-alive 72 s, no rate limit, a cap below the open-file limit', () => {
    const config = loadConfig({});
    assert.equal(config.headersTimeoutMs, 10_000);
    assert.equal(config.requestTimeoutMs, 30_000);
    assert.equal(config.keepAliveTimeoutMs, 72_000);
    assert.equal(config.rateLimitPerMinute, undefined);
    assert.equal(config.maxConnections, defaultMaxConnections(openFileLimit()));
    const limit = openFileLimit();
    if (limit !== undefined) assert.ok(config.maxConnections < limit);
  });

  it('reads SHUTDOWN_TIMEOUT_SECONDS (default 10 s) and refuses one out of range', () => {
    assert.equal(loadConfig({}).shutdownTimeoutMs, 10_000);
    assert.equal(loadConfig({ SHUTDOWN_TIMEOUT_SECONDS: '2.5' }).shutdownTimeoutMs, 2500);
    for (const value of ['0', 'soon', '3601']) {
      assert.throws(() => loadConfig({ SHUTDOWN_TIMEOUT_SECONDS: value }), /SHUTDOWN_TIMEOUT_SECONDS/);
    }
  });

  it('reads KEYS_PER_PRINCIPAL (default 100) and refuses one out of 1..10,000 (D-75)', () => {
    assert.equal(loadConfig({}).keysPerPrincipal, 100);
    assert.equal(loadConfig({ KEYS_PER_PRINCIPAL: '3' }).keysPerPrincipal, 3);
    for (const value of ['0', '10001', '2.5', 'many'])
      assert.throws(() => loadConfig({ KEYS_PER_PRINCIPAL: value }), /KEYS_PER_PRINCIPAL/);
  });

  it('reads REQUEST_TIMEOUT_MS, MAX_CONNECTIONS and RATE_LIMIT_PER_MINUTE', () => {
    const config = loadConfig({ REQUEST_TIMEOUT_MS: '5000', MAX_CONNECTIONS: '200', RATE_LIMIT_PER_MINUTE: '120' });
    assert.equal(config.requestTimeoutMs, 5000);
    assert.equal(config.maxConnections, 200);
    assert.equal(config.rateLimitPerMinute, 120);
    assert.equal(loadConfig({ RATE_LIMIT_PER_MINUTE: '0' }).rateLimitPerMinute, undefined, '0 turns it off');
    assert.equal(loadConfig({ RATE_LIMIT_PER_MINUTE: '' }).rateLimitPerMinute, undefined, 'empty is unset');
  });

  const bad: [string, string][] = [
    ['REQUEST_TIMEOUT_MS', 'soon'],
    ['REQUEST_TIMEOUT_MS', '0'],
    ['REQUEST_TIMEOUT_MS', '999'],
    ['REQUEST_TIMEOUT_MS', '1500.5'],
    ['REQUEST_TIMEOUT_MS', '600001'],
    ['MAX_CONNECTIONS', 'many'],
    ['MAX_CONNECTIONS', '0'],
    ['MAX_CONNECTIONS', '-5'],
    ['MAX_CONNECTIONS', '10.5'],
    ['MAX_CONNECTIONS', '100000000'],
    ['RATE_LIMIT_PER_MINUTE', 'lots'],
    ['RATE_LIMIT_PER_MINUTE', '-1'],
    ['RATE_LIMIT_PER_MINUTE', '2.5'],
    ['RATE_LIMIT_PER_MINUTE', '1000001'],
  ];
  for (const [name, value] of bad) {
    it(`refuses ${name}=${value} with a message naming it`, () => {
      assert.throws(() => loadConfig({ [name]: value }), new RegExp(`^Error: ${name} must be`));
    });
  }

  it('refuses MAX_CONNECTIONS at or above the open-file limit, when the limit is known', (t) => {
    const limit = openFileLimit();
    if (limit === undefined || limit === Number.POSITIVE_INFINITY) return t.skip('no finite open-file limit here');
    assert.throws(() => loadConfig({ MAX_CONNECTIONS: String(limit) }), /below this process's open-file limit/);
    assert.equal(loadConfig({ MAX_CONNECTIONS: String(limit - 1) }).maxConnections, limit - 1);
  });
});

describe('the default connection cap from the open-file limit', () => {
  it('reads the soft "Max open files" of /proc/self/limits', () => {
    assert.equal(openFileLimit(LIMITS), 20_000);
    assert.equal(openFileLimit(LIMITS.replace('20000   ', 'unlimited')), Number.POSITIVE_INFINITY);
    assert.equal(openFileLimit('Limit Soft Limit Hard Limit Units\n'), undefined);
  });

  it('is half the limit, bounded to 16..50,000, and 1000 when the limit is unknown', () => {
    assert.equal(defaultMaxConnections(20_000), 10_000);
    assert.equal(defaultMaxConnections(1024), 512);
    assert.equal(defaultMaxConnections(20), 16);
    assert.equal(defaultMaxConnections(1_048_576), 50_000);
    assert.equal(defaultMaxConnections(Number.POSITIVE_INFINITY), 50_000);
    assert.equal(defaultMaxConnections(undefined), FALLBACK_MAX_CONNECTIONS);
  });
});

describe('the webhook settings', () => {
  it('defaults: private addresses refused, a 5 s retry base, a 10 s attempt timeout', () => {
    const config = loadConfig({});
    assert.equal(config.webhookAllowPrivate, false);
    assert.equal(config.webhookRetryBaseMs, 5000);
    assert.equal(config.webhookTimeoutMs, 10_000);
  });

  it('reads WEBHOOK_ALLOW_PRIVATE, WEBHOOK_RETRY_BASE_MS and WEBHOOK_TIMEOUT_MS, and refuses bad values', () => {
    const config = loadConfig({
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_BASE_MS: '100',
      WEBHOOK_TIMEOUT_MS: '500',
    });
    assert.equal(config.webhookAllowPrivate, true);
    assert.equal(config.webhookRetryBaseMs, 100);
    assert.equal(config.webhookTimeoutMs, 500);
    assert.equal(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'false' }).webhookAllowPrivate, false);
    assert.throws(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'yes' }), /WEBHOOK_ALLOW_PRIVATE must be true or false/);
    assert.throws(() => loadConfig({ WEBHOOK_RETRY_BASE_MS: '0' }), /WEBHOOK_RETRY_BASE_MS/);
    assert.throws(() => loadConfig({ WEBHOOK_TIMEOUT_MS: '600001' }), /WEBHOOK_TIMEOUT_MS/);
  });
});

describe('the mail settings (D-64)', () => {
  it('defaults: no SMTP server (mail goes to the log), a sender on localhost, a 30 s retry base, no public url', () => {
    const config = loadConfig({});
    assert.equal(config.smtpUrl, undefined);
    assert.equal(config.mailFrom, 'Sales pipeline <no-reply@localhost>');
    assert.equal(config.mailRetryBaseMs, 30_000);
    assert.equal(config.publicUrl, undefined);
    assert.equal(loadConfig({ SMTP_URL: '', PUBLIC_URL: ' ' }).smtpUrl, undefined, 'empty is unset');
  });

  it('reads SMTP_URL, smtp:// or smtps://, with its credentials', () => {
    for (const url of [
      'smtp://user:pass@mail.example.com:587',
      'smtps://user:p%40ss@mail.example.com',
      'smtp://127.0.0.1:2525',
    ])
      assert.equal(loadConfig({ SMTP_URL: url }).smtpUrl, url);
  });

  it('refuses any other SMTP_URL, naming the variable and never repeating the password', () => {
    for (const url of [
      'http://user:secret-pw@mail.example.com',
      'mail.example.com:587',
      'smtp:mail.example.com',
      'smtp://',
      'user:secret-pw@mail',
    ]) {
      assert.throws(
        () => loadConfig({ SMTP_URL: url }),
        (error: Error) =>
          /^SMTP_URL must be smtp:\/\/… or smtps:\/\/…/.test(error.message) && !error.message.includes('secret-pw'),
        url,
      );
    }
  });

  it('reads MAIL_FROM, an address with an optional name, and refuses anything else', () => {
    assert.equal(loadConfig({ MAIL_FROM: 'no-reply@example.com' }).mailFrom, 'no-reply@example.com');
    assert.equal(
      loadConfig({ MAIL_FROM: 'Pipeline <no-reply@example.com>' }).mailFrom,
      'Pipeline <no-reply@example.com>',
    );
    for (const value of [
      'Pipeline',
      'no-reply',
      'Pipeline <no-reply>',
      'a@b.c\r\nBcc: x@y.z',
      'Pipeline <a@b.c> extra',
    ])
      assert.throws(() => loadConfig({ MAIL_FROM: value }), /^Error: MAIL_FROM must be an address/, value);
  });

  it('reads MAIL_RETRY_BASE_MS and refuses one out of 10..3,600,000', () => {
    assert.equal(loadConfig({ MAIL_RETRY_BASE_MS: '50' }).mailRetryBaseMs, 50);
    for (const value of ['0', '9', '3600001', '2.5', 'soon'])
      assert.throws(() => loadConfig({ MAIL_RETRY_BASE_MS: value }), /^Error: MAIL_RETRY_BASE_MS must be/, value);
  });

  it('reads PUBLIC_URL as an origin: lower case, without the default port', () => {
    assert.equal(loadConfig({ PUBLIC_URL: 'https://Pipeline.Example.com' }).publicUrl, 'https://pipeline.example.com');
    assert.equal(
      loadConfig({ PUBLIC_URL: 'https://pipeline.example.com:443' }).publicUrl,
      'https://pipeline.example.com',
    );
    assert.equal(loadConfig({ PUBLIC_URL: 'http://localhost:3000' }).publicUrl, 'http://localhost:3000');
    assert.equal(loadConfig({ PUBLIC_URL: 'HTTP://[::1]:80' }).publicUrl, 'http://[::1]');
  });

  it('refuses a PUBLIC_URL that is not an http(s) origin, saying why', () => {
    for (const value of ['pipeline.example.com', 'ftp://example.com', 'https://', 'https://example.com:99999'])
      assert.throws(
        () => loadConfig({ PUBLIC_URL: value }),
        /^Error: PUBLIC_URL must be an http or https origin/,
        value,
      );
    for (const value of ['https://example.com/', 'https://example.com/app'])
      assert.throws(() => loadConfig({ PUBLIC_URL: value }), /no path, not even a trailing slash/, value);
  });
});

describe('DEMO_CONTROLS (D-3, D-253)', () => {
  const keys = { AUTH: 'keys', OPERATOR_KEY: 'config-test-operator-key-0123456789abcdef' };

  it('keys mode: off unless DEMO_CONTROLS=on', () => {
    assert.equal(loadConfig(keys).demoControls, false);
    assert.equal(loadConfig({ ...keys, DEMO_CONTROLS: '' }).demoControls, false);
    assert.equal(loadConfig({ ...keys, DEMO_CONTROLS: 'off' }).demoControls, false);
    assert.equal(loadConfig({ ...keys, DEMO_CONTROLS: 'on' }).demoControls, true);
    assert.equal(loadConfig({ ...keys, DATABASE_URL: 'pglite:memory://' }).demoControls, false);
  });

  it('refuses any other value, in either mode, naming the variable', () => {
    for (const value of ['true', 'yes', 'ON', '1']) {
      assert.throws(() => loadConfig({ ...keys, DEMO_CONTROLS: value }), /DEMO_CONTROLS must be on or off/);
      assert.throws(() => loadConfig({ DEMO_CONTROLS: value }), /DEMO_CONTROLS must be on or off/);
    }
  });

  it('the demo always has its controls: DEMO_CONTROLS=off there refuses to start', () => {
    assert.throws(() => loadConfig({ DEMO_CONTROLS: 'off' }), /DEMO_CONTROLS=off is for keys mode/);
    assert.throws(() => loadConfig({ AUTH: 'demo', DEMO_CONTROLS: 'off' }), /DEMO_CONTROLS=off is for keys mode/);
    assert.doesNotThrow(() => loadConfig({ DEMO_CONTROLS: 'on' }));
  });
});

describe('ALLOWED_HOSTS and ALLOWED_ORIGINS (D-49)', () => {
  it('unset: the loopback names on any port when listening on a loopback address, every host elsewhere', () => {
    const config = loadConfig({});
    assert.equal(config.allowedHosts, undefined, 'unset: the default for the address listened on');
    assert.deepEqual(config.allowedOrigins, []);
    for (const address of ['127.0.0.1', '127.0.0.2', 'localhost', 'LOCALHOST', '::1', '[::1]', '::ffff:127.0.0.1']) {
      assert.deepEqual(defaultAllowedHosts(address), LOOPBACK_HOSTS, address);
    }
    for (const address of ['0.0.0.0', '::', '192.168.1.10', '10.0.0.1', 'api.example.com']) {
      assert.equal(defaultAllowedHosts(address), undefined, `${address}: every host`);
    }
    assert.equal(loadConfig({ ALLOWED_HOSTS: ' ' }).allowedHosts, undefined, 'blank is unset');
  });

  it('reads ALLOWED_HOSTS: names and addresses, with or without a port, in lower case', () => {
    assert.deepEqual(
      loadConfig({ ALLOWED_HOSTS: 'API.Example.com, localhost:3000,[::1],10.0.0.5:8080' }).allowedHosts,
      ['api.example.com', 'localhost:3000', '[::1]', '10.0.0.5:8080'],
    );
  });

  it('refuses a malformed ALLOWED_HOSTS entry with a message naming it', () => {
    for (const value of [
      '*',
      'http://localhost',
      'localhost:',
      'localhost:0',
      'localhost:70000',
      '::1',
      'a b',
      'x,,y',
      'host/path',
    ]) {
      assert.throws(
        () => loadConfig({ ALLOWED_HOSTS: value }),
        /^Error: ALLOWED_HOSTS .*(must list|empty entry)/,
        value,
      );
    }
  });

  it('reads ALLOWED_ORIGINS as a browser sends them: lower case, without the default port', () => {
    assert.deepEqual(
      loadConfig({
        ALLOWED_ORIGINS:
          'https://App.Example.com, http://localhost:5173,https://a.example:443,http://b.example:80,http://[::1]:8080',
      }).allowedOrigins,
      [
        'https://app.example.com',
        'http://localhost:5173',
        'https://a.example',
        'http://b.example',
        'http://[::1]:8080',
      ],
    );
  });

  it('refuses an ALLOWED_ORIGINS entry that is not scheme://host[:port], saying why', () => {
    const cases: [string, RegExp][] = [
      ['null', /never allowed/],
      ['*', /wildcard/],
      ['https://app.example.com/', /no path/],
      ['https://app.example.com/console', /no path/],
      ['app.example.com', /scheme:\/\/host\[:port\]/],
      ['https://app.example.com:99999', /scheme:\/\/host\[:port\]/],
      ['https://', /scheme:\/\/host\[:port\]/],
      ['https://a.example,', /empty entry/],
    ];
    for (const [value, why] of cases) {
      assert.throws(
        () => loadConfig({ ALLOWED_ORIGINS: value }),
        (error: Error) => {
          assert.match(error.message, /^ALLOWED_ORIGINS /, value);
          assert.match(error.message, why, value);
          return true;
        },
      );
    }
  });
});

describe('the Host match of the origin guard (D-49)', () => {
  const entries = (list: readonly string[]) => list.map(hostEntry);

  it('the loopback names match on any port, case-insensitively; nothing else does', () => {
    const loopback = entries(LOOPBACK_HOSTS);
    for (const host of [
      'localhost',
      'localhost:3000',
      'LocalHost:1',
      '127.0.0.1',
      '127.0.0.1:65535',
      '[::1]',
      '[::1]:3000',
    ]) {
      assert.ok(hostMatches(host, loopback), host);
    }
    for (const host of [
      'evil.example',
      'evil.example:3000',
      'localhost.evil.example',
      'localhost.',
      '127.0.0.2:3000',
      'localhost:',
      'localhost:abc',
      'localhost:123456',
      '[::1',
      '',
      'localhost:3000:1',
    ]) {
      assert.ok(!hostMatches(host, loopback), host);
    }
  });

  it('a listed name without a port matches any port; with a port, only that port', () => {
    const listed = entries(['api.example.com', 'localhost:3000']);
    assert.ok(hostMatches('api.example.com', listed));
    assert.ok(hostMatches('API.example.com:8443', listed));
    assert.ok(hostMatches('localhost:3000', listed));
    assert.ok(!hostMatches('localhost', listed), 'no port: not the listed one');
    assert.ok(!hostMatches('localhost:3001', listed));
    assert.ok(!hostMatches('127.0.0.1:3000', listed), 'a list replaces the defaults');
  });
});
