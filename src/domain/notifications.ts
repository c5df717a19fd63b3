// D-72: a person's notifications. Some events concern people: an approval requested (the
// Seller's people who may decide it), an approval's outcome (the person who made the proposing
// key), a gig posted (the people of the closers whose industries include the deal's). Each such
// event makes one notification per person, in their inbox, and mail as their settings say:
// approvals and outcomes at once, gigs as a digest at most every 15 minutes. Pure: who is told
// is worked out by the notifier (src/delivery/notifier.ts) from the people it reads.
import { formatUsd, usdToCents } from './money.ts';
import type { PublicEventDraft } from './public-events.ts';

/** Which setting a notification's mail follows. */
export type MailKind = 'approvals' | 'outcomes' | 'gigs';

export interface NotificationSettings {
  readonly email: { readonly approvals: boolean; readonly outcomes: boolean; readonly gigs: boolean };
}

/** Every mail on, until the person says otherwise. */
export const DEFAULT_SETTINGS: NotificationSettings = { email: { approvals: true, outcomes: true, gigs: true } };

/** At most one digest of gigs per person in this long. */
export const DIGEST_EVERY_MS = 15 * 60_000;

export const NOTIFYING_TYPES = [
  'approval.requested',
  'approval.approved',
  'approval.denied',
  'approval.expired',
  'approval.superseded',
  'gig.posted',
] as const;

/** The events that concern people: the notifier reads only these of the feed. */
export type NotifyingType = (typeof NOTIFYING_TYPES)[number];

/** How a notification's mail goes: at once, in the next digest, or not at all (its setting is off). */
export type MailPlan = 'now' | 'digest' | 'none';

export interface Notification {
  /** `ntf_NNNN`. */
  readonly id: string;
  readonly userId: string;
  /** The person's principal (row-level security). */
  readonly principal: string;
  /** The event's seq: one notification per event and person. */
  readonly seq: number;
  readonly type: NotifyingType;
  /** In words, for the inbox and the mail's subject. */
  readonly title: string;
  readonly dealId?: string;
  readonly approvalId?: string;
  readonly gigId?: string;
  /** Platform time of the event. */
  readonly at: number;
  readonly readAt?: number;
  readonly mail: MailPlan;
  /** When its mail was written to the outbox (a digest's, or at once). */
  readonly mailedAt?: number;
}

export type NotificationDraft = Omit<Notification, 'id'>;

/** The setting an event's mail follows. */
export function mailKindOf(type: NotifyingType): MailKind {
  if (type === 'approval.requested') return 'approvals';
  return type === 'gig.posted' ? 'gigs' : 'outcomes';
}

/** Whether an event concerns people at all. */
export const notifies = (event: PublicEventDraft): event is Extract<PublicEventDraft, { type: NotifyingType }> =>
  event.type === 'gig.posted' || event.type.startsWith('approval.');

const OUTCOME_WORDS: Record<string, string> = {
  'approval.approved': 'Approved',
  'approval.denied': 'Denied',
  'approval.expired': 'Expired, nobody decided',
  'approval.superseded': 'Superseded, the deal moved first',
};

/** The notification's title: what happened, in words a person reads in a list or a subject line. */
export function titleOf(event: Extract<PublicEventDraft, { type: NotifyingType }>): string {
  if (event.type === 'gig.posted') {
    const { brief, role } = event.data.gig;
    return `New ${role} gig: ${brief.account.name}, ${formatUsd(brief.listValueCents)}`;
  }
  const approval = event.data;
  const move = approval.proposal.advanceTo ? approval.proposal.advanceTo.replace('_', ' ') : 'the next stage';
  const value =
    approval.proposal.valueUsd !== undefined ? ` at ${formatUsd(usdToCents(approval.proposal.valueUsd))}` : '';
  const what = `${approval.actor.name ?? approval.keyName ?? approval.keyId} proposed ${move}${value}`;
  if (event.type === 'approval.requested') return `Approval requested: ${what}`;
  return `${OUTCOME_WORDS[event.type]}: ${what}`;
}

/** How a person's mail of this kind goes, by their settings. */
export function mailPlanOf(type: NotifyingType, settings: NotificationSettings): MailPlan {
  const kind = mailKindOf(type);
  if (!settings.email[kind]) return 'none';
  return kind === 'gigs' ? 'digest' : 'now';
}
