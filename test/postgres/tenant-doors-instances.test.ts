// D-58 on two keys-mode instances over one PostgreSQL schema (row-level security on): two
// Sellers and a closer read the feed, follow the stream and own webhooks on both instances while
// all three act; no event crosses a tenant, none is lost for its owner (test/support/tenant-doors.ts).
import { after, before, describe, it } from 'node:test';
import { createStore } from '../../src/store/create-store.ts';
import { startTestServer, type TestServer } from '../support/http.ts';
import { OP } from '../support/keys.ts';
import { createTestSchema, postgresForTests, type TestSchema } from '../support/postgres.ts';
import { tenantDoors } from '../support/tenant-doors.ts';

const server = await postgresForTests();

describe("keys mode on two instances over PostgreSQL: every principal's feed, stream and webhooks (D-58)", {
  skip: server.skip,
}, () => {
  let schema: TestSchema;
  let a: TestServer;
  let b: TestServer;

  const start = async () =>
    startTestServer({
      config: {
        auth: 'keys',
        operatorKey: OP,
        webhookAllowPrivate: true,
        webhookRetryBaseMs: 100,
        webhookTimeoutMs: 1000,
        streamPollMs: 100,
      },
      store: await createStore(schema.url, { poolSize: 4, ownerUrl: schema.ownerUrl }),
    });

  before(async () => {
    schema = await createTestSchema(server.url as string, 'doors');
    a = await start();
    b = await start();
  });
  after(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await schema?.drop();
  });

  it('two Sellers and a closer acting at once on both instances each see exactly their own, in all three', async () => {
    await tenantDoors(a, b);
  });
});
