// People (D-62): a principal's people, invited by mail with a role, their roles changed, disabled
// and enabled by a caller with `users:manage` (its own principal's) or the operator (anyone's).
// Served in keys mode only. A person's own account (accepting an invitation, signing in, a reset)
// is the console's: src/http/routes/people-session.ts.
import { type Static, Type } from '@sinclair/typebox';
import type { Caller } from '../domain/access.ts';
import type { User } from '../domain/users.ts';
import { EmptyBody } from '../schemas/marketplace.ts';
import { CreateUserBody, RoleBody, UserListQuery, UserSchema } from '../schemas/users.ts';
import { userView } from '../views/users.ts';
import { page, read, write } from './operation.ts';

const USERS = ['users:manage', 'admin'] as const;
const common = { mount: 'root', keysOnly: true, tag: 'accounts' } as const;

const createUser = write({
  ...common,
  id: 'createUser',
  method: 'POST',
  path: '/users',
  summary: 'Invite a person: the answer is the user, and the invitation goes by mail',
  description:
    "Of the caller's own principal unless the operator names another, with a role of that principal's kind " +
    "(400 otherwise) and no scope the caller lacks (403 INSUFFICIENT_SCOPE). The invitation's link is good for " +
    '72 hours. An email another person already has is 409 EMAIL_TAKEN.',
  body: CreateUserBody,
  responses: { 201: UserSchema },
  errors: [400, 403, 404, 409],
  scope: USERS,
  idempotent: true,
  origin: true,
  command: (service, { body, caller, origin }) =>
    service.people.invite(body as Static<typeof CreateUserBody>, caller as Caller, origin ?? ''),
  answer: (answers) => answers.createdUser,
});

const listUsers = page({
  ...common,
  id: 'listUsers',
  method: 'GET',
  path: '/users',
  summary: "The caller's principal's people (the operator's: everyone, or ?principal=)",
  query: UserListQuery,
  responses: { 200: Type.Array(UserSchema) },
  errors: [400],
  scope: USERS,
  idKind: 'usr',
  list: 'users',
  fetch: (service, filter, afterId, limit, caller) =>
    service.people.listUsers({ principal: filter.principal as string | undefined, afterId, limit }, caller as Caller),
  view: (user: User) => userView(user),
});

const getMe = read({
  ...common,
  id: 'getMe',
  method: 'GET',
  path: '/users/me',
  summary: 'The person signed in (a key is no person: 404)',
  responses: { 200: UserSchema },
  errors: [404],
  scope: 'key',
  read: (service, { caller }) => service.people.me(caller as Caller),
  view: (user: User) => userView(user),
});

const getUser = read({
  ...common,
  id: 'getUser',
  method: 'GET',
  path: '/users/{id}',
  summary: 'One person',
  responses: { 200: UserSchema },
  errors: [404],
  scope: USERS,
  read: (service, { id, caller }) => service.people.getUser(id, caller as Caller),
  view: (user: User) => userView(user),
});

const setUserRole = write({
  ...common,
  id: 'setUserRole',
  method: 'POST',
  path: '/users/{id}/role',
  summary: "Change a person's role",
  description:
    "A role of the principal's kind (400 otherwise), within the caller's scopes (403); a Seller's last enabled admin " +
    'keeps its role (409 LAST_ADMIN). The person acts with the new role from their next request, on every instance ' +
    'within 5 s.',
  body: RoleBody,
  responses: { 200: UserSchema },
  errors: [400, 403, 404, 409],
  scope: USERS,
  idempotent: true,
  command: (service, { id, body, caller }) =>
    service.people.setRole(id, (body as Static<typeof RoleBody>).role, caller as Caller),
  answer: (answers) => answers.user,
});

const disableUser = write({
  ...common,
  id: 'disableUser',
  method: 'POST',
  path: '/users/{id}/disable',
  summary: 'Disable a person: signed out everywhere, and refused sign-in',
  description:
    "Every session of the person ends on every instance within 5 s. A Seller's last enabled admin cannot be " +
    'disabled (409 LAST_ADMIN).',
  body: EmptyBody,
  responses: { 200: UserSchema },
  errors: [400, 404, 409],
  scope: USERS,
  idempotent: true,
  command: (service, { id, caller }) => service.people.disable(id, caller as Caller),
  answer: (answers) => answers.user,
});

const enableUser = write({
  ...common,
  id: 'enableUser',
  method: 'POST',
  path: '/users/{id}/enable',
  summary: 'Enable a disabled person again',
  body: EmptyBody,
  responses: { 200: UserSchema },
  errors: [400, 404],
  scope: USERS,
  idempotent: true,
  command: (service, { id, caller }) => service.people.enable(id, caller as Caller),
  answer: (answers) => answers.user,
});

export const USER_OPERATIONS = [createUser, listUsers, getMe, getUser, setUserRole, disableUser, enableUser];
