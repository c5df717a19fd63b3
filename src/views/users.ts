// People → JSON (D-62): never a password hash, never a token.
import type { User } from '../domain/users.ts';
import { iso } from './records.ts';

export const userView = (user: User) => ({
  id: user.id,
  email: user.email,
  name: user.name,
  principal: user.principal,
  role: user.role,
  createdAt: iso(user.createdAt),
  lastSignInAt: user.lastSignInAt === undefined ? null : iso(user.lastSignInAt),
  disabledAt: user.disabledAt === undefined ? null : iso(user.disabledAt),
  invitationAccepted: user.passwordHash !== undefined,
});
