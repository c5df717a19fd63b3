// The operator's admin page in keys mode (D-59, D-236): Sellers (list, create), closers (list,
// enrol) and keys (list with prefix, principal, scopes, last use, expiry and revocation; issue a
// key to a principal with the scopes chosen among those its kind may carry; roll; revoke after a
// confirmation). A key made here is shown once, with a Copy button, and never again: the page
// forgets it when the person says they have it, or leaves.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { CLOSER_SCOPES, OPERATOR_SCOPES, SELLER_SCOPES } from '../src/domain/access.ts';
import {
  type ApiKeyRecord,
  accounts,
  allClosers,
  type Closer,
  enrolCloser,
  type Outcome,
  outcome,
  type Seller,
} from './api.ts';
import { errorWords } from './words.ts';

type Said = { text: string; refused: boolean } | undefined;

const when = (iso: string | null | undefined, never = '—') => (iso ? new Date(iso).toLocaleString() : never);

function scopesOfPrincipal(principal: string): readonly string[] {
  if (principal === 'operator') return OPERATOR_SCOPES;
  return principal.startsWith('closer_') ? CLOSER_SCOPES : SELLER_SCOPES;
}

function Notice({ said }: { said: Said }) {
  return said ? <p role={said.refused ? 'alert' : 'status'}>{said.text}</p> : <p role="status" />;
}

