// The sign-in page of keys mode (D-59, D-235, D-66): a person signs in with an email and a
// password; "Sign in with a key" (KEY_ROUTE) is the other way, for the operator's key and whoever
// signs in with one, its form as it always was. A password or a key is traded for a session
// cookie: it is sent once, in the body of POST /console/session, and kept nowhere: its field is
// emptied as soon as it is sent, and nothing is written to storage (the email stays, to try again).
import { useState } from 'preact/hooks';
import { signIn, signInWithPassword } from './session.ts';

/** The sign-in page's route that shows the key's form. */
export const KEY_ROUTE = '/sign-in/key';

type Said = { text: string; alert: boolean } | undefined;

/** Signed in: the home page (a route of the sign-in page means nothing once signed in). */
function goHome() {
  if (location.hash !== '#/' && location.hash !== '') location.hash = '#/';
}

/** `words`: what the page says first (the session ended, the password changed). */
export function SignIn({ words, way = 'person' }: { words?: string; way?: 'person' | 'key' }) {
  const [said, setSaid] = useState<Said>(words ? { text: words, alert: false } : undefined);
  return (
    <main class="sign-in">
      <h1>Sign in to the sales pipeline console</h1>
      {way === 'key' ? <KeyForm said={setSaid} /> : <PersonForm said={setSaid} />}
      {said ? (
        <p role={said.alert ? 'alert' : 'status'} class={said.alert ? 'refused' : 'ended'}>
          {said.text}
        </p>
      ) : null}
      {way === 'key' ? (
        <p class="other-ways">
          <a href="#/">Sign in with your email and password</a>
        </p>
      ) : (
        <p class="other-ways">
          <a href="#/reset">Forgot your password?</a>
          <a href={`#${KEY_ROUTE}`}>Sign in with a key</a>
        </p>
      )}
    </main>
  );
}

function PersonForm({ said }: { said: (said: Said) => void }) {
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const email = form.elements.namedItem('email') as HTMLInputElement;
    const field = form.elements.namedItem('password') as HTMLInputElement;
    const password = field.value;
    // The password leaves the page's memory as soon as it is sent: the field is emptied first.
    field.value = '';
    setBusy(true);
    const refused = await signInWithPassword(email.value.trim(), password);
    setBusy(false);
    if (refused) {
      said({ text: refused, alert: true });
      field.focus();
    } else goHome();
  };
  return (
    <>
      <p>Sign in with the email you were invited with and your password.</p>
      <form onSubmit={submit} aria-label="Sign in as a person">
        <label>
          Email{' '}
          <input name="email" type="email" required autocomplete="username" spellcheck={false} autocapitalize="off" />
        </label>
        <label>
          Password <input name="password" type="password" required autocomplete="current-password" />
        </label>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </>
  );
}

/** The key's form, as it was before people could sign in (D-59). */
function KeyForm({ said: setSaid }: { said: (said: Said) => void }) {
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const field = form.elements.namedItem('key') as HTMLInputElement;
    const key = field.value.trim();
    // The key leaves the page's memory as soon as it is sent: the field is emptied first.
    field.value = '';
    setBusy(true);
    const refused = await signIn(key);
    setBusy(false);
    if (refused) {
      setSaid({ text: refused, alert: true });
      field.focus();
    } else goHome();
  };

  return (
    <>
      <p>
        Sign in with an API key: the operator's, a Seller's or a closer's. The console keeps the key nowhere: it is
        traded for a session that ends after 12 hours, when you sign out, or when the key is revoked.
      </p>
      <form onSubmit={submit} aria-label="Sign in">
        <label>
          API key{' '}
          <input
            name="key"
            type="password"
            required
            autocomplete="off"
            spellcheck={false}
            autocapitalize="off"
            placeholder="sp_sk_…"
          />
        </label>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </>
  );
}
