// The sign-in page of keys mode (D-59, D-235): a key, typed or pasted into a password field, is
// traded for a session cookie. The key is sent once, in the body of POST /console/session, and
// kept nowhere: the field is emptied as soon as it is sent, and nothing is written to storage.
import { useState } from 'preact/hooks';
import { signIn } from './session.ts';

export function SignIn({ words }: { words?: string }) {
  const [said, setSaid] = useState<{ text: string; alert: boolean } | undefined>(
    words ? { text: words, alert: false } : undefined,
  );
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
    } else if (location.hash !== '#/' && location.hash !== '') location.hash = '#/';
  };

  return (
    <main class="sign-in">
      <h1>Sign in to the sales pipeline console</h1>
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
      {said ? (
        <p role={said.alert ? 'alert' : 'status'} class={said.alert ? 'refused' : 'ended'}>
          {said.text}
        </p>
      ) : null}
    </main>
  );
}
