// The key ring (D-52, D-55): a key already seen costs no read of the store; a flood of wrong
// keys costs a few reads in all, never one each, and never locks out a valid key; a key revoked
// through another instance is refused after the next refresh; last use is written in batches.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { type Caller, OPERATOR } from '../../src/domain/access.ts';
import { keyText } from '../../src/domain/keys.ts';
import { createPipelineService, type PipelineService } from '../../src/service/pipeline-service.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import type { Store } from '../../src/store/store.ts';

/**
 * The store, counting every read and unit of work made through it; a read answers only once
 * `count.held` (when set) resolves, its snapshot taken before (a read in flight, held).
 */
function counted(store: Store) {
  const count: { reads: number; units: number; held?: Promise<void> } = { reads: 0, units: 0 };
  const wrapped: Store = {
    runsUnitsAgain: store.runsUnitsAgain,
    read: async (work, options) => {
      count.reads++;
      const answer = await store.read(work, options);
      if (count.held) await count.held;
      return answer;
    },
    transaction: (work, options) => {
      count.units++;
      return store.transaction(work, options);
    },
    events: (filter, options) => store.events(filter, options),
    lastSeq: () => store.lastSeq(),
    watchClockOffset: (listener) => store.watchClockOffset(listener),
    watchWebhooks: (listener) => store.watchWebhooks(listener),
    close: () => store.close(),
  };
  return { store: wrapped, count };
}

const OPERATOR_KEY = 'ring-test-operator-key-0123456789abcdefghij';

