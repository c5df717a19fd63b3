// New deal / sell: the account, the list value and the mandate editor (staffing per role with
// humanIf, commission, floor, fees, stall timeout). The defaults shown are the platform's own,
// learnt from a dry run of a create (D-48); a 422 shows each violation beside its field.
import { useEffect, useState } from 'preact/hooks';
import { type ApiError, api, type Deal } from './api.ts';

type Mode = 'agent' | 'human' | 'humanIf';
type RoleForm = { mode: Mode; minDealSizeUsd: string; signals: string };
const ROLES = ['setter', 'closer', 'nurturer'] as const;

const EMPTY_ROLE: RoleForm = { mode: 'agent', minDealSizeUsd: '', signals: '' };

function roleForm(rule: unknown): RoleForm {
  if (rule === 'agent' || rule === 'human') return { ...EMPTY_ROLE, mode: rule };
  const humanIf = (rule as { humanIf?: { minDealSizeUsd?: number; signals?: string[] } })?.humanIf ?? {};
  return {
    mode: 'humanIf',
    minDealSizeUsd: humanIf.minDealSizeUsd === undefined ? '' : String(humanIf.minDealSizeUsd),
    signals: (humanIf.signals ?? []).join(', '),
  };
}

function staffingRule(form: RoleForm): unknown {
  if (form.mode !== 'humanIf') return form.mode;
  const humanIf: { minDealSizeUsd?: number; signals?: string[] } = {};
  if (form.minDealSizeUsd !== '') humanIf.minDealSizeUsd = Number(form.minDealSizeUsd);
  const signals = form.signals
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (signals.length > 0) humanIf.signals = signals;
  return { humanIf };
}

/** Violations name their field (`mandate.commissionPct: …`): each is shown beside it. */
function violationsOf(error: ApiError | undefined): Map<string, string[]> {
  const byField = new Map<string, string[]>();
  for (const line of error?.violations ?? []) {
    const field = /^([\w.]+):/.exec(line)?.[1] ?? '';
    byField.set(field, [...(byField.get(field) ?? []), line]);
  }
  return byField;
}

