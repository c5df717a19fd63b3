// Keys mode's event streams in the simulation (D-41, D-58, D-76). No HTTP: a stream is a
// subscriber opened with a principal's key as the door would open it (the key authenticated,
// `events:read` or `admin` asked of it), that the simulation feeds after every step with the
// feed's new events as the pump (src/http/event-pump.ts) writes them: first the pump's gate,
// `stands`, asked with what the key ring knows (a stream whose credential no longer stands is
// ended and sent nothing), then every event its principal's filter matches (a stream opened
// behind the feed's end first catches up by reading the feed as its caller, as the pump's
// catch-up does). Each stream is held to what the simulation itself knows of its key: no event
// is delivered once the key is dead (revoked, expired, rolled past its grace), a stream is not
// ended while its key lives, and nothing delivered is another tenant's.
import { type Caller, visibilityOf } from '../domain/access.ts';
import { authorize } from '../domain/authorization.ts';
import { eventDealId } from '../domain/public-events.ts';
import { matches, stands } from '../http/stream-client.ts';
import { fail, ok } from '../service/result.ts';
import type { StoredEvent } from '../store/store.ts';
import { asRefusal, authenticated } from './door.ts';
import type { Cast, SimKey } from './principals.ts';
import { leaks, type Tenancy } from './tenancy.ts';
import type { SimStream, World } from './world.ts';

/** Streams open at once in an episode: opening one more closes the oldest (its client left). */
const OPEN_AT_MOST = 6;
/** What GET /events/stream asks of a key (D-58, D-216). */
const STREAM_ACCESS = ['events:read', 'admin'] as const;

const dealIdOf = ({ event }: StoredEvent) => eventDealId(event);

/**
 * A stream opened with a random key: mostly a live one that may stream and may be ended (not a
 * principal's first), now and then any (a dead one refused, one without the scope refused).
 */
export async function openStream(world: World): Promise<unknown> {
  const { chance, pick, random } = world.dice;
  const cast = world.cast as Cast;
  const tally = world.tally;
  const endable = cast.keys.filter(
    (k) => !k.main && cast.isLive(k) && STREAM_ACCESS.some((scope) => k.scopes.includes(scope)),
  );
  const key = ((chance(0.85) ? pick(endable) : undefined) ?? pick(cast.keys)) as SimKey;
  world.sent = ` streamEvents with ${key.id} of ${key.principal}`;
  const decided = authorize({ kind: 'key', caller: await authenticated(world, key) }, STREAM_ACCESS);
  if (!decided.ok) {
    if (decided.denial.status === 401) tally.refusedKeys++;
    else tally.refusedScopes++;
    return fail(asRefusal(decided.denial));
  }
  const caller = decided.caller;
  const open = world.streams.filter((s) => s.open);
  if (open.length >= OPEN_AT_MOST) (open[0] as SimStream).open = false;
  const last = await world.store.lastSeq();
  // Now and then from an earlier seq (a client resuming with Last-Event-ID): it catches up first.
  const after = chance(0.3) ? Math.floor(random() * (last + 1)) : last;
  world.streams.push({
    key,
    caller,
    filter: { visibility: visibilityOf(caller) },
    cursor: after,
    catchingUp: after < last,
    open: true,
  });
  tally.streamsOpened++;
  return ok({ streaming: key.id });
}

/**
 * Feeds every open stream the feed's new events, as the pump would after the step: gated by
 * `stands` with the key ring's answer (what the app's `callerLive` asks of a key: it is held and
 * live now), then the events its filter matches. `state` is the state after the step, the
 * tenancy the delivered events are held to.
 */
export async function feedStreams(world: World, state: Tenancy): Promise<void> {
  const cast = world.cast;
  const ring = world.service.keyRing;
  if (!cast || !ring || world.streams.length === 0) return;
  const live = (caller: Caller) => ring.stands(caller.keyId);
  const tally = world.tally;
  const newest = await world.store.lastSeq();
  for (const stream of world.streams) {
    if (!stream.open) continue;
    const { key } = stream;
    const keyLives = cast.isLive(key);
    if (!stands(stream, live)) {
      stream.open = false;
      tally.streamsEnded++;
      if (keyLives)
        world.found.push({
          invariant: 'keys',
          message: `the stream of ${key.id} of ${key.principal} was ended while its key is live`,
          ids: [key.id],
        });
      continue;
    }
    if (stream.cursor >= newest) continue;
    const all = Number.MAX_SAFE_INTEGER;
    const delivered = stream.catchingUp
      ? await world.service.queries.events({ after: stream.cursor, limit: all }, stream.caller)
      : (await world.store.events({ after: stream.cursor, limit: all })).filter((stored) =>
          matches(stream.filter, stored, dealIdOf),
        );
    stream.catchingUp = false;
    stream.cursor = Math.max(stream.cursor, newest, delivered.at(-1)?.seq ?? 0);
    if (delivered.length === 0) continue;
    tally.streamEvents += delivered.length;
    if (!keyLives)
      world.found.push({
        invariant: 'keys',
        message:
          `the stream of ${key.id} of ${key.principal} (${key.revoked ? 'revoked' : `expired ${new Date(key.expiresAt as number).toISOString()}`}) ` +
          `was sent events ${delivered.map((s) => s.seq).join(', ')} at ${new Date(world.machine).toISOString()}`,
        ids: [key.id],
      });
    world.found.push(...leaks(delivered, stream.caller, state, `the stream of ${key.id}`));
  }
}
