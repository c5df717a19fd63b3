// The pipeline's commands as the simulation sends them, each with its weight: deals made, sold,
// advanced, signalled, de-escalated and re-engaged; closers enrolled; gigs claimed, advanced,
// revived, released and expired; the clock moved and the timers run. Each is aimed mostly at a
// record it suits, so that the pipeline lives (gigs fulfilled and paid), and else anywhere, so
// that the gate refuses.
import { OPERATOR } from '../domain/access.ts';
import type { Snapshot } from '../domain/invariants.ts';
import { nextStage } from '../domain/stages.ts';
import { actingCloser, claimant } from '../operations/closer-of.ts';
import { act } from './door.ts';
import {
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
import { HOUR, type World } from './world.ts';

/** A kind of step: its name, its weight among the kinds, and how it runs on the state before it. */
export type Command = [string, number, (s: Snapshot) => Promise<unknown>];

export function pipelineCommands(world: World): Command[] {
  const dice = world.dice;
  const { random, chance, pick } = dice;
  // The episode's service, at call time.
  const svc = () => world.service;
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
        const to = chance(0.5) ? {} : { advanceTo: anyStage(dice), ...(chance(0.5) ? { valueUsd: value(dice) } : {}) };
        const id = ids(dice, s).deal();
        return act(world, 'advanceDeal', ownerOf(s, id), { kind: 'deal', id }, (c, id) =>
          svc().run(svc().deals.advanceDeal(id, to, undefined, c)),
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
        const gig = s.gigs.find((g) => g.id === ids(dice, s).gig('claimed'));
        const deal = gig && s.deals.find((d) => d.id === gig.dealId);
        // Mostly what the gig's role may propose next (its deal's next stage, or a nurturer's
        // closed_lost), so that gigs are fulfilled and paid; else any stage, mostly refused.
        const sensible = gig && deal && (gig.role === 'nurturer' ? 'closed_lost' : nextStage(deal.stage));
        const to = chance(0.7) && sensible ? sensible : anyStage(dice);
        const named = chance(0.9) ? gig?.closerId : ids(dice, s).closer();
        const valueUsd =
          to === 'closed_won' ? (chance(0.8) && deal ? deal.listValueCents / 100 : value(dice)) : undefined;
        const roll = random();
        const id = gig?.id ?? ids(dice, s).gig();
        return act(world, 'advanceGig', [gig?.closerId], { kind: 'gig', id }, (c, id) =>
          svc().run(
            svc().gigs.advanceGig(
              id,
              {
                ...claimant(c, closerIdFor(roll, c, named)),
                advanceTo: to as string,
                ...(valueUsd !== undefined ? { valueUsd } : {}),
              },
              undefined,
              c,
            ),
          ),
        );
      },
    ],
    [
      'revive',
      3,
      (s) => {
        const nurturing = pick(s.gigs.filter((g) => g.role === 'nurturer' && g.status === 'claimed'));
        const gig = nurturing && chance(0.7) ? nurturing : s.gigs.find((g) => g.id === ids(dice, s).gig('claimed'));
        const named = chance(0.9) ? gig?.closerId : ids(dice, s).closer();
        const roll = random();
        return act(world, 'reviveGig', [gig?.closerId], { kind: 'gig', id: gig?.id ?? 'gig_0001' }, (c, id) =>
          svc().run(svc().gigs.clearGoneDark(id, claimant(c, closerIdFor(roll, c, named)), undefined, c)),
        );
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
