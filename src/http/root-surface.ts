// The ROOT surface's routes (D-29, D-49) are readable from any origin: each gets an onSend hook
// of its own that says so, so demo routes run no onSend hook at all. The reference
// (@fastify/swagger-ui under /docs) is a ROOT surface too.
import type { FastifyInstance, onSendHookHandler } from 'fastify';

/** A callback hook: an async one costs every request a promise for nothing. */
export const allowAnyOrigin: onSendHookHandler = (_request, reply, payload, done) => {
  reply.header('access-control-allow-origin', '*');
  done(null, payload);
};

/** Marks the ROOT surface's routes as they are added (before the hooks that read the surface). */
export function markRootSurface(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (route.url === '/docs' || route.url.startsWith('/docs/')) route.config = { ...route.config, surface: 'root' };
    if (route.config?.surface !== 'root') return;
    const own = route.onSend === undefined ? [] : Array.isArray(route.onSend) ? route.onSend : [route.onSend];
    route.onSend = [...own, allowAnyOrigin];
  });
}
