// GET /metrics: Prometheus's text format, parsed here as a scraper would, and counts that follow
// what the server did: requests by route and status, the gate's decisions by outcome and code
// (dry runs apart), timer runs, webhook attempts; Node's own metrics beside them. METRICS=false
// takes the route away. Runs on every store (TEST_STORE).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/http.ts';
import { advanceClock, createDeal } from '../support/marketplace-e2e.ts';
import { parse, sample } from '../support/prometheus.ts';
import { type Receiver, startReceiver, until } from '../support/receiver.ts';

describe('GET /metrics', () => {
  let t: TestServer;
  let receiver: Receiver;
  before(async () => {
    t = await startTestServer({ config: { webhookAllowPrivate: true, webhookRetryBaseMs: 100 } });
    receiver = await startReceiver();
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  const scrape = async () => {
    const response = await fetch(`${t.url}/metrics`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    return parse(await response.text());
  };

  it("speaks Prometheus's text format, with Node's own metrics", async () => {
    const response = await fetch(`${t.url}/metrics`);
    const text = await response.text();
    assert.match(text, /^# HELP http_request_duration_seconds /m);
    assert.match(text, /^# TYPE pipeline_gate_decisions_total counter$/m);
    const samples = parse(text);
    // prom-client counts CPU from the moment the metrics were registered (this server's start), and
    // a kernel that accounts CPU in ticks may not have charged a tick since: present, not > 0.
    assert.ok(samples.has('process_cpu_user_seconds_total'));
    assert.ok(sample(samples, 'process_cpu_user_seconds_total') >= 0);
    assert.ok(sample(samples, 'process_start_time_seconds') > 0);
    assert.ok(sample(samples, 'nodejs_heap_size_used_bytes') > 0);
    // Every value is a float as Prometheus reads them (NaN, in any case, for a statistic with no
    // sample yet, such as the event loop's mean delay just after start).
    for (const line of text.split('\n').filter((l) => l !== '' && !l.startsWith('#'))) {
      assert.match(line, /^[a-z_:][\w:]*(\{[^}]*\})? (-?[\d.]+(e[+-]?\d+)?|[+-]Inf|nan)$/i, line);
    }
    assert.ok(samples.size > 50);
  });

  it('counts requests by method, route pattern and status, with their latency', async () => {
    const before = await scrape();
    const labels = { method: 'POST', route: `${t.prefix}/deals`, status_code: '201' };
    const deal = await createDeal(t);
    await createDeal(t);
    assert.equal((await t.get(`${t.prefix}/deals/${deal.id}`)).status, 200);
    assert.equal((await t.get('/no/such/path/42')).status, 404);
    const now = await scrape();
    const counted = (name: string, l: Record<string, string>) => sample(now, name, l) - sample(before, name, l);
    assert.equal(counted('http_request_duration_seconds_count', labels), 2);
    assert.equal(
      counted('http_request_duration_seconds_count', {
        method: 'GET',
        route: `${t.prefix}/deals/:id`,
        status_code: '200',
      }),
      1,
      'the route pattern, not the path',
    );
    assert.equal(
      counted('http_request_duration_seconds_count', { route: 'unmatched', status_code: '404' }),
      1,
      'an unknown path is one series, whatever the path',
    );
    assert.ok(counted('http_request_duration_seconds_sum', labels) > 0);
    // Cumulative buckets: +Inf holds every request.
    assert.equal(counted('http_request_duration_seconds_bucket', { ...labels, le: '+Inf' }), 2);
  });

  it("counts the gate's decisions by command, outcome and refusal code; dry runs apart", async () => {
    const before = await scrape();
    const deal = await createDeal(t);
    const leap = { advanceTo: 'closed_won' };
    const refused = await t.post(`${t.prefix}/deals/${deal.id}/advance`, leap);
    assert.ok(refused.status >= 400 && refused.status < 500, JSON.stringify(refused.body));
    const code = refused.body.code as string;
    const dry = await t.post(`${t.prefix}/deals/${deal.id}/advance?dryRun=true`, leap);
    assert.equal(dry.body.code, code);
    const now = await scrape();
    const counted = (l: Record<string, string>) =>
      sample(now, 'pipeline_gate_decisions_total', l) - sample(before, 'pipeline_gate_decisions_total', l);
    assert.equal(counted({ command: 'CreateDeal', outcome: 'accepted', code: '', dry_run: 'false' }), 1);
    assert.equal(counted({ command: 'AdvanceDeal', outcome: 'refused', code, dry_run: 'false' }), 1);
    assert.equal(counted({ command: 'AdvanceDeal', outcome: 'refused', code, dry_run: 'true' }), 1);
  });

  it('counts timer runs and the timers they fired', async () => {
    const before = await scrape();
    await createDeal(t);
    // Past every stall threshold: the run the clock's move makes fires the stall timers.
    await advanceClock(t, 24 * 60);
    const now = await scrape();
    const runs = (s: Map<string, number>) => sample(s, 'pipeline_timer_run_duration_seconds_count', { outcome: 'ok' });
    assert.ok(runs(now) - runs(before) >= 1);
    assert.ok(sample(now, 'pipeline_timers_fired_total') > sample(before, 'pipeline_timers_fired_total'));
  });

  it('counts webhook attempts by outcome', async () => {
    const created = await t.post('/webhooks', { url: receiver.url });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await createDeal(t);
    await until('a delivery', () => receiver.received.length > 0);
    const delivered = await until('the attempt counted', async () =>
      sample(await scrape(), 'pipeline_webhook_attempt_duration_seconds_count', { outcome: 'delivered' }),
    );
    assert.ok(delivered >= 1);
  });
});

describe('METRICS=false', () => {
  it('serves no /metrics', async () => {
    const t = await startTestServer({ config: { metrics: false } });
    try {
      assert.equal((await t.get('/metrics')).status, 404);
    } finally {
      await t.close();
    }
  });
});
