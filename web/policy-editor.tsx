// A Seller's key's policy (D-68) on the keys page and the admin page: in the keys list, the policy
// in words and the key's closes of the day; the editor sets the policy whole (PUT
// /keys/{id}/policy, nothing of the old one kept) or removes it. The service's refusals are said
// beside the form: a policy looser than the session's own key's (POLICY_WIDENING), a field out of
// its range (400, each field in its label's words). A change binds the key at once.
import { useEffect, useState } from 'preact/hooks';
import { type Answered, type ApiKeyRecord, accounts, type KeyUsage } from './api.ts';
import { errorWords } from './error-words.ts';
import { draftOf, PolicyFields, policyOf } from './policy-fields.tsx';
import { policyLines, usageWords } from './policy-words.ts';

/** Only a Seller's key carries a policy (D-68: its keys are the ones that propose moves). */
export const isSellerKey = (key: Pick<ApiKeyRecord, 'principal'>) => key.principal.startsWith('seller_');

/**
 * The day's usage of the Seller's keys that have a policy and still work, by key id (a GET of each:
 * the list does not carry it), read again whenever the keys or their policies change.
 */
export function useUsages(keys: readonly ApiKeyRecord[]): ReadonlyMap<string, KeyUsage> {
  const [usages, setUsages] = useState<ReadonlyMap<string, KeyUsage>>(new Map());
  const bound = keys.filter((k) => isSellerKey(k) && k.policy && !k.revokedAt);
  const signature = bound.map((k) => `${k.id}:${JSON.stringify(k.policy)}`).join();
  useEffect(() => {
    let live = true;
    (async () => {
      const found = new Map<string, KeyUsage>();
      for (let i = 0; i < bound.length; i += 6) {
        const answers = await Promise.all(bound.slice(i, i + 6).map((k) => accounts.key(k.id)));
        for (const answer of answers) if (answer.ok && answer.data.usage) found.set(answer.data.id, answer.data.usage);
      }
      if (live) setUsages(found);
    })().catch(() => undefined);
    return () => {
      live = false;
    };
  }, [signature]);
  return usages;
}

/** A key's policy in the keys list: its lines, its usage of the day, and the editor's button. */
export function PolicyCell({
  k,
  usage,
  ended,
  edit,
}: {
  k: ApiKeyRecord;
  usage?: KeyUsage;
  ended: boolean;
  edit?: (key: ApiKeyRecord) => void;
}) {
  if (!isSellerKey(k)) return <span class="muted">—</span>;
  return (
    <>
      {k.policy ? (
        <ul class="policy-lines">
          {policyLines(k.policy).map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      ) : (
        <span class="muted">No policy</span>
      )}
      {usage ? <span class="link-line muted">{usageWords(usage, k.policy)}</span> : null}
      {ended || !edit ? null : (
        <button type="button" class="link-button" aria-label={`Edit the policy of ${k.name}`} onClick={() => edit(k)}>
          {k.policy ? 'Edit policy' : 'Set a policy'}
        </button>
      )}
    </>
  );
}

/** The editor of one key's policy: save it whole, or remove it; a refusal said beside the form. */
export function PolicyEditor({ k, answered, done }: { k: ApiKeyRecord; answered: Answered; done: () => void }) {
  const [draft, setDraft] = useState(() => draftOf(k.policy));
  const [refusal, setRefusal] = useState<{ words: string; raw: string } | undefined>();
  const [usage, setUsage] = useState<KeyUsage | undefined>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    setDraft(draftOf(k.policy));
    setRefusal(undefined);
    let live = true;
    accounts.key(k.id).then(
      (answer) => live && answer.ok && setUsage(answer.data.usage),
      () => undefined,
    );
    document.getElementById('policy-editor')?.scrollIntoView({ block: 'nearest' });
    return () => {
      live = false;
    };
  }, [k.id]);

  const send = async (policy: ReturnType<typeof policyOf> | null, words: string) => {
    setBusy(true);
    const outcome = await accounts.setPolicy(k.id, policy);
    setBusy(false);
    if (!outcome.ok) {
      setRefusal({ words: errorWords(outcome.error), raw: outcome.error.error });
      return;
    }
    answered(outcome, () => words);
    done();
  };

  return (
    <section id="policy-editor" class="policy-editor" aria-label={`Policy of ${k.name}`}>
      <h3>Policy of “{k.name}”</h3>
      <p class="hint">
        The bounds the key’s agent works within. A move over a limit is held for people to approve (or refused); a deal
        above the largest deal is always refused. The new policy replaces the old one whole, and binds the key at once.
      </p>
      {usage ? <p class="usage">{usageWords(usage, k.policy)}</p> : null}
      <form
        aria-label={`The policy of ${k.name}`}
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          send(policyOf(draft), `Saved the policy of ${k.name}.`);
        }}
      >
        <PolicyFields draft={draft} set={setDraft} />
        <div class="policy-buttons">
          <button type="submit" disabled={busy}>
            Save policy
          </button>
          {k.policy ? (
            <button type="button" disabled={busy} onClick={() => send(null, `Removed the policy of ${k.name}.`)}>
              Remove policy
            </button>
          ) : null}
          <button type="button" class="secondary" onClick={done}>
            Cancel
          </button>
        </div>
        {refusal ? (
          <p role="alert" class="refused" title={refusal.raw}>
            {refusal.words}
          </p>
        ) : null}
      </form>
    </section>
  );
}
