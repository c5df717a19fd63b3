// A unit of work on PostgreSQL SQL: one READ COMMITTED transaction whose reads of records lock
// them, whose puts are buffered and written together, and which takes ids from the sequences
// once the gate has accepted (sql-numbers.ts; sql-store.ts says how the whole keeps its
// correctness across instances). An optimistic one (UnitOptions.optimistic, D-250) takes its
// records from the instance's cache while it can, and begins its transaction only when it must
// (sql-unit-reads.ts): with its write, which then checks them unchanged (check-unchanged.ts), or
// before a read the cache cannot serve or any other statement, which the checks then precede.
import type { IdKind } from '../../domain/ids.ts';
import type { PublicEventDraft } from '../../domain/public-events.ts';
import type { Closer, Deal, Gig, PayoutLine } from '../../domain/records.ts';
import type { ApprovalUnit } from '../approvals.ts';
import type { MailUnit } from '../mail.ts';
import type { NotificationUnit } from '../notifications.ts';
import type { PeopleUnit } from '../people.ts';
import type { ProposalUnit } from '../proposals.ts';
import type { StoredAnswer, UnitOfWork } from '../store.ts';
import { type GroupCommit, type Statement, touchedBy } from './group-commit.ts';
import { type OptimisticReads, remember } from './optimistic-reads.ts';
import { bufferEvents, LOCK, noWrites, writeOf } from './pending-writes.ts';
import { SqlAccountUnit } from './sql-accounts.ts';
import { SqlApprovalUnit } from './sql-approvals.ts';
import { advanceClockOffset, setClockOffset } from './sql-clock.ts';
import { rollback, takeNumber } from './sql-database.ts';
import { SqlLedgerUnit } from './sql-ledger.ts';
import { SqlMailUnit } from './sql-mail.ts';
import { SqlNotificationUnit } from './sql-notifications.ts';
import { nextNumbers, takeIds } from './sql-numbers.ts';
import { insertPayoutLine } from './sql-payout-lines.ts';
import { SqlPeopleUnit } from './sql-people.ts';
import { SqlProposalUnit } from './sql-proposals.ts';
import { ignore } from './sql-reader.ts';
import { purgeAnswers, purgeEvents } from './sql-retention.ts';
import { SqlUnitReads } from './sql-unit-reads.ts';
import { SqlWebhookUnit } from './sql-webhooks.ts';
import { WIPE } from './wipe.ts';

export class SqlUnitOfWork extends SqlUnitReads implements UnitOfWork {
  get runsAgainOnConflict() {
    return this.setup.optimistic;
  }
  // Puts not yet written.
  /** What the unit put, published, recorded and counted, not yet written. */
  private pending = noWrites();
  /** Whether this unit of work published anything (the store then sequences after the commit). */
  published = false;
  /** Whether this unit put or deleted a webhook (the store tells this instance's watchers at commit). */
  webhooksChanged = false;
  /** The write's transaction id (XID), once a write of an optimistic unit answered it. */
  private xid: string | undefined;
  /**
   * Written only as new rows: records numbered outside the unit's transaction (D-281), and the
   * answers of idempotency keys read free outside it (D-285).
   */
  private readonly fresh = { records: new Set<string>(), answers: new Set<string>() };

  /**
   * The unit's last write and COMMIT, sent together, behind BEGIN and the checks if the unit sent
   * nothing else (a move: one round trip in all; a create sent the statement of its numbers
   * first). Should the write or a check fail, the transaction is aborted and the server answers
   * that COMMIT by rolling back; the first error is the one thrown. A unit that has sent nothing
   * commits in a group instead, when the store has one (D-281, group-commit.ts). Then the cache
   * keeps what the unit leaves known.
   */
  async commit(): Promise<void> {
    if (this.setup.group && this.reads && !this.begun && !this.raw.taken) {
      await this.commitInGroup(this.setup.group, this.reads);
      return;
    }
    this.beginNow();
    await Promise.all([this.flush(), this.begun, ...this.checked, this.raw.query('COMMIT')]);
    this.remember();
  }

