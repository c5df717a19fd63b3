// The one table of the demo surface's operations: every door and the contract are made from it.
import { ACCOUNT_OPERATIONS } from './account-operations.ts';
import { APPROVAL_OPERATIONS } from './approval-operations.ts';
import { DEAL_OPERATIONS } from './deal-operations.ts';
import { DEMO_OPERATIONS } from './demo-operations.ts';
import { EVENT_OPERATIONS } from './event-operations.ts';
import { INSIGHT_OPERATIONS } from './insight-operations.ts';
import { LEDGER_OPERATIONS } from './ledger-operations.ts';
import { MARKETPLACE_OPERATIONS } from './marketplace-operations.ts';
import { NOTIFICATION_OPERATIONS } from './notification-operations.ts';
import type { Operation } from './operation.ts';
import { PROPOSAL_OPERATIONS } from './proposal-operations.ts';
import { USER_OPERATIONS } from './user-operations.ts';

export const OPERATIONS: readonly Operation[] = [
  ...DEMO_OPERATIONS,
  ...DEAL_OPERATIONS,
  ...PROPOSAL_OPERATIONS,
  ...MARKETPLACE_OPERATIONS,
  ...EVENT_OPERATIONS,
  ...ACCOUNT_OPERATIONS,
  ...USER_OPERATIONS,
  ...APPROVAL_OPERATIONS,
  ...NOTIFICATION_OPERATIONS,
  ...INSIGHT_OPERATIONS,
  ...LEDGER_OPERATIONS,
];

/** The operations offered as tools of the demo MCP door, in the table's order. */
export const TOOL_OPERATIONS = OPERATIONS.filter((op) => op.tool !== undefined);
