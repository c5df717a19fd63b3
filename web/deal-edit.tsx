// Editing a deal (D-67): its account's name and industry and its list value, corrected with PATCH.
// The form remembers the deal as it was when opened, and sends only what the person changed from
// that (an industry left empty is removed), with that version (If-Match, D-47): the page follows
// the deal live, and a form that took each new version would send back values someone else had
// just changed. A deal changed since the form opened is refused (412): the page says so and reads
// it again, and the form takes the new values of the fields the person did not touch, keeping what
// they typed, to look at and save again. Saved, the page shows the deal with the activity entry
// that names the changes.
import { useEffect, useState } from 'preact/hooks';
import { api, type Deal } from './api.ts';
import type { Acts } from './deal-actions.tsx';

type Values = { name: string; industry: string; value: string };
type Edit = { account?: { name?: string; industry?: string | null }; listValueUsd?: number };

const valuesOf = (deal: Deal): Values => ({
  name: deal.account.name,
  industry: deal.account.industry ?? '',
  value: String(deal.listValueUsd),
});

/** What the typed values change from the base, and their labels; nothing when they are the same. */
function changesOf(base: Values, typed: Values) {
  const edit: Edit = {};
  const labels: string[] = [];
  const account: NonNullable<Edit['account']> = {};
  const name = typed.name.trim();
  if (name !== base.name) {
    account.name = name;
    labels.push('the account name');
  }
  const industry = typed.industry.trim();
  if (industry !== base.industry) {
    account.industry = industry === '' ? null : industry;
    labels.push(industry === '' ? 'no industry' : 'the industry');
  }
  if (account.name !== undefined || account.industry !== undefined) edit.account = account;
  if (Number(typed.value) !== Number(base.value)) {
    edit.listValueUsd = Number(typed.value);
    labels.push('the list value');
  }
  return { edit, labels };
}

const sentence = (labels: readonly string[]) =>
  labels.length < 2 ? labels.join('') : `${labels.slice(0, -1).join(', ')} and ${labels.at(-1)}`;

/** The fields the person did not touch take the deal's new values; the others keep what was typed. */
function rebased(form: { base: Values; typed: Values }, now: Values): Values {
  const keep = (field: keyof Values) => (form.typed[field] === form.base[field] ? now[field] : form.typed[field]);
  return { name: keep('name'), industry: keep('industry'), value: keep('value') };
}

export function DealEdit({ deal, acts }: { deal: Deal; acts: Acts }) {
  const [form, setForm] = useState<{ version: number; base: Values; typed: Values } | undefined>();
  const [unchanged, setUnchanged] = useState(false);
  const [stale, setStale] = useState(false);
  // After a 412 the page read the deal again: the form starts from it, keeping what was typed.
  useEffect(() => {
    if (!stale || !form || deal.version === form.version) return;
    const now = valuesOf(deal);
    setForm({ version: deal.version, base: now, typed: rebased(form, now) });
    setStale(false);
  }, [stale, deal.version]);

  if (form === undefined)
    return (
      <div class="move deal-edit">
        <button
          type="button"
          onClick={() => {
            setUnchanged(false);
            setForm({ version: deal.version, base: valuesOf(deal), typed: valuesOf(deal) });
          }}
        >
          Edit
        </button>
        {acts.note('edit')}
      </div>
    );

  const type = (field: keyof Values) => (event: Event) =>
    setForm({ ...form, typed: { ...form.typed, [field]: (event.currentTarget as HTMLInputElement).value } });
  const save = async (event: Event) => {
    event.preventDefault();
    const { edit, labels } = changesOf(form.base, form.typed);
    setUnchanged(labels.length === 0);
    if (labels.length === 0) return;
    let saved = false;
    let refusedStale = false;
    await acts.act(
      'edit',
      async () => {
        const answer = await api.PATCH('/pipeline/deals/{id}', {
          params: { path: { id: deal.id }, header: { 'if-match': `"${form.version}"` } },
          body: edit,
        });
        saved = answer.data !== undefined;
        refusedStale = answer.response.status === 412;
        return answer;
      },
      () => `Saved ${sentence(labels)}: the activity names the change.`,
    );
    if (saved) setForm(undefined);
    else if (refusedStale) setStale(true);
  };

  return (
    <section aria-labelledby="edit-title" class="moves deal-edit">
      <h2 id="edit-title">Edit the deal</h2>
      <form aria-labelledby="edit-title" onSubmit={save}>
        <label>
          Account name <input required maxLength={200} value={form.typed.name} onInput={type('name')} />
        </label>
        <label>
          Industry <input maxLength={100} value={form.typed.industry} onInput={type('industry')} placeholder="none" />
        </label>
        <label>
          List value (USD){' '}
          <input type="number" required min="0.01" step="0.01" value={form.typed.value} onInput={type('value')} />
        </label>
        <div class="actions">
          <button type="submit">Save</button>
          <button type="button" class="secondary" onClick={() => setForm(undefined)}>
            Cancel
          </button>
        </div>
      </form>
      {unchanged ? <p role="status">Nothing to save: these are the deal’s values.</p> : null}
      {acts.note('edit')}
    </section>
  );
}
