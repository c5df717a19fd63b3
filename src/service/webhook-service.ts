// Subscriptions to the events (D-42): create, list, read, delete, and the attempts made. Each
// write is a unit command (run by execute.ts, so it is keyed and notifies like any other); the
// deliveries themselves are the worker's (webhooks/worker.ts).
import { randomBytes } from 'node:crypto';
import { type Caller, seesAll } from '../domain/access.ts';
import type { PublicEventType } from '../domain/public-events.ts';
import { refuse } from '../domain/refusal.ts';
import { couldBeWebhookId, formatWebhookId, type Webhook } from '../domain/webhooks.ts';
import type { Store, UnitOfWork } from '../store/store.ts';
import type { WebhookAttempt } from '../store/webhooks.ts';
import { as } from './queries.ts';
import { fail, ok, RefusedError, type Result } from './result.ts';
import type { UnitCommand } from './unit-command.ts';
import { checkWebhookUrl } from './webhooks/url-check.ts';

const webhookNotFound = (id: string) => refuse.notFound('WEBHOOK_NOT_FOUND', `No webhook ${id.slice(0, 64)}.`);

export class WebhookService {
  constructor(
    private readonly store: Store,
    /** Machine time: webhook times are never on the demo clock. */
    private readonly clock: { now(): number },
    private readonly allowPrivate: boolean,
  ) {}

  /**
   * Subscribes a url to the events published from now on (of `types`, or all). The url is
   * checked before the unit of work (a DNS lookup holds no transaction); its refusal is thrown
   * inside it, so that a keyed request stores it like any other answer.
   */
  async create(
    input: { url: string; types?: readonly PublicEventType[] },
    owner?: string,
  ): Promise<UnitCommand<Webhook>> {
    const refusal = await checkWebhookUrl(input.url, this.allowPrivate);
    // What was committed before this request enters the feed first (on PostgreSQL the sequencer
    // otherwise runs up to 100 ms after a commit), so that afterSeq is above it (D-156).
    if (!refusal) await this.store.lastSeq();
    const work = async (uow: UnitOfWork) => {
      if (refusal) throw new RefusedError(refusal);
      // The dispatcher's cursor is held first: no event above afterSeq can be dispatched
      // before this webhook is committed (and so seen by the dispatcher).
      const [number, , afterSeq] = await Promise.all([
        uow.webhooks.takeNumber(),
        uow.webhooks.holdCursor(),
        uow.webhooks.feedLastSeq(),
      ]);
      const hook: Webhook = {
        id: formatWebhookId(number),
        url: input.url,
        secret: `whsec_${randomBytes(24).toString('base64')}`,
        createdAt: this.clock.now(),
        afterSeq,
      };
      if (input.types !== undefined) hook.types = [...new Set(input.types)];
      if (owner !== undefined) hook.owner = owner;
      await uow.webhooks.put(hook);
      return hook;
    };
    return { work };
  }

  /** The webhooks the caller may see (D-58): its principal's own; every one for the operator. */
  async list(caller?: Caller): Promise<Webhook[]> {
    const hooks = await this.store.read((reader) => reader.webhooks.list(), as(caller));
    return seesAll(caller) ? hooks : hooks.filter((hook) => ownedBy(hook, caller));
  }

  async get(id: string, caller?: Caller): Promise<Result<Webhook>> {
    const hook = couldBeWebhookId(id)
      ? await this.store.read((reader) => reader.webhooks.get(id), as(caller))
      : undefined;
    return hook && ownedBy(hook, caller) ? ok(hook) : fail(webhookNotFound(id));
  }

  /** Deletes a webhook: nothing more is delivered to it, its pending deliveries are dropped. */
  delete(id: string, caller?: Caller): UnitCommand<true> {
    return {
      work: async (uow) => {
        const hook = couldBeWebhookId(id) ? await uow.webhooks.get(id) : undefined;
        if (!hook || !ownedBy(hook, caller) || !(await uow.webhooks.delete(id)))
          throw new RefusedError(webhookNotFound(id));
        return true as const;
      },
    };
  }

  /** The last `limit` delivery attempts of a webhook, oldest first. */
  async attempts(id: string, limit: number, caller?: Caller): Promise<Result<WebhookAttempt[]>> {
    if (!couldBeWebhookId(id)) return fail(webhookNotFound(id));
    return this.store.read(async (reader) => {
      const [hook, attempts] = await Promise.all([reader.webhooks.get(id), reader.webhooks.attempts(id, limit)]);
      return hook && ownedBy(hook, caller) ? ok(attempts) : fail(webhookNotFound(id));
    }, as(caller));
  }
}

/** D-58: a webhook is its maker's; the operator (and the demo) sees every one. */
const ownedBy = (hook: Webhook, caller: Caller | undefined): boolean =>
  seesAll(caller) || hook.owner === caller?.principal;