  /** What the unit leaves known, for the cache to keep once it committed. */
  private remember(): void {
    const { cache } = this.setup;
    if (this.wiped) {
      cache.clear();
      this.setup.group?.numbers.forget();
    }
    remember(cache, {
      xid: this.xid,
      deals: this.heldDeals,
      gigs: this.heldGigs,
      closers: this.reads ? new Map([...this.reads.closers, ...this.heldClosers]) : this.heldClosers,
      put: this.put,
      gigSetsKnown: new Set([...this.dealsWithGigs, ...this.newDeals]),
      expected: this.reads?.expected,
      known: this.reads?.known,
    });
  }

  /** Whether the unit's statements went to a group's batch (which began, and ended, its transaction). */
  private grouped = false;

  /** The checks, the write's locks and the write, committed with the other units ready (D-281). */
  private async commitInGroup(group: GroupCommit, reads: OptimisticReads): Promise<void> {
    const write = this.takeWrite();
    const statements = [...reads.expected.checks(), ...(write?.statements ?? [])];
    this.grouped = true;
    // Nothing read from the cache and nothing written: there is nothing to commit.
    if (statements.length === 0) return this.remember();
    await group.commit({
      principal: this.setup.principal,
      statements,
      ...touchedBy(reads.expected, this.put, this.heldGigs, this.fresh.answers),
      stale: () => reads.stale(),
      committed: (rows) => {
        if (write) this.xid = (rows[rows.length - 1] as { xid: string }[])[0].xid;
        this.remember();
      },
    });
  }

  /**
   * Rolls back a unit that failed. A refusal decided on records from the cache stands only if
   * they were current: they are checked first, and a conflict is thrown instead (the store runs
   * the unit again). A unit whose batch failed was rolled back with it. What the unit used is
   * forgotten by the cache.
   */
  async abandon(): Promise<void> {
    try {
      if (!this.grouped) {
        if (this.optimistic?.expected.any) this.beginNow();
        // Checks sent when the unit began are answered by now: one that failed is what the unit
        // failed of, whatever it threw after.
        await Promise.all(this.checked);
      }
    } finally {
      if (this.wiped) this.setup.group?.numbers.forget();
      if (this.begun) await rollback(this.raw);
      const expected = this.reads?.expected;
      this.setup.cache.forget({
        deals: [...this.put.deals, ...(expected?.deals.keys() ?? []), ...(expected?.gigSets.keys() ?? [])],
        closers: [
          ...this.put.closers,
          ...(expected?.lockedClosers.keys() ?? []),
          ...(expected?.readClosers.keys() ?? []),
        ],
      });
    }
  }

  override get accounts() {
    return new SqlAccountUnit(
      (text, params) => this.send(text, params),
      (added) => {
        this.pending.usage.push(added);
      },
    );
  }

  override get people(): PeopleUnit {
    return new SqlPeopleUnit((text, params) => this.send(text, params));
  }

  override get approvals(): ApprovalUnit {
    return new SqlApprovalUnit((text, params) => this.send(text, params));
  }

  override get notifications(): NotificationUnit {
    return new SqlNotificationUnit((text, params) => this.send(text, params));
  }

  override get ledger() {
    return new SqlLedgerUnit(
      (text, params) => this.send(text, params),
      (drafts) => {
        this.pending.transfers.push(...drafts);
      },
    );
  }

  override get mail(): MailUnit {
    return new SqlMailUnit((text, params) => this.send(text, params));
  }

  override get webhooks() {
    return new SqlWebhookUnit(
      (text, params) => this.send(text, params),
      (after, limit, types) => this.eventsPage({ after, limit, ...(types ? { types } : {}) }),
      () => {
        this.webhooksChanged = true;
      },
    );
  }

  override get proposals(): ProposalUnit {
    // Numbered at once (sql-numbers.ts); written with the unit's last statement.
    return new SqlProposalUnit(
      (text, params) => this.send(text, params),
      (record) => {
        this.pending.proposals.push(record);
      },
    );
  }

  protected override send<R>(text: string, params?: readonly unknown[]): Promise<R[]> {
    const written = this.flush();
    const rows = this.session.query<R>(text, params);
    // The write's error is the one to report: the read behind it fails only because of it.
    return written.then(
      () => rows,
      (error) => {
        rows.catch(ignore);
        throw error;
      },
    );
  }

  /** Writes every buffered put: one statement, whatever the number of records and tables. */
  flush(): Promise<void> {
    const write = this.takeWrite();
    if (!write) return Promise.resolve();
    const sent = write.statements.map(({ text, params }) => this.session.query(text, params));
    const written = (sent.pop() as Promise<unknown[]>).then((rows) => {
      if (this.reads) this.xid = (rows as { xid: string }[])[0].xid;
    });
    return sent.length === 0 ? written : Promise.all([...sent, written]).then(ignore);
  }

