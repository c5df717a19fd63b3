// Keys mode's accounts (D-51, D-52): Sellers, made by the operator, and keys, which each
// principal manages for itself (the operator for everyone). Served in keys mode only. Creating
// or rolling a key takes an Idempotency-Key like every other write (D-75): a retry gets the
// same key again, though its text is never stored (D-251, src/service/key-seal.ts).
import { type Static, Type } from '@sinclair/typebox';
import type { Caller } from '../domain/access.ts';
import type { ApiKey } from '../domain/keys.ts';
import { policyOfInput } from '../domain/policy.ts';
import type { Seller } from '../domain/records.ts';
import { refuse } from '../domain/refusal.ts';
import {
  CreateKeyBody,
  CreateSellerBody,
  KeyListQuery,
  KeySchema,
  RollKeyBody,
  SellerListQuery,
  SellerSchema,
} from '../schemas/accounts.ts';
import { EmptyBody } from '../schemas/marketplace.ts';
import { SetPolicyBody } from '../schemas/policies.ts';
import { ok, RefusedError } from '../service/result.ts';
import { keyView, keyWithUsageView, sellerView } from '../views/accounts.ts';
import { page, read, write } from './operation.ts';

const ADMIN = ['admin'] as const;
const KEYS = ['keys:manage', 'admin'] as const;

const common = { mount: 'root', keysOnly: true } as const;

const createSeller = write({
  ...common,
  id: 'createSeller',
  method: 'POST',
  path: '/sellers',
  summary: 'Create a Seller, a tenant that owns deals (operator)',
  tag: 'accounts',
  body: CreateSellerBody,
  responses: { 201: SellerSchema },
  errors: [400],
  scope: ADMIN,
  idempotent: true,
  command: (service, { body }) => service.accounts.createSeller((body as Static<typeof CreateSellerBody>).name),
  answer: (answers) => answers.createSeller,
});

const listSellers = page({
  ...common,
  id: 'listSellers',
  method: 'GET',
  path: '/sellers',
  summary: "Sellers in id order, a page at a time (a Seller's key: itself)",
  tag: 'accounts',
  query: SellerListQuery,
  responses: { 200: Type.Array(SellerSchema) },
  errors: [400],
  scope: ['admin', 'deals:read'],
  idKind: 'seller',
  list: 'sellers',
  fetch: (service, _filter, afterId, limit, caller) => service.queries.listSellers({ afterId, limit }, caller),
  view: (seller: Seller) => sellerView(seller),
});

const getSeller = read({
  ...common,
  id: 'getSeller',
  method: 'GET',
  path: '/sellers/{id}',
  summary: "One Seller (a Seller's key: itself only)",
  tag: 'accounts',
  responses: { 200: SellerSchema },
  errors: [404],
  scope: ['admin', 'deals:read'],
  read: (service, { id, caller }) => service.queries.getSeller(id, caller),
  view: sellerView,
});

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** D-52: `expiresAt` as machine epoch ms; a text no date parses to is refused like any bad field. */
function expiryOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = ISO_DATE_TIME.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new RefusedError(
      refuse.invalid('INVALID_BODY', 'The request body is invalid.', ['expiresAt: must be an ISO 8601 date-time']),
    );
  }
  return ms;
}

const createKey = write({
  ...common,
  id: 'createKey',
  method: 'POST',
  path: '/keys',
  summary: 'Issue a key: shown once, in this answer',
  description:
    "Of the caller's own principal unless the operator names another; with every scope of that principal's kind " +
    "unless fewer are asked, never one the caller's key lacks (403 INSUFFICIENT_SCOPE). The answer's `key` is " +
    "the only time the key is shown: the service keeps its SHA-256. A Seller's key may carry a `policy` (D-68), " +
    "never looser than the caller's own (403 POLICY_WIDENING); another principal's key takes none (422 " +
    'POLICY_NOT_OF_SELLER).',
  tag: 'accounts',
  body: CreateKeyBody,
  responses: { 201: KeySchema },
  errors: [400, 403, 404, 409],
  scope: KEYS,
  idempotent: true,
  command: (service, { body, caller }) => {
    const { policy, ...input } = body as Static<typeof CreateKeyBody>;
    return service.accounts.createKey(
      {
        ...input,
        expiresAt: expiryOf(input.expiresAt),
        ...(policy !== undefined ? { policy: policyOfInput(policy) } : {}),
      },
      caller as Caller,
    );
  },
  answer: (answers) => answers.issuedKey,
});

