// D-38: a known path with a method it does not serve answers 405 with `Allow`, on both surfaces;
// OPTIONS on a known path answers 204 with `Allow`. Every route is recorded as it is added;
// once all are, each path gets one hidden route for the methods it lacks, answered in onRequest,
// before any body is read (so a wrong method is 405 whatever it carries, never 400, 413 or 415).
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { errorBody } from '../views/errors.ts';
import { DEMO_ALLOWED_HEADERS } from './origin-guard.ts';

/** Every method a client may send that the framework routes. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'QUERY'] as const;

/** Headers a browser may send to the ROOT surface (read-only collections and its MCP door). */
const ROOT_ALLOWED_HEADERS = 'content-type, accept, last-event-id, mcp-protocol-version, mcp-session-id';

interface PathEntry {
  methods: Set<string>;
  surface: 'root' | 'demo';
}

export class MethodTable {
  private readonly paths = new Map<string, PathEntry>();

  /** Records every route but its own answers as it is added. */
  watch(app: FastifyInstance): void {
    app.addHook('onRoute', (route) => {
      if (!route.config?.methodAnswer) this.add(route);
    });
  }

  private add(route: RouteOptions): void {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const entry = this.paths.get(route.url) ?? { methods: new Set<string>(), surface: route.config?.surface ?? 'demo' };
    for (const method of methods) entry.methods.add(method);
    // A HEAD route is a GET's companion, even where the GET itself was not reported (Fastify
    // adds `/x/` beside a prefixed `/x` and reports only the HEAD).
    if (entry.methods.has('HEAD')) entry.methods.add('GET');
    this.paths.set(route.url, entry);
  }

  /** Registers the 405 and OPTIONS answers of every recorded path; call once all routes are added. */
  register(app: FastifyInstance): void {
    for (const [url, { methods, surface }] of [...this.paths]) {
      const allowed = [...methods];
      if (methods.has('GET') && !methods.has('HEAD')) allowed.push('HEAD');
      allowed.push('OPTIONS');
      const allow = allowed.join(', ');
      const missing = METHODS.filter((m) => !methods.has(m) && !(m === 'HEAD' && methods.has('GET')));
      const answer = async (request: FastifyRequest, reply: FastifyReply) => {
        reply.header('allow', allow);
        if (request.method === 'OPTIONS') {
          // ROOT is readable from any origin (D-29, D-49): its preflight says what a page may send.
          if (surface === 'root') {
            reply
              .header('access-control-allow-methods', allow)
              .header('access-control-allow-headers', ROOT_ALLOWED_HEADERS)
              .header('access-control-max-age', '86400');
          } else if (request.headers.origin !== undefined && request.headers['access-control-request-method']) {
            // D-49: a DEMO preflight reaches here only from the own or a listed origin (a foreign
            // one was refused 403 by src/http/origin-guard.ts, which also echoed this origin).
            reply
              .header('access-control-allow-methods', allow)
              .header('access-control-allow-headers', DEMO_ALLOWED_HEADERS)
              .header('access-control-max-age', '600');
          }
          return reply.code(204).send();
        }
        return reply
          .code(405)
          .send(
            errorBody(
              'METHOD_NOT_ALLOWED',
              `${request.method} is not allowed on ${request.url.split('?')[0]}; allowed: ${allow}.`,
            ),
          );
      };
      app.route({
        method: missing as unknown as string[],
        url,
        schema: { hide: true },
        config: { surface, methodAnswer: true },
        onRequest: answer,
        handler: answer,
      });
    }
  }
}
