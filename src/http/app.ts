// Builds the Fastify application: parsers, validation, the error catalogue, and the routes
// of each surface. Routes stay thin: parse, call the service, map the result.

import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Caller } from '../domain/access.ts';
import type { RootCatalog } from '../public/catalog.ts';
import { SHARED_SCHEMAS } from '../schemas/shared.ts';
import type { PipelineService } from '../service/pipeline-service.ts';
import { SERVICE_VERSION } from '../version.ts';
import { errorBody } from '../views/errors.ts';
import { stringify } from '../views/exact-json.ts';
import { requireKeys } from './authenticate.ts';
import { answerClientError } from './client-errors.ts';
import { ConsoleSessions } from './console-session.ts';
import { completeContract, type OpenApi } from './contract.ts';
import { BEARER_SCHEME, BEARER_SECURITY_SCHEME, declareSecurity } from './contract-security.ts';
import { answerError } from './error-handler.ts';
import type { StreamOptions } from './event-pump.ts';
import { trackHandlers } from './in-flight.ts';
import { acceptJsonOnly } from './json-body.ts';
import { logDestination } from './log-destination.ts';
import { MethodTable } from './methods.ts';
import type { Metrics } from './metrics.ts';
import { type ConnectionLimits, limitedServerFactory } from './node-server.ts';
import { operationRoutes } from './operation-routes.ts';
import { originGuard } from './origin-guard.ts';
import { registerRateLimit } from './rate-limit.ts';
import { requestId } from './request-id.ts';
import { AnswerLogController, logRequest } from './request-log.ts';
import { markRootSurface } from './root-surface.ts';
import { collectIndex } from './route-index.ts';
import { consoleRoutes } from './routes/console.ts';
import { consoleSessionRoutes } from './routes/console-session.ts';
import { eventStreamRoutes } from './routes/event-stream.ts';
import { machineRoutes } from './routes/machine.ts';
import { mcpRoutes } from './routes/mcp.ts';
import { metricsRoutes } from './routes/metrics.ts';
import { peopleSessionRoutes } from './routes/people-session.ts';
import { protectedResourceRoutes } from './routes/protected-resource.ts';
import { rootRoutes } from './routes/root.ts';
import { indexRoute } from './routes/utility.ts';
import { DEFAULT_STREAMS_PER_CLIENT, type StreamBounds, streamsInAll } from './stream-limits.ts';
import { validatorCompiler } from './validation.ts';

export const BODY_LIMIT = 64 * 1024;

/** A destination of log lines (one JSON line per call). */
export interface LogStream {
  write(line: string): void;
}

export interface AppOptions {
  service: PipelineService;
  /** D-50: `keys` holds every demo request to a key (the service's key ring); default `demo`. */
  auth?: 'demo' | 'keys';
  /** D-3: keys mode serves `/demo/reset` and `/demo/clock` only with this (DEMO_CONTROLS=on); the demo always does. */
  demoControls?: boolean;
  /** The ROOT sandbox collections (D-29). */
  catalog: RootCatalog;
  dealPrefix: string;
  logLevel?: string;
  /** D-44: timeouts and the connection cap of the Node server; unset: Node's and Fastify's own. */
  connectionLimits?: ConnectionLimits;
  /** D-44: requests per minute per address; unset: no rate limit, and no plugin at all. */
  rateLimitPerMinute?: number;
  /** Where log lines go (default stdout): tests read the request log from it. */
  logStream?: LogStream;
  /** GET /events/stream: heartbeat, poll interval and per-client buffer bound (defaults in event-pump.ts). */
  stream?: Partial<StreamOptions>;
  /** D-238: open streams per client and in all; default 50 per client, and room kept beside MAX_CONNECTIONS. */
  streamBounds?: Partial<StreamBounds>;
  /** GET /metrics and the requests it counts; unset: no such route, and nothing counted. */
  metrics?: Metrics;
  /** D-49: the `Host` names answered (`name` any port, `name:port`); unset: every host. */
  allowedHosts?: readonly string[];
  /** D-49: origins besides the service's own whose pages may write to the demo. */
  allowedOrigins?: readonly string[];
}

declare module 'fastify' {
  interface FastifyContextConfig {
    surface?: 'root' | 'demo';
    /** A hidden route of src/http/methods.ts (405 or OPTIONS), not an operation. */
    methodAnswer?: boolean;
  }
}

