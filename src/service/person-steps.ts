// The steps of a person's account that both the managers of people (people.ts) and the person
// themself (own-account.ts) take: a one-time token mailed (D-63, D-64: the token's SHA-256 kept,
// the mail holding only the nonce it is drawn from), and every live session of a person ended.
import { randomBytes } from 'node:crypto';
import type { ConsoleSession } from '../domain/sessions.ts';
import { INVITATION_MS, type OneTimeToken, RESET_MS, type User } from '../domain/users.ts';
import type { UnitOfWork } from '../store/store.ts';
import { sha256 } from './accounts.ts';
import type { TokenSeal } from './token-seal.ts';

export interface SignedIn {
  user: User;
  session: { value: string; expiresAt: number };
}

/** What the people service tells the instance's key ring and mail worker. */
export interface PeopleListeners {
  user(user: User): void;
  session(session: ConsoleSession): void;
  mail(): void;
}

/** A one-time token for the user, its hash stored, and the mail with its link in the outbox. */
export async function mailToken(
  uow: UnitOfWork,
  seal: TokenSeal,
  user: User,
  purpose: OneTimeToken['purpose'],
  origin: string,
  now: number,
): Promise<void> {
  const drawn = seal.draw();
  await uow.people.putToken({
    hash: sha256(drawn.text),
    purpose,
    userId: user.id,
    principal: user.principal,
    createdAt: now,
    expiresAt: now + (purpose === 'invitation' ? INVITATION_MS : RESET_MS),
  });
  const words =
    purpose === 'invitation'
      ? {
          subject: 'You are invited to the sales pipeline',
          text:
            `Hello ${user.name},\n\nYou are invited to the sales pipeline as ${user.role}. Choose your password ` +
            'here within 72 hours:\n\n{{link}}\n\nIf you did not expect this, ignore this mail.\n',
          path: '/console/#/accept/',
        }
      : {
          subject: 'Reset your sales pipeline password',
          text:
            `Hello ${user.name},\n\nSomeone asked to reset the password of this email. Choose a new one here ` +
            'within 1 hour:\n\n{{link}}\n\nIf it was not you, ignore this mail: your password stays as it is.\n',
          path: '/console/#/reset/',
        };
  await uow.mail.putMail({
    id: `mail_${randomBytes(12).toString('base64url')}`,
    principal: user.principal,
    to: user.email,
    subject: words.subject,
    text: words.text,
    linkBase: `${origin}${words.path}`,
    nonce: drawn.nonce,
    createdAt: now,
    attempts: 0,
    nextAttemptAt: now,
  });
}

/** Ends every live session of a person in this unit; answers them ended. */
export async function endSessions(uow: UnitOfWork, userId: string, now: number): Promise<ConsoleSession[]> {
  const ended: ConsoleSession[] = [];
  for (const session of await uow.people.sessionsOfUser(userId)) {
    if (session.endedAt !== undefined || session.expiresAt <= now) continue;
    const end = { ...session, endedAt: now };
    await uow.accounts.putSession(end);
    ended.push(end);
  }
  return ended;
}
