// The list of people (D-62): each person's name, email, role, last sign-in and status (invited,
// active, disabled), with the role changed by choosing another and pressing Change (a select that
// acted on its own would act on every arrow key), and Disable or Enable. The panel that holds it
// (people-panel.tsx) makes the calls and says what came of them.
import { useState } from 'preact/hooks';
import { rolesOf } from '../src/domain/users.ts';
import { kindOfPrincipal, type Role, type User } from './people-api.ts';
import { roleWords, statusOf, statusWords } from './people-words.ts';
import { when } from './words.ts';

export interface PeopleActs {
  role(user: User, role: Role): void;
  disable(user: User): void;
  enable(user: User): void;
}

export function PeopleTable({
  users,
  me,
  nameOf,
  acts,
}: {
  users: readonly User[];
  /** The signed-in person's id, marked `(you)`. */
  me?: string;
  /** The principal a person belongs to by name: given, the table has a column for it (the operator's). */
  nameOf?: (principal: string) => string;
  acts: PeopleActs;
}) {
  return (
    <div class="table-scroll">
      <table aria-label="People list" class="people">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            {nameOf ? <th scope="col">Belongs to</th> : null}
            <th scope="col">Role</th>
            <th scope="col">Last sign-in</th>
            <th scope="col">Status</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {users.map((user) => (
            // Keyed by the role too: a row whose role changed starts from its new role.
            <PersonRow key={`${user.id}:${user.role}`} user={user} me={me} nameOf={nameOf} acts={acts} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function PersonRow({
  user,
  me,
  nameOf,
  acts,
}: {
  user: User;
  me?: string;
  nameOf?: (principal: string) => string;
  acts: PeopleActs;
}) {
  const [role, setRole] = useState<Role>(user.role);
  const roles = rolesOf(kindOfPrincipal(user.principal));
  const status = statusOf(user);
  return (
    <tr aria-label={`${user.name} (${user.email})`} data-status={status} class={status === 'disabled' ? 'ended' : ''}>
      <th scope="row">
        {user.name}
        {user.id === me ? <span class="muted"> (you)</span> : null}
      </th>
      <td class="email">{user.email}</td>
      {nameOf ? <td title={user.principal}>{nameOf(user.principal)}</td> : null}
      <td>
        {roles.length === 1 ? (
          user.role
        ) : (
          <span class="role-change">
            <select
              aria-label={`Role of ${user.name}`}
              value={role}
              onChange={(e) => setRole(e.currentTarget.value as Role)}
            >
              {roles.map((r) => (
                <option value={r} key={r} title={roleWords(r)}>
                  {r}
                </option>
              ))}
            </select>
            <button
              type="button"
              class="secondary"
              disabled={role === user.role}
              aria-label={`Change the role of ${user.name}`}
              onClick={() => acts.role(user, role)}
            >
              Change
            </button>
          </span>
        )}
      </td>
      <td>{user.lastSignInAt ? <time dateTime={user.lastSignInAt}>{when(user.lastSignInAt)}</time> : 'never'}</td>
      <td>{statusWords(user)}</td>
      <td>
        {status === 'disabled' ? (
          <button type="button" aria-label={`Enable ${user.name}`} onClick={() => acts.enable(user)}>
            Enable
          </button>
        ) : (
          <button type="button" aria-label={`Disable ${user.name}`} onClick={() => acts.disable(user)}>
            Disable
          </button>
        )}
      </td>
    </tr>
  );
}
