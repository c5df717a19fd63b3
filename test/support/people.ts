// People in the end-to-end tests (D-62, D-63): invite through the API, accept from the link that
// arrived by mail (a real SMTP server on loopback, mailbox.ts), sign in with a password, and act
// as the person through the console's cookie, exactly as a browser would.
import assert from 'node:assert/strict';
import type { TestServer } from './http.ts';
import { as, bearer, type Client } from './keys.ts';
import { type Mailbox, tokenOf } from './mailbox.ts';

export const PASSWORD = 'a long fictional passphrase 42';

export interface Invited {
  id: string;
  email: string;
  principal: string;
  role: string;
}

/** Invites a person with a key (or a person's client) that may; answers the user. */
export async function invite(
  t: TestServer,
  by: string | Client,
  person: { email: string; name?: string; role: string; principal?: string },
): Promise<Invited> {
  const client = typeof by === 'string' ? as(t, bearer(by)) : by;
  const answer = await client.post('/users', { name: `${person.email.split('@')[0]} Fictional`, ...person });
  assert.equal(answer.status, 201, answer.text);
  return answer.body as Invited;
}

/** The session cookie an answer set (`name=value`), for the Cookie header of later requests. */
export function cookieOf(answer: { headers: Headers }): string {
  const set = answer.headers.get('set-cookie') ?? '';
  const cookie = /^(sp_console|__Host-sp_console)=[^;]+/.exec(set)?.[0];
  assert.ok(cookie, `a session cookie was set: ${set}`);
  return cookie;
}

/** Accepts the invitation mailed to `email` (its nth), setting `password`: the signed-in cookie. */
export async function accept(t: TestServer, mailbox: Mailbox, email: string, password = PASSWORD, nth = 0) {
  const token = tokenOf(await mailbox.link(email, 'accept', nth));
  const answer = await as(t, {}).post('/users/accept', { token, password });
  assert.equal(answer.status, 200, answer.text);
  return cookieOf(answer);
}

/** Signs in with a password: the answer, whatever it is. */
export const signIn = (t: TestServer, email: string, password = PASSWORD) =>
  as(t, {}).post('/console/session', { email, password });

/** Signs in and answers the cookie (the sign-in must succeed). */
export async function signedIn(t: TestServer, email: string, password = PASSWORD): Promise<string> {
  const answer = await signIn(t, email, password);
  assert.equal(answer.status, 200, answer.text);
  return cookieOf(answer);
}

/** Requests as the person whose session this cookie is. */
export const asPerson = (t: TestServer, cookie: string): Client => as(t, { cookie });

/** Invites, accepts and answers the person with their cookie. */
export async function person(
  t: TestServer,
  by: string | Client,
  mailbox: Mailbox,
  who: { email: string; name?: string; role: string; principal?: string },
): Promise<Invited & { cookie: string; client: Client }> {
  const user = await invite(t, by, who);
  const cookie = await accept(t, mailbox, who.email);
  return { ...user, cookie, client: asPerson(t, cookie) };
}
