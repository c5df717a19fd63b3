// The schemas other schemas reference by $id (Type.Ref): the contract registers each once
// (src/http/app.ts); a reader that gets one schema alone, as an MCP client gets a tool's, gets
// it self-contained.
import type { TSchema } from '@sinclair/typebox';
import { ApprovalSchema, HeldSchema, LimitSchema } from './approvals.ts';
import { ErrorSchema } from './common.ts';
import { ApproverSchema, DealSchema, MandateSchema, SettlementSchema } from './deal.ts';
import { DryRunSchema } from './dry-run.ts';
import { EventPageSchema, EventSchema } from './events.ts';
import {
  FunnelInsightSchema,
  MarketplaceInsightSchema,
  MoneyInsightSchema,
  PerformanceInsightSchema,
  PipelineInsightSchema,
  VelocityInsightSchema,
} from './insights.ts';
import { PayoutSchema, RefundSchema, TransferSchema } from './ledger.ts';
import { CloserSchema, EscalationSchema, GigSchema } from './marketplace.ts';
import { ProposalSummarySchema, RefusedProposalSchema } from './proposals.ts';
import { BlockedEnvelope, DealEnvelope, DealsEnvelope, EmptyEnvelope, GigsEnvelope, OfferEnvelope } from './root.ts';
import { WebhookAttemptSchema, WebhookCreatedSchema, WebhookSchema } from './webhooks.ts';

export const SHARED_SCHEMAS: readonly TSchema[] = [
  ErrorSchema,
  ApproverSchema,
  MandateSchema,
  DealSchema,
  SettlementSchema,
  CloserSchema,
  GigSchema,
  EscalationSchema,
  RefusedProposalSchema,
  ProposalSummarySchema,
  LimitSchema,
  ApprovalSchema,
  HeldSchema,
  DryRunSchema,
  EventSchema,
  EventPageSchema,
  WebhookSchema,
  TransferSchema,
  RefundSchema,
  PayoutSchema,
  WebhookCreatedSchema,
  WebhookAttemptSchema,
  EmptyEnvelope,
  BlockedEnvelope,
  DealsEnvelope,
  DealEnvelope,
  GigsEnvelope,
  OfferEnvelope,
  PipelineInsightSchema,
  FunnelInsightSchema,
  VelocityInsightSchema,
  PerformanceInsightSchema,
  MarketplaceInsightSchema,
  MoneyInsightSchema,
];

const byId = new Map(SHARED_SCHEMAS.map((schema) => [schema.$id as string, schema]));

/**
 * The schema as plain JSON Schema with nothing outside it: each `$ref` replaced by the schema
 * it names, `$id`s dropped (an inlined schema may appear twice), and the markers this service
 * reads itself (`x-…`, e.g. x-domain-validated) left out.
 */
export function selfContained(schema: unknown): Record<string, unknown> {
  return inline(schema) as Record<string, unknown>;
}

function inline(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(inline);
  if (typeof node !== 'object' || node === null) return node;
  const { $ref, ...rest } = node as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  if (typeof $ref === 'string') {
    const target = byId.get($ref);
    if (!target) throw new Error(`no shared schema ${$ref}`);
    Object.assign(copy, inline(target));
  }
  for (const [key, value] of Object.entries(rest)) {
    if (key === '$id' || key.startsWith('x-')) continue;
    copy[key] = inline(value);
  }
  return copy;
}
