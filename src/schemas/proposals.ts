// Refused proposals (D-61): the record, the lists' queries and the summary, as the contract shows them.
import { Type } from '@sinclair/typebox';
import { EXECUTORS, KEPT_CODES } from '../domain/proposals.ts';
import { pageParams, StageSchema, Timestamp } from './common.ts';
import { ActorRefSchema } from './deal.ts';

export const ExecutorSchema = Type.Union(
  EXECUTORS.map((e) => Type.Literal(e)),
  {
    description:
      "who proposed: the agent (a deal advance by a key), or a human (a closer's gig advance or revive, or a deal advance by a person of the Seller)",
  },
);

export const KeptCodeSchema = Type.Union(
  KEPT_CODES.map((c) => Type.Literal(c)),
  { description: "the gate's refusal code" },
);

const KeyIdFilter = Type.String({
  maxLength: 64,
  description: 'keys mode: only what requests with this key proposed (`key_<NNNN>`)',
  examples: ['key_0001'],
});

export const RefusedProposalSchema = Type.Object(
  {
    id: Type.String({ description: '`prop_<NNNN>`' }),
    dealId: Type.String(),
    gigId: Type.Optional(Type.String({ description: 'the gig a closer proposed through' })),
    by: ExecutorSchema,
    actor: Type.Optional(ActorRefSchema),
    proposal: Type.Object(
      {
        advanceTo: Type.Optional(Type.String()),
        valueUsd: Type.Optional(Type.Number()),
        note: Type.Optional(Type.String()),
      },
      { description: 'what was proposed, as the proposer wrote it' },
    ),
    stage: { ...StageSchema, description: "the deal's stage when the gate refused" },
    code: KeptCodeSchema,
    reason: Type.String({ description: "the gate's message, word for word" }),
    at: { ...Timestamp, description: 'the platform time of the refusal' },
  },
  {
    $id: 'RefusedProposal',
    description: 'a proposal the gate refused (D-61)',
    examples: [
      {
        id: 'prop_0001',
        dealId: 'deal_0001',
        by: 'agent',
        proposal: { advanceTo: 'closed_won', valueUsd: 20000 },
        stage: 'negotiation',
        code: 'GATE_BELOW_FLOOR',
        reason:
          'Proposed close value $20,000.00 is below the negotiation floor $40,000.00 (80% of list value $50,000.00).',
        at: '2026-01-05T09:00:00.000Z',
      },
    ],
  },
);

const filters = {
  by: Type.Optional(ExecutorSchema),
  code: Type.Optional(KeptCodeSchema),
  keyId: Type.Optional(KeyIdFilter),
};

export const DealProposalsQuery = Type.Object({ ...filters, ...pageParams('prop') }, { additionalProperties: false });

export const ProposalListQuery = Type.Object(
  {
    dealId: Type.Optional(Type.String({ description: 'the refusals on this deal', examples: ['deal_0001'] })),
    ...filters,
    ...pageParams('prop'),
  },
  { additionalProperties: false },
);

export const ProposalSummaryQuery = Type.Object({ keyId: Type.Optional(KeyIdFilter) }, { additionalProperties: false });

const PerExecutor = (what: string) =>
  Type.Object({ agent: Type.Integer({ minimum: 0 }), human: Type.Integer({ minimum: 0 }) }, { description: what });

export const ProposalSummarySchema = Type.Object(
  {
    accepted: PerExecutor('moves the gate committed for each executor'),
    refused: PerExecutor('proposals the gate refused, dropped records included'),
    byCode: Type.Record(Type.String(), Type.Integer({ minimum: 1 }), { description: 'refusals by code' }),
  },
  {
    $id: 'ProposalSummary',
    description: 'what the executors proposed, over every deal the caller may see (D-61)',
    examples: [
      {
        accepted: { agent: 12, human: 3 },
        refused: { agent: 40, human: 1 },
        byCode: { GATE_BELOW_FLOOR: 38, GATE_ILLEGAL_MOVE: 2, GIG_NOT_CLAIMED: 1 },
      },
    ],
  },
);
