// What every service call answers: a value, or the refusal that changed nothing (D-6).
import type { Refusal } from '../domain/refusal.ts';

export type Result<T> = { ok: true; value: T } | { ok: false; refusal: Refusal };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = <T>(refusal: Refusal): Result<T> => ({ ok: false, refusal });

/** Thrown inside a unit of work to roll it back and answer with a refusal. */
export class RefusedError extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.message);
  }
}
