// The local webhook receiver of docs/events-and-webhooks.md (`sales-pipeline-gate receive`): it prints a delivery whose
// Standard Webhooks signature verifies and answers 204; anything else is 401 and not printed.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { main } from '../../src/cli.ts';
import { startReceiver } from '../../src/webhook-receiver.ts';

const secret = `whsec_${randomBytes(24).toString('base64')}`;

describe('the local webhook receiver', () => {
  const lines: string[] = [];
  let url: string;
  let close: () => Promise<void>;
  before(async () => {
    const started = await startReceiver({ port: 0, secret, print: (line) => lines.push(line) });
    url = started.url;
    close = () => new Promise((resolve) => started.server.close(() => resolve()));
  });
  after(() => close());

  const event = {
    id: 'evt_7',
    seq: 7,
    type: 'deal.created',
    at: '2026-01-05T09:00:00.000Z',
    data: { deal: { id: 'deal_0003' } },
  };
  const deliver = (body: string, headers: Record<string, string>) =>
    fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

  it('prints a delivery signed with the secret, and answers 204', async () => {
    const body = JSON.stringify(event);
    const at = new Date();
    const signature = new Webhook(secret).sign('evt_7', at, body);
    const answer = await deliver(body, {
      'webhook-id': 'evt_7',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
    });
    assert.equal(answer.status, 204);
    assert.match(lines.at(-1) ?? '', /^evt_7 deal\.created deal_0003 \(signature verified\) \{/);
  });

  it('refuses a delivery signed with another secret, or tampered with, or unsigned: 401', async () => {
    const body = JSON.stringify(event);
    const at = new Date();
    const other = new Webhook(`whsec_${randomBytes(24).toString('base64')}`).sign('evt_7', at, body);
    const timestamp = String(Math.floor(at.getTime() / 1000));
    const good = new Webhook(secret).sign('evt_7', at, body);
    const printed = lines.length;
    for (const [payload, headers] of [
      [body, { 'webhook-id': 'evt_7', 'webhook-timestamp': timestamp, 'webhook-signature': other }],
      [
        body.replace('deal_0003', 'deal_0004'),
        { 'webhook-id': 'evt_7', 'webhook-timestamp': timestamp, 'webhook-signature': good },
      ],
      [body, {}],
    ] as const) {
      const answer = await deliver(payload, headers);
      assert.equal(answer.status, 401);
    }
    assert.ok(lines.slice(printed).every((line) => line.startsWith('refused a delivery')));
  });

  it('the command wants the secret and a valid port', async () => {
    const errors: string[] = [];
    const io = { out: () => undefined, err: (line: string) => errors.push(line) };
    const saved = process.env.WEBHOOK_SECRET;
    delete process.env.WEBHOOK_SECRET;
    try {
      assert.equal(await main(['receive'], io), 2);
      assert.match(errors.join('\n'), /WEBHOOK_SECRET/);
      assert.equal(await main(['receive', '--port', 'x'], io), 2);
    } finally {
      if (saved !== undefined) process.env.WEBHOOK_SECRET = saved;
    }
  });
});
