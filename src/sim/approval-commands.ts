// Keys mode's steps about approvals (D-69, D-70): held proposals approved and denied through the
// door by random deciders (the Seller's people with approvals:decide, its keys with the scope,
// the operator), now and then by whom D-70 refuses (the proposing key or the person who made it,
// an approver again, another tenant's decider, one without the scope), racing final approvals
// (several approve calls at once: one commits), and the approvals read. Each answer is held to
// decisions.ts's expectation; what it did to the approval, its deal and the record is the
// approvals' checks' (approval-checks.ts).
import { type Caller, OPERATOR } from '../domain/access.ts';
import type { Approval } from '../domain/approvals.ts';
import { authorize } from '../domain/authorization.ts';
import type { Decision } from '../service/approvals.ts';
import { ok, type Result } from '../service/result.ts';
import type { Command } from './commands.ts';
import { atTheLastVote, decisionTime, expectDecision, judgeDecision } from './decisions.ts';
import { act, asRefusal, authenticated, UNKNOWN } from './door.ts';
import { personCredential } from './person-door.ts';
import type { Cast, SimKey, SimPerson } from './principals.ts';
import type { ApprovalTally } from './report.ts';
import type { SimSnapshot, World } from './world.ts';

/** What approveApproval and denyApproval ask of a caller (the operations table's). */
const DECIDE = ['approvals:decide', 'admin'] as const;

export function approvalCommands(world: World): Command[] {
  return [
    ['approve', 9, (s) => decide(world, s as SimSnapshot, 'approve')],
    ['deny', 4, (s) => decide(world, s as SimSnapshot, 'deny')],
    ['approve-race', 2, (s) => race(world, s as SimSnapshot)],
    ['approval-read', 2, (s) => readApprovals(world, s as SimSnapshot)],
  ];
}

type Decider = { key: SimKey } | { person: SimPerson };

/** Who may decide an approval of `seller`: its keys and people with the scope, and the operator's. */
function decidersOf(cast: Cast, approval: Approval): Decider[] {
  const maker = cast.keys.find((k) => k.id === approval.keyId)?.createdBy;
  const keys = [...cast.keysOf(approval.sellerId), cast.operator].filter(
    (k) => k.id !== approval.keyId && cast.isLive(k) && k.scopes.some((s) => s === 'approvals:decide' || s === 'admin'),
  );
  const people = cast.people.filter(
    (p) =>
      p.userId !== maker &&
      ((p.principal === approval.sellerId && (p.role === 'admin' || p.role === 'manager')) || p.role === 'operator'),
  );
  return [...keys.map((key) => ({ key })), ...people.map((person) => ({ person }))];
}

/** The proposing key itself, or the person who made it: each refused SELF_APPROVAL. */
function selvesOf(cast: Cast, approval: Approval): Decider[] {
  const key = cast.keys.find((k) => k.id === approval.keyId);
  const maker = cast.people.find((p) => p.userId === key?.createdBy);
  return [...(key ? [{ key }] : []), ...(maker ? [{ person: maker }] : [])];
}

/** One who voted already: ALREADY_APPROVED if they approve again. */
function votersOf(cast: Cast, approval: Approval): Decider[] {
  return approval.approvals.flatMap((vote): Decider[] => {
    const key = cast.keys.find((k) => k.id === vote.by.keyId);
    const person = cast.people.find((p) => p.userId === vote.by.userId);
    return key ? [{ key }] : person ? [{ person }] : [];
  });
}

/**
 * An approval to decide: mostly a pending one still in time and on its deal as held, else any
 * pending one, now and then one decided, or none such.
 */
function target(world: World, s: SimSnapshot, at: number): Approval | undefined {
  const { chance, pick } = world.dice;
  const pending = s.approvals.filter((a) => a.status === 'pending');
  const open = pending.filter(
    (a) => decisionTime(s, a, at) < a.expiresAt && s.deals.find((d) => d.id === a.dealId)?.version === a.dealVersion,
  );
  if (chance(0.8) && open.length > 0) return pick(open);
  return chance(0.85) ? (pick(pending) ?? pick(s.approvals)) : chance(0.8) ? pick(s.approvals) : undefined;
}

const REASONS = ['Too early in the quarter', 'The customer asked for more time', 'Not at that price'];

