// D-286: the handlers still running, so that a graceful shutdown closes the store only after the
// last of them. Closing the server waits for its connections, not for its handlers: a client that
// goes away mid-request (a load generator stopped, a browser tab closed) closes its connection at
// once, while its handler runs on (a sign-in's password hash, then its unit of work) and would
// find the store closed under it.
import type { FastifyInstance, RouteHandlerMethod } from 'fastify';

export interface HandlersInFlight {
  /** Settles once no handler is running (at once when none is). */
  drained(): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's handlers still running (trackHandlers). */
    handlersInFlight: HandlersInFlight;
  }
}

/**
 * Counts every route's handler (of the routes added after this) from its call until its promise
 * settles, as `app.handlersInFlight`.
 */
export function trackHandlers(app: FastifyInstance): void {
  let running = 0;
  let waiting: (() => void)[] = [];
  const settled = () => {
    running -= 1;
    if (running > 0) return;
    const wake = waiting;
    waiting = [];
    for (const resolve of wake) resolve();
  };
  app.addHook('onRoute', (route) => {
    const handler = route.handler as RouteHandlerMethod;
    route.handler = function tracked(this: FastifyInstance, request, reply) {
      const result: unknown = handler.call(this, request, reply);
      // A handler that answered synchronously has nothing left to wait for.
      if (result instanceof Promise) {
        running += 1;
        result.then(settled, settled);
      }
      return result;
    } as RouteHandlerMethod;
  });
  app.decorate('handlersInFlight', {
    drained: () => (running === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiting.push(resolve))),
  });
}
