// The people part of the store contract (D-62, D-63), run by describeStoreContract on every
// adapter: users (by id, by email whatever its case, by principal), one email to one person, the
// change marks other instances follow, tokens, throttles, a person's sessions, what a rollback
// and a wipe keep. A wipe keeps users, so on a durable store the tests find those of earlier
// tests: each names its own by numbers it takes (never restarted), emails and principals too.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { it } from 'node:test';
import type { ConsoleSession } from '../../src/domain/sessions.ts';
import { emailKey, type OneTimeToken, type SignInThrottle, type User } from '../../src/domain/users.ts';
import type { MailMessage } from '../../src/store/mail.ts';
import type { Store } from '../../src/store/store.ts';

const T0 = Date.parse('2026-01-05T09:00:00.000Z');

const pad = (n: number) => String(n).padStart(4, '0');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const ids = (records: readonly { id: string }[]) => records.map((r) => r.id);

export const sampleUser = (n: number, principal: string, overrides: Partial<User> = {}): User => ({
  id: `usr_${pad(n)}`,
  email: `Person.${n}@Example.test`,
  name: `Person ${n} "quoted" \u0000 and more`,
  principal,
  role: 'rep',
  createdAt: T0 + n,
  ...overrides,
});

const token = (user: User, overrides: Partial<OneTimeToken> = {}): OneTimeToken => ({
  hash: sha256(`a token of ${user.id}`),
  purpose: 'invitation',
  userId: user.id,
  principal: user.principal,
  createdAt: T0,
  expiresAt: T0 + 72 * 3_600_000,
  ...overrides,
});

/** Takes `count` user numbers in one unit of work. */
async function userNumbers(store: Store, count: number): Promise<number[]> {
  return store.transaction(async (uow) => {
    const taken: number[] = [];
    for (let i = 0; i < count; i++) taken.push(await uow.people.takeUserNumber());
    return taken;
  });
}

/** A Seller id no earlier test used (Seller numbers are never restarted). */
const freshSeller = async (store: Store) =>
  `seller_${pad(await store.transaction((uow) => uow.accounts.takeNumber('seller')))}`;

