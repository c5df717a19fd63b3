// D-251: a key made under an Idempotency-Key is stored as the nonce it was drawn from, and drawn
// again for a replay, only with the same OPERATOR_KEY.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Caller, OPERATOR } from '../../src/domain/access.ts';
import { ACCOUNT_OPERATIONS } from '../../src/operations/account-operations.ts';
import type { WriteOperation } from '../../src/operations/operation.ts';
import { modeOf, renderings, runWrite } from '../../src/operations/run.ts';
import { KeySeal } from '../../src/service/key-seal.ts';
import { createPipelineService } from '../../src/service/pipeline-service.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import { writeAnswers } from '../../src/views/answers.ts';

const OPERATOR_KEY = 'an-operator-key-of-thirty-two-characters-at-least';

describe('the key seal (D-251)', () => {
  it('draws keys of the kind asked, each different, of the service’s form', () => {
    const seal = new KeySeal(OPERATOR_KEY);
    const seen = new Set<string>();
    for (const [kind, prefix] of [
      ['seller', 'sp_sk_'],
      ['closer', 'sp_ck_'],
      ['operator', 'sp_op_'],
    ] as const) {
      for (let i = 0; i < 50; i++) {
        const { text, nonce } = seal.draw(kind);
        assert.match(text, /^sp_(sk|ck|op)_[0-9A-Za-z]{43}$/);
        assert.ok(text.startsWith(prefix));
        assert.match(nonce, /^[A-Za-z0-9_-]{43}$/);
        seen.add(text);
      }
    }
    assert.equal(seen.size, 150);
  });

  it('a stored answer holds the nonce, not the key; the same OPERATOR_KEY draws it again on any instance', () => {
    const drawn = new KeySeal(OPERATOR_KEY).draw('seller');
    const body = JSON.stringify({ id: 'key_0007', key: drawn.text, prefix: drawn.text.slice(0, 12), name: 'n' });
    const stored = new KeySeal(OPERATOR_KEY).seal(body, drawn);
    assert.ok(!stored.includes(drawn.text.slice(6)), 'no part of the key’s random characters is stored');
    assert.ok(KeySeal.isSealed(stored));
    assert.equal(new KeySeal(OPERATOR_KEY).unseal(stored), body, 'another instance draws the same key');
  });

  it('another OPERATOR_KEY draws another key, and the replay is refused rather than given a wrong key', () => {
    const drawn = new KeySeal(OPERATOR_KEY).draw('closer');
    const body = JSON.stringify({ id: 'key_0008', key: drawn.text, prefix: drawn.text.slice(0, 12) });
    const stored = new KeySeal(OPERATOR_KEY).seal(body, drawn);
    assert.notEqual(new KeySeal(`${OPERATOR_KEY}-changed`).textOf('closer', drawn.nonce), drawn.text);
    assert.equal(new KeySeal(`${OPERATOR_KEY}-changed`).unseal(stored), undefined);
  });

  it('an answer with no sealed key is given back as it is', () => {
    const body = '{"id":"key_0009","prefix":"sp_sk_abcdef"}';
    assert.equal(new KeySeal(OPERATOR_KEY).unseal(body), body);
  });
});

describe('a keyed key replayed by an instance with another OPERATOR_KEY (D-251)', () => {
  it('is refused as KEY_NOT_RECOVERABLE, never answered with another key', async () => {
    const store = new MemoryStore();
    const clock = { now: () => Date.UTC(2031, 0, 6, 9) };
    const config = { claimTtlHours: 72, auth: 'keys' as const };
    const before = createPipelineService(store, clock, { ...config, operatorKey: OPERATOR_KEY });
    const after = createPipelineService(store, clock, { ...config, operatorKey: `${OPERATOR_KEY}-changed` });
    const op = ACCOUNT_OPERATIONS.find((o) => o.id === 'createKey') as WriteOperation;
    const rendering = renderings(writeAnswers('/pipeline'))(op);
    const caller: Caller = { principal: OPERATOR, kind: 'operator', keyId: 'key_0001', scopes: new Set(['admin']) };
    const call = { id: '', body: { name: 'keyed' }, query: {}, caller };
    const mode = modeOf(op, call, 'retry-me', false);
    const first = await runWrite(before, op, call, mode, rendering);
    assert.equal(first.kind, 'answered');
    const made = JSON.parse((first as { stored: { body: string } }).stored.body);
    const again = await runWrite(before, op, call, mode, rendering);
    assert.equal(again.kind, 'replayed');
    assert.equal(JSON.parse((again as { answer: { body: string } }).answer.body).key, made.key);
    const elsewhere = await runWrite(after, op, call, mode, rendering);
    assert.deepEqual(elsewhere, { kind: 'unrecoverable', key: 'retry-me' });
    await Promise.all([before.close(), after.close()]);
  });
});
