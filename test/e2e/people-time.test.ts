// D-63's times, on a keys-mode server whose machine clock the test moves on: an invitation's link
// is good for 72 hours and a reset's for 1 hour (then 400 TOKEN_INVALID); a locked email opens
// again 15 minutes after the tenth failure, and failures older than 15 minutes no longer count.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/http.ts';
import { as, makeSeller, OP } from '../support/keys.ts';
import { type Mailbox, startMailbox, tokenOf } from '../support/mailbox.ts';
import { invite, PASSWORD, person, signIn } from '../support/people.ts';

const HOUR = 60 * 60 * 1000;
const MINUTE = 60 * 1000;

describe("people's tokens and locks run on the machine clock (D-63)", () => {
  let t: TestServer;
  let mailbox: Mailbox;
  let seller: string;
  let skew = 0;
  before(async () => {
    mailbox = await startMailbox();
    t = await startTestServer({
      clock: { now: () => Date.now() + skew },
      config: { auth: 'keys', operatorKey: OP, smtpUrl: mailbox.url, mailRetryBaseMs: 50 },
    });
    seller = await makeSeller(t, 'Clock Seller');
  });
  after(async () => {
    await t?.close();
    await mailbox?.close();
  });

  it('an invitation is good for 72 hours, not a minute more', async () => {
    await invite(t, OP, { email: 'late@clock.example', role: 'viewer', principal: seller });
    await invite(t, OP, { email: 'just@clock.example', role: 'viewer', principal: seller });
    const late = tokenOf(await mailbox.link('late@clock.example', 'accept'));
    const just = tokenOf(await mailbox.link('just@clock.example', 'accept'));
    skew += 72 * HOUR - MINUTE;
    assert.equal((await as(t, {}).post('/users/accept', { token: just, password: PASSWORD })).status, 200);
    skew += 2 * MINUTE;
    const expired = await as(t, {}).post('/users/accept', { token: late, password: PASSWORD });
    assert.equal(expired.status, 400);
    assert.equal((expired.body as { code: string }).code, 'TOKEN_INVALID');
  });

  it('a reset link is good for 1 hour', async () => {
    await person(t, OP, mailbox, { email: 'reset@clock.example', role: 'viewer', principal: seller });
    await as(t, {}).post('/users/password-reset', { email: 'reset@clock.example' });
    const token = tokenOf(await mailbox.link('reset@clock.example', 'reset'));
    skew += HOUR + MINUTE;
    const expired = await as(t, {}).post('/users/password-reset/confirm', {
      token,
      password: 'a new fictional passphrase',
    });
    assert.equal((expired.body as { code: string }).code, 'TOKEN_INVALID');
  });

  it('a lock lasts 15 minutes; failures older than 15 minutes do not count', async () => {
    await person(t, OP, mailbox, { email: 'lock@clock.example', role: 'viewer', principal: seller });
    const wrong = () => signIn(t, 'lock@clock.example', 'not it, not it, not it');
    for (let i = 0; i < 9; i++) assert.equal((await wrong()).status, 401);
    skew += 15 * MINUTE + 1_000;
    // The nine have aged out of the window: nine more do not lock.
    for (let i = 0; i < 9; i++) assert.equal((await wrong()).status, 401);
    assert.equal((await signIn(t, 'lock@clock.example')).status, 200, 'not locked');
    // A success clears the count: ten in a row now lock.
    for (let i = 0; i < 10; i++) assert.equal((await wrong()).status, 401);
    const locked = await signIn(t, 'lock@clock.example');
    assert.equal(locked.status, 429);
    skew += 15 * MINUTE - 5_000;
    assert.equal((await signIn(t, 'lock@clock.example')).status, 429, 'still locked');
    skew += 10_000;
    assert.equal((await signIn(t, 'lock@clock.example')).status, 200, 'open again');
  });
});