  /**
   * The buffered puts' statements, taken from the buffer (so that a read racing a flush does not
   * write twice): the locks of the keys whose usage the write folds, then the write.
   */
  private takeWrite(): { statements: Statement[] } | undefined {
    const write = writeOf(this.pending, this.fresh, this.reads !== undefined);
    if (write) this.pending = noWrites();
    return write;
  }

  nextNumbers() {
    return nextNumbers((text, params) => this.session.query(text, params));
  }

  async takeNumber(kind: IdKind) {
    return takeNumber((text, params) => this.session.query(text, params), kind);
  }

  /** The numbers taken now, in one statement (sql-numbers.ts), before anything names the records. */
  async numberIds(provisional: readonly { kind: IdKind; id: string }[]) {
    const kinds: IdKind[] = [];
    for (const { kind } of provisional) kinds.push(kind);
    // An optimistic unit that has sent nothing takes them outside any transaction, so that it
    // can still commit in a group (D-281); its records must then be new when written.
    const group = this.setup.group;
    const apart = group !== undefined && this.optimistic !== undefined && !this.raw.taken;
    const ids = apart
      ? await group.numbers.take(kinds)
      : await takeIds((text, params) => this.send(text, params), kinds);
    if (apart) for (const id of ids) this.fresh.records.add(id);
    const renames = new Map<string, string>();
    for (let i = 0; i < provisional.length; i++) {
      renames.set(provisional[i].id, ids[i]);
      // Its gigs are all this unit's puts: the cache may keep the set whole.
      if (kinds[i] === 'deal') this.newDeals.add(ids[i]);
    }
    return renames;
  }

  async putDeal(deal: Deal) {
    this.pending.deals.set(deal.id, deal);
    this.heldDeals.set(deal.id, deal);
    this.put.deals.add(deal.id);
  }

  async putGig(gig: Gig) {
    this.pending.gigs.set(gig.id, gig);
    this.heldGigs.set(gig.id, gig);
    this.put.gigs.add(gig.id);
  }

  async putCloser(closer: Closer) {
    this.pending.closers.set(closer.id, closer);
    this.heldClosers.set(closer.id, closer);
    this.put.closers.add(closer.id);
  }

  appendPayout(line: PayoutLine) {
    return insertPayoutLine(this.session, line);
  }

  // Every change of the offset is told to the other instances when it commits (watchClockOffset).
  async setClockOffsetMs(offsetMs: number) {
    await setClockOffset(this.session, offsetMs);
  }

  advanceClockOffsetMs(deltaMs: number) {
    return advanceClockOffset(this.session, deltaMs);
  }

  async putAnswer(key: string, answer: StoredAnswer, asNew?: boolean) {
    // Buffered like the puts: written in the unit's last statement, so that a keyed write costs
    // no statement of its own (its ids were taken before it was made, D-273).
    this.pending.answers.set(key, answer);
    // D-285: only an optimistic unit's write checks what it inserted (writeOf's `versioned`).
    if (asNew && this.reads) this.fresh.answers.add(key);
  }

  purgeAnswers(before: number) {
    return purgeAnswers((text, params) => this.send(text, params), before);
  }

  async publish(events: readonly PublicEventDraft[], recordedAt: number) {
    // Buffered like the puts: written with them, in the unit's last statement.
    bufferEvents(this.pending.events, events, recordedAt);
    if (events.length > 0) this.published = true;
  }

  purgeEvents(before: number) {
    return purgeEvents((text, params) => this.send(text, params), before);
  }

  async lock(name: string) {
    await this.session.query(LOCK, [name]);
  }

  /** Whether the unit wiped the demo (the cache is emptied when it commits). */
  private wiped = false;

  async wipe() {
    this.wiped = true;
    // Puts made earlier in this unit of work are wiped with the rest, and nothing is held.
    this.pending = { ...noWrites(), usage: this.pending.usage };
    this.heldDeals.clear();
    this.heldGigs.clear();
    this.heldClosers.clear();
    this.dealsWithGigs.clear();
    // No numbers taken ahead meanwhile (D-283): the first record after the reset is number 1.
    await this.setup.group?.numbers.quiesce();
    await this.session.exec(WIPE);
  }
}
