// An event to publish in the feed's own tests on PostgreSQL: a deal's move, at a fixed time.
import type { PublicEventDraft } from '../../src/domain/public-events.ts';

export const T0 = Date.parse('2026-01-05T09:00:00.000Z');

export const moved = (dealId: string): PublicEventDraft => ({
  type: 'deal.stage_changed',
  at: T0,
  data: { dealId, from: 'sourced', to: 'qualified', by: 'agent' },
});