/** The key just made: shown this once, with a Copy button. */
function NewKey({ made, done }: { made: ApiKeyRecord; done: () => void }) {
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

export function Admin() {
  const [sellers, setSellers] = useState<Seller[]>([]);
  const [closers, setClosers] = useState<Closer[]>([]);
  const [keys, setKeys] = useState<ApiKeyRecord[]>([]);
  const [made, setMade] = useState<ApiKeyRecord | undefined>();
  const [said, setSaid] = useState<Said>();

  const load = useCallback(async () => {
    try {
      const [s, c, k] = await Promise.all([accounts.sellers(), allClosers(), accounts.keys()]);
      setSellers(s);
      setClosers(c);
      setKeys(k);
    } catch (error) {
      setSaid({ text: `The lists could not be read: ${String((error as Error).message ?? error)}`, refused: true });
    }
  }, []);
  useEffect(() => {
    load();
  }, [load]);

  /** An answer's notice, and the lists read again. */
  const answered = <T,>(outcome: Outcome<T>, words: (data: T) => string) => {
    setSaid(
      outcome.ok ? { text: words(outcome.data), refused: false } : { text: errorWords(outcome.error), refused: true },
    );
    load();
  };

  const principals = [
    { id: 'operator', label: 'Operator' },
    ...sellers.map((s) => ({ id: s.id, label: `${s.name} (Seller ${s.id})` })),
    ...closers.map((c) => ({ id: c.id, label: `${c.name} (closer ${c.id})` })),
  ];
  const nameOf = (principal: string) =>
    principal === 'operator'
      ? 'Operator'
      : (sellers.find((s) => s.id === principal)?.name ?? closers.find((c) => c.id === principal)?.name ?? principal);

  return (
    <>
      <h1>Admin</h1>
      <Notice said={said} />
      {made ? <NewKey made={made} done={() => setMade(undefined)} /> : null}
      <SellersSection sellers={sellers} answered={answered} />
      <ClosersSection closers={closers} answered={answered} />
      <KeysSection
        keys={keys}
        principals={principals}
        nameOf={nameOf}
        made={(key) => {
          setMade(key);
          load();
        }}
        answered={answered}
      />
    </>
  );
}

type Answered = <T>(outcome: Outcome<T>, words: (data: T) => string) => void;

function SellersSection({ sellers, answered }: { sellers: Seller[]; answered: Answered }) {
  const [name, setName] = useState('');
  return (
    <section aria-label="Sellers" class="admin-part">
      <h2>Sellers</h2>
      <form
        aria-label="New Seller"
        onSubmit={async (e) => {
          e.preventDefault();
          const outcome = await accounts.createSeller(name);
          if (outcome.ok) setName('');
          answered(outcome, (seller) => `Created the Seller ${seller.name} (${seller.id}).`);
        }}
      >
        <label>
          Seller name <input required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <button type="submit">Create Seller</button>
      </form>
      <table aria-label="Sellers list">
        <thead>
          <tr>
            <th>Seller</th>
            <th>Id</th>
            <th>Since</th>
          </tr>
        </thead>
        <tbody>
          {sellers.map((s) => (
            <tr key={s.id}>
              <td>{s.name}</td>
              <td>{s.id}</td>
              <td>{when(s.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function ClosersSection({ closers, answered }: { closers: Closer[]; answered: Answered }) {
  const [name, setName] = useState('');
  const [industries, setIndustries] = useState('');
  return (
    <section aria-label="Closers" class="admin-part">
      <h2>Closers</h2>
      <form
        aria-label="Enrol a closer"
        onSubmit={async (e) => {
          e.preventDefault();
          const enrolled: Outcome<Closer> = outcome(await enrolCloser(name, industries));
          if (enrolled.ok) {
            setName('');
            setIndustries('');
          }
          answered(enrolled, (closer) => `Enrolled the closer ${closer.name} (${closer.id}).`);
        }}
      >
        <label>
          Closer name <input required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Industries{' '}
          <input value={industries} onInput={(e) => setIndustries(e.currentTarget.value)} placeholder="saas, fintech" />
        </label>
        <button type="submit">Enrol closer</button>
      </form>
      <table aria-label="Closers list">
        <thead>
          <tr>
            <th>Closer</th>
            <th>Id</th>
            <th>Industries</th>
          </tr>
        </thead>
        <tbody>
          {closers.map((c) => (
            <tr key={c.id}>
              <td>{c.name}</td>
              <td>{c.id}</td>
              <td>{c.industries.join(', ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function KeysSection({
  keys,
  principals,
  nameOf,
  made,
  answered,
}: {
  keys: ApiKeyRecord[];
  principals: { id: string; label: string }[];
  nameOf: (principal: string) => string;
  made: (key: ApiKeyRecord) => void;
  answered: Answered;
}) {
  const [name, setName] = useState('');
  const [principal, setPrincipal] = useState('');
  const [unticked, setUnticked] = useState<string[]>([]);
  const [refusal, setRefusal] = useState('');
  const chosen = principal || principals[0]?.id || 'operator';
  const offered = scopesOfPrincipal(chosen);
  // A principal offers the scopes of its kind (D-221), every one ticked unless unticked (the
  // API's default); choosing another starts again from all of its own.
  const choose = (id: string) => {
    setPrincipal(id);
    setUnticked([]);
  };
  const shown = offered.filter((s) => !unticked.includes(s));

  const issued = (outcome: Outcome<ApiKeyRecord>) => {
    if (outcome.ok) {
      setRefusal('');
      made(outcome.data);
    } else setRefusal(errorWords(outcome.error));
  };

  return (
    <section aria-label="Keys" class="admin-part">
      <h2>Keys</h2>
      <form
        aria-label="Issue a key"
        onSubmit={async (e) => {
          e.preventDefault();
          const outcome = await accounts.issueKey({ name, principal: chosen, scopes: shown });
          if (outcome.ok) setName('');
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
                checked={shown.includes(scope)}
                onChange={(e) => {
                  const on = e.currentTarget.checked;
                  setUnticked((all) => (on ? all.filter((s) => s !== scope) : [...all, scope]));
                }}
              />{' '}
              {scope}
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={shown.length === 0}>
          Issue key
        </button>
        {refusal ? <p role="alert">{refusal}</p> : null}
      </form>
      <div class="table-scroll">
        <table aria-label="Keys list">
          <thead>
            <tr>
              <th>Name</th>
              <th>Prefix</th>
              <th>Principal</th>
              <th>Scopes</th>
              <th>Last used</th>
              <th>Expires</th>
              <th>Revoked</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.id} aria-label={`${k.name} (${k.id})`} class={k.revokedAt ? 'revoked' : undefined}>
                <td>{k.name}</td>
                <td>
                  <code>{k.prefix}</code>
                </td>
                <td title={k.principal}>{nameOf(k.principal)}</td>
                <td>{k.scopes.join(' ')}</td>
                <td>{when(k.lastUsedAt, 'never')}</td>
                <td>{when(k.expiresAt, 'never')}</td>
                <td>{when(k.revokedAt, 'no')}</td>
                <td>
                  {k.revokedAt ? null : k.principal === 'operator' && k.name === 'OPERATOR_KEY' ? (
                    // D-213: OPERATOR_KEY's key is replaced by changing the variable, not here.
                    <span class="muted">changed by OPERATOR_KEY</span>
                  ) : (
                    <>
                      <button
                        type="button"
                        aria-label={`Roll ${k.name}`}
                        onClick={async () => {
                          const outcome = await accounts.rollKey(k.id);
                          issued(outcome);
                        }}
                      >
                        Roll
                      </button>{' '}
                      <button
                        type="button"
                        aria-label={`Revoke ${k.name}`}
                        onClick={async () => {
                          if (!confirm(`Revoke the key “${k.name}” (${k.prefix}…)? Everything using it stops working.`))
                            return;
                          answered(await accounts.revokeKey(k.id), () => `Revoked the key ${k.name}.`);
                        }}
                      >
                        Revoke
                      </button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
