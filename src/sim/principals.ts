// Keys mode's cast for the simulation (D-51, D-52): the operator, a few Sellers and the closers,
// each with keys made through the service's accounts and known to the simulation by their text,
// whether they were revoked and when they expire. Every command's caller is what the key ring
// makes of one of these keys, so a key the simulation believes dead must be refused there. The
// people of the principals (D-62) are enrolled here too, each invitation accepted with the token
// drawn from the mail outbox as the mail worker would draw it; their steps are people.ts's.
import { type Caller, type KeyScope, OPERATOR } from '../domain/access.ts';
import type { UserRole } from '../domain/users.ts';
import type { PipelineService } from '../service/pipeline-service.ts';
import { TokenSeal } from '../service/token-seal.ts';
import type { Store } from '../store/store.ts';

export interface SimKey {
  id: string;
  text: string;
  principal: string;
  scopes: readonly KeyScope[];
  /** Machine epoch ms. */
  expiresAt?: number;
  revoked?: boolean;
  /** The principal's first key: never revoked, so that every principal can always act. */
  main?: boolean;
}

export interface SimPerson {
  userId: string;
  email: string;
  principal: string;
  role: UserRole;
  password: string;
  /** The console cookie's value of the person's current session, if signed in, and its end (machine ms). */
  session?: string;
  sessionEnds?: number;
  disabled?: boolean;
  /** The model of the lockout: failed sign-ins within the window, and the lock's end. */
  failures: number[];
  lockedUntil?: number;
}

const ORIGIN = 'http://sim.invalid';

/** Invites the people of every Seller and of one closer, and accepts each invitation. */
export async function enrolPeople(
  service: PipelineService,
  store: Store,
  cast: Cast,
  seal: TokenSeal,
  now: () => number,
  operator: Caller,
): Promise<void> {
  const plan: [string, UserRole][] = [];
  for (const seller of cast.sellers) plan.push([seller, 'admin'], [seller, 'rep'], [seller, 'viewer']);
  if (cast.closers[0] !== undefined) plan.push([cast.closers[0], 'closer']);
  plan.push([OPERATOR, 'operator']);
  for (const [principal, role] of plan) {
    const email = `${role}.${principal}@sim.example`;
    const invited = await service.run(
      service.people.invite({ email, name: `${role} of ${principal}`, role, principal }, operator, ORIGIN),
    );
    if (!invited.ok) throw new Error(`no person ${email}: ${invited.refusal.message}`);
    cast.people.push({
      userId: invited.value.id,
      email,
      principal,
      role,
      password: `sim passphrase ${role} 1234`,
      failures: [],
    });
  }
  // The invitations' tokens, as the mail worker would draw them from the outbox.
  const at = now();
  const mail = await store.transaction((uow) => uow.mail.claimMail(at, at + 60_000, 1_000), {
    principal: 'platform',
  });
  for (const person of cast.people) {
    const message = mail.find((m) => m.to === person.email);
    if (message === undefined) throw new Error(`no invitation mailed to ${person.email}`);
    const accepted = await service.people.accept(seal.textOf(message.nonce), person.password);
    if (!accepted.ok) throw new Error(`${person.email} could not accept: ${accepted.refusal.message}`);
    person.session = accepted.value.session.value;
    person.sessionEnds = accepted.value.session.expiresAt;
  }
}

/** 48 visible characters, no spaces: OPERATOR_KEY's form (D-52), from the seeded generator. */
export function operatorKeyText(random: () => number): string {
  const chars = '!#$%&()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_abcdefghijklmnopqrstuvwxyz{|}~';
  let out = '';
  while (out.length < 48) out += chars[Math.floor(random() * chars.length)];
  return out;
}

/** A token with a key's form that no key has: a made key's prefix and 43 base62 characters. */
export function forgedKey(random: () => number): string {
  const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let out = ['sp_op_', 'sp_sk_', 'sp_ck_'][Math.floor(random() * 3)];
  for (let i = 0; i < 43; i++) out += base62[Math.floor(random() * 62)];
  return out;
}

