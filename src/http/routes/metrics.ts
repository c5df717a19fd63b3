// GET /metrics: the instance's metrics in Prometheus's text format (src/http/metrics.ts), for a
// scraper. Operational, like /console: not part of the API contract; docs/api.md lists what it
// carries.
import type { FastifyPluginAsync } from 'fastify';
import type { Metrics } from '../metrics.ts';

export const metricsRoutes: FastifyPluginAsync<{ metrics: Metrics }> = async (app, { metrics }) => {
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    const text = await metrics.text();
    return reply.header('cache-control', 'no-store').type(metrics.contentType).send(text);
  });
};
