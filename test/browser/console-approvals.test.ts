// Key policies and approvals in the web console (D-68, D-69, D-70) in Debian's Chromium against a
// real keys-mode service whose mail goes to a real SMTP server on loopback: an agent's key whose
// policy holds a close proposes it over HTTP; a manager signed in to the console sees it on the
// Approvals page without a reload, with the limits it went over in words and who proposed, and
// approves it: the deal's page, open beside, shows it closed won live. Two approvals required
// say "1 of 2", each approver counts once, the person who made the key may not decide, and the
// operator's approval commits; an approval whose deal moved says so. A denial's reason, typed in
// the console, is what the agent reads over MCP (`get_approval`). The keys page's policy editor
// sets a policy (GET /keys/{id} shows it), says a field out of range beside the form, removes
// it, issues a key with one, and refuses a policy looser than the signed-in key's own; a move
// made from a deal's page that the key's policy holds says so in words. The tests take
// docs/console/approvals-wide.png and key-policy-wide.png (UPDATE_SCREENSHOTS=1).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  browserSkip,
  failOnScriptError,
  launchChromium,
  personConsole,
  SHOTS,
  type Size,
  signedInConsole,
} from '../support/browser.ts';
import type { TestServer } from '../support/http.ts';
import { as, bearer, type Client, dealBody, makeKey, makeSeller, OP, startKeysServer } from '../support/keys.ts';
import { type Mailbox, startMailbox } from '../support/mailbox.ts';
import { PASSWORD, person } from '../support/people.ts';

/** Ids of principals, people, keys, deals and approvals: a page names them, never shows them. */
const IDS = /\b(?:seller|closer|usr|key|deal|apr)_\d+\b/;
const SELLER = 'Approvals Fictional Sales';
const AGENT_SCOPES = ['deals:read', 'deals:propose'];

