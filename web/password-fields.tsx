// Choosing a password (D-63): the new password and the same again, with the rule beside them. The
// service holds the rule (400 WEAK_PASSWORD says what is wrong); the page checks only that the two
// match, which the service cannot. Like a key, a password is kept nowhere: the fields are emptied
// once it is sent.
import { PASSWORD_RULE } from './people-words.ts';

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
