// The people part of the store port (D-62, D-63): users, their one-time tokens (kept as SHA-256
// only), the failed sign-ins that lock an email, and the console sessions of a person. Every
// adapter implements it and the store contract (test/store/people-contract.ts) holds them to it.
// No password or token is ever stored in clear: a user keeps its Argon2id hash, a token its
// SHA-256.
import type { ConsoleSession } from '../domain/sessions.ts';
import type { OneTimeToken, SignInThrottle, User } from '../domain/users.ts';

/** Filters of a page of users; `afterId` is exclusive. */
export interface UserFilter {
  principal?: string;
  afterId?: string;
  limit?: number;
}

export interface PeopleReader {
  getUser(id: string): Promise<User | undefined>;
  /** The user of this email, compared without regard to case (D-62). */
  userByEmail(email: string): Promise<User | undefined>;
  /**
   * Whether any person of the deployment has this email (compared as userByEmail does), whoever
   * may see them: a tenant learns that one bit of another's person (D-62: EMAIL_TAKEN).
   */
  emailTaken(email: string): Promise<boolean>;
  /** Users in id order, filtered. */
  listUsers(filter: UserFilter): Promise<User[]>;
  /** The enabled admins of a principal (D-62: a Seller keeps at least one). */
  enabledAdmins(principal: string): Promise<User[]>;
  /**
   * The users changed (invited, their role, password or state) after `since` (0: every one), and
   * the mark to ask from next time: how every instance learns of a disabling made through another.
   */
  usersChangedSince(since: number): Promise<{ users: User[]; mark: number }>;
  /** The token whose SHA-256 (hex) this is, used or not. */
  tokenByHash(hash: string): Promise<OneTimeToken | undefined>;
  /** An email's failed sign-ins (by the SHA-256 of its key), if any. */
  getThrottle(id: string): Promise<SignInThrottle | undefined>;
  /** The console sessions a person signed in, ended or not. */
  sessionsOfUser(userId: string): Promise<ConsoleSession[]>;
}

export interface PeopleUnit extends PeopleReader {
  /** Takes the next number of a user; never restarted, not even by a wipe. */
  takeUserNumber(): Promise<number>;
  /**
   * Stores a user, or replaces the stored user of that id (its change is then seen by
   * usersChangedSince). A second user of an email already used is refused by the store too
   * (an error), though the service checks first under the `users` lock.
   */
  putUser(user: User): Promise<void>;
  /** Stores a token, or replaces the token of that hash (its use). */
  putToken(token: OneTimeToken): Promise<void>;
  /** Stores an email's failures, or replaces them; a throttle with no failure and no lock is deleted. */
  putThrottle(throttle: SignInThrottle): Promise<void>;
}
