// A person's notifications and mail settings (D-72), as the contract shows them.
import { Type } from '@sinclair/typebox';
import { pageParams, Timestamp } from './common.ts';

export const NotificationSchema = Type.Object(
  {
    id: Type.String({ description: '`ntf_<NNNN>`' }),
    type: Type.Union(
      [
        Type.Literal('approval.requested'),
        Type.Literal('approval.approved'),
        Type.Literal('approval.denied'),
        Type.Literal('approval.expired'),
        Type.Literal('approval.superseded'),
        Type.Literal('gig.posted'),
      ],
      { description: 'the event that made it' },
    ),
    title: Type.String({ description: 'what happened, in words' }),
    dealId: Type.Optional(Type.String()),
    approvalId: Type.Optional(Type.String()),
    gigId: Type.Optional(Type.String()),
    at: { ...Timestamp, description: 'when the event happened (platform clock)' },
    read: Type.Boolean(),
    readAt: Type.Optional(Timestamp),
  },
  { additionalProperties: false, description: 'something that concerns the person (D-72)' },
);

export const NotificationListQuery = Type.Object(
  {
    unread: Type.Optional(Type.Boolean({ description: '`true`: only those not yet read' })),
    ...pageParams('ntf'),
  },
  { additionalProperties: false },
);

export const NotificationSummarySchema = Type.Object(
  { unread: Type.Integer({ minimum: 0, description: 'notifications not yet read' }) },
  { additionalProperties: false },
);

export const NotificationSettingsSchema = Type.Object(
  {
    email: Type.Object(
      {
        approvals: Type.Boolean({ description: 'mail at once when an approval you may decide is requested' }),
        outcomes: Type.Boolean({ description: 'mail at once when a proposal of a key you made is decided' }),
        gigs: Type.Boolean({ description: 'a digest of new gigs in your industries, at most every 15 minutes' }),
      },
      { additionalProperties: false },
    ),
  },
  {
    additionalProperties: false,
    description: 'which notifications also come by mail (all true until changed); the inbox has them all',
    examples: [{ email: { approvals: true, outcomes: true, gigs: false } }],
  },
);
