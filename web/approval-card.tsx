// One approval on the Approvals page (D-69, D-70): the deal (by its account's name, linking to its
// page), what the key proposed, the limits it went over in words, who proposed (the key or person
// by name, never a bare id), when it was asked and when it expires, the votes so far of those
// required; decided, how it ended. A session that may decide (approvals:decide) approves it, with
// an optional note, or denies it with a reason of 1 to 500 characters, which the proposer reads.
import { useState } from 'preact/hooks';
import type { ActorNames } from './actor-names.ts';
import type { Approval } from './api.ts';
import { outcomeWords, proposalWords, STATUS_WORDS, votesWords } from './approval-words.ts';
import { limitWords } from './policy-words.ts';
import { dealName, stageLabel, when } from './words.ts';

/** What the page knows of an approval's deal: its account's name and stage, once read. */
export type DealInfo = { name: string; stage: string };

/** What a decision answered, said on its card (or atop the page once the card left the list). */
export type Said = { id: string; about: string; text: string; refused: boolean; raw?: string };

/** The reason a denial takes (DenyBody): 1 to 500 characters. */
export const REASON_MAX = 500;

/** Who proposed: a person by name, a key by the name the approval kept (a manager lists no keys). */
function proposerOf(approval: Approval, names: ActorNames): string {
  if (!('userId' in approval.actor) && approval.keyName !== undefined) return `Key “${approval.keyName}”`;
  return names.actor(approval.actor);
}

export function ApprovalCard({
  approval,
  deal,
  names,
  decides,
  said,
  approve,
  deny,
}: {
  approval: Approval;
  deal?: DealInfo;
  names: ActorNames;
  /** Whether the session may decide (approvals:decide or admin). */
  decides: boolean;
  /** What the last decision on this card answered, if anything. */
  said?: Said;
  approve: (note: string) => Promise<void>;
  deny: (reason: string) => Promise<void>;
}) {
  const [note, setNote] = useState('');
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const title = deal?.name ?? dealName(approval.dealId);
  const pending = approval.status === 'pending';
  const run = async (call: () => Promise<void>) => {
    setBusy(true);
    try {
      await call();
    } finally {
      setBusy(false);
    }
  };
  const reasonOk = reason.trim().length > 0 && reason.length <= REASON_MAX;

  return (
    <article class={`approval ${approval.status}`} aria-label={title}>
      <header class="approval-head">
        <h2>
          <a href={`#/deals/${encodeURIComponent(approval.dealId)}`}>{title}</a>
        </h2>
        <span class={`approval-status ${approval.status}`}>{STATUS_WORDS[approval.status]}</span>
      </header>
      <p class="proposed">
        <strong>{proposalWords(approval, deal?.stage)}</strong>, proposed by {proposerOf(approval, names)}
        {deal && pending ? <span class="muted"> (the deal is at {stageLabel(deal.stage)})</span> : null}
      </p>
      {approval.proposal.note ? <p class="proposal-note">Its note: “{approval.proposal.note}”</p> : null}
      <div class="limits">
        <span>Over the key’s policy:</span>
        <ul aria-label="Limits passed">
          {approval.limits.map((check) => (
            <li key={check.limit}>{limitWords(check)}</li>
          ))}
        </ul>
      </div>
      <dl class="approval-facts">
        <dt>Requested</dt>
        <dd>{when(approval.requestedAt)}</dd>
        {pending ? (
          <>
            <dt>Expires</dt>
            <dd>{when(approval.expiresAt)}</dd>
          </>
        ) : null}
        <dt>Approvals</dt>
        <dd>{votesWords(approval)}</dd>
      </dl>
      {approval.approvals.some((vote) => vote.note) ? (
        <ul class="votes" aria-label="Notes of the approvals">
          {approval.approvals
            .filter((vote) => vote.note)
            .map((vote) => (
              <li key={`${vote.by.name}-${vote.at}`}>
                {vote.by.name}: “{vote.note}”
              </li>
            ))}
        </ul>
      ) : null}
      {pending ? null : <p class="outcome">{outcomeWords(approval)}</p>}
      {pending && decides ? (
        <div class="decide">
          <form
            aria-label="Approve"
            onSubmit={(e) => {
              e.preventDefault();
              run(async () => {
                await approve(note.trim());
                setNote('');
              });
            }}
          >
            <label>
              Note (optional){' '}
              <input value={note} maxLength={REASON_MAX} onInput={(e) => setNote(e.currentTarget.value)} />
            </label>
            <button type="submit" disabled={busy}>
              Approve
            </button>
          </form>
          <form
            aria-label="Deny"
            onSubmit={(e) => {
              e.preventDefault();
              if (reasonOk) run(() => deny(reason.trim()));
            }}
          >
            <label>
              Reason for a denial{' '}
              <input
                value={reason}
                maxLength={REASON_MAX}
                placeholder="the key’s proposer reads it"
                onInput={(e) => setReason(e.currentTarget.value)}
              />
            </label>
            <button type="submit" class="deny" disabled={busy || !reasonOk}>
              Deny
            </button>
          </form>
        </div>
      ) : null}
      {said ? (
        <p role={said.refused ? 'alert' : 'status'} class={said.refused ? 'refused' : 'done'} title={said.raw}>
          {said.text}
        </p>
      ) : null}
    </article>
  );
}
