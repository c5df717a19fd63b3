// Keys mode's cast for the simulation (D-51, D-52): the operator, a few Sellers and the closers,
// each with keys made through the service's accounts and known to the simulation by their text,
// whether they were revoked and when they expire. Every command's caller is what the key ring
// makes of one of these keys, so a key the simulation believes dead must be refused there. The
// people of the principals (D-62) are enrolled here too, each invitation accepted with the token
// drawn from the mail outbox as the mail worker would draw it; their steps are people.ts's.
// Keys' policies (D-68): each Seller's agent key mostly has one, and its admin makes a second
// agent key with one, which may also sell, decide approvals and manage keys: the key that may
// not approve what it proposed, whose maker may not either (D-70), and that may not make or set a
// policy looser than its own.
import { createHash } from 'node:crypto';
import { type Caller, type KeyScope, OPERATOR } from '../domain/access.ts';
import type { KeyPolicy } from '../domain/policy.ts';
import type { UserRole } from '../domain/users.ts';
import type { PipelineService } from '../service/pipeline-service.ts';
import { TokenSeal } from '../service/token-seal.ts';
import type { Store } from '../store/store.ts';
import { randomPolicy } from './policies.ts';
import type { Dice } from './random.ts';

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
  /** D-68: the key's policy as the simulation set it (absent: none). */
  policy?: KeyPolicy;
  /** D-66: the person who made the key, who may not decide what it proposes (D-70). */
  createdBy?: string;
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

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

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
    dice: Dice,
    closers: readonly string[],
  ): Promise<Cast> {
    const cast = new Cast(service, now);
    const key = await service.accounts.ensureOperatorKey(text);
    cast.keys.push({ id: key.id, text, principal: OPERATOR, scopes: key.scopes, main: true });
    const sellers = 2 + Math.floor(dice.random() * 2);
    for (let i = 0; i < sellers; i++) {
      const made = await service.run(service.accounts.createSeller(`Fictional Seller ${i + 1}`));
      if (!made.ok) throw new Error(`no Seller: ${made.refusal.message}`);
      cast.sellers.push(made.value.id);
      await cast.issue(made.value.id, undefined, true);
      // An agent's key: a Seller key with fewer scopes (D-53), mostly bound by a policy (D-68).
      const policy = dice.chance(0.8) ? randomPolicy(dice) : undefined;
      await cast.issue(made.value.id, ['deals:read', 'deals:propose'], false, policy);
      // A key that manages keys but holds fewer scopes: it may not roll a fuller key (D-75).
      await cast.issue(made.value.id, ['deals:read', 'keys:manage']);
    }
    for (const closer of closers) await cast.enrolled(closer);
    await service.keyRing?.start();
    await enrolPeople(service, store, cast, new TokenSeal(text), now, (await cast.callerOf(cast.operator)) as Caller);
    for (const seller of cast.sellers) await cast.boundedAgent(seller, randomPolicy(dice));
    return cast;
  }

  /**
   * The Seller's admin makes an agent key bound by `policy` that may also sell, decide approvals
   * and manage keys (D-66: the key names its maker).
   */
  private async boundedAgent(seller: string, policy: KeyPolicy): Promise<void> {
    const ring = this.service.keyRing;
    const admin = this.people.find((p) => p.principal === seller && p.role === 'admin');
    const session = admin?.session === undefined ? undefined : await ring?.findSession(sha256(admin.session));
    const user = session?.userId === undefined ? undefined : await ring?.findUser(session.userId);
    if (!ring || !session || !user) throw new Error(`no admin of ${seller} to make its bounded agent`);
    const caller: Caller = { ...ring.callerOfUser(user), sessionId: session.id };
    const scopes: KeyScope[] = ['deals:read', 'deals:write', 'deals:propose', 'approvals:decide', 'keys:manage'];
    const made = await this.service.run(
      this.service.accounts.createKey({ name: `${seller} bounded agent`, principal: seller, scopes, policy }, caller),
    );
    if (!made.ok) throw new Error(`no bounded agent for ${seller}: ${made.refusal.message}`);
    this.learn(made.value.key, made.value.text as string);
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
  private async issue(
    principal: string,
    scopes: readonly string[] | undefined,
    main = false,
    policy?: KeyPolicy,
  ): Promise<void> {
    const caller = await this.callerOf(this.operator);
    const made = await this.service.run(
      this.service.accounts.createKey(
        { name: `${principal} key`, principal, ...(scopes ? { scopes } : {}), ...(policy ? { policy } : {}) },
        caller as Caller,
      ),
    );
    if (!made.ok) throw new Error(`no key for ${principal}: ${made.refusal.message}`);
    this.learn(made.value.key, made.value.text as string, main);
  }

  /** A key the service made, as the simulation knows it from then on (its policy and maker too). */
  learn(
    key: {
      id: string;
      principal: string;
      scopes: readonly KeyScope[];
      expiresAt?: number;
      policy?: KeyPolicy;
      createdBy?: string;
    },
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
      ...(key.policy !== undefined ? { policy: key.policy } : {}),
      ...(key.createdBy !== undefined ? { createdBy: key.createdBy } : {}),
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