describe('key policies and approvals in the web console, in Chromium (D-68, D-69, D-70)', { skip: browserSkip }, () => {
  let t: TestServer;
  let mailbox: Mailbox;
  let browser: Browser;
  let sellerId: string;
  /** The Seller's own key, without a policy: it makes and moves the deals the agents then propose on. */
  let seller: Client;
  let admin: Awaited<ReturnType<typeof person>>;
  let manager: Awaited<ReturnType<typeof person>>;
  const contexts: BrowserContext[] = [];
  const mcps: McpClient[] = [];

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    mailbox = await startMailbox();
    t = await startKeysServer({ smtpUrl: mailbox.url, mailRetryBaseMs: 50 });
    browser = await launchChromium();
    sellerId = await makeSeller(t, SELLER);
    seller = as(t, bearer((await makeKey(t, OP, { name: 'pipeline owner', principal: sellerId })).key));
    admin = await person(t, OP, mailbox, {
      email: 'ada.approvals@seller.example',
      name: 'Ada Fictional',
      role: 'admin',
      principal: sellerId,
    });
    manager = await person(t, admin.client, mailbox, {
      email: 'mo.approvals@seller.example',
      name: 'Mo Fictional',
      role: 'manager',
    });
  });
  after(async () => {
    for (const client of mcps) await client.close().catch(() => undefined);
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await t?.close();
    await mailbox?.close();
  });

  /** A fresh browser (its own cookies) signed in as the person; closed after the tests. */
  async function signedInAs(email: string, size: Size = 'wide') {
    const opened = await personConsole(browser, t.url, email, PASSWORD, size);
    contexts.push(opened.context);
    return opened;
  }

  /** A fresh browser signed in with a key (the other way of the sign-in page). */
  async function signedInWithKey(key: string, size: Size = 'wide') {
    const opened = await signedInConsole(browser, t.url, key, size);
    contexts.push(opened.context);
    return opened;
  }

  const nav = (page: Page) => page.getByRole('navigation', { name: 'Console' });

  /** The Approvals page, through the menu. */
  async function approvalsPage(page: Page) {
    await nav(page).getByRole('link', { name: 'Approvals' }).click();
    await page.getByRole('heading', { name: 'Approvals', exact: true }).waitFor();
    return page.getByRole('region', { name: 'Approvals' });
  }

  /** An agent's key of the Seller, made by the operator, with this policy. */
  const agentKey = (name: string, policy?: Record<string, unknown>) =>
    makeKey(t, OP, { name, principal: sellerId, scopes: AGENT_SCOPES, ...(policy ? { policy } : {}) });

  /** A fresh deal of the Seller's, moved by its own key to negotiation (or left at sourced). */
  async function dealOf(name: string, listValueUsd = 40_000, toNegotiation = true): Promise<string> {
    const created = await seller.post(`${t.prefix}/deals`, dealBody(name, undefined, listValueUsd));
    assert.equal(created.status, 201, created.text);
    for (const advanceTo of toNegotiation ? ['qualified', 'meeting', 'proposal', 'negotiation'] : []) {
      const moved = await seller.post(`${t.prefix}/deals/${created.body.id}/advance`, { advanceTo });
      assert.equal(moved.status, 200, moved.text);
    }
    return created.body.id;
  }

  /** The agent proposes over HTTP; its policy holds it (202): answers the approval's id. */
  async function held(agentKeyText: string, dealId: string, proposal: Record<string, unknown>): Promise<string> {
    const answer = await as(t, bearer(agentKeyText)).post(`${t.prefix}/deals/${dealId}/advance`, proposal);
    assert.equal(answer.status, 202, answer.text);
    assert.equal(answer.body.status, 'held');
    return answer.body.approval.id;
  }

  /** The page fits its width: no sideways scroll (else the elements that stick out are named). */
  async function fits(page: Page, what: string) {
    const o = await page.evaluate(() => {
      const client = document.documentElement.clientWidth;
      const out = [...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > client + 0.5)
        .filter((e) => !e.closest('.table-scroll') || getComputedStyle(e).position === 'absolute')
        .slice(-3)
        .map((e) => `${e.tagName.toLowerCase()}.${e.className} (${Math.round(e.getBoundingClientRect().right)} px)`);
      return { scroll: document.documentElement.scrollWidth, client, out };
    });
    assert.ok(o.scroll <= o.client, `${what}: ${o.scroll} > ${o.client} px: ${o.out.join(', ')}`);
  }

  it("a held close shows on a manager's Approvals page live, in words; approved, the deal closes won live", async () => {
    const agent = await agentKey('closing agent', { closesPerDay: 0, minCloseValuePct: 0.9 });
    const dealId = await dealOf('Northwind Approvals Fictional');

    const { context, page } = await signedInAs(manager.email);
    assert.deepEqual(await nav(page).getByRole('link').allTextContents(), [
      'Pipeline',
      'New deal',
      'Proposals',
      'Insights',
      'Statement',
      'Approvals',
      'Closers',
    ]);
    const region = await approvalsPage(page);
    await region.getByText('No proposal waits for approval.').waitFor();
    // The deal's page, open beside it in another tab.
    const dealPage = await context.newPage();
    failOnScriptError(dealPage);
    await dealPage.goto(`${t.url}/console#/deals/${dealId}`);
    await dealPage.getByRole('heading', { name: 'Northwind Approvals Fictional' }).waitFor();

    const approvalId = await held(agent.key, dealId, {
      advanceTo: 'closed_won',
      valueUsd: 34_000,
      note: 'They sign today at 85% of list',
    });

    // Without a reload: the card, the limits it went over in words, who proposed, the votes.
    const card = region.getByRole('article', { name: 'Northwind Approvals Fictional' });
    await card.waitFor();
    const text = await card.innerText();
    // A manager lists no keys, but the approval kept its key's name.
    assert.match(text, /Close won at \$34,000\.00, proposed by Key “closing agent”/);
    assert.deepEqual(await card.getByRole('list', { name: 'Limits passed' }).getByRole('listitem').allTextContents(), [
      'close value 85% of list, policy asks at least 90%',
      'closes per day: 1 of 0',
    ]);
    assert.match(text, /Its note: “They sign today at 85% of list”/);
    assert.match(text, /Requested\s+\S/);
    assert.match(text, /Expires\s+\S/);
    assert.match(text, /Approvals\s+0 of 1 approval\b/);
    assert.doesNotMatch(text, IDS, 'no id on the card');
    await card.getByRole('link', { name: 'Northwind Approvals Fictional' }).waitFor();
    // The deal's page says it waits, live too.
    await dealPage.getByRole('region', { name: 'Waiting for approval' }).getByText('Close won at $34,000.00').waitFor();
    await page.screenshot({ path: `${SHOTS}approvals-wide.png`, fullPage: true });

    await card.getByRole('form', { name: 'Approve' }).getByLabel('Note (optional)').fill('Good customer');
    await card.getByRole('button', { name: 'Approve' }).click();
    await region
      .getByRole('status')
      .getByText('Northwind Approvals Fictional: Approved: the deal moved to Closed won at $34,000.00.')
      .waitFor();
    await card.waitFor({ state: 'detached' });
    // The deal's page shows it closed won, live.
    await dealPage.locator('#deal-stage[data-stage="closed_won"]').waitFor();
    assert.equal(await dealPage.getByRole('region', { name: 'Waiting for approval' }).count(), 0);
    const deal = (await seller.get(`${t.prefix}/deals/${dealId}`)).body;
    assert.equal(deal.stage, 'closed_won');
    assert.equal(deal.finalValueUsd, 34_000);
    const approval = (await seller.get(`/approvals/${approvalId}`)).body;
    assert.equal(approval.status, 'approved');
    assert.deepEqual(
      approval.approvals.map((v: { by: { name: string }; note?: string }) => [v.by.name, v.note]),
      [['Mo Fictional', 'Good customer']],
    );

    // The decided ones, by how they ended.
    await region.getByLabel('Show').selectOption('approved');
    const decided = region.getByRole('article', { name: 'Northwind Approvals Fictional' });
    await decided.getByText(/^Approved on .+ by Mo Fictional: it committed\.$/).waitFor();
    await decided.getByText('Good customer').waitFor();
  });

  it('two approvals required: "1 of 2", each approver once, never the key\'s maker; the operator\'s commits', async () => {
    // Made by Ada on the Seller's behalf: she may not decide what it proposes.
    const made = await admin.client.post('/keys', {
      name: 'careful agent',
      scopes: AGENT_SCOPES,
      policy: { allowedMoves: [], approvalsRequired: 2 },
    });
    assert.equal(made.status, 201, made.text);
    const dealId = await dealOf('Careful Approvals Fictional', 20_000, false);
    const approvalId = await held(made.body.key, dealId, {});

    const { page } = await signedInAs(manager.email);
    const region = await approvalsPage(page);
    const card = region.getByRole('article', { name: 'Careful Approvals Fictional' });
    await card.getByText('Advance to Qualified').waitFor();
    assert.deepEqual(await card.getByRole('list', { name: 'Limits passed' }).getByRole('listitem').allTextContents(), [
      'a move to Qualified, policy allows no moves',
    ]);
    await card.getByRole('button', { name: 'Approve' }).click();
    await card
      .getByRole('status')
      .getByText('Approved: 1 of 2 approvals (Mo Fictional); it waits for the others.')
      .waitFor();
    await card.getByText('1 of 2 approvals (Mo Fictional)', { exact: true }).waitFor();
    await card.getByRole('button', { name: 'Approve' }).click();
    await card.getByRole('alert').getByText('You approved this already: each approver counts once.').waitFor();

    // Ada made the key: SELF_APPROVAL. Her page names the key, which she may list.
    const ada = (await signedInAs(admin.email)).page;
    const adaCard = (await approvalsPage(ada)).getByRole('article', { name: 'Careful Approvals Fictional' });
    await adaCard.getByText('Advance to Qualified, proposed by Key “careful agent”').waitFor();
    await adaCard.getByRole('button', { name: 'Approve' }).click();
    await adaCard
      .getByRole('alert')
      .getByText('You may not decide this one: it was proposed through your own key, or a key you made.')
      .waitFor();

    // The operator's approval is the second: the deal moves.
    const operator = (await signedInWithKey(OP)).page;
    const opCard = (await approvalsPage(operator)).getByRole('article', { name: 'Careful Approvals Fictional' });
    await opCard.getByRole('button', { name: 'Approve' }).click();
    await operator
      .getByRole('status')
      .getByText('Careful Approvals Fictional: Approved: the deal moved to Qualified.')
      .waitFor();
    assert.equal((await seller.get(`${t.prefix}/deals/${dealId}`)).body.stage, 'qualified');
    assert.equal((await seller.get(`/approvals/${approvalId}`)).body.status, 'approved');
    // The manager's list lost it live.
    await card.waitFor({ state: 'detached' });
  });

  it('an approval whose deal moved since it was held says so, and is superseded', async () => {
    const agent = await agentKey('hasty agent', { minCloseValuePct: 0.9 });
    const dealId = await dealOf('Moved Approvals Fictional');
    const approvalId = await held(agent.key, dealId, { advanceTo: 'closed_won', valueUsd: 34_000 });
    const { page } = await signedInAs(manager.email);
    const region = await approvalsPage(page);
    const card = region.getByRole('article', { name: 'Moved Approvals Fictional' });
    await card.waitFor();
    const edited = await seller.send(
      'PATCH',
      `${t.prefix}/deals/${dealId}`,
      { listValueUsd: 41_000 },
      { 'if-match': '*' },
    );
    assert.equal(edited.status, 200, edited.text);
    await card.getByRole('button', { name: 'Approve' }).click();
    await region
      .getByRole('alert')
      .getByText(/^Moved Approvals Fictional: Not approved: the deal moved since it was proposed/)
      .waitFor();
    assert.equal((await seller.get(`/approvals/${approvalId}`)).body.status, 'superseded');
    assert.equal((await seller.get(`${t.prefix}/deals/${dealId}`)).body.stage, 'negotiation');
  });

  it("a denial's reason typed in the console is what the agent reads over MCP (390 px)", async () => {
    const agent = await agentKey('mcp agent', { closesPerDay: 0 });
    const dealId = await dealOf('Denied Approvals Fictional');
    const approvalId = await held(agent.key, dealId, { advanceTo: 'closed_won', valueUsd: 38_000 });

    const { page } = await signedInAs(admin.email, 'narrow');
    const region = await approvalsPage(page);
    const card = region.getByRole('article', { name: 'Denied Approvals Fictional' });
    await card.getByText('Close won at $38,000.00, proposed by Key “mcp agent”').waitFor();
    await fits(page, 'the Approvals page');
    const deny = card.getByRole('button', { name: 'Deny' });
    assert.equal(await deny.isDisabled(), true, 'no denial without a reason');
    const reason = 'Too deep a discount for this account';
    await card.getByLabel('Reason for a denial').fill(reason);
    await deny.click();
    await region.getByRole('status').getByText(`Denied Approvals Fictional: Denied: “${reason}”.`).waitFor();
    await card.waitFor({ state: 'detached' });

    // The agent asks how its proposal ended, over MCP with its own key.
    const client = new McpClient({ name: 'console-approvals-agent', version: '0.0.0' });
    mcps.push(client);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/demo/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${agent.key}` } },
      }),
    );
    await client.listTools();
    const result = (await client.callTool({ name: 'get_approval', arguments: { id: approvalId } })) as CallToolResult;
    assert.equal(result.isError ?? false, false, JSON.stringify(result));
    const approval = result.structuredContent as { status: string; reason: string; dealId: string };
    assert.equal(approval.status, 'denied');
    assert.equal(approval.reason, reason);
    assert.equal(approval.dealId, dealId);
    assert.equal((await seller.get(`${t.prefix}/deals/${dealId}`)).body.stage, 'negotiation', 'nothing moved');

    await region.getByLabel('Show').selectOption('denied');
    await region
      .getByRole('article', { name: 'Denied Approvals Fictional' })
      .getByText(new RegExp(`^Denied on .+: “${reason}”$`))
      .waitFor();
    await fits(page, 'the denied approvals');
  });

  it("the keys page's policy editor sets a policy (GET /keys/{id} shows it), says a refusal beside the form, removes it, and issues a key with one", async () => {
    const target = await agentKey('edited agent');
    const { page } = await signedInAs(admin.email);
    await nav(page).getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('heading', { name: 'Keys', exact: true }).waitFor();
    const row = page.getByRole('row', { name: `edited agent (${target.id})` });
    await row.getByText('No policy', { exact: true }).waitFor();
    await row.getByRole('button', { name: 'Edit the policy of edited agent' }).click();
    const editor = page.getByRole('region', { name: 'Policy of edited agent' });
    const form = editor.getByRole('form', { name: 'The policy of edited agent' });
    await form.getByLabel('Largest deal (USD)').fill('100000');
    await form.getByLabel('Least close value (% of list)').fill('90');
    await form.getByLabel('Closes per day').fill('5');
    await form.getByLabel('Only the stages ticked').check();
    await form.getByLabel('Qualified').check();
    await form.getByLabel('Meeting').check();
    await form.getByLabel('Over a limit').selectOption('hold');
    await form.getByLabel('Approvals required').fill('2');
    await form.getByLabel('Waits for (hours)').fill('200');
    await form.getByRole('button', { name: 'Save policy' }).click();
    // The service's 400, in the label's words, beside the form.
    await form.getByRole('alert').getByText('Waits for must be at most 168 hours').waitFor();
    assert.equal((await seller.get(`/keys/${target.id}`)).body.policy, undefined, 'nothing saved');

    await form.getByLabel('Waits for (hours)').fill('48');
    await form.getByRole('button', { name: 'Save policy' }).click();
    await page.getByRole('status').getByText('Saved the policy of edited agent.').waitFor();
    const saved = (await seller.get(`/keys/${target.id}`)).body;
    assert.deepEqual(saved.policy, {
      onLimit: 'hold',
      approvalsRequired: 2,
      approvalTtlHours: 48,
      maxDealValueUsd: 100_000,
      minCloseValuePct: 0.9,
      allowedMoves: ['qualified', 'meeting'],
      closesPerDay: 5,
    });
    assert.deepEqual({ ...saved.usage, day: undefined }, { day: undefined, closes: 0, closedValueUsd: 0 });
    // The list says it in words, with the key's day.
    for (const line of [
      'No deal with a list value above $100,000',
      'Closes won at 90% of the list value or more',
      'Moves to Qualified and Meeting only',
      'At most 5 closes won a day',
      'Over a limit: held for 2 approvals, waiting 48 hours',
    ])
      await row.getByText(line, { exact: true }).waitFor();
    await row.getByText(`Today (${saved.usage.day}, UTC): 0 of 5 closes won, $0 closed`).waitFor();
    assert.doesNotMatch(await row.locator('td.policy-cell').innerText(), /closesPerDay|minCloseValuePct|_/);

    // Opened again, the editor shows the policy as saved.
    await row.getByRole('button', { name: 'Edit the policy of edited agent' }).click();
    assert.equal(await form.getByLabel('Least close value (% of list)').inputValue(), '90');
    assert.equal(await form.getByLabel('Meeting').isChecked(), true);
    assert.equal(await form.getByLabel('Proposal').isChecked(), false);
    await editor.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}key-policy-wide.png`, fullPage: true });

    await form.getByRole('button', { name: 'Remove policy' }).click();
    await page.getByRole('status').getByText('Removed the policy of edited agent.').waitFor();
    assert.equal((await seller.get(`/keys/${target.id}`)).body.policy, undefined);
    await row.getByText('No policy', { exact: true }).waitFor();

    // A key issued with a policy.
    const issue = page.getByRole('form', { name: 'Issue a key' });
    await issue.getByLabel('Key name').fill('issued with a policy');
    for (const scope of [
      'deals:write',
      'events:read',
      'webhooks:manage',
      'keys:manage',
      'users:manage',
      'approvals:decide',
    ])
      await issue.getByLabel(scope).uncheck();
    await issue.getByLabel('With a policy').check();
    await issue.getByLabel('Closes per day').fill('2');
    await issue.getByRole('button', { name: 'Issue key' }).click();
    await page.getByRole('region', { name: 'New key' }).getByRole('button', { name: 'Done' }).click();
    const issued = (await seller.get('/keys?limit=1000')).body.find(
      (k: { name: string }) => k.name === 'issued with a policy',
    );
    assert.deepEqual([...issued.scopes].sort(), [...AGENT_SCOPES].sort());
    assert.deepEqual(issued.policy, { onLimit: 'hold', approvalsRequired: 1, approvalTtlHours: 24, closesPerDay: 2 });
    await page
      .getByRole('row', { name: `issued with a policy (${issued.id})` })
      .getByText('At most 2 closes won a day')
      .waitFor();
  });

  it("a key with a policy may set none looser than its own; its move from a deal's page that the policy holds says so", async () => {
    const target = await agentKey('bounded target');
    const bounded = await makeKey(t, OP, {
      name: 'bounded console key',
      principal: sellerId,
      policy: { closesPerDay: 3, minCloseValuePct: 0.9 },
    });
    const { page } = await signedInWithKey(bounded.key);
    await nav(page).getByRole('link', { name: 'Keys' }).click();
    const row = page.getByRole('row', { name: `bounded target (${target.id})` });
    await row.getByRole('button', { name: 'Edit the policy of bounded target' }).click();
    const form = page.getByRole('form', { name: 'The policy of bounded target' });
    await form.getByLabel('Closes per day').fill('10');
    await form.getByRole('button', { name: 'Save policy' }).click();
    await form
      .getByRole('alert')
      .getByText('You may not set a policy looser than your own key’s: “Closes per day” may be at most 3 (your own).')
      .waitFor();
    assert.equal((await seller.get(`/keys/${target.id}`)).body.policy, undefined, 'nothing saved');

    // A close below the key's least close value, from the deal's page: held, said in words.
    const dealId = await dealOf('Held From Console Fictional');
    await page.goto(`${t.url}/console#/deals/${dealId}`);
    await page.getByRole('heading', { name: 'Held From Console Fictional' }).waitFor();
    // The dry run at that value says the policy would hold it: the move stays offered.
    const dryRun = page.waitForResponse(
      (r) => r.url().includes('dryRun=true') && (r.request().postData() ?? '').includes('34000'),
    );
    await page.getByLabel('Close value (USD)').fill('34000');
    assert.equal((await (await dryRun).json()).policy?.outcome, 'hold');
    await page.waitForTimeout(300);
    assert.equal(await page.getByRole('button', { name: 'Close won' }).isEnabled(), true);
    await page.getByRole('button', { name: 'Close won' }).click();
    await page
      .getByRole('status')
      .getByText(
        /^Held for approval: Close won at \$34,000\.00 went over the key’s policy \(close value 85% of list, policy asks at least 90%\)\. Nothing moved; it waits for 1 approval on the Approvals page until /,
      )
      .waitFor();
    await page.getByRole('region', { name: 'Waiting for approval' }).getByText('Close won at $34,000.00').waitFor();
    assert.equal(await page.locator('#deal-stage').getAttribute('data-stage'), 'negotiation');
    const pending = (await seller.get(`/approvals?dealId=${dealId}&status=pending`)).body;
    assert.equal(pending.length, 1);
    assert.equal(pending[0].keyId, bounded.id);
  });

  it("a move its key's policy would refuse is offered disabled, with the policy's words (a dry run, D-71)", async () => {
    const refusing = await makeKey(t, OP, {
      name: 'refusing console key',
      principal: sellerId,
      policy: { minCloseValuePct: 0.9, onLimit: 'refuse' },
    });
    const { page } = await signedInWithKey(refusing.key);
    const dealId = await dealOf('Refused From Console Fictional');
    await page.goto(`${t.url}/console#/deals/${dealId}`);
    await page.getByRole('heading', { name: 'Refused From Console Fictional' }).waitFor();
    const words = 'The key’s policy refuses this move: close value 85% of list, policy asks at least 90%.';
    await page.getByLabel('Close value (USD)').fill('34000');
    await page.getByText(words).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Close won' }).isDisabled(), true);
    // At 95% of the list the policy lets it through: offered again.
    await page.getByLabel('Close value (USD)').fill('38000');
    await page.getByText(words).waitFor({ state: 'detached' });
    assert.equal(await page.getByRole('button', { name: 'Close won' }).isEnabled(), true);
    assert.equal((await seller.get(`/pipeline/deals/${dealId}`)).body.stage, 'negotiation', 'a dry run moves nothing');
  });
});
