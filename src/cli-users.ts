// The people commands of keys mode (D-62): `users create|list|disable|enable`, against a
// deployment's URL with the key in PIPELINE_KEY, as cli-keys.ts's keys and sellers commands are.
import {
  type Action,
  baseUrlOf,
  call,
  everyPage,
  type Io,
  type Json,
  parse,
  positionals,
  single,
  table,
  UsageError,
} from './cli-keys.ts';

const describeUser = (user: Json) =>
  `${user.id} ${user.name} <${user.email}>, ${user.role} of ${user.principal}${user.disabledAt ? `, disabled at ${user.disabledAt}` : ''}`;

/** D-62: invites a person; the invitation goes by mail (or to the service's log without SMTP_URL). */
async function usersCreate(args: readonly string[], io: Io, key: () => string): Promise<number> {
  const parsed = parse(args, ['email', 'name', 'role', 'principal']);
  const [base] = positionals(parsed, ['base-url']);
  const baseUrl = baseUrlOf(base);
  const email = single(parsed, 'email');
  const name = single(parsed, 'name');
  const role = single(parsed, 'role');
  if (email === undefined || name === undefined || role === undefined) {
    throw new UsageError('users create needs --email E --name N --role R');
  }
  const principal = single(parsed, 'principal');
  const body = { email, name, role, ...(principal !== undefined ? { principal } : {}) };
  const { body: user } = await call(key(), 'POST', `${baseUrl}/users`, body);
  io.out(String(user.id));
  io.err(`invited ${describeUser(user)}: the invitation's link was mailed (good for 72 hours)`);
  return 0;
}

async function usersList(args: readonly string[], io: Io, key: () => string): Promise<number> {
  const parsed = parse(args, ['principal']);
  const [base] = positionals(parsed, ['base-url']);
  const principal = single(parsed, 'principal');
  const query = principal === undefined ? '' : `?${new URLSearchParams({ principal })}`;
  const users = await everyPage(key(), `${baseUrlOf(base)}/users${query}`);
  const lines = table(
    ['ID', 'EMAIL', 'NAME', 'ROLE', 'PRINCIPAL', 'STATUS', 'LAST SIGN-IN'],
    users.map((u) => [
      u.id,
      u.email,
      u.name,
      u.role,
      u.principal,
      u.disabledAt ? 'disabled' : u.invitationAccepted ? 'active' : 'invited',
      u.lastSignInAt,
    ]),
  );
  for (const line of lines) io.out(line);
  io.err(`${users.length} ${users.length === 1 ? 'person' : 'people'}`);
  return 0;
}

/** `users disable` and `users enable`: the person's sessions end at once when disabled. */
function usersState(action: 'disable' | 'enable'): Action {
  return async (args, io, key) => {
    const parsed = parse(args, []);
    const [base, id] = positionals(parsed, ['base-url', 'user-id']);
    const { body: user } = await call(
      key(),
      'POST',
      `${baseUrlOf(base)}/users/${encodeURIComponent(id)}/${action}`,
      {},
    );
    io.out(`${action}d ${describeUser(user)}`);
    return 0;
  };
}

export const USER_COMMANDS: Record<string, Action> = {
  create: usersCreate,
  list: usersList,
  disable: usersState('disable'),
  enable: usersState('enable'),
};