/** An approval approved or denied by a random decider through the door. */
async function decide(world: World, s: SimSnapshot, action: 'approve' | 'deny'): Promise<unknown> {
  const { chance, pick } = world.dice;
  const cast = world.cast as Cast;
  const platformNow = await world.platformNow();
  const roll = world.dice.random();
  // A self-approval is tried on what a key that may decide proposed: any other's the door refuses.
  const own = s.approvals.filter(
    (a) => a.status === 'pending' && cast.keys.find((k) => k.id === a.keyId)?.scopes.includes('approvals:decide'),
  );
  const approval = (roll < 0.15 ? pick(own) : undefined) ?? target(world, s, platformNow);
  const decider =
    approval === undefined
      ? undefined
      : roll < 0.15
        ? pick(selvesOf(cast, approval))
        : roll < 0.3
          ? pick(votersOf(cast, approval))
          : roll < 0.9
            ? // Mostly a key: a person's session lapses as the clock moves, and the door refuses it.
              (pick(decidersOf(cast, approval).filter((d) => chance(0.3) || 'key' in d)) ??
              pick(decidersOf(cast, approval)))
            : undefined; // anyone the door chooses: another tenant's, one without the scope
  const reason = pick(REASONS) as string;
  const note = chance(0.5) ? 'fine by me' : undefined;
  const op = action === 'approve' ? 'approveApproval' : 'denyApproval';
  const id = approval?.id ?? UNKNOWN.approval;
  return act(
    world,
    op,
    [approval?.sellerId, OPERATOR],
    { kind: 'approval', id },
    async (c, id) => {
      const caller = c as Caller;
      const approvals = world.service.approvals;
      const run = () =>
        world.service.run(
          action === 'approve' ? approvals.approve(id, note, caller) : approvals.deny(id, reason, caller),
        );
      // The cross-tenant probe's call (an unknown id) is only answered.
      if (approval !== undefined && id !== approval.id) return run();
      world.deciding = { approvalId: id, action, callers: [caller], ...(action === 'deny' ? { reason } : {}) };
      const expected = expectDecision(cast, s, approval, caller, action, decisionTime(s, approval, platformNow));
      const answer = await run();
      judgeDecision(world, approval, caller, action, expected, answer);
      return answer;
    },
    decider ?? {},
  );
}

/** What the door makes of a decider: its caller, or its denial (D-53: the scope asked of it). */
async function through(world: World, decider: Decider) {
  const credential =
    'person' in decider
      ? await personCredential(world, decider.person)
      : { kind: 'key' as const, caller: await authenticated(world, decider.key) };
  const decided = authorize(credential, DECIDE);
  if (!decided.ok) {
    if (decided.denial.status === 401) world.tally.refusedKeys++;
    else world.tally.refusedScopes++;
  }
  return decided;
}

/**
 * Racing final approvals: several deciders (now and then one twice, or a self) approve one
 * approval at once. Each meets the approval's lock in turn: of the last votes one runs the
 * proposal again; the others find it decided (APPROVAL_DECIDED) or themselves counted
 * (ALREADY_APPROVED). No fault is injected: a failed racer would leave the others' commits.
 */
