// The store contract: every adapter of the store port passes this same suite (memory,
// PGlite, PostgreSQL). Call describeStoreContract from a test file; a durable adapter also
// passes the durability cases, where `open` gives a new store over the same data.
import assert from 'node:assert/strict';
import { after, beforeEach, describe, it } from 'node:test';
import { resolveMandate } from '../../src/domain/mandate.ts';
import type { PublicEventDraft } from '../../src/domain/public-events.ts';
import type { Closer, Deal, Gig, PayoutLine } from '../../src/domain/records.ts';
import { DuplicatePayoutError, type Store, type UnitOfWork } from '../../src/store/store.ts';
import { accountContract } from './account-contract.ts';
import { approvalContract } from './approval-contract.ts';
import { insightContract } from './insight-contract.ts';
import { ledgerContract } from './ledger-contract.ts';
import { mailContract } from './mail-contract.ts';
import { notificationContract } from './notification-contract.ts';
import { peopleContract } from './people-contract.ts';
import { proposalContract } from './proposal-contract.ts';
import { webhookContract } from './webhook-contract.ts';

const T0 = Date.parse('2026-01-05T09:00:00.000Z');
const mandate = (() => {
  const resolved = resolveMandate(undefined, 'B2B');
  if (!resolved.ok) throw new Error('default mandate');
  return resolved.mandate;
})();

export function sampleDeal(id: string, overrides: Partial<Deal> = {}): Deal {
  return {
    id,
    version: 1,
    account: { name: 'Fictional Co', actor: 'B2B', industry: 'saas' },
    listValueCents: 10_000_000,
    stage: 'sourced',
    signals: [],
    mandate,
    activity: [{ at: T0, by: 'service', stage: 'sourced', note: 'created' }],
    lastActedAt: T0,
    ...overrides,
  };
}

/**
 * Puts new deals and closers as the service does: each with the event that says it was created
 * (deal.created, closer.enrolled), which is what counts() counts on a durable store.
 */
export async function putCreated(uow: UnitOfWork, ...records: (Deal | Closer)[]): Promise<void> {
  const events: PublicEventDraft[] = [];
  for (const record of records) {
    if ('industries' in record) {
      await uow.putCloser(record);
      events.push({ type: 'closer.enrolled', at: T0, data: { closer: record } });
    } else {
      await uow.putDeal(record);
      events.push({ type: 'deal.created', at: T0, data: { deal: record } });
    }
  }
  await uow.publish(events, T0);
}

export function sampleGig(id: string, dealId: string, overrides: Partial<Gig> = {}): Gig {
  return {
    id,
    status: 'open',
    dealId,
    role: 'closer',
    brief: {
      account: { name: 'Fictional Co', actor: 'B2B' },
      listValueCents: 10_000_000,
      stage: 'meeting',
      signals: [],
      floorCents: 8_000_000,
      activity: [],
    },
    pricing: { kind: 'commission', pct: 0.1 },
    postedAt: T0,
    openedAt: T0,
    ...overrides,
  };
}

export function sampleCloser(id: string, overrides: Partial<Closer> = {}): Closer {
  return {
    id,
    name: `Closer ${id}`,
    industries: ['saas'],
    record: { gigs: 0, wins: 0, grossClosedCents: 0n },
    enrolledAt: T0,
    ...overrides,
  };
}

export function sampleLine(gigId: string, overrides: Partial<PayoutLine> = {}): PayoutLine {
  return {
    at: T0,
    closerId: 'closer_0001',
    gigId,
    dealId: 'deal_0001',
    role: 'closer',
    kind: 'commission',
    amountCents: 123_45,
    ...overrides,
  };
}

class Boom extends Error {}

export interface ContractOptions {
  /** The adapter keeps its data: a store opened after another closed sees what it stored. */
  durable?: boolean;
}