async function ring() {
  const memory = new MemoryStore();
  const { store, count } = counted(memory);
  let now = Date.parse('2030-01-07T09:00:00.000Z');
  const clock = { now: () => now };
  const service = createPipelineService(store, clock, { claimTtlHours: 72, auth: 'keys' });
  await service.accounts.ensureOperatorKey(OPERATOR_KEY);
  const keyRing = service.keyRing;
  assert.ok(keyRing);
  await keyRing.start();
  const operator = await keyRing.authenticate(OPERATOR_KEY);
  assert.ok(operator.ok);
  return {
    memory,
    service,
    keyRing,
    count,
    operator: operator.caller,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

/** A new Seller and a key of it, made through the service as the operator. */
async function sellerKey(service: PipelineService, operator: Caller) {
  const seller = await service.run(service.accounts.createSeller('Ring Fictional'));
  assert.ok(seller.ok);
  const issued = await service.run(service.accounts.createKey({ name: 'k', principal: seller.value.id }, operator));
  assert.ok(issued.ok);
  return { seller: seller.value, issued: issued.value, text: issued.value.text as string };
}

describe('the key ring', () => {
  it('answers a key it holds without reading the store', async () => {
    const { service, keyRing, count } = await ring();
    try {
      const before = { ...count };
      for (let i = 0; i < 1000; i++) {
        const found = await keyRing.authenticate(OPERATOR_KEY);
        assert.ok(found.ok);
        assert.equal(found.caller.principal, OPERATOR);
      }
      assert.deepEqual(count, before);
    } finally {
      await service.close();
    }
  });

  it('answers thousands of wrong keys with a few reads in all, and a valid key still passes among them', async () => {
    const { service, keyRing, count } = await ring();
    try {
      const before = count.reads;
      const started = Date.now();
      const wrong = Array.from({ length: 3000 }, () => keyRing.authenticate(keyText('seller', randomBytes)));
      const valid = keyRing.authenticate(OPERATOR_KEY);
      const answers = await Promise.all(wrong);
      assert.ok(answers.every((answer) => !answer.ok));
      assert.ok((await valid).ok);
      const elapsed = Date.now() - started;
      // One shared read per 250 ms at most, whatever the number of wrong keys.
      assert.ok(count.reads - before <= Math.ceil(elapsed / 250) + 2, `${count.reads - before} reads in ${elapsed} ms`);
      // A malformed token is refused without even a hash or a read.
      const reads = count.reads;
      for (let i = 0; i < 1000; i++) assert.equal((await keyRing.authenticate('short')).ok, false);
      assert.equal(count.reads, reads);
    } finally {
      await service.close();
    }
  });

  it('knows a key made through this instance at once, and refuses it once revoked', async () => {
    const { service, keyRing, operator } = await ring();
    try {
      const { seller, issued, text } = await sellerKey(service, operator);
      assert.match(text, /^sp_sk_[0-9A-Za-z]{43}$/);
      const found = await keyRing.authenticate(text);
      assert.ok(found.ok);
      assert.equal(found.caller.principal, seller.id);
      await service.run(service.accounts.revokeKey(issued.key.id, operator));
      assert.equal((await keyRing.authenticate(text)).ok, false);
    } finally {
      await service.close();
    }
  });

  it('a read of the keys that began before a revocation here does not bring the key back', async () => {
    const { service, keyRing, operator, count } = await ring();
    try {
      const { issued, text } = await sellerKey(service, operator);
      let release = () => {};
      count.held = new Promise<void>((resolve) => {
        release = resolve;
      });
      // The ring's refresh (every 2 s), begun now: it reads the key as made, live.
      const inFlight = (keyRing as unknown as { read(): Promise<void> }).read();
      await new Promise((resolve) => setTimeout(resolve, 20));
      count.held = undefined;
      await service.run(service.accounts.revokeKey(issued.key.id, operator));
      assert.equal((await keyRing.authenticate(text)).ok, false, 'refused at once');
      release();
      await inFlight;
      assert.equal((await keyRing.authenticate(text)).ok, false, 'still refused once the older read is done');
    } finally {
      await service.close();
    }
  });

  it('refuses a key revoked through another instance after its next read of the changes', async () => {
    const { memory, service, keyRing, operator } = await ring();
    // A second instance on the same store: its own service and ring.
    const other = createPipelineService(memory, { now: () => Date.now() }, { claimTtlHours: 72, auth: 'keys' });
    try {
      const { issued, text } = await sellerKey(service, operator);
      assert.ok((await keyRing.authenticate(text)).ok);
      await other.run(other.accounts.revokeKey(issued.key.id, operator));
      // This ring has not read the change yet; it does within its refresh (2 s).
      const deadline = Date.now() + 5000;
      while ((await keyRing.authenticate(text)).ok) {
        assert.ok(Date.now() < deadline, 'still accepted 5 s after its revocation');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await other.close();
      await service.close();
    }
  });

  // D-76: what an open event stream asks before each write and on a timer.
  it('tells from memory whether a key still stands: live, expired, revoked, or gone with a reset; noting no use', async () => {
    const { service, keyRing, operator, count, advance } = await ring();
    try {
      const { issued } = await sellerKey(service, operator);
      const expiring = await service.run(
        service.accounts.createKey(
          { name: 'expiring', principal: issued.key.principal, expiresAt: Date.parse('2030-01-07T09:01:00.000Z') },
          operator,
        ),
      );
      assert.ok(expiring.ok);
      const closer = await service.run(service.gigs.enrolCloser({ name: 'Ring Closer', industries: ['saas'] }));
      assert.ok(closer.ok);
      const closerKey = await service.run(
        service.accounts.createKey({ name: 'desk', principal: closer.value.closer.id }, operator),
      );
      assert.ok(closerKey.ok);
      const reads = count.reads;
      for (const id of [issued.key.id, expiring.value.key.id, closerKey.value.key.id])
        assert.equal(keyRing.stands(id), true, id);
      assert.equal(keyRing.stands('key_9999'), false, 'a key the ring does not hold');
      assert.equal(count.reads, reads, 'no read of the store');
      assert.equal(keyRing.lastUsed(issued.key.id), undefined, 'no use noted');
      advance(60_000);
      assert.equal(keyRing.stands(expiring.value.key.id), false, 'expired (machine time)');
      assert.equal(keyRing.stands(issued.key.id), true);
      await service.run(service.accounts.revokeKey(issued.key.id, operator));
      assert.equal(keyRing.stands(issued.key.id), false, 'revoked');
      // A reset deletes the closers and their keys: the ring reads every key again.
      assert.ok((await service.run(service.platform.reset())).ok);
      await keyRing.reload();
      assert.equal(keyRing.stands(closerKey.value.key.id), false, "a closer's key the reset deleted");
      assert.equal(keyRing.stands(operator.keyId), true);
    } finally {
      await service.close();
    }
  });

  it('writes last use in a batch, not on every request', async () => {
    const { service, keyRing, count } = await ring();
    const units = count.units;
    for (let i = 0; i < 100; i++) await keyRing.authenticate(OPERATOR_KEY);
    assert.equal(count.units, units);
    await service.close();
    // Closing writes what was not written yet, in one unit of work.
    assert.equal(count.units, units + 1);
  });
});
