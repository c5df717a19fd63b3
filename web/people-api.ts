// People's calls in keys mode (D-62, D-63): a principal's people (list, invite, role, disable,
// enable) and a person's own account (accept an invitation, ask for and confirm a password reset).
// Like `/keys`, these are keys mode's only, so web/openapi.d.ts (the demo's contract) does not have
// them: they are typed here, after src/schemas/users.ts, and go with the session's cookie.
import type { UserRole } from '../src/domain/users.ts';
import { call, everyRecord } from './api.ts';
import type { Kind } from './session.ts';

export type Role = UserRole;

export interface User {
  /** usr_NNNN */
  id: string;
  email: string;
  name: string;
  /** `operator`, a Seller id or a closer id: whom the person acts as. */
  principal: string;
  role: Role;
  createdAt: string;
  lastSignInAt: string | null;
  disabledAt: string | null;
  /** Whether the person has set a password (accepted the invitation). */
  invitationAccepted: boolean;
}

/** The kind of a principal id, as the console names it. */
export const kindOfPrincipal = (principal: string): Kind =>
  principal === 'operator' ? 'operator' : principal.startsWith('closer_') ? 'closer' : 'seller';

const path = (id: string, what = '') => `/users/${encodeURIComponent(id)}${what}`;

export const people = {
  /** The session's own principal's people; the operator's: everyone, or one principal's. */
  list: (principal?: string) =>
    everyRecord<User>(principal ? `/users?principal=${encodeURIComponent(principal)}` : '/users'),
  invite: (body: { email: string; name: string; role: Role; principal?: string }) => call<User>('POST', '/users', body),
  setRole: (id: string, role: Role) => call<User>('POST', path(id, '/role'), { role }),
  disable: (id: string) => call<User>('POST', path(id, '/disable')),
  enable: (id: string) => call<User>('POST', path(id, '/enable')),
  /** Sets the password of an invitation: the answer signs the browser in (its cookie). */
  accept: (token: string, password: string) => call<{ user: User }>('POST', '/users/accept', { token, password }),
  /** Always answers 202, whether or not the email is a person's. */
  askReset: (email: string) => call<{ accepted: true }>('POST', '/users/password-reset', { email }),
  confirmReset: (token: string, password: string) =>
    call<{ user: User }>('POST', '/users/password-reset/confirm', { token, password }),
};
