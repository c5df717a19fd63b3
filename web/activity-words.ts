// A deal's activity in words (D-228, D-229): who did an entry and what, and when the deal went
// dark.
import { GONE_DARK } from '../src/domain/stages.ts';
import type { Deal } from './api.ts';
import { gigName, humanize, stageLabel } from './words.ts';

/**
 * An activity entry. D-272: an entry about a gig (and its closer) names them in fields, its note
 * naming no id ("The closer gig was claimed."); an entry written before then names them in its
 * note ("Gig gig_0001 (closer) claimed by closer_0001."). Both read the same here.
 */
type Entry = Deal['activity'][number];

/**
 * D-229: the console's moves on a deal page carry this note: in the demo the advance records
 * every Seller's move as the agent's (the API has no field for the Seller), so the console says
 * where it was made rather than naming the agent.
 */
export const CONSOLE_NOTE = 'from the console';

/** `Gig 3`, from an id. */
const GigWord = (id: string) => gigName(id).replace('gig', 'Gig');

/** What an entry about a gig says (its ids in its fields), or undefined for any other entry. */
function gigWords(note: string, gigId: string, closer: string | undefined): string | undefined {
  const posted = /^The (\w+) role needs a human: a gig posted to the closer marketplace\.$/.exec(note);
  if (posted) return `${GigWord(gigId)} posted for the ${posted[1]} role: it needs a human.`;
  const claimed = /^The (\w+) gig was claimed\.$/.exec(note);
  if (claimed) return `${GigWord(gigId)} (${claimed[1]}) claimed${closer ? ` by ${closer}` : ''}.`;
  const lapsed = /^The claim on the (\w+) gig expired; (.*)$/.exec(note);
  if (lapsed)
    return `${closer ? `${closer}’s claim` : 'The claim'} on ${gigName(gigId)} (${lapsed[1]}) expired; ${humanize(lapsed[2])}`;
  const gig = /^The (\w+) gig (.*)$/.exec(note);
  if (gig) return `${GigWord(gigId)} (${gig[1]}) ${humanize(gig[2])}`;
  return undefined;
}

/**
 * Who did an entry and what, in words. `actor` names who an entry's actor is (keys mode, D-65):
 * the person by name, or the key by its name; never a bare id.
 */
export function activityWords(
  entry: Entry,
  closer: (id: string) => string,
  actor?: (ref: NonNullable<Entry['actor']>) => string,
): { who: string; what: string } {
  let note = entry.note;
  let who = entry.by === 'agent' ? 'The agent' : entry.by === 'human' ? 'A human' : 'The service';
  if (entry.actor)
    who = actor
      ? actor(entry.actor)
      : entry.actor.principal === 'operator'
        ? 'The operator'
        : closer(entry.actor.principal);
  const fromConsole = new RegExp(`: ${CONSOLE_NOTE}(?:\\. Reason: (.*))?$`).exec(note);
  let reason: string | undefined;
  if (fromConsole) {
    note = note.slice(0, fromConsole.index);
    reason = fromConsole[1];
    if (!entry.actor) who = 'From the console';
  }
  const aboutGig = entry.gigId ?? undefined;
  const aboutCloser = entry.closerId;
  let what: string;
  const moved = /^Advanced (\w+) to (\w+) by the (agent|human)(?: \((closer_\d+), gig (gig_\d+)\))?(?:: (.*))?$/.exec(
    note,
  );
  const closedWon = /^Closed won at (\S+) by the (agent|human)(?: \((closer_\d+), gig (gig_\d+)\))?(?:: (.*))?$/.exec(
    note,
  );
  const posted = /^The (\w+) role needs a human: gig (gig_\d+) posted to the closer marketplace\.$/.exec(note);
  const revived = /^Revived by the nurturer: (.*)$/.exec(note);
  if (moved) {
    const [, from, to, , closerId = aboutCloser, gigId = aboutGig, extra] = moved;
    if (closerId && !entry.actor) who = closer(closerId);
    what =
      to === 'closed_lost'
        ? `Closed lost (was at ${stageLabel(from)})`
        : `Moved from ${stageLabel(from)} to ${stageLabel(to)}`;
    if (gigId) what += ` on ${gigName(gigId)}`;
    if (extra) what += `: ${extra}`;
  } else if (closedWon) {
    const [, value, , closerId = aboutCloser, gigId = aboutGig, extra] = closedWon;
    if (closerId && !entry.actor) who = closer(closerId);
    what = `Closed won at ${value.replace(/\.00$/, '')}${gigId ? ` on ${gigName(gigId)}` : ''}${extra ? `: ${extra}` : ''}`;
  } else if (posted) {
    what = `${GigWord(posted[2])} posted for the ${posted[1]} role: it needs a human.`;
  } else if (revived && aboutCloser) {
    if (!entry.actor) who = closer(aboutCloser);
    what = `Revived the deal${aboutGig ? ` on ${gigName(aboutGig)}` : ''}: ${humanize(revived[1], closer)}`;
  } else what = (aboutGig && gigWords(note, aboutGig, aboutCloser && closer(aboutCloser))) ?? humanize(note, closer);
  if (reason) what += `. Reason: ${reason}`;
  return { who, what };
}

/** When the deal went dark (its latest entry reporting gone_dark), if it carries it. */
export function stalledSince(deal: Deal): string | undefined {
  if (!deal.signals.includes(GONE_DARK)) return undefined;
  for (let i = deal.activity.length - 1; i >= 0; i--) {
    if (deal.activity[i].note.includes(GONE_DARK) || deal.activity[i].note.startsWith('Deal stalled'))
      return deal.activity[i].at;
  }
  return deal.activity.at(-1)?.at;
}
