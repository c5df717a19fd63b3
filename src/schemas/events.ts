// The public events (D-40) and the feed (D-41): one schema per event type, so that a client
// generated from the contract gets `data` typed by `type`.
import { type TSchema, Type } from '@sinclair/typebox';
import { PUBLIC_EVENT_TYPES } from '../domain/public-events.ts';
import { ApprovalSchema } from './approvals.ts';
import { PATTERN_WORDS, RoleSchema, StageSchema, Timestamp, Usd } from './common.ts';
import { ActorRefSchema, DealSchema } from './deal.ts';
import { DEAL_EXAMPLE } from './examples.ts';
import { PayoutSchema, RefundSchema } from './ledger.ts';
import { CloserSchema, GigSchema } from './marketplace.ts';
import { RefusedProposalSchema } from './proposals.ts';

export const EventTypeSchema = Type.Union(
  PUBLIC_EVENT_TYPES.map((t) => Type.Literal(t)),
  { description: 'a public event type' },
);

const Ids = { dealId: Type.String() };
const GigIds = { gigId: Type.String(), dealId: Type.String() };
const Mover = Type.Union([Type.Literal('agent'), Type.Literal('human'), Type.Literal('service')], {
  description: 'who moved the deal: the agent, a human (a closer, or a person of the Seller), or the platform',
});

/** The `data` of each event type. */
const DATA: Record<(typeof PUBLIC_EVENT_TYPES)[number], TSchema> = {
  'deal.created': Type.Object({ deal: Type.Ref(DealSchema) }),
  'deal.updated': Type.Object({
    ...Ids,
    changes: Type.Object(
      {
        'account.name': Type.Optional(Type.Object({ from: Type.String(), to: Type.String() })),
        'account.industry': Type.Optional(
          Type.Object({
            from: Type.Union([Type.String(), Type.Null()]),
            to: Type.Union([Type.String(), Type.Null()]),
          }),
        ),
        listValueUsd: Type.Optional(Type.Object({ from: Usd('list value before'), to: Usd('list value after') })),
      },
      { description: 'each field the edit changed, its value before and after (D-67)' },
    ),
  }),
  'deal.stage_changed': Type.Object({ ...Ids, from: StageSchema, to: StageSchema, by: Mover }),
  'deal.escalated': Type.Object({ ...Ids, role: RoleSchema, gigId: Type.String() }),
  'deal.signals_reported': Type.Object({
    ...Ids,
    signals: Type.Array(Type.String(), { description: 'the signals added' }),
    by: Type.Union([Type.Literal('seller'), Type.Literal('platform')]),
  }),
  'deal.stalled': Type.Object(Ids),
  'deal.deescalated': Type.Object(Ids),
  'deal.closed': Type.Object({
    ...Ids,
    outcome: Type.Union([Type.Literal('closed_won'), Type.Literal('closed_lost')]),
    finalValueUsd: Type.Optional(Usd('closed value, when won')),
    closedBy: Type.Union([Type.Literal('agent'), Type.Literal('human')]),
  }),
  'deal.reengaged': Type.Object({ ...Ids, revivedFrom: Type.String({ description: 'the closed_lost deal revived' }) }),
  'gig.posted': Type.Object({ gig: Type.Ref(GigSchema) }),
  'gig.claimed': Type.Object({ ...GigIds, closerId: Type.String() }),
  'gig.released': Type.Object(GigIds),
  'gig.reopened': Type.Object(GigIds),
  'gig.expired': Type.Object(GigIds),
  'gig.fulfilled': Type.Object({ ...GigIds, closerId: Type.Optional(Type.String()), outcome: Type.String() }),
  'payout.posted': Type.Object({
    closerId: Type.String(),
    gigId: Type.String(),
    dealId: Type.String(),
    kind: Type.Union([Type.Literal('commission'), Type.Literal('fee')]),
    amountUsd: Usd('amount paid'),
  }),
  'deal.refunded': Type.Object({
    ...Ids,
    refund: Type.Ref(RefundSchema),
    refundedUsd: Usd("the deal's refunds in all, this one included"),
  }),
  'payout.paid': Type.Object({ payout: Type.Ref(PayoutSchema) }),
  'closer.enrolled': Type.Object({ closer: Type.Ref(CloserSchema) }),
  'demo.reset': Type.Object({}),
  'proposal.refused': Type.Ref(RefusedProposalSchema),
  'approval.requested': Type.Ref(ApprovalSchema),
  'approval.approved': Type.Ref(ApprovalSchema),
  'approval.denied': Type.Ref(ApprovalSchema),
  'approval.expired': Type.Ref(ApprovalSchema),
  'approval.superseded': Type.Ref(ApprovalSchema),
};

export const EventSchema = Type.Union(
  PUBLIC_EVENT_TYPES.map((type) =>
    Type.Object({
      id: Type.String({ description: '`evt_` and the seq' }),
      seq: Type.Integer({ minimum: 1, description: 'the place in the feed: increasing, never reused' }),
      type: Type.Literal(type),
      at: { ...Timestamp, description: 'the platform time of the change (the demo clock)' },
      actor: Type.Optional(ActorRefSchema),
      data: DATA[type],
    }),
  ),
  {
    $id: 'Event',
    description: 'a committed change (D-40): `data` depends on `type`',
    examples: [
      {
        id: 'evt_42',
        seq: 42,
        type: 'deal.stage_changed',
        at: '2026-01-05T09:00:00.000Z',
        data: { dealId: DEAL_EXAMPLE.id, from: 'proposal', to: 'negotiation', by: 'agent' },
      },
    ],
  },
);

const MAX_SEQ = Number.MAX_SAFE_INTEGER;

export const EventFeedQuery = Type.Object(
  {
    after: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_SEQ,
        default: 0,
        description: 'events with a seq above this one; 0 (the default) reads from the oldest kept',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'events per page' })),
    type: Type.Optional(EventTypeSchema),
    dealId: Type.Optional(Type.String({ description: 'events about this deal', examples: ['deal_0001'] })),
  },
  { additionalProperties: false },
);

export const EventPageSchema = Type.Object(
  {
    events: Type.Array(Type.Ref(EventSchema)),
    nextAfter: Type.Integer({
      minimum: 0,
      description:
        'the `after` of the next page: of a full page its last seq; of a page that is not full, the newest seq when it was read (every event the key may see up to there was answered), or `after` if higher',
    }),
    lastSeq: Type.Integer({
      minimum: 0,
      description:
        'the newest seq in the feed when this page was read (0 if none): to follow only what happens next, read the records, then stream with `after` = lastSeq',
    }),
  },
  { $id: 'EventPage' },
);

/** The stream's query (D-41): the feed's, without `limit` (a stream has no pages). */
export const EventStreamQuery = Type.Object(
  {
    after: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_SEQ,
        description:
          'stream the events with a seq above this one; 0 (the default) starts from the oldest kept. A `Last-Event-ID` header wins over it',
      }),
    ),
    type: EventFeedQuery.properties.type,
    dealId: EventFeedQuery.properties.dealId,
  },
  { additionalProperties: false },
);

/** At most 15 digits: every such number is a safe integer. */
export const LAST_EVENT_ID_PATTERN = '^[0-9]{1,15}$';

export const EventStreamHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({
      pattern: LAST_EVENT_ID_PATTERN,
      [PATTERN_WORDS]: 'must be a non-negative integer (a seq)',
      description:
        'resume after this seq (the `id:` of the last event received; browsers send it when they reconnect); wins over `?after=`',
      examples: ['42'],
    }),
  ),
});
