// Builds the Fastify application: parsers, validation, the error catalogue, and the routes
// of each surface. Routes stay thin: parse, call the service, map the result.
import swagger from '@fastify/swagger';
import Fastify, { type FastifyError, type FastifyInstance, LogController, type onSendHookHandler } from 'fastify';
import type { RootCatalog } from '../root/catalog.ts';
import type { PipelineService } from '../service/pipeline-service.ts';
import { TRANSPORT_ERRORS, transportError } from './errors.ts';
import { dealRoutes } from './routes/deals.ts';
import { machineRoutes } from './routes/machine.ts';
import { marketplaceRoutes } from './routes/marketplace.ts';
import { mcpRoutes } from './routes/mcp.ts';
import { rootRoutes } from './routes/root.ts';
import { SERVICE_VERSION, utilityRoutes } from './routes/utility.ts';
import { ErrorSchema } from './schemas/common.ts';
import { DealSchema, MandateSchema, SettlementSchema } from './schemas/deal.ts';
import { CloserSchema, EscalationSchema, GigSchema } from './schemas/marketplace.ts';
import {
  BlockedEnvelope,
  DealEnvelope,
  DealsEnvelope,
  EmptyEnvelope,
  GigsEnvelope,
  OfferEnvelope,
} from './schemas/root.ts';
import { describeViolations, validatorCompiler } from './validation.ts';

export const BODY_LIMIT = 64 * 1024;
const NULL_BODY = 'body: must be a JSON object';

export interface AppOptions {
  service: PipelineService;
  /** The ROOT sandbox collections (D-29). */
  catalog: RootCatalog;
  dealPrefix: string;
  logLevel?: string;
}

export interface IndexEntry {
  method: string;
  path: string;
  surface: 'root' | 'demo';
  summary: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    surface?: 'root' | 'demo';
  }
}

/** A callback hook: an async one costs every request a promise for nothing. */
const allowAnyOrigin: onSendHookHandler = (_request, reply, payload, done) => {
  reply.header('access-control-allow-origin', '*');
  done(null, payload);
};

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logLevel ? { level: options.logLevel } : false,
    // One log line per request costs throughput and says little here; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    return503OnClosing: true,
  });
  app.setValidatorCompiler(validatorCompiler);
  // Response schemas document the contract; the bytes come from JSON.stringify of the views.
  // (Schema-driven serialization validates every anyOf branch at run time, e.g. each staffing
  // rule and the deal-or-escalation answer, which cost more than it saved.)
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  const shared = [ErrorSchema, MandateSchema, DealSchema, SettlementSchema, CloserSchema, GigSchema, EscalationSchema];
  const envelopes = [EmptyEnvelope, BlockedEnvelope, DealsEnvelope, DealEnvelope, GigsEnvelope, OfferEnvelope];
  for (const schema of [...shared, ...envelopes]) app.addSchema(schema);

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
        { name: 'marketplace', description: 'Demo closer marketplace under /closers' },
        { name: 'demo', description: 'Demo utilities' },
      ],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  // Generated on first use (after every route is registered); routes/machine.ts keeps it.
  const openapi = () => app.swagger() as never;

  // JSON only; an empty body is "no body" (so a bare POST works where the body is optional).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text as string);
    } catch (error) {
      // Checked only here, where JSON.parse has already refused it: most bodies are not blank.
      if ((text as string).trim() === '') return done(null, undefined);
      const problem = error instanceof Error ? error.message : String(error);
      done(
        Object.assign(new Error(`The body is not valid JSON: ${problem}`), { statusCode: 400, code: 'INVALID_JSON' }),
        undefined,
      );
      return;
    }
    // Fastify hands an absent body to the validator as null, so a JSON `null` would pass where the
    // body is optional: refuse it here, as any other body that is not an object (D-5).
    if (parsed === null) {
      done(Object.assign(new Error(NULL_BODY), { statusCode: 400, code: 'INVALID_BODY' }), undefined);
      return;
    }
    done(null, parsed);
  });

  const index: IndexEntry[] = [];
  app.addHook('onRoute', (route) => {
    // ROOT reads may come from any origin. The hook is the route's own, so demo routes run
    // no onSend hook at all.
    if (route.config?.surface === 'root') {
      const own = route.onSend === undefined ? [] : Array.isArray(route.onSend) ? route.onSend : [route.onSend];
      route.onSend = [...own, allowAnyOrigin];
    }
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if ((route.schema as { hide?: boolean } | undefined)?.hide) return;
    for (const method of methods) {
      if (method === 'HEAD') continue;
      index.push({
        method,
        path: route.url.replace(/:([A-Za-z]+)/g, '{$1}'),
        surface: route.config?.surface ?? 'demo',
        summary: String((route.schema as { summary?: string } | undefined)?.summary ?? ''),
      });
    }
  });

  app.setNotFoundHandler((request, reply) => {
    reply
      .code(404)
      .send(
        transportError(
          'ROUTE_NOT_FOUND',
          `No route ${request.method} ${request.url.split('?')[0]}; GET / lists every endpoint.`,
        ),
      );
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error.validation) {
      const part = error.validationContext ?? 'body';
      const code = part === 'querystring' ? 'INVALID_QUERY' : part === 'params' ? 'INVALID_PARAMS' : 'INVALID_BODY';
      const violations = describeViolations(error.validation as never, part);
      return reply
        .code(400)
        .send(transportError(code, `${TRANSPORT_ERRORS[code].message} ${violations.join('; ')}`, violations));
    }
    switch (error.code) {
      case 'INVALID_JSON':
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        return reply.code(400).send(transportError('INVALID_JSON', error.message, [error.message]));
      case 'INVALID_BODY':
        return reply
          .code(400)
          .send(transportError('INVALID_BODY', `${TRANSPORT_ERRORS.INVALID_BODY.message} ${NULL_BODY}`, [NULL_BODY]));
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return reply.code(400).send(transportError('INVALID_BODY', 'The body is empty.', ['body: is required']));
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return reply.code(413).send(transportError('BODY_TOO_LARGE'));
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return reply.code(415).send(transportError('UNSUPPORTED_MEDIA_TYPE'));
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply.code(status).send({ error: error.message, code: error.code ?? 'BAD_REQUEST' });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send(transportError('INTERNAL'));
  });

  await app.register(utilityRoutes, { service: options.service, index });
  await app.register(rootRoutes, { catalog: options.catalog });
  await app.register(machineRoutes, { dealPrefix: options.dealPrefix, openapi });
  await app.register(dealRoutes, { service: options.service, prefix: options.dealPrefix });
  await app.register(marketplaceRoutes, { service: options.service, prefix: '/closers' });
  await app.register(mcpRoutes, { service: options.service, catalog: options.catalog });
  return app;
}
