// New deal / sell: the account, the list value and the mandate editor (staffing per role with
// humanIf, commission, floor, fees, stall timeout). The defaults shown are the platform's own,
// learnt from a dry run of a create (D-48) for the actor chosen, and learnt again when the actor
// changes (a B2C deal stalls after 7 days, not 14), except in the fields the person edited.
// Fractions are entered as percentages (D-228); a 422 shows each violation beside its field, in
// words (the API's own text in its title).
import { useEffect, useRef, useState } from 'preact/hooks';
import { type ApiError, api, type Deal } from './api.ts';
import { errorWords, violationWords } from './error-words.ts';

type Mode = 'agent' | 'human' | 'humanIf';
type RoleForm = { mode: Mode; minDealSizeUsd: string; signals: string };
const ROLES = ['setter', 'closer', 'nurturer'] as const;

const EMPTY_ROLE: RoleForm = { mode: 'agent', minDealSizeUsd: '', signals: '' };

/** The mandate's fractions (commission, cap, floor) are entered as percentages. */
const toPercent = (fraction: number) => String(Math.round(fraction * 1e6) / 1e4);
const toFraction = (percentText: string) =>
  percentText.trim() === '' ? Number.NaN : Number((Number(percentText) / 100).toPrecision(12));

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

/** The fields the form shows a violation beside (a staffing rule's parts beside their role). */
const PLACED = [
  'account.name',
  'account.industry',
  'listValueUsd',
  ...ROLES.map((role) => `mandate.staffing.${role}`),
  'mandate.commissionPct',
  'mandate.maxCommissionPct',
  'mandate.floorPct',
  'mandate.fees.setterUsd',
  'mandate.fees.nurturerUsd',
  'mandate.stallTimeoutDays',
];

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
  const [unreachable, setUnreachable] = useState('');
  /** The fields (number keys and roles) the person changed: a new actor's defaults leave them be. */
  const edited = useRef(new Set<string>());

  // The platform's defaults for the actor: the mandate a create with none would resolve, without
  // creating it; read again when the actor changes.
  useEffect(() => {
    let live = true;
    (async () => {
      let answer: { data?: unknown };
      try {
        answer = await api.POST('/pipeline/deals', {
          params: { query: { dryRun: true } },
          body: { account: { name: 'Defaults', actor: actor as 'B2B' }, listValueUsd: 1000 },
        });
      } catch {
        if (live) setUnreachable('Cannot reach the service: the platform’s defaults are not filled in.');
        return;
      }
      const data = answer.data as { deal?: Deal } | undefined;
      const mandate = data?.deal?.mandate;
      if (!mandate || !live) return;
      setUnreachable('');
      setDefaults(mandate);
      const keep = edited.current;
      setRoles((r) =>
        Object.fromEntries(
          ROLES.map((role) => [role, keep.has(role) && r[role] ? r[role] : roleForm(mandate.staffing[role])]),
        ),
      );
      const fresh: Record<string, string> = {
        commissionPct: toPercent(mandate.commissionPct),
        maxCommissionPct: toPercent(mandate.maxCommissionPct),
        floorPct: toPercent(mandate.floorPct),
        setterUsd: String(mandate.fees.setterUsd),
        nurturerUsd: String(mandate.fees.nurturerUsd),
        stallTimeoutDays: String(mandate.stallTimeoutDays),
      };
      setNumbers((n) =>
        Object.fromEntries(Object.entries(fresh).map(([key, value]) => [key, keep.has(key) ? n[key] : value])),
      );
    })();
    return () => {
      live = false;
    };
  }, [actor]);

  const body = () => ({
    account: { name, actor: actor as 'B2B', ...(industry ? { industry } : {}) },
    listValueUsd: Number(listValue),
    mandate: {
      staffing: Object.fromEntries(ROLES.map((r) => [r, staffingRule(roles[r] ?? EMPTY_ROLE)])),
      commissionPct: toFraction(numbers.commissionPct ?? ''),
      maxCommissionPct: toFraction(numbers.maxCommissionPct ?? ''),
      floorPct: toFraction(numbers.floorPct ?? ''),
      fees: { setterUsd: Number(numbers.setterUsd), nurturerUsd: Number(numbers.nurturerUsd) },
      stallTimeoutDays: Number(numbers.stallTimeoutDays),
    },
  });

  const submit = async (path: '/pipeline/deals' | '/pipeline/sell') => {
    let answer: { data?: unknown; error?: unknown };
    try {
      answer = await api.POST(path, { body: body() as never });
    } catch {
      setError({ error: 'Cannot reach the service: nothing was created. Try again in a moment.', code: 'UNREACHABLE' });
      return;
    }
    if (answer.data) {
      const data = answer.data as Deal | { deal: Deal };
      const deal = 'deal' in data ? data.deal : data;
      location.hash = `#/deals/${encodeURIComponent(deal.id)}`;
      return;
    }
    setError(answer.error as ApiError);
  };

  const violations = violationsOf(error);
  const say = (lines: readonly string[]) =>
    lines.map((line) => (
      <span class="violation" role="alert" key={line} title={line}>
        {violationWords(line)}
      </span>
    ));
  /** A field's violations and its parts' (a staffing rule's `humanIf.minDealSizeUsd`), beside it. */
  const within = (path: string, field: string) => path === field || path.startsWith(`${field}.`);
  const beside = (field: string) => say([...violations].flatMap(([path, lines]) => (within(path, field) ? lines : [])));
  // The violations of a field the form does not show (or of none) are said below it, not lost.
  const leftover = say(
    [...violations].flatMap(([path, lines]) => (PLACED.some((field) => within(path, field)) ? [] : lines)),
  );
  const number = (key: string, label: string, field: string, step = 'any') => (
    <label>
      {label}{' '}
      <input
        type="number"
        step={step}
        value={numbers[key] ?? ''}
        onInput={(e) => {
          edited.current.add(key);
          setNumbers((n) => ({ ...n, [key]: e.currentTarget.value }));
        }}
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
          {beside('account.industry')}
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
          const set = (change: Partial<RoleForm>) => {
            edited.current.add(role);
            setRoles((r) => ({ ...r, [role]: { ...form, ...change } }));
          };
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
        {number('commissionPct', 'Commission (%)', 'mandate.commissionPct')}
        {number('maxCommissionPct', 'Commission cap (%)', 'mandate.maxCommissionPct')}
        {number('floorPct', 'Floor (% of list value)', 'mandate.floorPct')}
        {number('setterUsd', 'Setter fee (USD)', 'mandate.fees.setterUsd')}
        {number('nurturerUsd', 'Nurturer fee (USD)', 'mandate.fees.nurturerUsd')}
        {number('stallTimeoutDays', 'Stall timeout (days)', 'mandate.stallTimeoutDays', '1')}
      </fieldset>
      {unreachable ? <p role="alert">{unreachable}</p> : null}
      {error && violations.size === 0 ? (
        <p role="alert" title={error.error}>
          {errorWords(error)}
        </p>
      ) : null}
      {leftover.length > 0 ? <p class="violations">{leftover}</p> : null}
      <div class="actions">
        <button type="submit">Sell</button>
        <button type="button" onClick={() => submit('/pipeline/deals')}>
          Create at sourced
        </button>
      </div>
    </form>
  );
}
