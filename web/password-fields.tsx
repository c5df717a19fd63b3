// Choosing a password (D-63): the new password and the same again, with the rule beside them. The
// service holds the rule (400 WEAK_PASSWORD says what is wrong); the page checks only that the two
// match, which the service cannot. Like a key, a password is kept nowhere: the fields are emptied
// once it is sent.
import { useState } from 'preact/hooks';
import { errorWords } from './error-words.ts';
import type { people } from './people-api.ts';
import { PASSWORD_RULE, passwordWords } from './people-words.ts';

/** The two fields, and the rule they are described by. */
export function PasswordFields() {
  return (
    <>
      <p id="password-rule" class="hint">
        {PASSWORD_RULE}
      </p>
      <label>
        New password{' '}
        <input name="password" type="password" required autocomplete="new-password" aria-describedby="password-rule" />
      </label>
      <label>
        Confirm the password <input name="confirm" type="password" required autocomplete="new-password" />
      </label>
    </>
  );
}

/**
 * The password typed in a form of PasswordFields, the fields emptied; or the words to show when
 * the two differ (nothing is sent then).
 */
export function takePassword(form: HTMLFormElement): { password: string } | { problem: string } {
  const field = (name: string) => form.elements.namedItem(name) as HTMLInputElement;
  const password = field('password').value;
  const confirm = field('confirm').value;
  field('password').value = '';
  field('confirm').value = '';
  if (password !== confirm) return { problem: 'The two passwords differ: type the same password twice.' };
  return { password };
}

/**
 * A form that sets a password with a one-time token (an invitation's, a reset's): what it says,
 * whether the link is dead (TOKEN_INVALID), whether it is busy, and its submit. `done` runs on
 * success; `unsent` says what did not happen when the service could not be reached.
 */
export function useTokenPassword(
  send: typeof people.accept,
  token: string,
  done: () => void,
  unsent: string,
): { said?: string; dead: boolean; busy: boolean; submit: (event: Event) => Promise<void> } {
  const [said, setSaid] = useState<string | undefined>();
  const [dead, setDead] = useState(false);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const taken = takePassword(event.currentTarget as HTMLFormElement);
    if ('problem' in taken) return setSaid(taken.problem);
    setBusy(true);
    setSaid(undefined);
    try {
      const answer = await send(token, taken.password);
      // Done: the page starts afresh (it stays busy until then).
      if (answer.ok) return done();
      if (answer.error.code === 'TOKEN_INVALID') setDead(true);
      else setSaid(answer.error.code === 'WEAK_PASSWORD' ? passwordWords(answer.error) : errorWords(answer.error));
    } catch {
      setSaid(`Cannot reach the service: ${unsent}. Try again.`);
    }
    setBusy(false);
  };
  return { ...(said !== undefined ? { said } : {}), dead, busy, submit };
}
