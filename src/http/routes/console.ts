// The web console (D-43) at /console: the page (no-cache, with an ETag: it names the current
// assets) and its content-hashed assets (immutable for a year). The console speaks only the
// public API and the event stream; these routes serve files and nothing else.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { consoleAssets } from '../../console/assets.ts';
import { errorBody } from '../../views/errors.ts';

export const consoleRoutes: FastifyPluginAsync<{
  dealPrefix: string;
  auth?: 'demo' | 'keys';
  /** D-3: whether the deployment serves the demo's reset and clock (the page shows them only then). */
  demoControls?: boolean;
}> = async (app, { dealPrefix, auth = 'demo', demoControls = auth === 'demo' }) => {
  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    // D-59: the page says the mode (keys mode signs in first, D-235), and D-3 whether the demo's
    // controls are served.
    const { html, etag } = (await consoleAssets()).page(dealPrefix, auth, demoControls);
    reply.header('cache-control', 'no-cache').header('etag', etag);
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.type('text/html; charset=utf-8').send(html);
  };
  const hidden = { schema: { hide: true } };
  app.get('/console', hidden, page);
  app.get('/console/', hidden, page);
  app.get<{ Params: { name: string } }>('/console/assets/:name', hidden, async (request, reply) => {
    const file = (await consoleAssets()).files.get(request.params.name);
    if (!file) return reply.code(404).send(errorBody('ROUTE_NOT_FOUND', `No console asset ${request.params.name}.`));
    return reply
      .header('cache-control', 'public, max-age=31536000, immutable')
      .type(file.type)
      .send(Buffer.from(file.bytes));
  });
};