const routeNotFound = (request: FastifyRequest) =>
  errorBody('ROUTE_NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}; GET / lists every endpoint.`);

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { metrics } = options;
  /** Every answer: its request log line (D-38) and its count and latency (GET /metrics). */
  const answered = (request: FastifyRequest, reply: FastifyReply) => {
    // routeOptions is a getter that builds an object: read once.
    const route = request.routeOptions.url;
    if (options.logLevel) logRequest(request, reply, route);
    metrics?.answered(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
  };
  const app = Fastify({
    ...(options.connectionLimits ? { serverFactory: limitedServerFactory(options.connectionLimits) } : {}),
    // Log lines are written asynchronously (log-destination.ts).
    logger: options.logLevel
      ? {
          level: options.logLevel,
          stream: options.logStream ?? logDestination(),
        }
      : false,
    // One line per request, ours (the framework's own are two), and its count.
    logController: new AnswerLogController(answered),
    requestIdHeader: false,
    genReqId: requestId,
    bodyLimit: BODY_LIMIT,
    // A path id of any length is an unknown id (D-5), never 414: the header size limit bounds it.
    routerOptions: { maxParamLength: 65_536 },
    return503OnClosing: true,
    clientErrorHandler: answerClientError,
    // A path whose percent-encoding is malformed names nothing: 404 in the catalogue's shape
    // (D-5, D-38), never the framework's own body.
    frameworkErrors: (error, request, plainReply) => {
      const reply = plainReply as FastifyReply;
      reply.header('x-request-id', request.id);
      if (error.code === 'FST_ERR_BAD_URL') {
        const path = request.url.split('?')[0];
        reply
          .code(404)
          .send(errorBody('ROUTE_NOT_FOUND', `No route ${request.method} ${path}: its percent-encoding is malformed.`));
      } else {
        reply.code(400).send(errorBody('INVALID_BODY', `The request is malformed: ${error.message}`));
      }
      // No hook runs for these answers, so the request log's line is written here.
      answered(request, reply);
    },
  });
  // Set once the rate limit is registered (below): an unknown path counts against it too.
  let limitUnknownPath: ((request: FastifyRequest, reply: FastifyReply) => Promise<unknown>) | undefined;
  // D-286: every route's handler counted while it runs (a shutdown waits for the last of them).
  trackHandlers(app);
  const passesOrigin = originGuard({ allowedHosts: options.allowedHosts, allowedOrigins: options.allowedOrigins });
  // One hook for every request's first steps (each hook costs every request its runner's turn).
  app.addHook('onRequest', (request, reply, done) => {
    // D-38: every answer carries the request's id, and so does every log line of it.
    reply.header('x-request-id', request.id);
    // D-49: the Host and Origin rules, before any other rule or hook: a refused request is answered
    // before its body is read, counts against no rate limit and changes nothing.
    if (!passesOrigin(request, reply)) return;
    // An unknown path is 404 whatever it carries: answered here, before any body is read (as a
    // wrong method is 405), so a bad body on a path that names nothing is never 400, 413 or 415.
    if (request.is404) {
      if (limitUnknownPath === undefined) {
        reply.code(404).send(routeNotFound(request));
        return;
      }
      limitUnknownPath.call(app, request, reply).then(() => {
        if (!reply.sent) reply.code(404).send(routeNotFound(request));
      }, done);
      return;
    }
    done();
  });
  // The log controller above is told of every answer's end, which the framework listens for when
  // it has a logger or the route an onResponse hook. Without a logger (tests that count without
  // logging) this empty hook makes it listen; with one, no hook is needed.
  if (!options.logLevel && metrics) app.addHook('onResponse', (_request, _reply, done) => done());
  app.setValidatorCompiler(validatorCompiler);
  // Response schemas document the contract; the bytes come from JSON.stringify of the views.
  // (Schema-driven serialization validates every anyOf branch at run time, e.g. each staffing
  // rule and the deal-or-escalation answer, which cost more than it saved.)
  app.setSerializerCompiler(() => (data) => stringify(data));
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);

  const auth = options.auth ?? 'demo';
  // The contract is generated from the same route schemas that validate requests (D-32).
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Sales pipeline service',
        version: SERVICE_VERSION,
        description:
          'Deals through seven stages; executors only propose, one gate commits or refuses. ROOT paths are keyless, ' +
          'read-only sandbox collections; DEMO paths run the full mechanics in memory.',
      },
      tags: [
        { name: 'root', description: 'Public origin: read-only sandbox collections and machine surfaces' },
        { name: 'deals', description: `Demo deal service under ${options.dealPrefix}` },
        { name: 'proposals', description: 'What the gate refused: every refused proposal, and the summary (D-61)' },
        { name: 'marketplace', description: 'Demo closer marketplace under /closers' },
        { name: 'events', description: 'Every committed change: the feed, its live stream and webhooks' },
        { name: 'demo', description: 'Demo utilities' },
        { name: 'insights', description: "The pipeline's figures, learned from every deal's stage history (D-73)" },
        {
          name: 'ledger',
          description:
            'The books beneath the settlements: transfers, balances, refunds, payouts, statements (D-79 to D-82)',
        },
        ...(auth === 'keys' ? [{ name: 'accounts', description: 'Keys mode: Sellers and API keys' }] : []),
        ...(auth === 'keys'
          ? [{ name: 'approvals', description: "Keys mode: proposals keys' policies held, and people's decisions" }]
          : []),
        ...(auth === 'keys' ? [{ name: 'console', description: "Keys mode: the web console's sign-in" }] : []),
      ],
      // D-55: keys mode declares the bearer scheme; each operation its scopes (contract-security.ts).
      ...(auth === 'keys' ? { components: { securitySchemes: { [BEARER_SCHEME]: BEARER_SECURITY_SCHEME } } } : {}),
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  // Generated and completed on first use (after every route is registered), then kept.
  let contract: OpenApi | undefined;
  const openapi = () => {
    contract ??= completeContract(app.swagger() as unknown as OpenApi);
    return contract;
  };

  acceptJsonOnly(app);

  // What every route gets as it is added: its surface's CORS, its 405 and OPTIONS answers, its
  // index entry. Each in a hook of its own, in this order (the surface first: the others read it).
  markRootSurface(app);
  const methodTable = new MethodTable();
  methodTable.watch(app);
  const index = collectIndex(app);

  // D-50: keys mode asks every request for its key, before the rate limit (counted per key).
  // D-59: or, from the console, for its session's cookie (D-232).
  let sessions: ConsoleSessions | undefined;
  if (auth === 'keys') {
    if (!options.service.keyRing) throw new Error('keys mode needs the service made with auth: keys');
    const { keyRing } = options.service;
    sessions = new ConsoleSessions(options.service.sessions, keyRing, keyRing.clock);
    requireKeys(app, keyRing, () => limitUnknownPath, sessions);
    declareSecurity(app);
  }
  // Before any route: the plugin limits the routes registered after it.
  if (options.rateLimitPerMinute !== undefined)
    await registerRateLimit(app, options.rateLimitPerMinute, auth === 'keys');
  // An unknown path counts too (it is no route, so the plugin does not see it by itself).
  if (options.rateLimitPerMinute !== undefined) limitUnknownPath = app.rateLimit();
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(routeNotFound(request));
  });

  app.setErrorHandler(answerError);

  await app.register(indexRoute, { index });
  await app.register(rootRoutes, {
    catalog: options.catalog,
    ...(auth === 'keys' ? { service: options.service } : {}),
  });
  await app.register(machineRoutes, { dealPrefix: options.dealPrefix, openapi });
  // D-3: whether this deployment serves the demo's reset and clock (the console is told too).
  const demoControls = auth === 'demo' || options.demoControls === true;
  await app.register(operationRoutes, {
    service: options.service,
    dealPrefix: options.dealPrefix,
    auth,
    demoControls,
  });
  await app.register(eventStreamRoutes, {
    service: options.service,
    stream: options.stream,
    bounds: {
      perClient: options.streamBounds?.perClient ?? DEFAULT_STREAMS_PER_CLIENT,
      total: options.streamBounds?.total ?? streamsInAll(options.connectionLimits?.maxConnections ?? 10_000),
    },
    ...(sessions ? { live: (caller: Caller) => (sessions as ConsoleSessions).callerLive(caller) } : {}),
  });
  await app.register(consoleRoutes, { dealPrefix: options.dealPrefix, auth, demoControls });
  if (sessions) {
    await app.register(consoleSessionRoutes, { service: options.service, sessions });
    await app.register(peopleSessionRoutes, { service: options.service });
  }
  if (metrics) await app.register(metricsRoutes, { metrics });
  await app.register(mcpRoutes, { service: options.service, catalog: options.catalog, dealPrefix: options.dealPrefix });
  if (auth === 'keys') await app.register(protectedResourceRoutes); // D-224: the MCP door's RFC 9728 metadata
  // The reference at /docs: Swagger UI from node_modules, reading the served contract.
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { url: '/openapi.json', validatorUrl: null, deepLinking: true } as never,
    staticCSP: true,
  });
  methodTable.register(app);
  return app;
}
