// D-77: every table that holds a tenant's data has row-level security, forced, with policies.
// The schema is migrated from nothing, and every table in it, as pg_catalog lists them, must be
// in one of the two lists below: a table that holds a tenant's data (its rows, or a copy of
// them) must have row-level security ENABLEd and FORCEd (held on the tables' owner too) and at
// least one policy; a table judged to hold none says why. A table in neither list fails, so a
// migration that adds a table has it classified here.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createStore } from '../../src/store/create-store.ts';
import type { Store } from '../../src/store/store.ts';
import { createTestSchema, postgresForTests, sqlOn, type TestSchema } from '../support/postgres.ts';

/** The tables that hold a tenant's data, a copy of it included: walled (migrations 011, 014, 020, 021, 022, 028). */
const TENANT_TABLES: Readonly<Record<string, string>> = {
  deals: "a Seller's deals",
  gigs: "the gigs of a Seller's deals, and whom they are claimed by",
  payouts: "the payout lines of a Seller's deals and of a closer",
  events: 'the feed: events about a Seller’s deals and a closer’s work',
  event_outbox: 'the same events, waiting to enter the feed',
  idempotency_keys: 'the answers stored for a principal’s retries',
  webhooks: 'a principal’s webhooks, their URLs and secrets',
  webhook_deliveries: 'the events as delivered to a principal’s webhook',
  webhook_attempts: 'the log of each delivery attempt to a principal’s webhook',
  api_keys: 'a principal’s keys',
  sellers: 'a Seller’s account (only it and the operator see it, D-54)',
  refused_proposals: 'the proposals the gate refused on a Seller’s deals, or of a closer',
  proposal_counts: 'their counts, by deal and by principal',
  console_sessions: 'a principal’s console sessions',
  users: 'a principal’s people: their emails, names, roles and password hashes',
  one_time_tokens: 'the invitation and reset tokens of a principal’s people (their SHA-256)',
  sign_in_throttles: 'a person’s failed sign-ins, by the SHA-256 of their email: the platform’s only',
  mail_outbox: 'the mail to a principal’s people, waiting to be sent',
  approvals: 'the proposals a Seller’s key policies held, and who decided them',
  key_closes: 'the closes and closed value committed through a Seller’s key, a row per closing unit of work',
  notifications: 'a principal’s people’s notifications: what happened to their deals, approvals and gigs',
  notification_settings: 'a person’s mail settings and the time of their last digest',
  transfers: 'the ledger: a Seller’s and a closer’s money, line by line (D-79)',
  held_earnings: 'a closer’s earnings still held, and whose deals they came from',
  refunds: 'the refunds of a Seller’s deals, and their reasons',
  closer_payouts: 'what a closer was paid, and the operator’s reference',
};

/** The tables judged to hold no tenant's data, each with the reason. */
const NO_TENANT_DATA: Readonly<Record<string, string>> = {
  closers:
    'the marketplace’s closer profiles (name, industries, record), which every key lists (D-54); a closer’s payouts are in payouts',
  settings: 'the demo clock’s offset, one row for the whole service',
  event_feed: 'the feed’s last seq and the counts of deals and closers, one row for the whole service',
  webhook_dispatch: 'the dispatcher’s cursor on the feed, one row',
  notifier_cursor: 'the notifier’s cursor on the feed, one row',
  schema_migrations: 'the migrations applied',
};

interface TableSecurity {
  name: string;
  enabled: boolean;
  forced: boolean;
  policies: number;
}

const server = await postgresForTests();

describe('row-level security covers every table that holds a tenant’s data (D-77)', { skip: server.skip }, () => {
  let schema: TestSchema;
  let store: Store;
  let tables: TableSecurity[];
  before(async () => {
    schema = await createTestSchema(server.url as string, 'coverage');
    store = await createStore(schema.url, { poolSize: 1, ownerUrl: schema.ownerUrl });
    tables = await sqlOn(schema.adminUrl, async (c) => {
      const { rows } = await c.query<TableSecurity>(
        `SELECT c.relname AS name, c.relrowsecurity AS enabled, c.relforcerowsecurity AS forced,
           (SELECT count(*)::int FROM pg_policy p WHERE p.polrelid = c.oid) AS policies
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') ORDER BY 1`,
      );
      return rows;
    });
  });
  after(async () => {
    await store?.close();
    await schema?.drop();
  });

  it('the schema has tables, and no table is in both lists', () => {
    assert.ok(tables.length >= 15, `the schema's tables: ${tables.map((t) => t.name).join(', ')}`);
    const both = Object.keys(TENANT_TABLES).filter((name) => name in NO_TENANT_DATA);
    assert.deepEqual(both, []);
  });

  it('every table is classified: one that holds a tenant’s data, or one that holds none (with the reason)', () => {
    const unclassified = tables.map((t) => t.name).filter((name) => !(name in TENANT_TABLES || name in NO_TENANT_DATA));
    assert.deepEqual(
      unclassified,
      [],
      'a table in neither list: add it to TENANT_TABLES (and give it forced row-level security) or to NO_TENANT_DATA with the reason',
    );
    const gone = [...Object.keys(TENANT_TABLES), ...Object.keys(NO_TENANT_DATA)].filter(
      (name) => !tables.some((t) => t.name === name),
    );
    assert.deepEqual(gone, [], 'listed here, but no such table in the schema');
  });

  it('every table that holds a tenant’s data has row-level security enabled, forced, and policies', () => {
    const unwalled = tables
      .filter((t) => t.name in TENANT_TABLES)
      .filter((t) => !t.enabled || !t.forced || t.policies === 0)
      .map((t) => `${t.name} (enabled ${t.enabled}, forced ${t.forced}, ${t.policies} policies)`);
    assert.deepEqual(unwalled, []);
  });
});
