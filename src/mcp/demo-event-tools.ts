// The demo's event tool (D-33, D-41): the feed of GET /events, a page at a time, for an agent
// that wants to know what changed since it last looked.
import { Type } from '@sinclair/typebox';
import { EventFeedQuery, EventSchema } from '../schemas/events.ts';
import { eventPage } from '../views/events.ts';
import { DEMO_STORE } from './demo-tool.ts';
import { defineTool, toolResult } from './tool-server.ts';

const EventPage = Type.Object({
  events: Type.Array(Type.Ref(EventSchema), { description: 'this page, in seq order' }),
  nextAfter: Type.Integer({
    minimum: 0,
    description: 'the `after` of the next page: the last seq answered, or this page’s `after` when none was',
  }),
});

const listEvents = defineTool({
  name: 'list_events',
  title: 'Demo store: list events',
  description:
    `${DEMO_STORE} the event feed (GET /events): every committed change (deal.created, deal.stage_changed, ` +
    'deal.closed, gig.posted, gig.claimed, payout.posted, demo.reset, ...) with a seq above `after` (0, the ' +
    'default, reads from the oldest kept), in seq order, at most `limit` (1 to 1000, default 100), optionally only ' +
    'one `type` or the events about one deal (`dealId`). Answers {events, nextAfter}: pass nextAfter as after to ' +
    'read on; every event comes exactly once, in order. A reset empties the feed but seq goes on increasing, so ' +
    'a saved nextAfter stays valid. A bad argument is an error result (400 INVALID_QUERY) carrying the HTTP error ' +
    'body {error, code, violations}.',
  input: EventFeedQuery,
  output: EventPage,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  argumentsAre: 'query',
  run: async ({ service }, args) =>
    toolResult(
      200,
      await eventPage(
        (filter) => service.events(filter),
        args,
        () => service.lastSeq(),
      ),
    ),
});

export const EVENT_TOOLS = [listEvents];