export function SellForm() {
  const [name, setName] = useState('');
  const [industry, setIndustry] = useState('');
  const [actor, setActor] = useState('B2B');
  const [listValue, setListValue] = useState('50000');
  const [roles, setRoles] = useState<Record<string, RoleForm>>({});
  const [numbers, setNumbers] = useState<Record<string, string>>({});
  const [defaults, setDefaults] = useState<Deal['mandate'] | undefined>();
  const [error, setError] = useState<ApiError | undefined>();

  // The platform's defaults: the mandate a create with none would resolve, without creating it.
  useEffect(() => {
    (async () => {
      const answer = await api.POST('/pipeline/deals', {
        params: { query: { dryRun: true } },
        body: { account: { name: 'Defaults', actor: 'B2B' }, listValueUsd: 1000 },
      });
      const data = answer.data as { deal?: Deal } | undefined;
      const mandate = data?.deal?.mandate;
      if (!mandate) return;
      setDefaults(mandate);
      setRoles(Object.fromEntries(ROLES.map((r) => [r, roleForm(mandate.staffing[r])])));
      setNumbers({
        commissionPct: String(mandate.commissionPct),
        maxCommissionPct: String(mandate.maxCommissionPct),
        floorPct: String(mandate.floorPct),
        setterUsd: String(mandate.fees.setterUsd),
        nurturerUsd: String(mandate.fees.nurturerUsd),
        stallTimeoutDays: String(mandate.stallTimeoutDays),
      });
    })();
  }, []);

  const body = () => ({
    account: { name, actor: actor as 'B2B', ...(industry ? { industry } : {}) },
    listValueUsd: Number(listValue),
    mandate: {
      staffing: Object.fromEntries(ROLES.map((r) => [r, staffingRule(roles[r] ?? EMPTY_ROLE)])),
      commissionPct: Number(numbers.commissionPct),
      maxCommissionPct: Number(numbers.maxCommissionPct),
      floorPct: Number(numbers.floorPct),
      fees: { setterUsd: Number(numbers.setterUsd), nurturerUsd: Number(numbers.nurturerUsd) },
      stallTimeoutDays: Number(numbers.stallTimeoutDays),
    },
  });

  const submit = async (path: '/pipeline/deals' | '/pipeline/sell') => {
    const answer = await api.POST(path, { body: body() as never });
    if (answer.data) {
      const data = answer.data as Deal | { deal: Deal };
      const deal = 'deal' in data ? data.deal : data;
      location.hash = `#/deals/${encodeURIComponent(deal.id)}`;
      return;
    }
    setError(answer.error as ApiError);
  };

  const violations = violationsOf(error);
  const beside = (field: string) =>
    (violations.get(field) ?? []).map((line) => (
      <span class="violation" role="alert" key={line}>
        {line}
      </span>
    ));
  const number = (key: string, label: string, field: string, step = 'any') => (
    <label>
      {label}{' '}
      <input
        type="number"
        step={step}
        value={numbers[key] ?? ''}
        onInput={(e) => setNumbers((n) => ({ ...n, [key]: e.currentTarget.value }))}
      />
      {beside(field)}
    </label>
  );

  return (
    <form
      class="sell"
      aria-label="New deal"
      onSubmit={(e) => {
        e.preventDefault();
        submit('/pipeline/sell');
      }}
    >
      <h1>New deal</h1>
      <fieldset>
        <legend>Account</legend>
        <label>
          Account name <input required value={name} onInput={(e) => setName(e.currentTarget.value)} />
          {beside('account.name')}
        </label>
        <label>
          Industry <input value={industry} onInput={(e) => setIndustry(e.currentTarget.value)} placeholder="saas" />
        </label>
        <label>
          Actor{' '}
          <select value={actor} onChange={(e) => setActor(e.currentTarget.value)}>
            {['B2B', 'B2C', 'B2D', 'B2A'].map((a) => (
              <option value={a}>{a}</option>
            ))}
          </select>
        </label>
        <label>
          List value (USD){' '}
          <input
            type="number"
            step="0.01"
            min="0"
            value={listValue}
            onInput={(e) => setListValue(e.currentTarget.value)}
          />
          {beside('listValueUsd')}
        </label>
      </fieldset>
      <fieldset>
        <legend>Mandate {defaults ? '(platform defaults filled in)' : ''}</legend>
        {ROLES.map((role) => {
          const form = roles[role] ?? EMPTY_ROLE;
          const set = (change: Partial<RoleForm>) => setRoles((r) => ({ ...r, [role]: { ...form, ...change } }));
          return (
            <fieldset class="role" key={role}>
              <legend>{role}</legend>
              <label>
                Staffed by{' '}
                <select value={form.mode} onChange={(e) => set({ mode: e.currentTarget.value as Mode })}>
                  <option value="agent">the agent</option>
                  <option value="human">a human</option>
                  <option value="humanIf">a human if…</option>
                </select>
              </label>
              {form.mode === 'humanIf' ? (
                <>
                  <label>
                    Deal size at least (USD){' '}
                    <input
                      type="number"
                      value={form.minDealSizeUsd}
                      onInput={(e) => set({ minDealSizeUsd: e.currentTarget.value })}
                    />
                  </label>
                  <label>
                    or any of the signals{' '}
                    <input value={form.signals} onInput={(e) => set({ signals: e.currentTarget.value })} />
                  </label>
                </>
              ) : null}
              {beside(`mandate.staffing.${role}`)}
            </fieldset>
          );
        })}
        {number('commissionPct', 'Commission (fraction)', 'mandate.commissionPct')}
        {number('maxCommissionPct', 'Commission cap (fraction)', 'mandate.maxCommissionPct')}
        {number('floorPct', 'Floor (fraction of list)', 'mandate.floorPct')}
        {number('setterUsd', 'Setter fee (USD)', 'mandate.fees.setterUsd')}
        {number('nurturerUsd', 'Nurturer fee (USD)', 'mandate.fees.nurturerUsd')}
        {number('stallTimeoutDays', 'Stall timeout (days)', 'mandate.stallTimeoutDays', '1')}
      </fieldset>
      {error && violations.size === 0 ? <p role="alert">{error.error}</p> : null}
      {error && violations.has('') ? beside('') : null}
      <div class="actions">
        <button type="submit">Sell</button>
        <button type="button" onClick={() => submit('/pipeline/deals')}>
          Create at sourced
        </button>
      </div>
    </form>
  );
}
