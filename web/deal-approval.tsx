// A deal's page says when the deal waits on an approval (D-69): what the key proposed, the limits
// it went over and who proposed, with a link to the Approvals page where it is decided. Read when
// the page opens and again on every event about the deal (an approval's included), for a session
// that may read approvals; nothing in the demo.
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { ActorNames } from './actor-names.ts';
import type { Approval } from './api.ts';
import { proposalWords, votesWords } from './approval-words.ts';
import { approvals, decidesApprovals, readsApprovals } from './approvals-api.ts';
import { dealOf, type LiveEvent, useLive } from './live.ts';
import { limitsWords } from './policy-words.ts';
import { when } from './words.ts';

export function DealApproval({ dealId, stage, names }: { dealId: string; stage: string; names: ActorNames }) {
  const [pending, setPending] = useState<Approval | undefined>();
  const reads = readsApprovals();
  const load = useCallback(async () => {
    if (!reads) return;
    setPending(await approvals.pendingOn(dealId).catch(() => undefined));
  }, [dealId, reads]);
  useEffect(() => {
    setPending(undefined);
    load();
  }, [load]);
  useLive(
    useCallback(
      (event: LiveEvent) => {
        if (dealOf(event) === dealId) load();
      },
      [dealId, load],
    ),
  );
  if (!pending) return null;
  return (
    <section class="waiting" aria-label="Waiting for approval">
      <p>
        <strong>Waiting for approval:</strong> {proposalWords(pending, stage)}, proposed by {names.actor(pending.actor)}
        , went over the key’s policy ({limitsWords(pending.limits)}). Nothing moved; {votesWords(pending)} so far, until{' '}
        {when(pending.expiresAt)}.{' '}
        <a href="#/approvals">{decidesApprovals() ? 'Decide it' : 'See it'} on the Approvals page</a>
      </p>
    </section>
  );
}
