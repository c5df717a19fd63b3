// What every service call answers: a value, or the refusal that changed nothing (D-6).
import type { RefusedProposalDraft } from '../domain/proposals.ts';
import type { Refusal } from '../domain/refusal.ts';
import type { UnitOfWork } from '../store/store.ts';

export type Result<T> = { ok: true; value: T } | { ok: false; refusal: Refusal };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = <T>(refusal: Refusal): Result<T> => ({ ok: false, refusal });

/**
 * Thrown inside a unit of work to roll it back and answer with a refusal. A refusal is an answer,
 * not a fault: it captures no stack trace (which cost a refused proposal a sixth of its time in
 * the service, docs/performance.md).
 */
export class RefusedError extends Error {
  constructor(readonly refusal: Refusal) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(refusal.message);
    Error.stackTraceLimit = limit;
  }
}

/**
 * A refusal whose unit still commits what `keep` writes (and nothing else): an approval that
 * ends as it is refused (D-70: superseded, refused at its last approval) keeps its new status,
 * its event and its refused proposal. The runner calls `keep` inside the unit of work.
 */
export class KeptRefusalError extends RefusedError {
  constructor(
    refusal: Refusal,
    readonly keep: (uow: UnitOfWork) => Promise<void>,
  ) {
    super(refusal);
  }
}

/**
 * D-61: a refusal of the gate that is kept. Thrown like any refusal (a dry run answers it and
 * rolls back), but the runner catches it inside the unit of work and records it there, so the
 * unit commits the record and its event, and nothing else (the decision wrote nothing).
 */
export class RefusedProposalError extends RefusedError {
  constructor(
    refusal: Refusal,
    readonly record: RefusedProposalDraft,
  ) {
    super(refusal);
  }
}