export function describeStoreContract(name: string, open: () => Promise<Store>, options: ContractOptions = {}) {
  describe(`store contract: ${name}`, () => {
    let store: Store;
    const stores: Store[] = [];

    beforeEach(async () => {
      store = await open();
      stores.push(store);
      await store.transaction((uow) => uow.wipe());
    });
    after(async () => {
      for (const s of stores) await s.close();
    });

    webhookContract(name, () => store);
    accountContract(name, () => store);
    proposalContract(name, () => store);
    peopleContract(name, () => store);
    mailContract(name, () => store);
    approvalContract(name, () => store);
    notificationContract(name, () => store);
    insightContract(name, () => store);
    ledgerContract(name, () => store);

    it('stores and reads back deals, gigs and closers unchanged', async () => {
      const deal = sampleDeal('deal_0001', { humanTrack: true, stallDueAt: T0 + 5 });
      const gig = sampleGig('gig_0001', 'deal_0001', { timerDueAt: T0 + 10 });
      const closer = sampleCloser('closer_0001');
      await store.transaction(async (uow) => {
        await putCreated(uow, deal, closer);
        await uow.putGig(gig);
      });
      await store.read(async (r) => {
        assert.deepEqual(await r.getDeal('deal_0001'), deal);
        assert.deepEqual(await r.getGig('gig_0001'), gig);
        assert.deepEqual(await r.getCloser('closer_0001'), closer);
        assert.equal(await r.getDeal('deal_0404'), undefined);
        assert.equal(await r.getGig('gig_0404'), undefined);
        assert.equal(await r.getCloser('closer_0404'), undefined);
        assert.deepEqual(await r.counts(), { deals: 1, closers: 1 });
      });
    });

    it('replaces a record on a second put, keeping one copy', async () => {
      await store.transaction(async (uow) => {
        await putCreated(uow, sampleDeal('deal_0001'));
        await uow.putGig(sampleGig('gig_0001', 'deal_0001'));
      });
      await store.transaction(async (uow) => {
        await uow.putDeal(sampleDeal('deal_0001', { stage: 'qualified' }));
        await uow.putGig(sampleGig('gig_0001', 'deal_0001', { status: 'claimed', closerId: 'closer_0001' }));
      });
      await store.read(async (r) => {
        assert.equal((await r.getDeal('deal_0001'))?.stage, 'qualified');
        const gigs = await r.gigsOfDeal('deal_0001');
        assert.equal(gigs.length, 1);
        assert.equal(gigs[0].status, 'claimed');
        assert.deepEqual(await r.counts(), { deals: 1, closers: 0 });
      });
    });

    it('pages deals in id order, by stage, after a cursor, and follows stage changes', async () => {
      await store.transaction(async (uow) => {
        for (let n = 1; n <= 12; n++) {
          const stage = n % 3 === 0 ? 'negotiation' : 'sourced';
          await uow.putDeal(sampleDeal(`deal_${String(n).padStart(4, '0')}`, { stage }));
        }
        await uow.putDeal(sampleDeal('deal_10000', { stage: 'negotiation' }));
      });
      await store.read(async (r) => {
        const ids = async (filter: Parameters<typeof r.listDeals>[0]) => (await r.listDeals(filter)).map((d) => d.id);
        assert.deepEqual(await ids({ stage: 'negotiation', limit: 10 }), [
          'deal_0003',
          'deal_0006',
          'deal_0009',
          'deal_0012',
          'deal_10000',
        ]);
        assert.deepEqual(await ids({ stage: 'negotiation', afterId: 'deal_0006', limit: 2 }), [
          'deal_0009',
          'deal_0012',
        ]);
        assert.deepEqual(await ids({ stage: 'negotiation', afterId: 'deal_0012', limit: 2 }), ['deal_10000']);
        assert.deepEqual(await ids({ limit: 3 }), ['deal_0001', 'deal_0002', 'deal_0003']);
        assert.deepEqual(await ids({ afterId: 'deal_0011', limit: 5 }), ['deal_0012', 'deal_10000']);
        assert.deepEqual(await ids({ stage: 'closed_won', limit: 5 }), []);
      });
      await store.transaction((uow) => uow.putDeal(sampleDeal('deal_0003', { stage: 'closed_won' })));
      await assert.rejects(
        store.transaction(async (uow) => {
          await uow.putDeal(sampleDeal('deal_0006', { stage: 'closed_won' }));
          throw new Boom('refused');
        }),
        Boom,
      );
      await store.read(async (r) => {
        assert.deepEqual(
          (await r.listDeals({ stage: 'closed_won', limit: 5 })).map((d) => d.id),
          ['deal_0003'],
        );
        assert.equal((await r.listDeals({ stage: 'negotiation', limit: 1 }))[0].id, 'deal_0006');
      });
    });

    it('finds deals by a text in their account name, without regard to case, with the other filters (D-67)', async () => {
      const named = (n: number, name: string, stage: Deal['stage'] = 'sourced') =>
        sampleDeal(`deal_${String(n).padStart(4, '0')}`, { account: { ...sampleDeal('x').account, name }, stage });
      await store.transaction(async (uow) => {
        await uow.putDeal(named(1, 'Acme Fictional Corp'));
        await uow.putDeal(named(2, 'Globex Fictional'));
        await uow.putDeal(named(3, 'ACME Fictional Labs', 'negotiation'));
        await uow.putDeal(named(4, 'Fictional 100% Co_op'));
        await uow.putDeal(named(5, 'Société Fictive'));
      });
      await store.read(async (r) => {
        const ids = async (filter: Parameters<typeof r.listDeals>[0]) => (await r.listDeals(filter)).map((d) => d.id);
        assert.deepEqual(await ids({ q: 'acme', limit: 10 }), ['deal_0001', 'deal_0003']);
        assert.deepEqual(await ids({ q: 'aCmE fictional', limit: 10 }), ['deal_0001', 'deal_0003']);
        assert.deepEqual(await ids({ q: 'acme', stage: 'negotiation', limit: 10 }), ['deal_0003']);
        assert.deepEqual(await ids({ q: 'acme', afterId: 'deal_0001', limit: 10 }), ['deal_0003']);
        assert.deepEqual(await ids({ q: 'acme', limit: 1 }), ['deal_0001']);
        // The text is a text: % and _ are no patterns.
        assert.deepEqual(await ids({ q: '100%', limit: 10 }), ['deal_0004']);
        assert.deepEqual(await ids({ q: '_', limit: 10 }), ['deal_0004']);
        assert.deepEqual(await ids({ q: '%', limit: 10 }), ['deal_0004']);
        assert.deepEqual(await ids({ q: 'SOCIÉTÉ', limit: 10 }), ['deal_0005']);
        assert.deepEqual(await ids({ q: 'initech', limit: 10 }), []);
      });
    });

    it('lists gigs in id order, filtered by status, and the gigs of one deal', async () => {
      await store.transaction(async (uow) => {
        await uow.putGig(sampleGig('gig_0002', 'deal_0001', { status: 'released' }));
        await uow.putGig(sampleGig('gig_0001', 'deal_0002'));
        await uow.putGig(sampleGig('gig_0003', 'deal_0001'));
      });
      await store.read(async (r) => {
        assert.deepEqual(
          (await r.listGigs()).map((g) => g.id),
          ['gig_0001', 'gig_0002', 'gig_0003'],
        );
        assert.deepEqual(
          (await r.listGigs({ status: 'open' })).map((g) => g.id),
          ['gig_0001', 'gig_0003'],
        );
        assert.deepEqual(await r.listGigs({ status: 'fulfilled' }), []);
        assert.deepEqual((await r.gigsOfDeal('deal_0001')).map((g) => g.id).sort(), ['gig_0002', 'gig_0003']);
        assert.deepEqual(await r.gigsOfDeal('deal_0404'), []);
      });
    });

    it('lists in number order past 9999 (gig_9999 before gig_10000)', async () => {
      await store.transaction(async (uow) => {
        await uow.putGig(sampleGig('gig_10000', 'deal_0001'));
        await uow.putGig(sampleGig('gig_9999', 'deal_0001'));
      });
      assert.deepEqual(
        (await store.read((r) => r.listGigs())).map((g) => g.id),
        ['gig_9999', 'gig_10000'],
      );
    });

    it('lists closers in id order', async () => {
      await store.transaction(async (uow) => {
        await uow.putCloser(sampleCloser('closer_0002'));
        await uow.putCloser(sampleCloser('closer_0001'));
      });
      assert.deepEqual(
        (await store.read((r) => r.listClosers())).map((c) => c.id),
        ['closer_0001', 'closer_0002'],
      );
    });

    it('hands out id numbers in sequence, one counter per kind, peeking takes nothing', async () => {
      await store.transaction(async (uow) => {
        assert.deepEqual(await uow.nextNumbers(), { deal: 1, gig: 1, closer: 1 });
        assert.deepEqual(await uow.nextNumbers(), { deal: 1, gig: 1, closer: 1 });
        assert.equal(await uow.takeNumber('deal'), 1);
        assert.equal(await uow.takeNumber('deal'), 2);
        assert.equal(await uow.takeNumber('gig'), 1);
        assert.deepEqual(await uow.nextNumbers(), { deal: 3, gig: 2, closer: 1 });
      });
      await store.transaction(async (uow) => assert.equal(await uow.takeNumber('deal'), 3));
    });

    it('numbers a unit’s provisional ids at once: the real id of each, in the order given (D-273)', async () => {
      // Provisional ids, as a decision calls its new records (domain/ids.ts).
      const [deal, gig, closer, secondGig] = ['deal_1', 'gig_1', 'closer_1', 'gig_2'].map((k) =>
        k.replace('_', `_9${'0'.repeat(16)}`),
      );
      const renames = await store.transaction(async (uow) => {
        await uow.takeNumber('gig');
        const given = await uow.numberIds([
          { kind: 'deal', id: deal },
          { kind: 'gig', id: gig },
          { kind: 'closer', id: closer },
          { kind: 'gig', id: secondGig },
        ]);
        // Taken by then: what the unit puts next is written under those ids.
        assert.deepEqual(await uow.nextNumbers(), { deal: 2, gig: 4, closer: 2 });
        await putCreated(uow, sampleDeal(given.get(deal) as string));
        return given;
      });
      assert.deepEqual(
        [...renames],
        [
          [deal, 'deal_0001'],
          [gig, 'gig_0002'],
          [closer, 'closer_0001'],
          [secondGig, 'gig_0003'],
        ],
      );
      assert.equal((await store.read((r) => r.getDeal('deal_0001')))?.id, 'deal_0001');
    });

    it('rolls back every write of a unit of work that throws; a number it took is never handed out again', async () => {
      await store.transaction(async (uow) => {
        await uow.takeNumber('deal');
        await putCreated(uow, sampleDeal('deal_0001'));
      });
      await assert.rejects(
        store.transaction(async (uow) => {
          await uow.takeNumber('deal');
          await uow.takeNumber('gig');
          await uow.putDeal(sampleDeal('deal_0001', { stage: 'qualified' }));
          await putCreated(uow, sampleDeal('deal_0002'), sampleCloser('closer_0001'));
          await uow.putGig(sampleGig('gig_0001', 'deal_0001'));
          await uow.appendPayout(sampleLine('gig_0001'));
          await uow.setClockOffsetMs(5000);
          throw new Boom('refused');
        }),
        Boom,
      );
      await store.read(async (r) => {
        assert.equal((await r.getDeal('deal_0001'))?.stage, 'sourced');
        assert.equal(await r.getDeal('deal_0002'), undefined);
        assert.equal(await r.getGig('gig_0001'), undefined);
        assert.deepEqual(await r.gigsOfDeal('deal_0001'), []);
        assert.equal(await r.getCloser('closer_0001'), undefined);
        assert.deepEqual(await r.payoutsOfCloser('closer_0001'), []);
        assert.deepEqual(await r.payoutsOfDeal('deal_0001'), []);
        assert.equal(await r.clockOffsetMs(), 0);
        assert.deepEqual(await r.counts(), { deals: 1, closers: 0 });
      });
      // D-28: a durable store may leave a gap (its sequences are not rolled back); the memory
      // store gives the numbers back. Either way none is ever handed out twice.
      const next = await store.transaction((uow) => uow.nextNumbers());
      assert.ok(next.deal === 2 || next.deal === 3, `next deal number ${next.deal}`);
      assert.ok(next.gig === 1 || next.gig === 2, `next gig number ${next.gig}`);
      assert.equal(next.closer, 1);
    });

    it('keeps the payout ledger append-only: one line per gig, ever', async () => {
      await store.transaction(async (uow) => {
        await uow.appendPayout(sampleLine('gig_0001'));
        await uow.appendPayout(sampleLine('gig_0002', { kind: 'fee', dealId: 'deal_0002', amountCents: 25_000 }));
      });
      await assert.rejects(
        store.transaction((uow) => uow.appendPayout(sampleLine('gig_0001', { amountCents: 1 }))),
        DuplicatePayoutError,
      );
      await store.read(async (r) => {
        const lines = await r.payoutsOfCloser('closer_0001');
        assert.deepEqual(
          lines.map((l) => [l.gigId, l.amountCents]),
          [
            ['gig_0001', 123_45],
            ['gig_0002', 25_000],
          ],
        );
        assert.deepEqual(
          (await r.payoutsOfDeal('deal_0002')).map((l) => l.gigId),
          ['gig_0002'],
        );
      });
    });

    it('reads the ledgers of several closers at once, in append order, [] for none', async () => {
      await store.transaction(async (uow) => {
        await uow.appendPayout(sampleLine('gig_0003', { closerId: 'closer_0002' }));
        await uow.appendPayout(sampleLine('gig_0001'));
        await uow.appendPayout(sampleLine('gig_0002', { closerId: 'closer_0002', amountCents: 7 }));
      });
      const ledgers = await store.read((r) => r.payoutsOfClosers(['closer_0002', 'closer_0001', 'closer_0404']));
      assert.deepEqual([...ledgers.keys()].sort(), ['closer_0001', 'closer_0002', 'closer_0404']);
      assert.deepEqual(
        ledgers.get('closer_0002')?.map((l) => l.gigId),
        ['gig_0003', 'gig_0002'],
      );
      assert.deepEqual(ledgers.get('closer_0001'), [sampleLine('gig_0001')]);
      assert.deepEqual(ledgers.get('closer_0404'), []);
      assert.deepEqual(await store.read((r) => r.payoutsOfClosers([])), new Map());
    });

    it('finds due gig and deal timers, earliest first, up to the limit', async () => {
      await store.transaction(async (uow) => {
        await uow.putGig(sampleGig('gig_0001', 'deal_0001', { timerDueAt: T0 + 300 }));
        await uow.putGig(sampleGig('gig_0002', 'deal_0001', { timerDueAt: T0 + 100 }));
        await uow.putGig(sampleGig('gig_0003', 'deal_0001', { timerDueAt: T0 + 900 }));
        await uow.putGig(sampleGig('gig_0004', 'deal_0001', { status: 'released' }));
        await uow.putDeal(sampleDeal('deal_0001', { stallDueAt: T0 + 200 }));
        await uow.putDeal(sampleDeal('deal_0002', { stallDueAt: T0 + 50 }));
        await uow.putDeal(sampleDeal('deal_0003'));
      });
      await store.read(async (r) => {
        assert.deepEqual(
          (await r.dueGigs(T0 + 300, 10)).map((g) => g.id),
          ['gig_0002', 'gig_0001'],
        );
        assert.deepEqual(
          (await r.dueGigs(T0 + 1000, 2)).map((g) => g.id),
          ['gig_0002', 'gig_0001'],
        );
        assert.deepEqual(await r.dueGigs(T0, 10), []);
        assert.deepEqual(
          (await r.dueDeals(T0 + 1000, 10)).map((d) => d.id),
          ['deal_0002', 'deal_0001'],
        );
      });
    });

    it('shares the demo clock offset through the store', async () => {
      await store.transaction((uow) => uow.setClockOffsetMs(3_600_000));
      assert.equal(await store.read((r) => r.clockOffsetMs()), 3_600_000);
    });

    it('counts every one of racing clock advances', async () => {
      const offsets = await Promise.all(
        Array.from({ length: 10 }, () => store.transaction((uow) => uow.advanceClockOffsetMs(1_000))),
      );
      assert.deepEqual(
        [...offsets].sort((x, y) => x - y),
        Array.from({ length: 10 }, (_, i) => (i + 1) * 1_000),
      );
      assert.equal(await store.read((r) => r.clockOffsetMs()), 10_000);
      await assert.rejects(
        store.transaction(async (uow) => {
          await uow.advanceClockOffsetMs(5);
          throw new Boom('refused');
        }),
        Boom,
      );
      assert.equal(await store.read((r) => r.clockOffsetMs()), 10_000, 'rolled back with its unit of work');
    });

    it('wipes everything and restarts the counters and the clock', async () => {
      await store.transaction(async (uow) => {
        await uow.takeNumber('closer');
        await uow.putCloser(sampleCloser('closer_0001'));
        await uow.putDeal(sampleDeal('deal_0001'));
        await uow.putGig(sampleGig('gig_0001', 'deal_0001'));
        await uow.appendPayout(sampleLine('gig_0001'));
        await uow.setClockOffsetMs(1000);
      });
      await store.transaction((uow) => uow.wipe());
      await store.read(async (r) => {
        assert.deepEqual(await r.counts(), { deals: 0, closers: 0 });
        assert.deepEqual(await r.listGigs(), []);
        assert.deepEqual(await r.payoutsOfCloser('closer_0001'), []);
        assert.equal(await r.clockOffsetMs(), 0);
      });
      await store.transaction(async (uow) => assert.deepEqual(await uow.nextNumbers(), { deal: 1, gig: 1, closer: 1 }));
    });

    it('serializes units of work: racing read-modify-writes lose no update', async () => {
      await store.transaction((uow) => uow.putCloser(sampleCloser('closer_0001')));
      await Promise.all(
        Array.from({ length: 25 }, () =>
          store.transaction(async (uow) => {
            const closer = (await uow.getCloser('closer_0001')) as Closer;
            await new Promise((resolve) => setTimeout(resolve, 1));
            await uow.putCloser({ ...closer, record: { ...closer.record, gigs: closer.record.gigs + 1 } });
            await uow.takeNumber('deal');
          }),
        ),
      );
      assert.equal((await store.read((r) => r.getCloser('closer_0001')))?.record.gigs, 25);
      await store.transaction(async (uow) => assert.equal((await uow.nextNumbers()).deal, 26));
    });

    it('keeps every optional field through a round trip, and leaves absent ones absent', async () => {
      const deal = sampleDeal('deal_0002', {
        stage: 'closed_won',
        signals: ['gone_dark', 'budget_cut'],
        humanTrack: false,
        finalValueCents: 9_999_999,
        closedBy: 'human',
        lineage: { revivedFrom: 'deal_0001' },
        mandate: {
          ...mandate,
          staffing: {
            setter: 'agent',
            closer: { humanIf: { minDealSizeCents: 5_000_000, signals: ['vip'] } },
            nurturer: 'human',
          },
          commissionPct: 0.085,
        },
        activity: [
          { at: T0, by: 'service', stage: 'sourced', note: 'created — “quotes”, émigré, 🚀, \\ and \u0000-free' },
          { at: T0 + 1, by: 'human', stage: 'closed_won', note: 'Closed won at $99,999.99' },
        ],
      });
      const gig = sampleGig('gig_0002', 'deal_0002', {
        status: 'fulfilled',
        role: 'nurturer',
        pricing: { kind: 'fee', amountCents: 15_000 },
        closerId: 'closer_0001',
        claimedAt: T0 + 2,
        lastMoveAt: T0 + 3,
        outcome: 'revived',
        finalValueCents: 1,
        endedAt: T0 + 4,
      });
      const bare = sampleGig('gig_0003', 'deal_0002');
      const closer = sampleCloser('closer_0001', {
        industries: [],
        // Past 2^53 cents (D-24): stored and read back to the cent.
        record: { gigs: 3, wins: 2, grossClosedCents: 2n ** 60n + 7n },
      });
      await store.transaction(async (uow) => {
        await uow.putDeal(deal);
        await uow.putGig(gig);
        await uow.putGig(bare);
        await uow.putCloser(closer);
      });
      await store.read(async (r) => {
        assert.deepEqual(await r.getDeal(deal.id), deal);
        assert.deepEqual(await r.getGig(gig.id), gig);
        const readBare = await r.getGig(bare.id);
        assert.deepEqual(readBare, bare);
        assert.equal('closerId' in (readBare as Gig), false);
        assert.deepEqual(await r.getCloser(closer.id), closer);
      });
    });

    it('lets a unit of work read its own writes', async () => {
      await store.transaction(async (uow) => {
        await putCreated(uow, sampleDeal('deal_0001', { stallDueAt: T0 }), sampleCloser('closer_0001'));
        await uow.putGig(sampleGig('gig_0001', 'deal_0001', { timerDueAt: T0 }));
        assert.equal((await uow.getDeal('deal_0001'))?.id, 'deal_0001');
        assert.deepEqual(
          (await uow.gigsOfDeal('deal_0001')).map((g) => g.id),
          ['gig_0001'],
        );
        assert.deepEqual(await uow.counts(), { deals: 1, closers: 1 });
        await uow.putDeal(sampleDeal('deal_0001', { stage: 'qualified' }));
        assert.equal((await uow.getDeal('deal_0001'))?.stage, 'qualified');
        assert.deepEqual(
          (await uow.dueGigs(T0, 10)).map((g) => g.id),
          ['gig_0001'],
        );
        assert.deepEqual(
          (await uow.dueDeals(T0, 10)).map((d) => d.id),
          [],
          'the second put cleared the stall timer',
        );
        await uow.appendPayout(sampleLine('gig_0001'));
        assert.equal((await uow.payoutsOfDeal('deal_0001')).length, 1);
      });
      assert.equal((await store.read((r) => r.getDeal('deal_0001')))?.stage, 'qualified');
    });

    it('wipes the puts made earlier in the same unit of work too', async () => {
      await store.transaction(async (uow) => {
        await putCreated(uow, sampleDeal('deal_0001'));
        await uow.wipe();
        await putCreated(uow, sampleCloser('closer_0001'));
      });
      assert.deepEqual(await store.read((r) => r.counts()), { deals: 0, closers: 1 });
    });

    it('serializes racing units of work on one gig: no update lost', async () => {
      await store.transaction(async (uow) => {
        await uow.putDeal(sampleDeal('deal_0001'));
        await uow.putGig(sampleGig('gig_0001', 'deal_0001', { lastMoveAt: 0 }));
      });
      await Promise.all(
        Array.from({ length: 20 }, () =>
          store.transaction(async (uow) => {
            const gig = (await uow.getGig('gig_0001')) as Gig;
            await new Promise((resolve) => setTimeout(resolve, 1));
            await uow.putGig({ ...gig, lastMoveAt: (gig.lastMoveAt ?? 0) + 1 });
          }),
        ),
      );
      assert.equal((await store.read((r) => r.getGig('gig_0001')))?.lastMoveAt, 20);
    });

    it('writes one ledger line when racing units of work pay the same gig', async () => {
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) =>
          store.transaction((uow) => uow.appendPayout(sampleLine('gig_0001', { amountCents: 100 + i }))),
        ),
      );
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      for (const r of results) if (r.status === 'rejected') assert.ok(r.reason instanceof DuplicatePayoutError);
      assert.equal((await store.read((r) => r.payoutsOfCloser('closer_0001'))).length, 1);
    });

    it('runs units of work that take the same named lock one at a time (seed if empty seeds once)', async () => {
      await Promise.all(
        Array.from({ length: 10 }, () =>
          store.transaction(async (uow) => {
            await uow.lock('seed');
            if ((await uow.counts()).closers > 0) return;
            await new Promise((resolve) => setTimeout(resolve, 2));
            await putCreated(uow, sampleCloser(`closer_000${await uow.takeNumber('closer')}`));
          }),
        ),
      );
      assert.deepEqual(
        (await store.read((r) => r.listClosers())).map((c) => c.id),
        ['closer_0001'],
      );
    });

    it('stores an answer under an idempotency key, replaces it, and forgets answers older than a bound', async () => {
      const answer = (status: number, storedAt: number) => ({
        fingerprint: `fp-${status}`,
        status,
        body: `{"status":${status},"nul":"\\u0000"}`,
        storedAt,
      });
      await store.transaction(async (uow) => {
        await uow.putAnswer('key-1', { ...answer(201, T0), location: '/pipeline/deals/deal_0001' });
        await uow.putAnswer('key-2', answer(404, T0 + 10));
        assert.deepEqual(await uow.getAnswer('key-1'), { ...answer(201, T0), location: '/pipeline/deals/deal_0001' });
      });
      await store.transaction(async (uow) => {
        assert.deepEqual(await uow.getAnswer('key-2'), answer(404, T0 + 10));
        assert.equal(await uow.getAnswer('key-3'), undefined);
        await uow.putAnswer('key-2', answer(409, T0 + 20));
        assert.deepEqual(await uow.getAnswer('key-2'), answer(409, T0 + 20), 'a second put replaces');
      });
      await store.transaction(async (uow) => {
        assert.equal(await uow.purgeAnswers(T0 + 5), 1, 'only key-1 was stored before T0 + 5');
        assert.equal(await uow.getAnswer('key-1'), undefined);
        assert.deepEqual(await uow.getAnswer('key-2'), answer(409, T0 + 20));
      });
    });

    it('reads an answer outside a unit of work; one put as new after its key was stored meanwhile runs the unit again (D-285)', async () => {
      const first = { fingerprint: 'f', status: 201, body: '{"by":"first"}', storedAt: T0 };
      assert.equal(await store.read((r) => r.getAnswer('key-new'), { oneStatement: true }), undefined);
      let raced = false;
      const found: unknown[] = [];
      await store.transaction(
        async (uow) => {
          if (uow.runsAgainOnConflict) {
            // Another request with the key commits while this run has sent nothing.
            raced = true;
            await store.transaction((other) => other.putAnswer('key-new', first));
            await uow.putAnswer('key-new', { ...first, body: '{"by":"second"}' }, true);
            return;
          }
          const stored = await uow.getAnswer('key-new');
          found.push(stored);
          if (stored === undefined) await uow.putAnswer('key-new', first);
        },
        { optimistic: true },
      );
      // Where units run again, the second run found the first answer and kept it.
      assert.deepEqual(found, [raced ? first : undefined]);
      assert.deepEqual(await store.read((r) => r.getAnswer('key-new'), { oneStatement: true }), first);
    });

    it('rolls back an answer stored by a unit of work that throws, and wipes answers', async () => {
      await assert.rejects(
        store.transaction(async (uow) => {
          await uow.putAnswer('key-1', { fingerprint: 'f', status: 200, body: '{}', storedAt: T0 });
          throw new Boom('rolled back');
        }),
        Boom,
      );
      await store.transaction(async (uow) => assert.equal(await uow.getAnswer('key-1'), undefined));
      await store.transaction((uow) =>
        uow.putAnswer('key-1', { fingerprint: 'f', status: 200, body: '{}', storedAt: T0 }),
      );
      await store.transaction((uow) => uow.wipe());
      await store.transaction(async (uow) => assert.equal(await uow.getAnswer('key-1'), undefined));
    });

    // ── the feed (D-40, D-41) ──────────────────────────────────────────────────────────
    const moved = (dealId: string, to: 'qualified' | 'meeting', at = T0): PublicEventDraft => ({
      type: 'deal.stage_changed',
      at,
      data: { dealId, from: to === 'qualified' ? 'sourced' : 'qualified', to, by: 'agent' },
    });
    const seqsOf = (events: { seq: number }[]) => events.map((e) => e.seq);

    it('publishes events with the unit of work: in order, seq increasing, data unchanged', async () => {
      const start = await store.lastSeq();
      const deal = sampleDeal('deal_0001', {
        // A NUL, quotes, a backslash and braces: the outbox's arrays (migration 015) keep them as written.
        activity: [{ at: T0, by: 'agent', stage: 'sourced', note: 'nul \u0000 ✓ "quoted" \\ {a,b} NULL' }],
      });
      await store.transaction(async (uow) => {
        await uow.putDeal(deal);
        await uow.publish([{ type: 'deal.created', at: T0, data: { deal } }, moved('deal_0001', 'qualified')], T0);
      });
      await store.transaction((uow) => uow.publish([moved('deal_0002', 'qualified', T0 + 1)], T0 + 1));
      const events = await store.events({ after: start, limit: 10 });
      assert.deepEqual(seqsOf(events), [start + 1, start + 2, start + 3]);
      assert.deepEqual(events[0].event, { type: 'deal.created', at: T0, data: { deal } });
      assert.deepEqual(events[2].event, moved('deal_0002', 'qualified', T0 + 1));
      assert.equal(await store.lastSeq(), start + 3);
    });

    it('pages the feed after a seq, by type and by deal, up to the limit', async () => {
      const start = await store.lastSeq();
      await store.transaction((uow) =>
        uow.publish(
          [
            moved('deal_0001', 'qualified'),
            { type: 'closer.enrolled', at: T0, data: { closer: sampleCloser('closer_0001') } },
            moved('deal_0002', 'qualified'),
            moved('deal_0001', 'meeting'),
            { type: 'gig.posted', at: T0, data: { gig: sampleGig('gig_0001', 'deal_0001') } },
          ],
          T0,
        ),
      );
      assert.deepEqual(seqsOf(await store.events({ after: start, limit: 2 })), [start + 1, start + 2]);
      assert.deepEqual(seqsOf(await store.events({ after: start + 2, limit: 10 })), [start + 3, start + 4, start + 5]);
      assert.deepEqual(seqsOf(await store.events({ after: start, limit: 10, dealId: 'deal_0001' })), [
        start + 1,
        start + 4,
        start + 5,
      ]);
      assert.deepEqual(seqsOf(await store.events({ after: start, limit: 10, type: 'deal.stage_changed' })), [
        start + 1,
        start + 3,
        start + 4,
      ]);
      assert.deepEqual(
        seqsOf(await store.events({ after: start + 1, limit: 10, type: 'deal.stage_changed', dealId: 'deal_0001' })),
        [start + 4],
      );
      assert.deepEqual(await store.events({ after: start + 5, limit: 10 }), []);
      assert.deepEqual(await store.events({ after: start, limit: 10, dealId: 'deal_9999' }), []);
    });

    it('publishes nothing from a unit of work that throws, and takes no seq', async () => {
      const start = await store.lastSeq();
      await assert.rejects(
        store.transaction(async (uow) => {
          await uow.publish([moved('deal_0001', 'qualified')], T0);
          await uow.putDeal(sampleDeal('deal_0001'));
          throw new Boom('rolled back');
        }),
        Boom,
      );
      assert.deepEqual(await store.events({ after: start, limit: 10 }), []);
      await store.transaction((uow) => uow.publish([moved('deal_0001', 'qualified')], T0));
      assert.deepEqual(seqsOf(await store.events({ after: start, limit: 10 })), [start + 1]);
    });

    it('wipes the feed but never restarts its seq, and publishes after a wipe in the same unit', async () => {
      await store.transaction((uow) => uow.publish([moved('deal_0001', 'qualified')], T0));
      const before = await store.lastSeq();
      assert.ok(before >= 1);
      await store.transaction(async (uow) => {
        await uow.wipe();
        await uow.publish([{ type: 'demo.reset', at: T0, data: {} }], T0);
      });
      const events = await store.events({ after: 0, limit: 10 });
      assert.deepEqual(events, [{ seq: before + 1, event: { type: 'demo.reset', at: T0, data: {} } }]);
    });

    it('forgets events recorded before a bound (retention), keeping the rest and the seq', async () => {
      const start = await store.lastSeq();
      await store.transaction((uow) => uow.publish([moved('deal_0001', 'qualified')], T0));
      await store.transaction((uow) => uow.publish([moved('deal_0001', 'meeting')], T0 + 10));
      await store.events({ after: start, limit: 10 });
      assert.equal(await store.transaction((uow) => uow.purgeEvents(T0 + 5)), 1);
      assert.deepEqual(seqsOf(await store.events({ after: 0, limit: 10 })), [start + 2]);
      assert.deepEqual(seqsOf(await store.events({ after: 0, limit: 10, dealId: 'deal_0001' })), [start + 2]);
      await store.transaction((uow) => uow.publish([moved('deal_0002', 'qualified')], T0 + 20));
      assert.deepEqual(seqsOf(await store.events({ after: start, limit: 10 })), [start + 2, start + 3]);
    });

    it('forgets the oldest events in feed order: one recorded early but behind a younger one waits for it', async () => {
      const start = await store.lastSeq();
      await store.transaction((uow) => uow.publish([moved('deal_0001', 'qualified')], T0));
      await store.transaction((uow) => uow.publish([moved('deal_0001', 'meeting')], T0 + 10));
      await store.transaction((uow) => uow.publish([moved('deal_0002', 'qualified')], T0 + 1));
      await store.events({ after: start, limit: 10 });
      assert.equal(await store.transaction((uow) => uow.purgeEvents(T0 + 5)), 1);
      assert.deepEqual(seqsOf(await store.events({ after: 0, limit: 10 })), [start + 2, start + 3]);
      assert.equal(await store.transaction((uow) => uow.purgeEvents(T0 + 11)), 2);
      assert.deepEqual(seqsOf(await store.events({ after: 0, limit: 10 })), []);
    });

    it('gives racing units of work distinct seqs, each unit’s events together and in order', async () => {
      const start = await store.lastSeq();
      await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          store.transaction(async (uow) => {
            await uow.putDeal(sampleDeal(`deal_${1000 + i}`));
            await uow.publish([moved(`deal_${1000 + i}`, 'qualified'), moved(`deal_${1000 + i}`, 'meeting')], T0);
          }),
        ),
      );
      const events = await store.events({ after: start, limit: 100 });
      assert.deepEqual(
        seqsOf(events),
        Array.from({ length: 24 }, (_, i) => start + 1 + i),
      );
      for (let i = 0; i < 24; i += 2) {
        const [first, second] = [events[i].event, events[i + 1].event];
        assert.equal(first.type === 'deal.stage_changed' && first.data.to, 'qualified');
        assert.equal(second.type === 'deal.stage_changed' && second.data.to, 'meeting');
        assert.equal(
          (first as { data: { dealId: string } }).data.dealId,
          (second as { data: { dealId: string } }).data.dealId,
        );
      }
    });

    if (options.durable) {
      it('keeps every record, counter and the clock across closing and reopening the store', async () => {
        const deal = sampleDeal('deal_0001', { stallDueAt: T0 + 5, humanTrack: true });
        const gig = sampleGig('gig_0001', 'deal_0001', { status: 'claimed', closerId: 'closer_0001', timerDueAt: T0 });
        const closer = sampleCloser('closer_0001');
        const line = sampleLine('gig_0009');
        await store.transaction(async (uow) => {
          await uow.takeNumber('deal');
          await uow.takeNumber('gig');
          await uow.putDeal(deal);
          await uow.putGig(gig);
          await uow.putCloser(closer);
          await uow.appendPayout(line);
          await uow.setClockOffsetMs(7_200_000);
        });
        await store.close();
        const reopened = await open();
        stores.push(reopened);
        await reopened.read(async (r) => {
          assert.deepEqual(await r.getDeal(deal.id), deal);
          assert.deepEqual(await r.getGig(gig.id), gig);
          assert.deepEqual(await r.getCloser(closer.id), closer);
          assert.deepEqual(await r.payoutsOfCloser('closer_0001'), [line]);
          assert.deepEqual(
            (await r.dueGigs(T0, 10)).map((g) => g.id),
            ['gig_0001'],
          );
          assert.equal(await r.clockOffsetMs(), 7_200_000);
        });
        await reopened.transaction(async (uow) =>
          assert.deepEqual(await uow.nextNumbers(), { deal: 2, gig: 2, closer: 1 }),
        );
        await assert.rejects(
          reopened.transaction((uow) => uow.appendPayout(line)),
          DuplicatePayoutError,
          'the ledger key survives too',
        );
        store = reopened;
      });

      it('opens again and again over the same data without migrating twice or wiping', async () => {
        await store.transaction((uow) => putCreated(uow, sampleDeal('deal_0001')));
        await store.close();
        for (let i = 0; i < 2; i++) {
          const again = await open();
          stores.push(again);
          assert.deepEqual(await again.read((r) => r.counts()), { deals: 1, closers: 0 });
          await again.close();
        }
        store = await open();
        stores.push(store);
      });
    }
  });
}
