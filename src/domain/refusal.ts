// Refusals are values. The HTTP layer maps each kind to a status (D-5); the code is stable.
export type RefusalKind = 'invalid' | 'not_found' | 'conflict' | 'gate' | 'mandate';

export interface Refusal {
  readonly kind: RefusalKind;
  readonly code: string;
  readonly message: string;
  readonly violations?: readonly string[];
}

export const refuse = {
  invalid: (code: string, message: string, violations: readonly string[]): Refusal => ({
    kind: 'invalid',
    code,
    message,
    violations,
  }),
  notFound: (code: string, message: string): Refusal => ({ kind: 'not_found', code, message }),
  conflict: (code: string, message: string): Refusal => ({ kind: 'conflict', code, message }),
  gate: (code: string, message: string): Refusal => ({ kind: 'gate', code, message }),
  mandate: (violations: readonly string[]): Refusal => ({
    kind: 'mandate',
    code: 'MANDATE_OUT_OF_BOUNDS',
    message: `The mandate is outside platform bounds: ${violations.join('; ')}`,
    violations,
  }),
};

export function isRefusal(value: unknown): value is Refusal {
  return typeof value === 'object' && value !== null && 'kind' in value && 'code' in value && 'message' in value;
}
