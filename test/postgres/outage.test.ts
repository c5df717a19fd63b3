// The database going away under load (D-46): a service process sells on a PostgreSQL server of
// the test's own while its connections are killed mid-transaction, and then while the server
// itself crashes and comes back. Every request is answered, in time: a sell is 201 or 503
// (STORE_UNAVAILABLE while the server is away, with Retry-After), never a 500 or a hang; the
// service recovers by itself once the server is back; and every sell acknowledged with 201 is
// there afterwards, nothing acknowledged lost.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { type Instance, startInstance } from '../support/instances.ts';
import { type OwnPostgres, ownPostgresSkip, startOwnPostgres } from '../support/own-postgres.ts';

const skip = ownPostgresSkip();
const body = JSON.stringify({
  account: { name: 'Fictional Outage Co', industry: 'saas', actor: 'B2B' },
  listValueUsd: 25_000,
  mandate: { staffing: { closer: 'human' } },
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Seen {
  at: number;
  status: number | string;
  code?: string;
  retryAfter?: string | null;
  dealId?: string;
  ms: number;
}

describe('PostgreSQL going away under load (D-46)', { skip }, () => {
  let server: OwnPostgres;
  let service: Instance;
  before(async () => {
    server = await startOwnPostgres();
    service = await startInstance(server.url, { TIMER_INTERVAL_SECONDS: '0.2', DATABASE_POOL_SIZE: '4' });
  });
  after(async () => {
    await service?.close();
    server?.destroy();
  });

  it('connections killed mid-transaction, then the server crashed and restarted: 201 or 503, recovered, nothing acknowledged lost', async (t) => {
    const seen: Seen[] = [];
    let running = true;
    const sell = async () => {
      const started = Date.now();
      try {
        const answer = await fetch(`${service.url}/pipeline/sell`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(20_000),
        });
        const parsed = (await answer.json()) as { code?: string; escalation?: unknown; deal?: { id: string } };
        seen.push({
          at: started,
          status: answer.status,
          code: parsed.code,
          retryAfter: answer.headers.get('retry-after'),
          dealId: parsed.deal?.id,
          ms: Date.now() - started,
        });
      } catch (error) {
        seen.push({ at: started, status: String((error as Error).name), ms: Date.now() - started });
      }
    };
    const load = Array.from({ length: 6 }, async () => {
      while (running) {
        await sell();
        await sleep(5);
      }
    });

    await sleep(800);
    // Every connection of the service killed, in the middle of whatever it was doing.
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    const killed = await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'",
    );
    await admin.end();
    assert.ok(killed.rowCount && killed.rowCount > 0, 'the service had connections to kill');
    await sleep(800);

    // The server crashes (no clean shutdown: recovery from the WAL at the next start) and is
    // away for two seconds.
    const down = Date.now();
    server.stop('immediate');
    await sleep(2000);
    server.start();
    const up = Date.now();
    // Recovered by itself: a sell succeeds again within 20 s of the server's return.
    let recoveredAt: number | undefined;
    while (recoveredAt === undefined && Date.now() - up < 20_000) {
      await sleep(100);
      recoveredAt = seen.find((s) => s.at > up && s.status === 201)?.at;
    }
    await sleep(500);
    running = false;
    await Promise.all(load);

    const summary = JSON.stringify(
      seen.reduce<Record<string, number>>((counts, s) => {
        const key = `${s.status}${s.code ? ` ${s.code}` : ''}`;
        counts[key] = (counts[key] ?? 0) + 1;
        return counts;
      }, {}),
    );
    assert.ok(recoveredAt !== undefined, `no sell succeeded within 20 s of the server's return: ${summary}`);
    // A 500 says what the service logged for it, so that a failure in CI names its cause.
    const unhandled = service.output
      .join('')
      .split('\n')
      .filter((line) => line.includes('unhandled error'))
      .join('\n');
    for (const s of seen) {
      assert.ok(
        s.status === 201 || s.status === 503,
        `a sell answered ${s.status} ${s.code ?? ''}: ${summary}\n${unhandled}`,
      );
      if (s.status === 503) {
        assert.ok(s.code === 'STORE_UNAVAILABLE' || s.code === 'STORE_BUSY', `503 ${s.code}: ${summary}`);
        assert.ok(Number(s.retryAfter) > 0, `503 without Retry-After: ${summary}`);
      }
    }
    const whileDown = seen.filter((s) => s.at > down + 200 && s.at + s.ms < up);
    assert.ok(whileDown.length > 0, `no sell was answered while the server was away: ${summary}`);
    for (const s of whileDown) assert.equal(s.code, 'STORE_UNAVAILABLE', summary);

    // Every acknowledged sell is there, once.
    const acknowledged = seen.filter((s) => s.status === 201).map((s) => s.dealId as string);
    assert.ok(acknowledged.length > 10, summary);
    assert.equal(new Set(acknowledged).size, acknowledged.length, 'two sells answered with one deal');
    for (const id of acknowledged) {
      const answer = await service.get(`/pipeline/deals/${id}`);
      assert.equal(answer.status, 200, `${id} was acknowledged and is gone`);
    }
    t.diagnostic(
      `outage: ${seen.length} sells: ${summary}; recovered ${(recoveredAt as number) - up} ms after the restart`,
    );
  });
});
