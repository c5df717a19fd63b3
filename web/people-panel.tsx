// A principal's people (D-62): the invitation form, the list (people-table.tsx), and what each
// action answered, the list read again after each. A Seller's (or a closer's) Team page shows its
// own people; the operator's admin page shows everyone's, or one principal's (GET
// /users?principal=), and invites for any. A refusal names the person and the Seller in words
// (LAST_ADMIN, EMAIL_TAKEN: people-words.ts); the service's own text stays in its title.
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Outcome } from './api.ts';
import { type Invited, InviteForm } from './invite-form.tsx';
import { useNotice } from './notice.ts';
import { people, type Role, type User } from './people-api.ts';
import { type PeopleActs, PeopleTable } from './people-table.tsx';
import { peopleRefusal } from './people-words.ts';
import { checkSession } from './session.ts';

type Said = { text: string; refused?: boolean; raw?: string };

const a = (role: string) => `${/^[aeiou]/.test(role) ? 'an' : 'a'} ${role}`;

export function PeoplePanel({
  principal,
  principals,
  nameOf,
  me,
}: {
  /** Whose people: the session's own principal (the operator's first choice on its page). */
  principal: string;
  /** The operator's: the principals whose people it may list and invite; absent, only `principal`'s. */
  principals?: readonly { id: string; label: string }[];
  /** A principal by name (the Seller's, the closer's, or the operator). */
  nameOf: (principal: string) => string;
  /** The signed-in person, if a person is signed in. */
  me?: string;
}) {
  const [users, setUsers] = useState<User[] | undefined>();
  const [shown, setShown] = useState('');
  const [said, setSaid] = useNotice<Said>();

  const load = useCallback(async () => {
    try {
      setUsers(await people.list(principals ? shown || undefined : undefined));
    } catch (error) {
      setSaid({ text: `The people could not be read: ${(error as Error).message ?? error}`, refused: true });
    }
  }, [shown, principals !== undefined]);
  useEffect(() => {
    load();
  }, [load]);

  /** What an action answered, said; the list read again (and the session, when it was one's own). */
  const answered = async (
    outcome: Outcome<User>,
    done: (user: User) => string,
    about: { user?: User; email?: string; principal: string },
  ) => {
    setSaid(
      outcome.ok
        ? { text: done(outcome.data) }
        : { text: peopleRefusal(outcome.error, about), refused: true, raw: outcome.error.error },
    );
    if (outcome.ok && outcome.data.id === me) await checkSession();
    await load();
  };
  const about = (user: User) => ({ user, principal: nameOf(user.principal) });
  const acts: PeopleActs = {
    role: async (user: User, role: Role) =>
      answered(
        await people.setRole(user.id, role),
        (u) => `${u.name} is now ${a(u.role)}, from their next request on.`,
        about(user),
      ),
    disable: async (user: User) => {
      if (!confirm(`Disable ${user.name}? They are signed out everywhere at once, and cannot sign in until enabled.`))
        return;
      await answered(
        await people.disable(user.id),
        (u) => `Disabled ${u.name}: signed out everywhere, and cannot sign in until enabled again.`,
        about(user),
      );
    },
    enable: async (user: User) =>
      answered(await people.enable(user.id), (u) => `Enabled ${u.name}: they can sign in again.`, about(user)),
  };
  const invited: Invited = (outcome, asked) =>
    answered(
      outcome,
      (u) => `Invited ${u.name} as ${a(u.role)}: the invitation is on its way to ${u.email} (its link works 72 hours).`,
      { email: asked.email, principal: nameOf(asked.principal) },
    );

  return (
    <section aria-label="People" class="admin-part people-panel">
      <h2>People</h2>
      {said ? (
        <p role={said.refused ? 'alert' : 'status'} class={said.refused ? 'refused' : 'done'} title={said.raw}>
          {said.text}
        </p>
      ) : (
        <p role="status" />
      )}
      <h3>Invite a person</h3>
      <InviteForm principal={shown || principal} principals={principals} invited={invited} />
      {principals ? (
        <form class="filters" aria-label="Whose people" onSubmit={(e) => e.preventDefault()}>
          <label>
            Show the people of{' '}
            <select value={shown} onChange={(e) => setShown(e.currentTarget.value)}>
              <option value="">everyone</option>
              {principals.map((p) => (
                <option value={p.id} key={p.id}>
                  {p.label}
                </option>
              ))}
            </select>
          </label>
        </form>
      ) : null}
      {users === undefined ? (
        <p>Reading the people…</p>
      ) : users.length === 0 ? (
        <p class="empty">No people yet: invite the first above. Each signs in with their email and a password.</p>
      ) : (
        <PeopleTable users={users} me={me} nameOf={principals ? nameOf : undefined} acts={acts} />
      )}
    </section>
  );
}
