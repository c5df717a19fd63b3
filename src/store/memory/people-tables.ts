// Users, their one-time tokens and failed sign-ins in memory (D-62, D-63): the reference behaviour
// of the people port (src/store/people.ts). A wipe keeps them but for closers' people (the
// closers go). Every change inside a unit of work is undone with it.
import { compareIds } from '../../domain/ids.ts';
import type { ConsoleSession } from '../../domain/sessions.ts';
import { emailKey, type OneTimeToken, type SignInThrottle, type User } from '../../domain/users.ts';
import type { PeopleReader, PeopleUnit, UserFilter } from '../people.ts';
import { MarkedRows } from './marked-rows.ts';

export class PeopleTables {
  users = new MarkedRows<User>();
  /** User ids by their email's key. */
  byEmail = new Map<string, string>();
  tokens = new Map<string, OneTimeToken>();
  throttles = new Map<string, SignInThrottle>();
  counter = 0;

  withoutClosers(): PeopleTables {
    const kept = new PeopleTables();
    kept.users = this.users.copy((user) => !user.principal.startsWith('closer_'), 1);
    for (const user of kept.users.rows.values()) kept.byEmail.set(emailKey(user.email), user.id);
    kept.tokens = new Map([...this.tokens].filter(([, token]) => kept.users.get(token.userId) !== undefined));
    kept.throttles = new Map(this.throttles);
    kept.counter = this.counter;
    return kept;
  }
}

/** Map writes undone with the unit of work. */
function set<K, V>(map: Map<K, V>, key: K, value: V | undefined, undo: (() => void)[]): void {
  const had = map.has(key);
  const previous = map.get(key);
  if (value === undefined) map.delete(key);
  else map.set(key, value);
  undo.push(() => (had ? map.set(key, previous as V) : map.delete(key)));
}

export class MemoryPeopleReader implements PeopleReader {
  constructor(
    protected readonly tables: PeopleTables,
    /** The console sessions (the accounts' table), for a person's own. */
    protected readonly sessions: MarkedRows<ConsoleSession>,
  ) {}
  async getUser(id: string) {
    return this.tables.users.get(id);
  }
  async userByEmail(email: string) {
    const id = this.tables.byEmail.get(emailKey(email));
    return id === undefined ? undefined : this.tables.users.get(id);
  }
  async emailTaken(email: string) {
    return this.tables.byEmail.has(emailKey(email));
  }
  async listUsers({ principal, afterId, limit }: UserFilter) {
    const users = [...this.tables.users.rows.values()]
      .filter((user) => principal === undefined || user.principal === principal)
      .sort((a, b) => compareIds(a.id, b.id))
      .filter((user) => afterId === undefined || compareIds(user.id, afterId) > 0);
    return limit === undefined ? users : users.slice(0, limit);
  }
  async enabledAdmins(principal: string) {
    return [...this.tables.users.rows.values()]
      .filter((user) => user.principal === principal && user.role === 'admin' && user.disabledAt === undefined)
      .sort((a, b) => compareIds(a.id, b.id));
  }
  async usersChangedSince(since: number) {
    const { rows, mark } = this.tables.users.changedSince(since);
    return { users: rows, mark };
  }
  async tokenByHash(hash: string) {
    return this.tables.tokens.get(hash);
  }
  async getThrottle(id: string) {
    return this.tables.throttles.get(id);
  }
  async sessionsOfUser(userId: string) {
    return [...this.sessions.rows.values()].filter((session) => session.userId === userId);
  }
}

export class MemoryPeopleUnit extends MemoryPeopleReader implements PeopleUnit {
  constructor(
    tables: PeopleTables,
    sessions: MarkedRows<ConsoleSession>,
    private readonly undo: (() => void)[],
  ) {
    super(tables, sessions);
  }
  async takeUserNumber() {
    const previous = this.tables.counter;
    this.undo.push(() => {
      this.tables.counter = previous;
    });
    this.tables.counter = previous + 1;
    return this.tables.counter;
  }
  async putUser(user: User) {
    const key = emailKey(user.email);
    const holder = this.tables.byEmail.get(key);
    if (holder !== undefined && holder !== user.id) throw new Error(`email of ${user.id} is already ${holder}'s`);
    const previous = this.tables.users.get(user.id);
    if (previous !== undefined && emailKey(previous.email) !== key) {
      set(this.tables.byEmail, emailKey(previous.email), undefined, this.undo);
    }
    this.tables.users.put(user, this.undo);
    set(this.tables.byEmail, key, user.id, this.undo);
  }
  async putToken(token: OneTimeToken) {
    set(this.tables.tokens, token.hash, token, this.undo);
  }
  async putThrottle(throttle: SignInThrottle) {
    const empty = throttle.failures.length === 0 && throttle.lockedUntil === undefined;
    set(this.tables.throttles, throttle.id, empty ? undefined : throttle, this.undo);
  }
}
