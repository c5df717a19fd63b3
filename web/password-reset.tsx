// A forgotten password (D-63): `#/reset` asks for the email and always says the same (the service
// answers 202 whether or not the email is a person's, so the page tells no one either); the mailed
// link `#/reset/<token>` (1 hour) sets a new password, which ends every session of the person, and
// the page then shows the sign-in form saying so (PASSWORD_CHANGED_ROUTE, the token off the URL).
import { useState } from 'preact/hooks';
import { errorWords } from './error-words.ts';
import { PasswordFields, useTokenPassword } from './password-fields.tsx';
import { people } from './people-api.ts';
import { startAfresh } from './session.ts';

/** The sign-in page's route after a new password was set, and what it says there. */
export const PASSWORD_CHANGED_ROUTE = '/password-changed';
export const PASSWORD_CHANGED_WORDS = 'Password changed: sign in with your new password.';

/** The same words whether or not the email is a person's. */
const ON_ITS_WAY = 'If that email has an account, a link is on its way. It works for 1 hour.';

export function AskReset() {
  const [said, setSaid] = useState<{ text: string; refused: boolean } | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const field = (event.currentTarget as HTMLFormElement).elements.namedItem('email') as HTMLInputElement;
    setBusy(true);
    try {
      const answer = await people.askReset(field.value.trim());
      setSaid(answer.ok ? { text: ON_ITS_WAY, refused: false } : { text: errorWords(answer.error), refused: true });
    } catch {
      setSaid({ text: 'Cannot reach the service: nothing was sent. Try again.', refused: true });
    }
    setBusy(false);
  };
  return (
    <main class="sign-in account">
      <h1>Reset your password</h1>
      <p>Type the email you sign in with: a link to choose a new password is mailed to it.</p>
      <form aria-label="Ask for a reset link" onSubmit={submit}>
        <label>
          Email{' '}
          <input name="email" type="email" required autocomplete="username" spellcheck={false} autocapitalize="off" />
        </label>
        <button type="submit" disabled={busy}>
          Send the link
        </button>
      </form>
      {said ? (
        <p role={said.refused ? 'alert' : 'status'} class={said.refused ? 'refused' : 'ended'}>
          {said.text}
        </p>
      ) : null}
      <p class="other-ways">
        <a href="#/">Back to sign in</a>
      </p>
    </main>
  );
}

export function ConfirmReset({ token }: { token: string }) {
  // Every session of the person ended (this browser's too, if it was theirs): the page starts
  // afresh, signed out or still signed in as someone else, at the sign-in page's words.
  const { said, dead, busy, submit } = useTokenPassword(
    people.confirmReset,
    token,
    () => startAfresh(PASSWORD_CHANGED_ROUTE),
    'the password was not changed',
  );
  return (
    <main class="sign-in account">
      <h1>Choose a new password</h1>
      {dead ? (
        <>
          <p role="alert" class="refused">
            This reset link was already used or has expired (a link lasts 1 hour).
          </p>
          <p class="other-ways">
            <a href="#/reset">Ask for a new link</a>
          </p>
        </>
      ) : (
        <>
          <p>Changing the password signs you out wherever you are signed in; then sign in with the new one.</p>
          <form aria-label="Choose a new password" onSubmit={submit}>
            <PasswordFields />
            <button type="submit" disabled={busy}>
              Change password
            </button>
          </form>
          {said ? (
            <p role="alert" class="refused">
              {said}
            </p>
          ) : null}
        </>
      )}
    </main>
  );
}
