// An invitation's link (D-62, D-63): `#/accept/<token>`, mailed to the person invited. The person
// chooses a password and types it again; the service sets it, uses up the token and signs the
// browser in, and the console starts afresh on the person's home page (nothing of a session the
// browser had before stays). A link already used or expired (72 hours) says so, and whom to ask.
import { useState } from 'preact/hooks';
import { errorWords } from './error-words.ts';
import { PasswordFields, takePassword } from './password-fields.tsx';
import { people } from './people-api.ts';
import { passwordWords } from './people-words.ts';
import { startAfresh } from './session.ts';

export function AcceptInvitation({ token }: { token: string }) {
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
      const answer = await people.accept(token, taken.password);
      // Signed in: the page starts afresh with the session's cookie (it stays busy until then).
      if (answer.ok) return startAfresh('/');
      if (answer.error.code === 'TOKEN_INVALID') setDead(true);
      else setSaid(answer.error.code === 'WEAK_PASSWORD' ? passwordWords(answer.error) : errorWords(answer.error));
    } catch {
      setSaid('Cannot reach the service: no password was set. Try again.');
    }
    setBusy(false);
  };

  return (
    <main class="sign-in account">
      <h1>Choose your password</h1>
      {dead ? (
        <>
          <p role="alert" class="refused">
            This invitation link was already used or has expired (an invitation lasts 72 hours). Ask whoever invited you
            for a new invitation.
          </p>
          <p class="other-ways">
            <a href="#/">Go to the sign-in page</a>
          </p>
        </>
      ) : (
        <>
          <p>
            You are invited to the sales pipeline console. Choose the password you will sign in with, together with the
            email this invitation came to.
          </p>
          <form aria-label="Choose your password" onSubmit={submit}>
            <PasswordFields />
            <button type="submit" disabled={busy}>
              Set password and sign in
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
