// The operator's admin page in keys mode (D-59, D-236): Sellers (list, create), closers (list,
// enrol), people (people-panel.tsx: everyone's or one principal's, invite, role, disable, enable,
// D-62) and keys (admin-keys.tsx: issue, roll, revoke; keys-table.tsx: the list, D-260, with who
// made each). What an action answered is said at the top, and the lists are read again.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { useKeysSession, useUserNames } from './actor-names.ts';
import { KeysSection, NewKey } from './admin-keys.tsx';
import {
  type Answered,
  type ApiKeyRecord,
  accounts,
  allClosers,
  type Closer,
  enrolCloser,
  type Outcome,
  outcome,
  type Seller,
} from './api.ts';
import { errorWords } from './error-words.ts';
import { PeoplePanel } from './people-panel.tsx';

type Said = { text: string; refused: boolean } | undefined;

const when = (iso: string | null | undefined, never = '—') => (iso ? new Date(iso).toLocaleString() : never);

function Notice({ said }: { said: Said }) {
  return said ? <p role={said.refused ? 'alert' : 'status'}>{said.text}</p> : <p role="status" />;
}

/** `shownKey`: the key whose row a link asked for (`#/admin?key=…`). */
export function Admin({ shownKey }: { shownKey?: string }) {
  const [sellers, setSellers] = useState<Seller[]>([]);
  const [closers, setClosers] = useState<Closer[]>([]);
  const [keys, setKeys] = useState<ApiKeyRecord[]>([]);
  const [made, setMade] = useState<ApiKeyRecord | undefined>();
  const [said, setSaid] = useState<Said>();
  const session = useKeysSession();
  // The people's names, for who made each key: read again whenever the keys are.
  const madeBy = useUserNames(keys);

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
      <PeoplePanel principal="operator" principals={principals} nameOf={nameOf} me={session?.user?.id} />
      <KeysSection
        keys={keys}
        principals={principals}
        nameOf={nameOf}
        madeBy={madeBy}
        made={(key) => {
          setMade(key);
          load();
        }}
        answered={answered}
        shownKey={shownKey}
      />
    </>
  );
}

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
