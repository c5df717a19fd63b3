// D-58 on one instance (the store of TEST_STORE): two Sellers and a closer read the feed, follow
// the stream and own webhooks while all three act; no event crosses a tenant, none is lost for
// its owner (test/support/tenant-doors.ts; test/postgres/tenant-doors-instances.test.ts runs
// the same on two instances over PostgreSQL).
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../support/http.ts';
import { startKeysServer } from '../support/keys.ts';
import { tenantDoors } from '../support/tenant-doors.ts';

describe("keys mode: every principal's feed, stream and webhooks (D-58)", () => {
  let t: TestServer;
  before(async () => {
    t = await startKeysServer({ webhookRetryBaseMs: 100, webhookTimeoutMs: 1000 });
  });
  after(async () => {
    await t?.close();
  });

  it('two Sellers and a closer acting at once each see exactly their own, in all three', async () => {
    await tenantDoors(t, t);
  });
});
