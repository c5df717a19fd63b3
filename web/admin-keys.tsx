// The keys of the admin page and of a Seller's or closer's keys page (D-59, D-236, D-66): issue a
// key to a principal with the scopes chosen among those its kind may carry and the session holds;
// the list (keys-table.tsx) with Roll and Revoke (after a
// confirmation). A key made here (issued or rolled) is shown once, with a Copy button, and never
// again: the page forgets it when the person says they have it, or leaves. A Seller's key may be
// issued with a policy, and its policy set or removed in the editor under the list (D-68).
import { useState } from 'preact/hooks';
import { CLOSER_SCOPES, OPERATOR_SCOPES, SELLER_SCOPES } from '../src/domain/access.ts';
import { type Answered, type ApiKeyRecord, accounts, type Outcome } from './api.ts';
import { errorWords } from './error-words.ts';
import { KeysTable } from './keys-table.tsx';
import { PolicyEditor, useUsages } from './policy-editor.tsx';
import { draftOf, PolicyFields, policyOf } from './policy-fields.tsx';
import { can } from './session.ts';

/** An answer's notice, and the lists read again. */

function scopesOfPrincipal(principal: string): readonly string[] {
  if (principal === 'operator') return OPERATOR_SCOPES;
  return principal.startsWith('closer_') ? CLOSER_SCOPES : SELLER_SCOPES;
}

/** The key just made: shown this once, with a Copy button. */
export function NewKey({ made, done }: { made: ApiKeyRecord; done: () => void }) {
  const [copied, setCopied] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(made.key ?? '');
      setCopied('Copied.');
    } catch {
      setCopied('The browser would not copy: select the key and copy it yourself.');
    }
  };
  return (
    <section class="new-key" aria-label="New key">
      <h3>
        New key “{made.name}” for {made.principal}
      </h3>
      <p>This is the only time the key is shown: copy it now and keep it somewhere safe.</p>
      <label>
        The key{' '}
        <input
          class="key-text"
          readOnly
          value={made.key}
          spellcheck={false}
          onFocus={(e) => e.currentTarget.select()}
        />
      </label>
      <button type="button" onClick={copy}>
        Copy
      </button>{' '}
      <button type="button" onClick={done}>
        Done
      </button>
      <span role="status">{copied}</span>
    </section>
  );
}

export function KeysSection({
  keys,
  principals,
  nameOf,
  madeBy,
  made,
  answered,
  shownKey,
  page,
  heading = 'Keys',
}: {
  keys: ApiKeyRecord[];
  principals: { id: string; label: string }[];
  nameOf: (principal: string) => string;
  /** The person who made a key, by name (D-62). */
  madeBy: (userId: string) => string;
  made: (key: ApiKeyRecord) => void;
  answered: Answered;
  /** The key whose row a link asked for (`#/admin?key=…`). */
  shownKey?: string;
  /** The route of the page the section is on (the admin page's by default). */
  page?: string;
  /** The section's heading (a page whose own heading is Keys names it otherwise). */
  heading?: string;
}) {
  const [name, setName] = useState('');
  const [principal, setPrincipal] = useState('');
  const [unticked, setUnticked] = useState<string[]>([]);
  const [refusal, setRefusal] = useState('');
  const [bounded, setBounded] = useState(false);
  const [draft, setDraft] = useState(() => draftOf());
  const [editing, setEditing] = useState<string | undefined>();
  const usages = useUsages(keys);
  const chosen = principal || principals[0]?.id || 'operator';
  // D-68: only a Seller's key carries a policy.
  const withPolicy = bounded && chosen.startsWith('seller_');
  // Never a scope the session lacks (the service would refuse it, D-52); the operator's admin grants any.
  const offered = scopesOfPrincipal(chosen).filter((scope) => can('admin') || can(scope));
  // A principal offers the scopes of its kind (D-221), every one ticked unless unticked (the
  // API's default); choosing another starts again from all of its own.
  const choose = (id: string) => {
    setPrincipal(id);
    setUnticked([]);
  };
  const ticked = offered.filter((s) => !unticked.includes(s));
  const editingKey = keys.find((k) => k.id === editing);

  const issued = (outcome: Outcome<ApiKeyRecord>) => {
    if (outcome.ok) {
      setRefusal('');
      made(outcome.data);
    } else setRefusal(errorWords(outcome.error));
  };

  return (
    <section aria-label="Keys" class="admin-part">
      <h2>{heading}</h2>
      <form
        aria-label="Issue a key"
        noValidate={withPolicy}
        onSubmit={async (e) => {
          e.preventDefault();
          const policy = withPolicy ? { policy: policyOf(draft) } : {};
          const outcome = await accounts.issueKey({ name, principal: chosen, scopes: ticked, ...policy });
          if (outcome.ok) {
            setName('');
            setBounded(false);
            setDraft(draftOf());
          }
          issued(outcome);
        }}
      >
        <label>
          Key name <input required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <span class="field">
          <label for="key-principal">For</label>{' '}
          <select id="key-principal" value={chosen} onChange={(e) => choose(e.currentTarget.value)}>
            {principals.map((p) => (
              <option value={p.id} key={p.id}>
                {p.label}
              </option>
            ))}
          </select>
        </span>
        <fieldset>
          <legend>Scopes</legend>
          {offered.map((scope) => (
            <label key={scope} class="scope">
              <input
                type="checkbox"
                checked={ticked.includes(scope)}
                onChange={(e) => {
                  const on = e.currentTarget.checked;
                  setUnticked((all) => (on ? all.filter((s) => s !== scope) : [...all, scope]));
                }}
              />{' '}
              {scope}
            </label>
          ))}
        </fieldset>
        {chosen.startsWith('seller_') ? (
          <label class="scope">
            <input type="checkbox" checked={bounded} onChange={(e) => setBounded(e.currentTarget.checked)} /> With a
            policy
          </label>
        ) : null}
        {withPolicy ? <PolicyFields draft={draft} set={setDraft} /> : null}
        <button type="submit" disabled={ticked.length === 0}>
          Issue key
        </button>
        {refusal ? <p role="alert">{refusal}</p> : null}
      </form>
      <KeysTable
        keys={keys}
        nameOf={nameOf}
        madeBy={madeBy}
        shown={shownKey}
        page={page}
        roll={async (k) => issued(await accounts.rollKey(k.id))}
        revoke={async (k) => {
          if (!confirm(`Revoke the key “${k.name}” (${k.prefix}…)? Everything using it stops working.`)) return;
          answered(await accounts.revokeKey(k.id), () => `Revoked the key ${k.name}.`);
        }}
        usages={usages}
        editPolicy={(k) => setEditing(k.id)}
      />
      {editingKey ? <PolicyEditor k={editingKey} answered={answered} done={() => setEditing(undefined)} /> : null}
    </section>
  );
}
