// Inviting a person (D-62): a name, an email and a role of the principal's kind, each role with
// what it may do; the operator also chooses whose person it is. The service mails the invitation
// (its link works for 72 hours); the panel says what came of it.
import { useState } from 'preact/hooks';
import { rolesOf } from '../src/domain/users.ts';
import type { Outcome } from './api.ts';
import { kindOfPrincipal, people, type Role, type User } from './people-api.ts';
import { roleWords } from './people-words.ts';

export type Invited = (outcome: Outcome<User>, asked: { email: string; principal: string }) => void;

export function InviteForm({
  principal,
  principals,
  invited,
}: {
  /** Whose people (the session's own principal, or the operator's first choice). */
  principal: string;
  /** The operator's choice of principal; absent, the person is the session's principal's. */
  principals?: readonly { id: string; label: string }[];
  invited: Invited;
}) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [chosen, setChosen] = useState('');
  // A list without the caller's own principal shows its first entry as chosen: so it is.
  const shown = principals && !principals.some((p) => p.id === principal) ? principals[0]?.id : undefined;
  const whose = chosen || shown || principal;
  const roles = rolesOf(kindOfPrincipal(whose));
  // The role that may do least (the list's last) unless another is chosen: more is a choice.
  const [role, setRole] = useState<Role | ''>('');
  const given = role && roles.includes(role) ? role : roles[roles.length - 1];
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    const asked = { email: email.trim(), principal: whose };
    const outcome = await people.invite({
      name: name.trim(),
      email: asked.email,
      role: given,
      ...(principals ? { principal: whose } : {}),
    });
    setBusy(false);
    if (outcome.ok) {
      setName('');
      setEmail('');
    }
    invited(outcome, asked);
  };

  return (
    <form aria-label="Invite a person" class="invite" onSubmit={submit}>
      <label>
        Name <input required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label>
        Email{' '}
        <input
          type="email"
          required
          maxLength={254}
          spellcheck={false}
          autocapitalize="off"
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
      </label>
      {/* Labelled by id, not by wrapping: a wrapping label's name would carry the chosen option's text. */}
      {principals ? (
        <span class="field">
          <label for="invite-principal">For</label>{' '}
          <select id="invite-principal" value={whose} onChange={(e) => setChosen(e.currentTarget.value)}>
            {principals.map((p) => (
              <option value={p.id} key={p.id}>
                {p.label}
              </option>
            ))}
          </select>
        </span>
      ) : null}
      <span class="field">
        <label for="invite-role">Role</label>{' '}
        <select id="invite-role" value={given} onChange={(e) => setRole(e.currentTarget.value as Role)}>
          {roles.map((r) => (
            <option value={r} key={r}>
              {r}: {roleWords(r)}
            </option>
          ))}
        </select>
      </span>
      <button type="submit" disabled={busy}>
        Invite
      </button>
    </form>
  );
}
