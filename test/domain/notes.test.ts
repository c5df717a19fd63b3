// D-272: an activity note is words; the gig and the closer it is about are fields. So the ids
// a unit hands out are put in place field by field (numbering.ts), and no text is searched for
// them. Every kind of entry a gig's life writes, across the lifecycle.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ActivityEntry, Deal } from '../../src/domain/records.ts';
import { claimedCloserGig, claimedNurturerGig, HOUR, World } from './world.ts';

/** An id of any kind the service hands out, anywhere in a text. */
const AN_ID = /\b(deal|gig|closer|seller|key|prop)_\d+/;

/** Every entry of every deal in the world. */
const entriesOf = (w: World): ActivityEntry[] => [...w.state.deals.values()].flatMap((deal: Deal) => deal.activity);

function assertNoIdInWords(entries: readonly ActivityEntry[]) {
  for (const entry of entries) assert.doesNotMatch(entry.note, AN_ID, `an id in the words of: ${entry.note}`);
}

describe('D-272 activity notes name no id', () => {
  it('a closer gig posted, claimed, moved and closed: words, with the gig and its closer in fields', () => {
    const { w, dealId, gigId, closerId } = claimedCloserGig('negotiation');
    w.gigAdvance(gigId, 'closed_won', 100_000);
    const entries = w.deal(dealId).activity;
    assertNoIdInWords(entries);
    const posted = entries.find((e) => e.note.includes('posted to the closer marketplace'));
    assert.deepEqual([posted?.gigId, posted?.closerId], [gigId, undefined]);
    const aboutTheGig = entries.filter((e) => e.by === 'human' || e.note.includes('claimed'));
    assert.equal(aboutTheGig.length, 4, 'claimed, two moves and the close');
    for (const entry of aboutTheGig) assert.deepEqual([entry.gigId, entry.closerId], [gigId, closerId], entry.note);
    // The agent's moves are about no gig.
    assert.ok(entries.filter((e) => e.by === 'agent').every((e) => e.gigId === undefined && e.closerId === undefined));
  });

  it('released, released by de-escalation, released when the deal went dark, a claim expired, a gig lapsed', () => {
    const released = claimedCloserGig('meeting');
    released.w.run({ type: 'ReleaseGig', gigId: released.gigId });
    const expired = claimedCloserGig('meeting');
    expired.w.tick(72 * HOUR).run({ type: 'ReopenGig', gigId: expired.gigId, platform: true });
    expired.w.tick(14 * 24 * HOUR).run({ type: 'ExpireGig', gigId: expired.gigId });
    const dark = claimedCloserGig('meeting');
    dark.w.signals(dark.dealId, 'gone_dark');
    const deescalated = new World();
    const dealId = deescalated.createDeal({ mandate: { staffing: { closer: 'human' } } });
    deescalated.agentTo(dealId, 'meeting');
    const gigId = deescalated.escalate(dealId);
    deescalated.run({ type: 'Deescalate', dealId });
    for (const { w, gigId: gig, closerId, words } of [
      { ...released, closerId: undefined, words: 'released; the deal returns to matching' },
      { ...expired, words: 'The claim on the closer gig expired' },
      { ...expired, closerId: undefined, words: 'expired unclaimed' },
      { ...dark, closerId: undefined, words: 'released: the deal went dark' },
      { w: deescalated, gigId, closerId: undefined, words: 'released by de-escalation' },
    ]) {
      const entries = entriesOf(w);
      assertNoIdInWords(entries);
      const entry = entries.find((e) => e.note.includes(words));
      assert.ok(entry, words);
      assert.equal(entry.gigId, gig, words);
      assert.equal(entry.closerId, closerId, words);
    }
  });

  it('a revival names its gig and closer in fields; a re-engagement names the lost deal in its lineage only', () => {
    const { w, dealId, gigId, closerId } = claimedNurturerGig('proposal');
    w.run({ type: 'ClearGoneDark', gigId, closerId });
    const revived = w.deal(dealId).activity.at(-1);
    assert.match(revived?.note ?? '', /^Revived by the nurturer: gone_dark cleared/);
    assert.deepEqual([revived?.gigId, revived?.closerId], [gigId, closerId]);
    assertNoIdInWords(entriesOf(w));
    const lost = new World();
    const lostId = lost.createDeal();
    lost.advance(lostId, { advanceTo: 'closed_lost' });
    const created = lost.run({ type: 'Reengage', dealId: lostId }).events[0];
    assert.ok(created?.type === 'DealCreated');
    assert.deepEqual(created.deal.lineage, { revivedFrom: lostId });
    assertNoIdInWords(entriesOf(lost));
  });
});