async function race(world: World, s: SimSnapshot): Promise<unknown> {
  const { random, chance, pick } = world.dice;
  const cast = world.cast as Cast;
  const approval = target(world, s, await world.platformNow());
  if (approval === undefined) return ok({ raced: 0 });
  // Distinct deciders, shuffled, keys first (a person's session may have lapsed): one more than
  // the votes it still needs, so that the last vote is raced.
  const pool = decidersOf(cast, approval);
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [pool[i], pool[j]] = [pool[j] as Decider, pool[i] as Decider];
  }
  pool.sort((a, b) => Number('person' in a) - Number('person' in b));
  const needed = approval.approvalsRequired - approval.approvals.length;
  const racers = pool.slice(0, Math.max(2, needed + 1 + Math.floor(random() * 2)));
  if (racers[0] && chance(0.25)) racers.push(racers[0]);
  const self = chance(0.15) ? pick(selvesOf(cast, approval)) : undefined;
  if (self) racers.push(self);
  const callers: Caller[] = [];
  let denied: Result<never> | undefined;
  for (const racer of racers) {
    const decided = await through(world, racer);
    if (decided.ok) callers.push(decided.caller);
    else denied ??= { ok: false, refusal: asRefusal(decided.denial) };
  }
  world.sent = ` approveApproval ${approval.id} raced by ${callers.map((c) => c.keyId ?? c.userId).join(', ')}`;
  if (callers.length === 0) return denied ?? ok({ raced: 0 });
  world.stepCaller = callers[0];
  world.deciding = { approvalId: approval.id, action: 'approve', callers };
  world.store.disarm();
  const tally = world.report.approvals as ApprovalTally;
  tally.races++;
  const at = decisionTime(s, approval, await world.platformNow());
  const approvals = world.service.approvals;
  const answers = await Promise.all(
    callers.map((c) => world.service.run(approvals.approve(approval.id, undefined, c))),
  );
  judgeRace(world, s, approval, callers, answers, at);
  // The step answers what the last vote came to: the commit, or its refusal; else a vote.
  return (
    answers.find((a) => a.ok && a.value.kind === 'committed') ??
    answers.find((a) => !a.ok && atTheLastVote(a.refusal)) ??
    answers.find((a) => a.ok) ??
    answers[0]
  );
}

/**
 * A race's answers: at most one committed; at most one last vote ran the proposal again (it
 * committed, was stale or refused); every other racer a vote, or refused as one alone could be.
 */
function judgeRace(
  world: World,
  s: SimSnapshot,
  approval: Approval,
  callers: Caller[],
  answers: Result<Decision>[],
  at: number,
): void {
  const cast = world.cast as Cast;
  const tally = world.report.approvals as ApprovalTally;
  const found = (message: string) =>
    world.found.push({
      invariant: 'approvals',
      message: `racing approvals of ${approval.id}: ${message}`,
      ids: [approval.id],
    });
  const committed = answers.filter((a) => a.ok && a.value.kind === 'committed').length;
  tally.raceCommits += committed;
  if (committed > 1) found(`${committed} committed`);
  const words = answers.map((a) => (a.ok ? a.value.kind : a.refusal.code));
  // A stale approval answers every last vote APPROVAL_STALE; else one last vote runs it.
  const lastVotes = answers.filter((a) =>
    a.ok ? a.value.kind === 'committed' : a.refusal.kind === 'gate' || a.refusal.kind === 'policy',
  );
  if (approval.status === 'pending' && lastVotes.length > 1) found(`${lastVotes.length} last votes ran it (${words})`);
  callers.forEach((caller, i) => {
    const answer = answers[i] as Result<Decision>;
    if (answer.ok) return;
    const alone = expectDecision(cast, s, approval, caller, 'approve', at);
    // Beside what refused it alone: the others' votes before it (counted once, or decided).
    const may = new Set([...alone.may, 'ALREADY_APPROVED', 'APPROVAL_DECIDED', 'APPROVAL_STALE']);
    const code = answer.refusal.code;
    tally.refusedDecisions[code] = (tally.refusedDecisions[code] ?? 0) + 1;
    if (!may.has(code) && !(answer.refusal.kind === 'gate' || answer.refusal.kind === 'policy'))
      found(`${caller.keyId ?? caller.userId} was refused ${code} (${words})`);
  });
  tally.votes += answers.filter((a) => a.ok && a.value.kind === 'approval').length;
  if (
    answers.some(
      (a, i) => a.ok && expectDecision(cast, s, approval, callers[i] as Caller, 'approve', at).may.has('SELF_APPROVAL'),
    )
  )
    found(`the proposer's own key or maker approved it (${words})`);
}

/** The approvals read as a random principal: the list (all it may see, and only those), or one. */
function readApprovals(world: World, s: SimSnapshot): Promise<unknown> {
  const { chance, pick } = world.dice;
  const svc = world.service;
  if (chance(0.5))
    return act(
      world,
      'listApprovals',
      [],
      undefined,
      async (c) => ok(await svc.approvals.list({ limit: Number.MAX_SAFE_INTEGER }, c)),
      { complete: 'approvals' },
    );
  const approval = pick(s.approvals);
  return act(
    world,
    'getApproval',
    [approval?.sellerId],
    { kind: 'approval', id: approval?.id ?? 'apr_0001' },
    (c, id) => svc.approvals.get(id, c),
  );
}
