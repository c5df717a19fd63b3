// The pipeline's commands as the simulation sends them, each with its weight: deals made, sold,
// advanced, signalled, de-escalated and re-engaged; closers enrolled; gigs claimed, advanced,
// revived, released and expired; the clock moved and the timers run. Each is aimed mostly at a
// record it suits, so that the pipeline lives (gigs fulfilled and paid), and else anywhere, so
// that the gate refuses.
import { isPerson, OPERATOR } from '../domain/access.ts';
import type { Snapshot } from '../domain/invariants.ts';
import type { Executor } from '../domain/proposals.ts';
import { nextStage } from '../domain/stages.ts';
import { actingCloser, claimant } from '../operations/closer-of.ts';
import { act } from './door.ts';
import {
  aimAtRefusal,
  anyStage,
  closerIdFor,
  closers,
  dealInput,
  gigOwners,
  ids,
  ownerOf,
  SIGNALS,
  sellers,
  value,
} from './inputs.ts';
import { modeOf, type Proposal, send, versionOf } from './proposing.ts';
import { HOUR, type World } from './world.ts';

/** A kind of step: its name, its weight among the kinds, and how it runs on the state before it. */
export type Command = [string, number, (s: Snapshot) => Promise<unknown>];

export function pipelineCommands(world: World): Command[] {
  const dice = world.dice;
  const { random, chance, pick } = dice;
  // The episode's service, at call time.
  const svc = () => world.service;
  /** A proposal's mode and its deal's version, from the state before the step. */
  const proposal = (
    s: Snapshot,
    op: string,
    by: Executor,
    target: { dealId: string } | { gigId: string },
    body: Proposal['body'],
  ): Proposal => {
    const dealId = 'dealId' in target ? target.dealId : s.gigs.find((g) => g.id === target.gigId)?.dealId;
    return { op, by, ...target, body, mode: modeOf(random()), version: versionOf(s, dealId), again: chance(0.5) };
  };
  return [
    [
      'create',
      8,
      () =>
        act(world, 'createDeal', sellers(world), undefined, (c) =>
          svc().run(svc().deals.createDeal(dealInput(dice), c)),
        ),
    ],
    [
      'sell',
      8,
      () => act(world, 'sell', sellers(world), undefined, (c) => svc().run(svc().deals.sell(dealInput(dice), c))),
    ],
    [
      'advance',
      14,
      (s) => {
        // Now and then a proposal aimed at a refusal of the gate (D-61 keeps each).
        const aimed = chance(0.25) ? aimAtRefusal(dice, s) : undefined;
        const to =
          aimed?.to ??
          (chance(0.5) ? {} : { advanceTo: anyStage(dice), ...(chance(0.5) ? { valueUsd: value(dice) } : {}) });
        const id = aimed?.dealId ?? ids(dice, s).deal();
        const p = proposal(s, 'advanceDeal', 'agent', { dealId: id }, to);
        return act(world, 'advanceDeal', ownerOf(s, id), { kind: 'deal', id }, (c, id) =>
          // D-65: a Seller's person proposes as a human; a key as the agent.
          send(world, { ...p, dealId: id, by: isPerson(c) ? 'human' : 'agent' }, c, (ifMatch) =>
            svc().deals.advanceDeal(id, to, ifMatch, c),
          ),
        );
      },
    ],
    [
      'signals',
      6,
      (s) => {
        const id = ids(dice, s).deal();
        const signal = pick(SIGNALS) as string;
        return act(world, 'reportSignals', ownerOf(s, id), { kind: 'deal', id }, (c, id) =>
          svc().run(svc().deals.reportSignals(id, [signal], undefined, c)),
        );
      },
    ],
    [
      'deescalate',
      4,
      (s) => {
        const id = ids(dice, s).deal((d) => d.humanTrack === true);
        return act(world, 'deescalateDeal', ownerOf(s, id), { kind: 'deal', id }, (c, id) =>
          svc().run(svc().deals.deescalate(id, undefined, c)),
        );
      },
    ],
    [
      'reengage',
      3,
      (s) => {
        const id = ids(dice, s).deal((d) => d.stage === 'closed_lost');
        return act(world, 'reengageDeal', ownerOf(s, id), { kind: 'deal', id }, (c, id) =>
          svc().run(svc().deals.reengage(id, undefined, c)),
        );
      },
    ],
    [
      'enrol',
      2,
      () => {
        const input = { name: `Closer ${Math.floor(random() * 1e4)}`, industries: ['saas'] };
        const keyed = chance(0.7);
        return act(world, 'enrolCloser', [OPERATOR], undefined, async (c) => {
          const enrolled = await svc().run(svc().gigs.enrolCloser(input, c));
          // Most new closers get a key from the operator, and work from then on.
          if (enrolled.ok && world.cast && keyed) await world.cast.enrolled(enrolled.value.closer.id);
          return enrolled;
        });
      },
    ],
    [
      'claim',
      10,
      (s) => {
        const id = ids(dice, s).gig('open');
        const named = ids(dice, s).closer();
        const roll = random();
        return act(world, 'claimGig', closers(world), { kind: 'gig', id }, (c, id) =>
          svc().run(svc().gigs.claimGig(id, actingCloser(c, closerIdFor(roll, c, named)), undefined, c)),
        );
      },
    ],
    [
      'gig-advance',
      14,
      (s) => {
        // Mostly a claimed gig; now and then an open or finished one, which the gate refuses (D-61).
        const unclaimed = chance(0.12) ? pick(s.gigs.filter((g) => g.status !== 'claimed')) : undefined;
        const gig = unclaimed ?? s.gigs.find((g) => g.id === ids(dice, s).gig('claimed'));
        const deal = gig && s.deals.find((d) => d.id === gig.dealId);
        // Mostly what the gig's role may propose next (its deal's next stage, or a nurturer's
        // closed_lost), so that gigs are fulfilled and paid; else any stage, mostly refused.
        const sensible = gig && deal && (gig.role === 'nurturer' ? 'closed_lost' : nextStage(deal.stage));
        const to = chance(0.7) && sensible ? sensible : anyStage(dice);
        const named = chance(0.9) ? gig?.closerId : ids(dice, s).closer();
        // A close won mostly at list value; else below the floor (half of it) or any value.
        const list = deal ? deal.listValueCents / 100 : undefined;
        const closeAt = () =>
          list !== undefined && chance(0.75)
            ? list
            : list !== undefined && chance(0.5)
              ? Math.floor(list / 2)
              : value(dice);
        const valueUsd = to === 'closed_won' ? closeAt() : undefined;
        const note = chance(0.2) ? `moved by the simulation's closer` : undefined;
        const roll = random();
        const id = gig?.id ?? ids(dice, s).gig();
        const body = {
          advanceTo: to as string,
          ...(valueUsd !== undefined ? { valueUsd } : {}),
          ...(note !== undefined ? { note } : {}),
        };
        const p = proposal(s, 'advanceGig', 'human', { gigId: id }, body);
        return act(world, 'advanceGig', [gig?.closerId], { kind: 'gig', id }, (c, id) => {
          const input = { ...claimant(c, closerIdFor(roll, c, named)), ...body };
          return send(world, { ...p, gigId: id }, c, (ifMatch) => svc().gigs.advanceGig(id, input, ifMatch, c));
        });
      },
    ],
    [
      'revive',
      3,
      (s) => {
        const nurturing = pick(s.gigs.filter((g) => g.role === 'nurturer' && g.status === 'claimed'));
        const gig = nurturing && chance(0.7) ? nurturing : s.gigs.find((g) => g.id === ids(dice, s).gig('claimed'));
        const named = chance(0.9) ? gig?.closerId : ids(dice, s).closer();
        const note = chance(0.3) ? 'the champion answered' : undefined;
        const roll = random();
        const id = gig?.id ?? 'gig_0001';
        const body = note !== undefined ? { note } : {};
        const p = proposal(s, 'reviveGig', 'human', { gigId: id }, body);
        return act(world, 'reviveGig', [gig?.closerId], { kind: 'gig', id }, (c, id) => {
          const input = { ...claimant(c, closerIdFor(roll, c, named)), ...body };
          return send(world, { ...p, gigId: id }, c, (ifMatch) => svc().gigs.clearGoneDark(id, input, ifMatch, c));
        });
      },
    ],
    [
      'release',
      3,
      (s) => {
        const id = ids(dice, s).gig('claimed');
        const named = chance(0.8) ? undefined : ids(dice, s).closer();
        // An open gig only its Seller may release: a closer's key is refused (D-53).
        const open = s.gigs.find((g) => g.id === id)?.status === 'open';
        const only = open && world.options.closerReleasesOpenGigs === false;
        return act(
          world,
          'releaseGig',
          only ? ownerOf(s, s.gigs.find((g) => g.id === id)?.dealId ?? '') : gigOwners(s, id),
          { kind: 'gig', id },
          (c, id) => svc().run(svc().gigs.releaseGig(id, claimant(c, named).closerId, undefined, c)),
          { only },
        );
      },
    ],
    [
      'expire',
      2,
      (s) =>
        act(world, 'expireGig', [OPERATOR], { kind: 'gig', id: ids(dice, s).gig('claimed') }, (c, id) =>
          svc().run(svc().gigs.reopenGig(id, undefined, c)),
        ),
    ],
    [
      'clock',
      3,
      async () => {
        world.machine += Math.floor(random() * 30 * HOUR);
        const hours = chance(0.5) ? 0 : Math.floor(random() * 100);
        return act(world, 'advanceDemoClock', [OPERATOR], undefined, () =>
          svc().run(svc().platform.advanceClock(hours)),
        );
      },
    ],
    ['timers', 2, async () => ({ ok: true, fired: await svc().platform.runTimers() })],
  ];
}
