// The keys page (#/keys, D-52, D-66) of a Seller's or a closer's session that may manage keys
// (keys:manage; the nav shows it to no one else): its principal's keys, issued for its agents and
// integrations with the scopes chosen (never more than the session's own), rolled and revoked, each
// with the person who made it (D-62). The operator manages every key on its admin page. A key made
// here is shown once, as on the admin page.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { useUserNames } from './actor-names.ts';
import { KeysSection, NewKey } from './admin-keys.tsx';
import { type ApiKeyRecord, accounts, type Outcome } from './api.ts';
import { errorWords } from './error-words.ts';
import { useNotice } from './notice.ts';
import type { Session } from './session.ts';

type Said = { text: string; refused?: boolean };

export function KeysPage({ session, shownKey }: { session: Session; shownKey?: string }) {
  const [keys, setKeys] = useState<ApiKeyRecord[]>([]);
  const [made, setMade] = useState<ApiKeyRecord | undefined>();
  const [said, setSaid] = useNotice<Said>();
  const madeBy = useUserNames(keys);

  const load = useCallback(async () => {
    try {
      setKeys(await accounts.keys());
    } catch (error) {
      setSaid({ text: `The keys could not be read: ${(error as Error).message ?? error}`, refused: true });
    }
  }, []);
  useEffect(() => {
    load();
  }, [load]);

  const answered = <T,>(outcome: Outcome<T>, words: (data: T) => string) => {
    setSaid(outcome.ok ? { text: words(outcome.data) } : { text: errorWords(outcome.error), refused: true });
    load();
  };
  const nameOf = (principal: string) => (principal === session.principal ? session.name : principal);

  return (
    <>
      <h1>Keys</h1>
      <p class="hint">
        The keys of {session.name}, for its agents and integrations: a key acts as {session.name} with the scopes it
        carries. People sign in with their email and password instead.
      </p>
      {said ? <p role={said.refused ? 'alert' : 'status'}>{said.text}</p> : <p role="status" />}
      {made ? <NewKey made={made} done={() => setMade(undefined)} /> : null}
      <KeysSection
        keys={keys}
        principals={[{ id: session.principal, label: session.name }]}
        nameOf={nameOf}
        madeBy={madeBy}
        made={(key) => {
          setMade(key);
          load();
        }}
        answered={answered}
        shownKey={shownKey}
        page="/keys"
        heading={`The keys of ${session.name}`}
      />
    </>
  );
}
