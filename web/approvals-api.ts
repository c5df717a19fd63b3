// The approvals' calls (D-69, D-70): what keys' policies held, listed and read, approved and
// denied. Like `/keys`, they are keys mode's only, so web/openapi.d.ts (the demo's contract) has
// their schemas but not their paths: the calls are made here, typed by those schemas, and go with
// the session's cookie.
import { type Approval, call, type Deal, type Escalation, everyRecord, nextCursor, type Outcome } from './api.ts';
import { AUTH, can } from './session.ts';

export type ApprovalStatus = Approval['status'];

/** What an approval answers (D-70): the approval short of the approvals required, else what committed. */
export type Decision = Approval | Deal | Escalation;

/** How many decided approvals a list shows at most: the newest. */
export const DECIDED_SHOWN = 100;

const path = (id: string, what = '') => `/approvals/${encodeURIComponent(id)}${what}`;

export const approvals = {
  /** Every pending approval the session may see (a deal has at most one), newest first. */
  pending: () => everyRecord<Approval>('/approvals?status=pending'),
  /**
   * The newest decided ones (of one status, or of every status but pending), up to DECIDED_SHOWN;
   * `more` says whether older ones were left unread.
   */
  async decided(status?: Exclude<ApprovalStatus, 'pending'>): Promise<{ records: Approval[]; more: boolean }> {
    const records: Approval[] = [];
    let cursor: string | undefined;
    do {
      const query = new URLSearchParams({ limit: String(DECIDED_SHOWN) });
      if (status) query.set('status', status);
      if (cursor) query.set('cursor', cursor);
      const answer = await call<Approval[]>('GET', `/approvals?${query}`);
      if (!answer.ok) throw new Error(`listing the approvals: ${answer.error.error}`);
      records.push(...answer.data.filter((a) => a.status !== 'pending'));
      cursor = nextCursor(answer.response);
    } while (cursor && records.length < DECIDED_SHOWN);
    return { records: records.slice(0, DECIDED_SHOWN), more: cursor !== undefined || records.length > DECIDED_SHOWN };
  },
  /** The deal's pending approval, if it waits on one. */
  async pendingOn(dealId: string): Promise<Approval | undefined> {
    const query = new URLSearchParams({ status: 'pending', dealId, limit: '1' });
    const answer = await call<Approval[]>('GET', `/approvals?${query}`);
    return answer.ok ? answer.data[0] : undefined;
  },
  approve: (id: string, note?: string): Promise<Outcome<Decision>> =>
    call<Decision>('POST', path(id, '/approve'), note ? { note } : {}),
  deny: (id: string, reason: string): Promise<Outcome<Approval>> =>
    call<Approval>('POST', path(id, '/deny'), { reason }),
};

/** Whether the session may read approvals (D-69): keys mode only, with deals:read, approvals:decide or admin. */
export const readsApprovals = () => AUTH === 'keys' && (can('deals:read') || can('approvals:decide') || can('admin'));

/** Whether the session may approve and deny (D-70). */
export const decidesApprovals = () => AUTH === 'keys' && (can('approvals:decide') || can('admin'));
