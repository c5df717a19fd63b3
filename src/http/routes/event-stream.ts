// The live event stream (D-41): GET /events/stream is the feed of GET /events as Server-Sent
// Events (`id:` the seq, `event:` the type, `data:` the event's JSON), resumable with
// `Last-Event-ID` (which wins over `?after=`) and kept alive by a comment every 15 s. One pump
// per app writes every new event to every client (src/http/event-pump.ts).
//
// @fastify/sse is used for what fits: the route needs no Accept negotiation (kind 'manual': its
// 'only' kind answers 406 in a body outside the error catalogue), the plugin commits the SSE
// headers (with those set on the reply, such as x-request-id), and reports the end of the
// connection. The frames themselves are written to the response by the pump, not with
// reply.sse.send(): send() formats every message per client (the pump serializes an event once
// for all of them) and waits for 'drain' on a slow socket, which would queue the messages of a
// client that never reads in memory without bound (the pump ends such a client instead). The
// plugin's heartbeat is off for the same reason: the pump's own heartbeat respects the bound.
import { fastifySSE } from '@fastify/sse';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { type Caller, visibilityOf } from '../../domain/access.ts';
import { eventDealId } from '../../domain/public-events.ts';
import { errorResponses } from '../../schemas/common.ts';
import { EventStreamHeaders, EventStreamQuery } from '../../schemas/events.ts';
import type { PipelineService } from '../../service/pipeline-service.ts';
import { errorBody } from '../../views/errors.ts';
import { DEFAULT_STREAM_OPTIONS, EventPump, type StreamOptions } from '../event-pump.ts';
import { type StreamBounds, StreamLimits } from '../stream-limits.ts';

export interface EventStreamOptions {
  service: PipelineService;
  stream?: Partial<StreamOptions>;
  /** D-238: the bounds on open streams. */
  bounds: StreamBounds;
  /**
   * D-76: whether a stream's caller's credential (its key, its console session) still stands;
   * a stream whose credential ended is closed and sent nothing more. Keys mode only.
   */
  live?: (caller: Caller) => boolean;
}

const STREAM_DESCRIPTION =
  'The feed of `GET /events` as Server-Sent Events: one message per event, `id:` its seq, `event:` its type, ' +
  '`data:` the event as JSON (as in the feed), in seq order, live. Resume with a `Last-Event-ID` header (the `id:` ' +
  'of the last event received; it wins over `?after=`) or `?after=`: the events after it come exactly once, ' +
  'including those written while away; with neither, the stream starts from the oldest kept event. A comment ' +
  '(`: heartbeat`) comes at least every 15 s. A reset empties the feed but seq goes on increasing (a cursor stays ' +
  'valid) and `demo.reset` is the first event after it. A client that leaves more than 1 MiB unread is ' +
  'disconnected (reconnect with `Last-Event-ID`). A bad `after`, `type` or `Last-Event-ID` is answered 400 in JSON ' +
  "before any stream starts. Streams are bounded (429 TOO_MANY_STREAMS): per client (the key's principal; the " +
  'address when keys are off) and in all. In keys mode a key sees only the events its principal may see (a Seller ' +
  'those of its deals; a closer the postings and those about itself; everyone a reset and an enrolment), and `seq` ' +
  "stays global, so a view has gaps. A stream lives no longer than its credential: within 5 s of its key's " +
  "revocation or expiry (a rolled key's grace end) or its console session's end, it ends and is sent nothing more.";

export const eventStreamRoutes: FastifyPluginAsync<EventStreamOptions> = async (
  app,
  { service, stream, bounds, live },
) => {
  const options = { ...DEFAULT_STREAM_OPTIONS, ...stream };
  const limits = new StreamLimits(bounds);
  // D-76: each write asks whether the stream's credential still stands (keys mode).
  const pump = new EventPump(service, options, app.log, ({ event }) => eventDealId(event), live);
  // Streams are ended before the server closes, so that closing never waits for a client.
  app.addHook('preClose', async () => {
    await pump.close();
  });
  await app.register(fastifySSE, { heartbeatInterval: 0 });

  app.get(
    '/events/stream',
    {
      // D-58: as GET /events, each principal sees only what it may.
      config: { access: ['events:read', 'admin'] },
      sse: { kind: 'manual', heartbeat: false },
      schema: {
        summary: 'The event feed, live, as Server-Sent Events',
        description: STREAM_DESCRIPTION,
        operationId: 'streamEvents',
        tags: ['events'],
        querystring: EventStreamQuery,
        headers: EventStreamHeaders,
        response: {
          200: {
            description:
              'An event stream (`text/event-stream`) that stays open: `id: <seq>`, `event: <type>`, `data: <event JSON>` per event, and `: heartbeat` comments',
            content: {
              'text/event-stream': {
                schema: Type.String({
                  description: 'Server-Sent Events: one message per event of the feed',
                  examples: [
                    'id: 42\nevent: deal.stage_changed\ndata: {"id":"evt_42","seq":42,"type":"deal.stage_changed","at":"2026-01-05T09:00:00.000Z","data":{"dealId":"deal_0001","from":"proposal","to":"negotiation","by":"agent"}}\n\n',
                  ],
                }),
              },
            },
          },
          ...errorResponses(400, 429),
        },
      },
    },
    async (
      request: FastifyRequest<{
        Querystring: Static<typeof EventStreamQuery>;
        Headers: Static<typeof EventStreamHeaders>;
      }>,
      reply: FastifyReply,
    ) => {
      const { after = 0, type, dealId } = request.query;
      const lastEventId = request.headers['last-event-id'];
      const cursor = lastEventId === undefined ? after : Number(lastEventId);
      if (request.method === 'HEAD') {
        // The headers alone, and done (the plugin ends the response when the handler returns).
        reply.sse.sendHeaders(200);
        return;
      }
      const { caller } = request;
      const place = limits.take(caller?.principal ?? request.ip);
      if (!place.ok) {
        const { bound, limit } = place.refusal;
        if (bound === 'total') reply.header('retry-after', '30');
        return reply.code(429).send({
          ...errorBody(
            'TOO_MANY_STREAMS',
            bound === 'client'
              ? `This ${caller ? "key's principal" : 'address'} already holds ${limit} open event streams: close one first.`
              : `The service holds as many event streams as it has room for (${limit}): retry later.`,
          ),
          limit,
        });
      }
      reply.raw.once('close', place.release);
      reply.sse.keepAlive();
      reply.sse.sendHeaders(200);
      // The headers go now, not with the first event, which may be long in coming.
      reply.raw.write(`: events after ${cursor}\n\n`);
      await pump.add(reply.raw, { type, dealId, visibility: visibilityOf(caller) }, cursor, request.id, caller);
    },
  );
};
