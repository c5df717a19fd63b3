// People in words (D-62, D-63, D-228): a person's status, what a role may do (from its scopes, so
// the words follow the roles as the service defines them), the password's rule, and the refusals
// of people's calls as sentences that name the person and the Seller, never an id (the service's
// own text names the principal by its id: it stays in the element's title).
import { roleScopes } from '../src/domain/users.ts';
import type { ApiError } from './api.ts';
import { errorWords } from './error-words.ts';
import type { Role, User } from './people-api.ts';
import { when } from './words.ts';

export type Status = 'invited' | 'active' | 'disabled';

/** Invited (no password yet), active, or disabled. */
export const statusOf = (user: User): Status =>
  user.disabledAt ? 'disabled' : user.invitationAccepted ? 'active' : 'invited';

/** A status as a person reads it, with when where there is a when. */
export function statusWords(user: User): string {
  const status = statusOf(user);
  if (status === 'disabled') return `Disabled ${when(user.disabledAt as string)}`;
  return status === 'invited' ? 'Invited: no password yet' : 'Active';
}

/** What a role may do, in a few words, from its scopes. */
export function roleWords(role: Role): string {
  const scopes: readonly string[] = roleScopes(role);
  if (scopes.includes('admin')) return 'runs the platform';
  if (scopes.includes('gigs:work')) return 'works gigs, manages its people and keys';
  if (scopes.includes('users:manage')) return 'everything, people and keys too';
  if (scopes.includes('approvals:decide')) return 'works deals and decides approvals';
  if (scopes.includes('deals:write')) return 'works deals';
  return 'reads only';
}

/** The password's rule, as the forms say it (src/domain/users.ts's passwordProblem). */
export const PASSWORD_RULE = 'At least 12 characters, and not your email’s name (the part before the @).';

/** A WEAK_PASSWORD's violations as sentences. */
export function passwordWords(error: ApiError): string {
  const said = (error.violations ?? []).map((line) => {
    if (/at least/.test(line)) return 'The password needs at least 12 characters.';
    if (/at most/.test(line)) return 'The password can have at most 256 characters.';
    if (/before the @/.test(line)) return 'The password must not contain your email’s name (the part before the @).';
    return errorWords({ ...error, violations: [line] });
  });
  return said.length > 0 ? said.join(' ') : 'Choose a longer password.';
}

/**
 * A refusal of a call on `user` (or of an invitation to `email`) in words: `principal` is the
 * name of the Seller (or closer) the person belongs to.
 */
export function peopleRefusal(
  error: ApiError,
  about: { user?: Pick<User, 'name'>; email?: string; principal: string },
): string {
  switch (error.code) {
    case 'LAST_ADMIN':
      return `${about.user?.name ?? 'This person'} is the last enabled admin of ${about.principal}, and a Seller keeps at least one: make someone else admin first.`;
    case 'EMAIL_TAKEN':
      return `${about.email ?? 'That email'} already belongs to a person of this deployment: one email, one person.`;
    case 'INSUFFICIENT_SCOPE':
      return 'You cannot give a role that may do more than you may.';
    case 'USER_NOT_FOUND':
      return 'That person is not among the people you manage any more: the list is read again.';
    case 'PRINCIPAL_NOT_FOUND':
      return `There is no ${about.principal} for a person to belong to.`;
    default:
      return errorWords(error);
  }
}