export class Cast {
  readonly keys: SimKey[] = [];
  readonly sellers: string[] = [];
  readonly closers: string[] = [];
  /** D-62: the people of the principals (people.ts). */
  readonly people: SimPerson[] = [];

  constructor(
    private readonly service: PipelineService,
    private readonly now: () => number,
  ) {}

  static async start(
    service: PipelineService,
    store: Store,
    now: () => number,
    text: string,
    random: () => number,
    closers: readonly string[],
  ): Promise<Cast> {
    const cast = new Cast(service, now);
    const key = await service.accounts.ensureOperatorKey(text);
    cast.keys.push({ id: key.id, text, principal: OPERATOR, scopes: key.scopes, main: true });
    const sellers = 2 + Math.floor(random() * 2);
    for (let i = 0; i < sellers; i++) {
      const made = await service.run(service.accounts.createSeller(`Fictional Seller ${i + 1}`));
      if (!made.ok) throw new Error(`no Seller: ${made.refusal.message}`);
      cast.sellers.push(made.value.id);
      await cast.issue(made.value.id, undefined, true);
      // An agent's key: a Seller key with fewer scopes (D-53).
      await cast.issue(made.value.id, ['deals:read', 'deals:propose']);
      // A key that manages keys but holds fewer scopes: it may not roll a fuller key (D-75).
      await cast.issue(made.value.id, ['deals:read', 'keys:manage']);
    }
    for (const closer of closers) await cast.enrolled(closer);
    await service.keyRing?.start();
    await enrolPeople(service, store, cast, new TokenSeal(text), now, (await cast.callerOf(cast.operator)) as Caller);
    return cast;
  }

  /** A closer joined: it gets its key from the operator. */
  async enrolled(closerId: string): Promise<void> {
    if (!this.closers.includes(closerId)) this.closers.push(closerId);
    await this.issue(closerId, undefined, !this.keys.some((k) => k.principal === closerId));
  }

  get operator(): SimKey {
    return this.keys[0];
  }

  principals(): string[] {
    return [OPERATOR, ...this.sellers, ...this.closers];
  }

  /** The sellers' set, for the owners' check. */
  sellerSet(): Set<string> {
    return new Set(this.sellers);
  }

  isLive(key: SimKey): boolean {
    return !key.revoked && (key.expiresAt === undefined || key.expiresAt > this.now());
  }

  keysOf(principal: string): SimKey[] {
    return this.keys.filter((k) => k.principal === principal);
  }

  /** A key issued by the operator (no fault armed: the cast's making is not a step). */
  private async issue(principal: string, scopes: readonly string[] | undefined, main = false): Promise<void> {
    const caller = await this.callerOf(this.operator);
    const made = await this.service.run(
      this.service.accounts.createKey(
        { name: `${principal} key`, principal, ...(scopes ? { scopes } : {}) },
        caller as Caller,
      ),
    );
    if (!made.ok) throw new Error(`no key for ${principal}: ${made.refusal.message}`);
    this.learn(made.value.key, made.value.text as string, main);
  }

  learn(
    key: { id: string; principal: string; scopes: readonly KeyScope[]; expiresAt?: number },
    text: string,
    main = false,
  ): SimKey {
    const sim: SimKey = {
      id: key.id,
      text,
      principal: key.principal,
      scopes: key.scopes,
      ...(key.expiresAt !== undefined ? { expiresAt: key.expiresAt } : {}),
      ...(main ? { main } : {}),
    };
    this.keys.push(sim);
    return sim;
  }

  /** What the key ring makes of a key (undefined: refused). */
  async callerOf(key: SimKey): Promise<Caller | undefined> {
    if (!this.service.keyRing) throw new Error('the cast needs a service in keys mode');
    const found = await this.service.keyRing.authenticate(key.text);
    return found.ok ? found.caller : undefined;
  }
}
