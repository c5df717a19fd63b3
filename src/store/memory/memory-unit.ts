// A unit of work of the in-memory adapter: writes go straight to the tables, each with the step
// that undoes it; the store runs the undo log backwards when the work throws.

import { formatId, type IdKind } from '../../domain/ids.ts';
import type { PublicEventDraft } from '../../domain/public-events.ts';
import type { Closer, Deal, Gig, PayoutLine } from '../../domain/records.ts';
import { DuplicatePayoutError, type StoredAnswer, type UnitOfWork } from '../store.ts';
import { MemoryAccountUnit } from './account-tables.ts';
import { MemoryApprovalUnit } from './approval-tables.ts';
import { MemoryLedgerUnit } from './ledger-tables.ts';
import { MemoryMailUnit } from './mail-tables.ts';
import { append, type Data, emptyData } from './memory-data.ts';
import { MemoryReader } from './memory-reader.ts';
import { MemoryNotificationUnit } from './notification-tables.ts';
import { MemoryPeopleUnit } from './people-tables.ts';
import { MemoryProposalUnit } from './proposal-tables.ts';
import { MemoryWebhookUnit } from './webhook-tables.ts';

export class MemoryUnitOfWork extends MemoryReader implements UnitOfWork {
  /** Units run alone here: none is optimistic, none is run again. */
  readonly runsAgainOnConflict = false;
  // Units of work run one at a time in memory: a read is as good as a lock.
  readCloser(id: string) {
    return this.getCloser(id);
  }

  readonly undo: (() => void)[] = [];
  /** Whether this unit put or deleted a webhook (the store tells its watchers at commit). */
  webhooksChanged = false;
  constructor(
    data: Data,
    private readonly replace: (data: Data) => void,
  ) {
    super(data);
  }

  override get webhooks() {
    return new MemoryWebhookUnit(this.data.webhooks, this.data.events, this.undo, () => {
      this.webhooksChanged = true;
    });
  }

  override get accounts() {
    return new MemoryAccountUnit(this.data.accounts, this.undo);
  }

  override get people() {
    return new MemoryPeopleUnit(this.data.accounts.people, this.data.accounts.sessions, this.undo);
  }

  override get mail() {
    return new MemoryMailUnit(this.data.accounts.mail, this.undo);
  }
  override get notifications() {
    return new MemoryNotificationUnit(this.data.accounts.notifications, this.undo);
  }

  override get approvals() {
    return new MemoryApprovalUnit(this.data.approvals, this.data.deals, this.undo);
  }

  override get ledger() {
    return new MemoryLedgerUnit(this.data.ledger, this.undo);
  }

  override get proposals() {
    const { proposals, deals, gigs } = this.data;
    return new MemoryProposalUnit(proposals, deals, gigs, this.undo);
  }

  async nextNumbers() {
    const { deal, gig, closer } = this.data.counters;
    return { deal: deal + 1, gig: gig + 1, closer: closer + 1 };
  }
  async takeNumber(kind: IdKind) {
    const counters = this.data.counters;
    const previous = counters[kind];
    this.undo.push(() => {
      counters[kind] = previous;
    });
    counters[kind] = previous + 1;
    return counters[kind];
  }
  async numberIds(provisional: readonly { kind: IdKind; id: string }[]) {
    const renames = new Map<string, string>();
    for (const { kind, id } of provisional) renames.set(id, formatId(kind, await this.takeNumber(kind)));
    return renames;
  }
  async putDeal(deal: Deal) {
    const { deals, stages } = this.data;
    const previous = deals.set(deal);
    const number = deals.numberOf(deal.id) as number;
    if (previous?.stage !== deal.stage) stages.set(number, deal.stage);
    const timers = this.data.dealTimers;
    const moved = previous?.stallDueAt !== deal.stallDueAt;
    if (moved && deal.stallDueAt !== undefined) timers.add(number, deal.stallDueAt);
    this.undo.push(() => {
      deals.restore(deal.id, previous);
      stages.set(number, previous?.stage);
      // The entry this put added is stale once undone; the previous time's may have been
      // dropped meanwhile (a timer read in this unit of work saw it stale): it is added again.
      if (moved && previous?.stallDueAt !== undefined) timers.add(number, previous.stallDueAt);
    });
  }
  async putGig(gig: Gig) {
    const { gigs, gigsByDeal } = this.data;
    const previous = gigs.set(gig);
    if (!previous) append(gigsByDeal, gig.dealId, gig.id);
    const timers = this.data.gigTimers;
    const number = gigs.numberOf(gig.id) as number;
    const moved = previous?.timerDueAt !== gig.timerDueAt;
    if (moved && gig.timerDueAt !== undefined) timers.add(number, gig.timerDueAt);
    this.undo.push(() => {
      gigs.restore(gig.id, previous);
      if (!previous) gigsByDeal.get(gig.dealId)?.pop();
      if (moved && previous?.timerDueAt !== undefined) timers.add(number, previous.timerDueAt);
    });
  }
  async putCloser(closer: Closer) {
    const { closers } = this.data;
    const previous = closers.set(closer);
    this.undo.push(() => closers.restore(closer.id, previous));
  }
  async appendPayout(line: PayoutLine) {
    const { payouts, payoutsByCloser, payoutsByDeal } = this.data;
    if (payouts.has(line.gigId)) throw new DuplicatePayoutError(line.gigId);
    payouts.set(line.gigId, line);
    append(payoutsByCloser, line.closerId, line);
    append(payoutsByDeal, line.dealId, line);
    this.undo.push(() => {
      payouts.delete(line.gigId);
      payoutsByCloser.get(line.closerId)?.pop();
      payoutsByDeal.get(line.dealId)?.pop();
    });
  }
  async setClockOffsetMs(offsetMs: number) {
    const previous = this.data.clockOffsetMs;
    const data = this.data;
    this.undo.push(() => {
      data.clockOffsetMs = previous;
    });
    data.clockOffsetMs = offsetMs;
  }
  async advanceClockOffsetMs(deltaMs: number) {
    await this.setClockOffsetMs(this.data.clockOffsetMs + deltaMs);
    return this.data.clockOffsetMs;
  }
  async putAnswer(key: string, answer: StoredAnswer) {
    const { answers } = this.data;
    const previous = answers.get(key);
    // Deleted first, so that the map stays in storedAt order.
    answers.delete(key);
    answers.set(key, answer);
    this.undo.push(() => {
      answers.delete(key);
      if (previous) answers.set(key, previous);
    });
  }
  async purgeAnswers(before: number) {
    const { answers } = this.data;
    let purged = 0;
    for (const [key, answer] of answers) {
      if (answer.storedAt >= before) break;
      answers.delete(key);
      this.undo.push(() => answers.set(key, answer));
      purged++;
    }
    return purged;
  }
  async publish(events: readonly PublicEventDraft[], recordedAt: number) {
    const log = this.data.events;
    for (const event of events) log.append(event, recordedAt);
    this.undo.push(() => log.truncate(events.length));
  }
  async purgeEvents(before: number) {
    // Not undone: forgetting what retention allows to forget is safe to keep whatever follows.
    return this.data.events.purge(before);
  }
  async lock(_name: string) {
    // Every unit of work already runs alone here (D-123): holding any lock is implied.
  }
  async wipe() {
    const previous = this.data;
    this.undo.push(() => this.replace(previous));
    const fresh = emptyData(previous.events.lastSeq, previous.webhooks.cursor, previous.accounts.withoutClosers());
    this.replace(fresh);
    this.data = fresh;
  }
}