export function peopleContract(_name: string, store: () => Store) {
  it('people: stores users and reads them back unchanged, by id and by email whatever its case', async () => {
    const [n1, n2] = await userNumbers(store(), 2);
    const principal = await freshSeller(store());
    const full = sampleUser(n1, principal, {
      role: 'admin',
      lastSignInAt: T0 + 10,
      disabledAt: T0 + 20,
      passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo',
      passwordSetAt: T0 + 5,
    });
    const bare = sampleUser(n2, principal);
    await store().transaction(async (uow) => {
      await uow.people.putUser(full);
      await uow.people.putUser(bare);
      assert.deepEqual(await uow.people.getUser(full.id), full, 'a unit reads its own writes');
    });
    await store().read(async (r) => {
      assert.deepEqual(await r.people.getUser(full.id), full);
      assert.deepEqual(await r.people.getUser(bare.id), bare);
      assert.equal(await r.people.getUser('usr_999999'), undefined);
      assert.deepEqual(await r.people.userByEmail(full.email), full);
      assert.deepEqual(await r.people.userByEmail(full.email.toUpperCase()), full);
      assert.deepEqual(await r.people.userByEmail(` ${emailKey(bare.email)} `), bare);
      assert.equal(await r.people.userByEmail(`nobody.${n1}@example.test`), undefined);
      assert.equal(await r.people.emailTaken(full.email.toUpperCase()), true);
      assert.equal(await r.people.emailTaken(`nobody.${n1}@example.test`), false);
    });
  });

  it('people: lists users in id order, by principal, a page at a time', async () => {
    const [n1, n2, n3, n4] = await userNumbers(store(), 4);
    const [mine, theirs] = [await freshSeller(store()), await freshSeller(store())];
    await store().transaction(async (uow) => {
      for (const n of [n3, n1, n2]) await uow.people.putUser(sampleUser(n, mine));
      await uow.people.putUser(sampleUser(n4, theirs));
    });
    const own = [n1, n2, n3].map((n) => `usr_${pad(n)}`);
    await store().read(async (r) => {
      const users = async (filter: Parameters<typeof r.people.listUsers>[0]) => ids(await r.people.listUsers(filter));
      assert.deepEqual(await users({ principal: mine }), own);
      assert.deepEqual(await users({ principal: mine, limit: 2 }), own.slice(0, 2));
      assert.deepEqual(await users({ principal: mine, afterId: own[0] }), own.slice(1));
      assert.deepEqual(await users({ principal: mine, afterId: own[1], limit: 5 }), own.slice(2));
      assert.deepEqual(await users({ principal: theirs }), [`usr_${pad(n4)}`]);
      assert.deepEqual(await users({ principal: 'seller_999999' }), []);
      const every = await users({});
      for (const id of [...own, `usr_${pad(n4)}`]) assert.ok(every.includes(id), id);
      assert.deepEqual(await users({ afterId: own[2], limit: 1 }), [`usr_${pad(n4)}`]);
    });
    // Number order, not text order: usr_9… comes before usr_1…, one digit longer.
    const odd = await freshSeller(store());
    const [short, long] = [`usr_9${pad(n1).slice(1)}`, `usr_1${pad(n1)}`];
    await store().transaction(async (uow) => {
      for (const id of [long, short])
        await uow.people.putUser(sampleUser(n1, odd, { id, email: `${id}@example.test` }));
    });
    await store().read(async (r) => {
      assert.deepEqual(ids(await r.people.listUsers({ principal: odd })), [short, long]);
      assert.deepEqual(ids(await r.people.listUsers({ principal: odd, afterId: short })), [long]);
    });
  });

  it('people: one email is one person, whatever its case: a second user of it is refused and its unit rolls back', async () => {
    const [n1, n2] = await userNumbers(store(), 2);
    const principal = await freshSeller(store());
    const first = sampleUser(n1, principal);
    await store().transaction((uow) => uow.people.putUser(first));
    const second = sampleUser(n2, await freshSeller(store()), { email: first.email.toUpperCase() });
    await assert.rejects(
      store().transaction(async (uow) => {
        await uow.people.putToken(token(second));
        await uow.people.putUser(second);
      }),
    );
    await store().read(async (r) => {
      assert.equal(await r.people.getUser(second.id), undefined);
      assert.equal(await r.people.tokenByHash(token(second).hash), undefined, 'the unit kept nothing');
      assert.deepEqual(await r.people.userByEmail(second.email), first);
    });
    // A user may change its own email: the old one is then free for another.
    const moved = { ...first, email: `moved.${n1}@example.test` };
    await store().transaction((uow) => uow.people.putUser(moved));
    await store().transaction((uow) => uow.people.putUser(second));
    await store().read(async (r) => {
      assert.deepEqual(await r.people.userByEmail(first.email), second);
      assert.deepEqual(await r.people.userByEmail(moved.email.toUpperCase()), moved);
    });
    // Putting a user again under its own email is no second user.
    await store().transaction((uow) => uow.people.putUser({ ...second, name: 'Renamed' }));
    assert.equal((await store().read((r) => r.people.getUser(second.id)))?.name, 'Renamed');
  });

  it("people: enabledAdmins are a principal's admins not disabled, in id order", async () => {
    const [n1, n2, n3, n4, n5] = await userNumbers(store(), 5);
    const [principal, other] = [await freshSeller(store()), await freshSeller(store())];
    const [admin1, admin2] = [
      sampleUser(n1, principal, { role: 'admin' }),
      sampleUser(n4, principal, { role: 'admin' }),
    ];
    await store().transaction(async (uow) => {
      await uow.people.putUser(admin2);
      await uow.people.putUser(admin1);
      await uow.people.putUser(sampleUser(n2, principal, { role: 'admin', disabledAt: T0 }));
      await uow.people.putUser(sampleUser(n3, principal, { role: 'manager' }));
      await uow.people.putUser(sampleUser(n5, other, { role: 'admin' }));
    });
    assert.deepEqual(await store().read((r) => r.people.enabledAdmins(principal)), [admin1, admin2]);
    await store().transaction((uow) => uow.people.putUser({ ...admin1, disabledAt: T0 + 1 }));
    assert.deepEqual(await store().read((r) => r.people.enabledAdmins(principal)), [admin2]);
    assert.deepEqual(await store().read((r) => r.people.enabledAdmins('seller_999999')), []);
  });

  it('people: usersChangedSince gives a new mark for every user stored, and nothing from before', async () => {
    const [n] = await userNumbers(store(), 1);
    const user = sampleUser(n, await freshSeller(store()));
    const { mark: m0 } = await store().read((r) => r.people.usersChangedSince(0));
    await store().transaction((uow) => uow.people.putUser(user));
    const invited = await store().read((r) => r.people.usersChangedSince(m0));
    assert.deepEqual(invited.users, [user]);
    assert.ok(invited.mark > m0, `${invited.mark} > ${m0}`);
    assert.deepEqual(await store().read((r) => r.people.usersChangedSince(invited.mark)), {
      users: [],
      mark: invited.mark,
    });
    assert.ok((await store().read((r) => r.people.usersChangedSince(0))).users.some((u) => u.id === user.id));
    const disabled = { ...user, disabledAt: T0 + 60_000 };
    await store().transaction((uow) => uow.people.putUser(disabled));
    const changed = await store().read((r) => r.people.usersChangedSince(invited.mark));
    assert.deepEqual(changed.users, [disabled]);
    assert.ok(changed.mark > invited.mark);
    // A unit that fails moves no mark that a reader would follow to a change.
    await assert.rejects(
      store().transaction(async (uow) => {
        await uow.people.putUser({ ...disabled, name: 'lost' });
        throw new Error('rolled back');
      }),
    );
    assert.deepEqual((await store().read((r) => r.people.usersChangedSince(changed.mark))).users, []);
  });

  it('people: user numbers go up, and no wipe restarts them', async () => {
    const [a, b] = await userNumbers(store(), 2);
    assert.ok(b > a, `${b} > ${a}`);
    const inWipe = await store().transaction(async (uow) => {
      await uow.wipe();
      return uow.people.takeUserNumber();
    });
    assert.ok(inWipe > b, `${inWipe} > ${b}`);
    assert.deepEqual(await userNumbers(store(), 1), [inWipe + 1]);
  });

  it('people: a unit that throws keeps none of its users, tokens, throttles or mail', async () => {
    const [n] = await userNumbers(store(), 1);
    const user = sampleUser(n, await freshSeller(store()));
    const throttle: SignInThrottle = { id: sha256(`throttle ${user.id}`), failures: [T0] };
    const mail: MailMessage = {
      id: `mail_rolled_back_${n}`,
      principal: user.principal,
      to: user.email,
      subject: 'You are invited',
      text: 'Accept: {{link}}',
      linkBase: 'https://console.example.test/accept#',
      nonce: 'bm9uY2U',
      createdAt: T0,
      attempts: 0,
      nextAttemptAt: T0,
    };
    await assert.rejects(
      store().transaction(async (uow) => {
        await uow.people.putUser(user);
        await uow.people.putToken(token(user));
        await uow.people.putThrottle(throttle);
        await uow.mail.putMail(mail);
        assert.deepEqual(await uow.people.getThrottle(throttle.id), throttle, 'a unit reads its own writes');
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    await store().read(async (r) => {
      assert.equal(await r.people.getUser(user.id), undefined);
      assert.equal(await r.people.userByEmail(user.email), undefined);
      assert.equal(await r.people.tokenByHash(token(user).hash), undefined);
      assert.equal(await r.people.getThrottle(throttle.id), undefined);
      assert.equal(await r.mail.getMail(mail.id), undefined);
    });
    // The email is free still.
    await store().transaction((uow) => uow.people.putUser(user));
  });

  it('people: a token is found by its hash, and its use replaces it', async () => {
    const [n] = await userNumbers(store(), 1);
    const user = sampleUser(n, await freshSeller(store()));
    const invitation = token(user);
    const reset = token(user, { hash: sha256(`a reset of ${user.id}`), purpose: 'reset', expiresAt: T0 + 3_600_000 });
    await store().transaction(async (uow) => {
      await uow.people.putUser(user);
      await uow.people.putToken(invitation);
      await uow.people.putToken(reset);
    });
    await store().read(async (r) => {
      assert.deepEqual(await r.people.tokenByHash(invitation.hash), invitation);
      assert.deepEqual(await r.people.tokenByHash(reset.hash), reset);
      assert.equal(await r.people.tokenByHash(sha256('no such token')), undefined);
    });
    const used = { ...invitation, usedAt: T0 + 60_000 };
    await store().transaction((uow) => uow.people.putToken(used));
    assert.deepEqual(await store().read((r) => r.people.tokenByHash(invitation.hash)), used);
  });

  it('people: a throttle is stored, replaced, and deleted once it holds no failure and no lock', async () => {
    const [n] = await userNumbers(store(), 1);
    const id = sha256(`person.${n}@example.test`);
    const failing: SignInThrottle = { id, failures: [T0, T0 + 1000, T0 + 2000] };
    await store().transaction((uow) => uow.people.putThrottle(failing));
    assert.deepEqual(await store().read((r) => r.people.getThrottle(id)), failing);
    const locked: SignInThrottle = { id, failures: [], lockedUntil: T0 + 15 * 60_000 };
    await store().transaction((uow) => uow.people.putThrottle(locked));
    assert.deepEqual(await store().read((r) => r.people.getThrottle(id)), locked);
    await store().transaction((uow) => uow.people.putThrottle({ id, failures: [] }));
    assert.equal(await store().read((r) => r.people.getThrottle(id)), undefined);
    // Nothing to delete: no error.
    await store().transaction((uow) => uow.people.putThrottle({ id, failures: [] }));
    assert.equal(await store().read((r) => r.people.getThrottle(sha256('never failed'))), undefined);
  });

  it("people: a person's sessions name the user and no key; sessionsOfUser reads them, ended or not", async () => {
    const [n1, n2] = await userNumbers(store(), 2);
    const principal = await freshSeller(store());
    const session = (id: string, over: Partial<ConsoleSession>): ConsoleSession => ({
      id,
      hash: sha256(id),
      principal,
      createdAt: T0,
      expiresAt: T0 + 12 * 3_600_000,
      ...over,
    });
    const [first, ended, other, ofKey] = [
      session(`ses_people_${n1}_a`, { userId: `usr_${pad(n1)}` }),
      session(`ses_people_${n1}_b`, { userId: `usr_${pad(n1)}`, createdAt: T0 + 1, endedAt: T0 + 60_000 }),
      session(`ses_people_${n2}_a`, { userId: `usr_${pad(n2)}` }),
      session(`ses_people_${n1}_key`, { keyId: 'key_0001' }),
    ];
    const { mark } = await store().read((r) => r.accounts.sessionsChangedSince(0));
    await store().transaction(async (uow) => {
      for (const each of [first, ended, other, ofKey]) await uow.accounts.putSession(each);
    });
    await store().read(async (r) => {
      const byId = (list: ConsoleSession[]) => [...list].sort((a, b) => a.id.localeCompare(b.id));
      assert.deepEqual(byId(await r.people.sessionsOfUser(`usr_${pad(n1)}`)), [first, ended]);
      assert.deepEqual(await r.people.sessionsOfUser(`usr_${pad(n2)}`), [other]);
      assert.deepEqual(await r.people.sessionsOfUser('usr_999999'), []);
      const changed = (await r.accounts.sessionsChangedSince(mark)).sessions;
      assert.deepEqual(byId(changed), byId([first, ended, other, ofKey]), 'a key or a user, as stored');
    });
  });

  it("people: a wipe keeps users, their tokens and throttles, but closers' users and their tokens go", async () => {
    const [n1, n2] = await userNumbers(store(), 2);
    const ofSeller = sampleUser(n1, await freshSeller(store()), { role: 'admin' });
    const ofCloser = sampleUser(n2, `closer_${pad(n2)}`, { role: 'closer' });
    const throttle: SignInThrottle = { id: sha256(ofSeller.email), failures: [T0] };
    await store().transaction(async (uow) => {
      for (const user of [ofSeller, ofCloser]) {
        await uow.people.putUser(user);
        await uow.people.putToken(token(user));
      }
      await uow.people.putThrottle(throttle);
    });
    await store().transaction((uow) => uow.wipe());
    await store().read(async (r) => {
      assert.deepEqual(await r.people.getUser(ofSeller.id), ofSeller);
      assert.deepEqual(await r.people.userByEmail(ofSeller.email), ofSeller);
      assert.deepEqual(await r.people.tokenByHash(token(ofSeller).hash), token(ofSeller));
      assert.deepEqual(await r.people.getThrottle(throttle.id), throttle);
      assert.equal(await r.people.getUser(ofCloser.id), undefined);
      assert.equal(await r.people.userByEmail(ofCloser.email), undefined);
      assert.equal(await r.people.tokenByHash(token(ofCloser).hash), undefined);
      assert.deepEqual(await r.people.listUsers({ principal: ofCloser.principal }), []);
    });
    // The closer's email is free again.
    const [n3] = await userNumbers(store(), 1);
    await store().transaction((uow) =>
      uow.people.putUser(sampleUser(n3, ofSeller.principal, { email: ofCloser.email })),
    );
  });
}