const listKeys = page({
  ...common,
  id: 'listKeys',
  method: 'GET',
  path: '/keys',
  summary: "The caller's principal's keys (the operator's: every key, or ?principal=), never a key itself",
  tag: 'accounts',
  query: KeyListQuery,
  responses: { 200: Type.Array(KeySchema) },
  errors: [400],
  scope: KEYS,
  idKind: 'key',
  list: 'keys',
  fetch: (service, filter, afterId, limit, caller) =>
    service.accounts.listKeys({ principal: filter.principal as string | undefined, afterId, limit }, caller as Caller),
  view: (key: ApiKey) => keyView(key),
});

const getKey = read({
  ...common,
  id: 'getKey',
  method: 'GET',
  path: '/keys/{id}',
  summary: "One key, never the key itself; a Seller's key with its usage of the day",
  tag: 'accounts',
  responses: { 200: KeySchema },
  errors: [404],
  scope: KEYS,
  read: async (service, { id, caller }) => {
    const found = await service.accounts.getKey(id, caller as Caller);
    if (!found.ok) return found;
    const usage = await service.policies.usage(found.value);
    return ok({ key: found.value, ...(usage !== undefined ? { usage } : {}) });
  },
  view: keyWithUsageView,
});

const setKeyPolicy = write({
  ...common,
  id: 'setKeyPolicy',
  method: 'PUT',
  path: '/keys/{id}/policy',
  summary: "Set a Seller's key's policy whole, or remove it (`policy: null`)",
  description:
    "Nothing of the old policy is kept. Never looser than the caller's own policy (403 POLICY_WIDENING); only a " +
    "Seller's key carries one (422 POLICY_NOT_OF_SELLER). This instance applies it at once, every other within 5 s.",
  tag: 'accounts',
  body: SetPolicyBody,
  responses: { 200: KeySchema },
  errors: [400, 403, 404, 422],
  scope: KEYS,
  idempotent: false,
  command: (service, { id, body, caller }) => {
    const { policy } = body as Static<typeof SetPolicyBody>;
    return service.accounts.setPolicy(id, policy === null ? null : policyOfInput(policy), caller as Caller);
  },
  answer: (answers) => answers.changedKey,
});

const rollKey = write({
  ...common,
  id: 'rollKey',
  method: 'POST',
  path: '/keys/{id}/roll',
  summary: 'A new key of the same principal and scopes; the old one works for graceSeconds more',
  description:
    'Only a caller whose own scopes include every scope of the key rolled may roll it (else 403 INSUFFICIENT_SCOPE); ' +
    "the new key has exactly the old one's scopes. The old key counts toward KEYS_PER_PRINCIPAL while its grace " +
    'lasts (409 TOO_MANY_KEYS at the bound; `graceSeconds: 0` ends it at once).',
  tag: 'accounts',
  body: RollKeyBody,
  responses: { 201: KeySchema },
  errors: [400, 403, 404, 409],
  scope: KEYS,
  idempotent: true,
  command: (service, { id, body, caller }) =>
    service.accounts.rollKey(id, (body as Static<typeof RollKeyBody> | undefined)?.graceSeconds, caller as Caller),
  answer: (answers) => answers.issuedKey,
});

const revokeKey = write({
  ...common,
  id: 'revokeKey',
  method: 'POST',
  path: '/keys/{id}/revoke',
  summary: 'Revoke a key: refused by every instance within 5 s',
  tag: 'accounts',
  body: EmptyBody,
  responses: { 200: KeySchema },
  errors: [400, 404],
  scope: KEYS,
  idempotent: true,
  command: (service, { id, caller }) => service.accounts.revokeKey(id, caller as Caller),
  answer: (answers) => answers.changedKey,
});

export const ACCOUNT_OPERATIONS = [
  createSeller,
  listSellers,
  getSeller,
  createKey,
  listKeys,
  getKey,
  setKeyPolicy,
  rollKey,
  revokeKey,
];
