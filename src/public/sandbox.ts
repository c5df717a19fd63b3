// D-29: the ROOT collections serve a fixed synthetic data set, made at start by driving the
// real deal service and marketplace with a fixed clock on a store of their own. Every run
// makes the same records, so the same request always answers the same bytes.
import type { Deal, Gig } from '../domain/records.ts';
import type { DealInput } from '../service/outcomes.ts';
import { createPipelineService } from '../service/pipeline-service.ts';
import { MemoryStore } from '../store/memory/memory-store.ts';

export const SANDBOX_EPOCH = Date.parse('2026-01-05T09:00:00.000Z');

export interface SandboxData {
  deals: Deal[];
  gigs: Gig[];
}

type Input = DealInput;

function must<T>(result: { ok: true; value: T } | { ok: false; refusal: { message: string } }, what: string): T {
  if (!result.ok) throw new Error(`sandbox: ${what} was refused: ${result.refusal.message}`);
  return result.value;
}

export async function buildSandbox(): Promise<SandboxData> {
  const store = new MemoryStore();
  const service = createPipelineService(store, { now: () => SANDBOX_EPOCH }, { claimTtlHours: 72 });
  await service.run(service.platform.reset()); // closer_0001 (saas, fintech), closer_0002 (healthcare, logistics)
  must(
    await service.run(
      service.gigs.enrolCloser({ name: 'Rosa Quill (fictional)', industries: ['manufacturing', 'saas'] }),
    ),
    'enrol',
  );

  const human = (role: 'setter' | 'closer'): Input['mandate'] => ({ staffing: { [role]: 'human' } });
  const create = async (name: string, industry: string, listValueUsd: number, mandate?: unknown) =>
    must(
      await service.run(service.deals.createDeal({ account: { name, industry, actor: 'B2B' }, listValueUsd, mandate })),
      name,
    ).id;
  const advance = async (dealId: string, proposal = {}) => {
    const outcome = must(await service.run(service.deals.advanceDeal(dealId, proposal)), `advance ${dealId}`);
    return outcome.kind === 'escalation' ? outcome.escalation.gig.id : undefined;
  };
  const advanceTimes = async (dealId: string, times: number) => {
    for (let i = 0; i < times; i++) await advance(dealId);
  };
  const claim = async (gigId: string, closerId: string) =>
    must(await service.run(service.gigs.claimGig(gigId, closerId)), `claim ${gigId}`);
  const gigMove = async (gigId: string, advanceTo: string, valueUsd?: number) =>
    must(await service.run(service.gigs.advanceGig(gigId, { advanceTo, valueUsd })), `gig ${gigId} → ${advanceTo}`);
  const signal = async (dealId: string, signals: string[]) =>
    must(await service.run(service.deals.reportSignals(dealId, signals)), 'signals');
  const escalated = async (dealId: string) => {
    const gigId = await advance(dealId);
    if (!gigId) throw new Error(`sandbox: ${dealId} did not escalate`);
    return gigId;
  };

  // Phase 1: gigs nobody claims lapse to `expired` when the clock moves 15 days (D-16).
  const setterLapse = await create('Birchwood Fictional Foods', 'logistics', 18_000, human('setter'));
  await escalated(setterLapse);
  const closerLapse = await create('Cobalt Fictional Robotics', 'manufacturing', 240_000, human('closer'));
  await advanceTimes(closerLapse, 2);
  await escalated(closerLapse);
  const nurturerLapse = await create('Dunmore Fictional Dental', 'healthcare', 32_000);
  await signal(nurturerLapse, ['gone_dark']);
  await escalated(nurturerLapse);
  await service.run(service.platform.advanceClock(15 * 24));

  // Phase 2: a claim left alone for longer than the claim TTL reopens to the pool (D-16).
  const reopened = await create('Elmstead Fictional Energy', 'saas', 150_000, human('closer'));
  await advanceTimes(reopened, 2);
  await claim(await escalated(reopened), 'closer_0002');
  await service.run(service.platform.advanceClock(80));

  // Phase 3: a deal at every stage (the first stays at sourced), agent and human closes, stalls,
  // releases, a re-engagement.
  await create('Fernhill Fictional Analytics', 'saas', 48_000);
  const qualified = await create('Glenrock Fictional Logistics', 'logistics', 27_500);
  await advance(qualified);
  const meeting = await create('Harbor Fictional Health', 'healthcare', 61_000);
  await advanceTimes(meeting, 2);
  const proposal = await create('Ironleaf Fictional Media', 'media', 12_400);
  await advanceTimes(proposal, 3);
  const negotiation = await create('Juniper Fictional Fintech', 'fintech', 95_000);
  await advanceTimes(negotiation, 4);
  must(
    await service.run(
      service.deals.sell({ account: { name: 'Kestrel Fictional Apparel', actor: 'B2C' }, listValueUsd: 4_999.99 }),
    ),
    'sell',
  );
  const lost = await create('Larch Fictional Labs', 'saas', 70_000);
  await advanceTimes(lost, 2);
  await advance(lost, { advanceTo: 'closed_lost', note: 'budget moved to next year' });
  must(await service.run(service.deals.reengage(lost)), 'reengage');

  // A human closer wins (commission) and another loses (settles nothing).
  const humanWon = await create('Marlow Fictional Software', 'saas', 180_000, human('closer'));
  await advanceTimes(humanWon, 2);
  const wonGig = await escalated(humanWon);
  await claim(wonGig, 'closer_0001');
  await gigMove(wonGig, 'proposal');
  await gigMove(wonGig, 'negotiation');
  await gigMove(wonGig, 'closed_won', 172_500);
  const humanLost = await create('Northgate Fictional Freight', 'logistics', 88_000, human('closer'));
  await advanceTimes(humanLost, 2);
  const lostGig = await escalated(humanLost);
  await claim(lostGig, 'closer_0002');
  await gigMove(lostGig, 'closed_lost');

  // A human setter books the meeting (fee); the deal stays on the human track: an open closer gig.
  const setterDeal = await create('Oakridge Fictional Clinics', 'healthcare', 54_000, human('setter'));
  const setterGig = await escalated(setterDeal);
  await claim(setterGig, 'closer_0002');
  await gigMove(setterGig, 'qualified');
  await gigMove(setterGig, 'meeting');
  await escalated(setterDeal);

  // Open, claimed and released gigs of the setter and closer roles.
  await escalated(await create('Yarrow Fictional Yoga', 'wellness', 8_400, human('setter')));
  const claimedSetter = await create('Pinecrest Fictional Payroll', 'fintech', 22_000, human('setter'));
  await claim(await escalated(claimedSetter), 'closer_0003');
  const releasedSetter = await create('Quarry Fictional Materials', 'manufacturing', 41_000, human('setter'));
  must(await service.run(service.gigs.releaseGig(await escalated(releasedSetter))), 'release');
  const claimedCloser = await create('Redfern Fictional Retail', 'saas', 130_000, human('closer'));
  await advanceTimes(claimedCloser, 2);
  await claim(await escalated(claimedCloser), 'closer_0003');

  // A deal goes dark while a closer holds it: the closer gig is released, a nurturer revives it.
  const revived = await create('Saltmarsh Fictional Studios', 'media', 66_000, human('closer'));
  await advanceTimes(revived, 2);
  await claim(await escalated(revived), 'closer_0001');
  await signal(revived, ['procurement_involved', 'gone_dark']);
  const nurtureGig = await escalated(revived);
  await claim(nurtureGig, 'closer_0002');
  must(await service.run(service.gigs.clearGoneDark(nurtureGig, { note: 'champion back from leave' })), 'revive');

  // Stalled deals: one waiting for a nurturer (open), one being nurtured (claimed), one whose
  // nurturer gig was withdrawn (released), one confirmed dead by its nurturer (fee, closed_lost).
  const stalledOpen = await create('Thornbury Fictional Tools', 'manufacturing', 39_000);
  await advance(stalledOpen);
  await signal(stalledOpen, ['gone_dark']);
  await escalated(stalledOpen);
  const stalledClaimed = await create('Umber Fictional Outfitters', 'retail', 15_500);
  await signal(stalledClaimed, ['gone_dark']);
  await claim(await escalated(stalledClaimed), 'closer_0003');
  const stalledReleased = await create('Vale Fictional Vineyards', 'retail', 9_800);
  await signal(stalledReleased, ['gone_dark']);
  must(await service.run(service.gigs.releaseGig(await escalated(stalledReleased))), 'release');
  const dead = await create('Willowmere Fictional Water', 'utilities', 21_000);
  await advanceTimes(dead, 3);
  await signal(dead, ['gone_dark']);
  const deadGig = await escalated(dead);
  await claim(deadGig, 'closer_0001');
  await gigMove(deadGig, 'closed_lost');

  return store.read(async (reader) => {
    const gigs = await reader.listGigs();
    const deals: Deal[] = [];
    for (let n = 1; ; n++) {
      const deal = await reader.getDeal(`deal_${String(n).padStart(4, '0')}`);
      if (!deal) break;
      deals.push(deal);
    }
    return { deals, gigs };
  });
}
