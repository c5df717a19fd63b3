// An invitation's link (D-62, D-63): `#/accept/<token>`, mailed to the person invited. The person
// chooses a password and types it again; the service sets it, uses up the token and signs the
// browser in, and the console starts afresh on the person's home page (nothing of a session the
// browser had before stays). A link already used or expired (72 hours) says so, and whom to ask.
import { PasswordFields, useTokenPassword } from './password-fields.tsx';
import { people } from './people-api.ts';
import { startAfresh } from './session.ts';

export function AcceptInvitation({ token }: { token: string }) {
  // Signed in: the page starts afresh with the session's cookie.
  const { said, dead, busy, submit } = useTokenPassword(
    people.accept,
    token,
    () => startAfresh('/'),
    'no password was set',
  );

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
