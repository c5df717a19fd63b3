// D-77 on people and mail (migration 022), as the service's role (row-level security applies to
// it): a unit run as a Seller's principal reads and writes its own people, tokens and sessions
// only; it reads no failed sign-ins nor any mail (the platform's), adds mail of its own only;
// and an email held by another Seller's person is still refused to it, though it cannot see
// whose. The operator and the platform see every row.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { ConsoleSession } from '../../src/domain/sessions.ts';
import type { OneTimeToken, User } from '../../src/domain/users.ts';
import { createStore } from '../../src/store/create-store.ts';
import type { Store } from '../../src/store/store.ts';
import { sampleMail } from '../store/mail-contract.ts';
import { sampleUser } from '../store/people-contract.ts';
import { createTestSchema, postgresForTests, type TestSchema } from '../support/postgres.ts';

const T0 = Date.parse('2026-01-05T09:00:00.000Z');
const A = 'seller_0001';
const B = 'seller_0002';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const ids = (records: readonly { id: string }[]) => records.map((r) => r.id).sort();

const tokenOf = (user: User): OneTimeToken => ({
  hash: sha256(user.id),
  purpose: 'invitation',
  userId: user.id,
  principal: user.principal,
  createdAt: T0,
  expiresAt: T0 + 3_600_000,
});

const sessionOf = (user: User): ConsoleSession => ({
  id: `ses_${user.id}`,
  hash: sha256(`session ${user.id}`),
  principal: user.principal,
  userId: user.id,
  createdAt: T0,
  expiresAt: T0 + 3_600_000,
});

const server = await postgresForTests();

describe('people and mail behind the storage walls (D-77)', { skip: server.skip }, () => {
  let schema: TestSchema;
  let store: Store;
  const [ofA, ofB, otherOfB] = [
    sampleUser(1, A, { role: 'admin' }),
    sampleUser(2, B, { role: 'admin' }),
    sampleUser(3, B),
  ];
  const [mailOfA, mailOfB] = [sampleMail({ principal: A }), sampleMail({ principal: B })];
  const throttle = { id: sha256(ofB.email), failures: [T0] };

  before(async () => {
    schema = await createTestSchema(server.url as string, 'peoplewalls');
    store = await createStore(schema.url, { poolSize: 2, requireRowSecurity: true, ownerUrl: schema.ownerUrl });
    // As the platform, which sees and writes every row.
    await store.transaction(async (uow) => {
      for (const user of [ofA, ofB, otherOfB]) {
        await uow.people.putUser(user);
        await uow.people.putToken(tokenOf(user));
        await uow.accounts.putSession(sessionOf(user));
      }
      await uow.people.putThrottle(throttle);
      await uow.mail.putMail(mailOfA);
      await uow.mail.putMail(mailOfB);
    });
  });
  after(async () => {
    await store?.close();
    await schema?.drop();
  });

  it("a Seller's unit reads its own people, tokens and sessions only, whatever it asks", async () => {
    await store.read(
      async (r) => {
        assert.deepEqual(await r.people.listUsers({}), [ofA]);
        assert.deepEqual(await r.people.listUsers({ principal: B }), []);
        assert.equal(await r.people.getUser(ofB.id), undefined);
        assert.equal(await r.people.userByEmail(ofB.email), undefined);
        // One bit of another tenant's person, and only that: its email is taken (EMAIL_TAKEN).
        assert.equal(await r.people.emailTaken(ofB.email), true);
        assert.deepEqual(await r.people.userByEmail(ofA.email), ofA);
        assert.deepEqual(await r.people.enabledAdmins(B), []);
        assert.deepEqual((await r.people.usersChangedSince(0)).users, [ofA]);
        assert.equal(await r.people.tokenByHash(tokenOf(ofB).hash), undefined);
        assert.deepEqual(await r.people.tokenByHash(tokenOf(ofA).hash), tokenOf(ofA));
        assert.deepEqual(await r.people.sessionsOfUser(ofB.id), []);
        assert.deepEqual(await r.people.sessionsOfUser(ofA.id), [sessionOf(ofA)]);
      },
      { principal: A },
    );
  });

  it("a Seller's unit writes none of another's people, and an email another holds is refused to it", async () => {
    await assert.rejects(
      store.transaction((uow) => uow.people.putUser({ ...ofB, name: 'taken over' }), { principal: A }),
      /row-level security/,
    );
    await assert.rejects(
      store.transaction((uow) => uow.people.putUser(sampleUser(4, B)), { principal: A }),
      /row-level security/,
    );
    await assert.rejects(
      store.transaction((uow) => uow.people.putToken({ ...tokenOf(ofB), usedAt: T0 }), { principal: A }),
      /row-level security/,
    );
    await assert.rejects(
      store.transaction((uow) => uow.people.putUser(sampleUser(5, A, { email: ofB.email.toUpperCase() })), {
        principal: A,
      }),
      /duplicate key/,
    );
    // Its own, it changes.
    const renamed = { ...ofA, name: 'Renamed' };
    await store.transaction((uow) => uow.people.putUser(renamed), { principal: A });
    assert.deepEqual(await store.read((r) => r.people.getUser(ofA.id)), renamed);
    await store.transaction((uow) => uow.people.putUser(ofA), { principal: A });
    await store.read(async (r) => {
      assert.deepEqual(ids(await r.people.listUsers({ principal: B })), ids([ofB, otherOfB]), 'B untouched');
      assert.equal((await r.people.tokenByHash(tokenOf(ofB).hash))?.usedAt, undefined);
    });
  });

  it("failed sign-ins and the mail outbox are the platform's: a Seller adds mail of its own, and reads none", async () => {
    await store.read(
      async (r) => {
        assert.equal(await r.people.getThrottle(throttle.id), undefined);
        assert.equal(await r.mail.getMail(mailOfA.id), undefined);
        assert.equal(await r.mail.nextMailDue(), undefined);
      },
      { principal: A },
    );
    await assert.rejects(
      store.transaction((uow) => uow.people.putThrottle({ id: sha256('x'), failures: [T0] }), { principal: A }),
      /row-level security/,
    );
    await assert.rejects(
      store.transaction((uow) => uow.mail.putMail(sampleMail({ principal: B })), { principal: A }),
      /row-level security/,
    );
    assert.deepEqual(
      await store.transaction((uow) => uow.mail.claimMail(T0 + 1, T0 + 2, 10), { principal: A }),
      [],
      'a Seller claims nothing',
    );
    const invitation = sampleMail({ principal: A });
    await store.transaction((uow) => uow.mail.putMail(invitation), { principal: A });
    assert.deepEqual(await store.read((r) => r.mail.getMail(invitation.id)), invitation, 'the platform reads it');
  });

  it('the operator and the platform see every person, token, throttle and message', async () => {
    for (const principal of ['operator', 'platform']) {
      await store.read(
        async (r) => {
          assert.deepEqual(ids(await r.people.listUsers({})), ids([ofA, ofB, otherOfB]), principal);
          assert.deepEqual(await r.people.enabledAdmins(B), [ofB]);
          assert.deepEqual(await r.people.tokenByHash(tokenOf(ofB).hash), tokenOf(ofB));
          assert.deepEqual(await r.people.getThrottle(throttle.id), throttle);
          assert.deepEqual(await r.mail.getMail(mailOfB.id), mailOfB);
          assert.deepEqual(await r.people.sessionsOfUser(ofB.id), [sessionOf(ofB)]);
        },
        { principal },
      );
    }
  });
});
