// The HTTP door of the table of operations (src/operations/table.ts): one Fastify route per
// operation, its schema (and so the contract) and its handler made from the declaration. What
// a caller sends beside the body (an Idempotency-Key, ?dryRun, If-Match) is read here and
// handed to the run the MCP door hands it to (src/operations/run.ts).

import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { IfMatch } from '../domain/version.ts';
import type { Call, Operation, PageOperation, ReadOperation, WriteOperation } from '../operations/operation.ts';
import { pathOf, served } from '../operations/operation.ts';
import { modeOf, readListPage, renderings, runWrite } from '../operations/run.ts';
import { OPERATIONS } from '../operations/table.ts';
import { errorResponses, IdParams, IfMatchHeaders, NoQuery } from '../schemas/common.ts';
import { DryRunQuery, DryRunSchema } from '../schemas/dry-run.ts';
import type { Execution, Rendering } from '../service/execute.ts';
import type { PipelineService } from '../service/pipeline-service.ts';
import { RefusedError } from '../service/result.ts';
import { type Answer, writeAnswers } from '../views/answers.ts';
import { errorBody, refusalBody, statusOf } from '../views/errors.ts';
import { servedOverHttps } from './console-session.ts';
import { csvPages, sendCsvOf, wantsCsv } from './csv-export.ts';
import { checkIdempotencyKey, idempotencyKeyOf } from './idempotency-key.ts';
import { nextUrl } from './paging.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

type Request = FastifyRequest<{
  Params: { id?: string };
  Querystring: Record<string, unknown>;
  Body: unknown;
}>;

/**
 * D-47: the If-Match of a write on a deal or its gigs (its schema has checked the form: one
 * quoted version or `*`); other writes have no version to hold and never read it.
 */
function ifMatchOf(request: Request): IfMatch | undefined {
  const value = request.headers['if-match'];
  if (typeof value !== 'string') return undefined;
  return value === '*' ? '*' : Number(value.slice(1, -1));
}

function callOf(request: Request, op: Operation): Call {
  const call: Call = { id: request.params?.id ?? '', body: request.body, query: request.query ?? {} };
  if (request.caller !== undefined) call.caller = request.caller;
  if (op.kind === 'write' && op.origin) call.origin = requestOrigin(request);
  if (op.kind === 'write' && op.ifMatch) {
    const ifMatch = ifMatchOf(request);
    if (ifMatch !== undefined) call.ifMatch = ifMatch;
  }
  return call;
}

/** The origin the request was made to, as its page would call it (behind a TLS proxy too). */
function requestOrigin(request: Request): string {
  return `${servedOverHttps(request) ? 'https' : 'http'}://${request.host}`;
}

function send(reply: FastifyReply, answer: Answer) {
  if (answer.location !== undefined) reply.header('location', answer.location);
  if (answer.etag !== undefined) reply.header('etag', answer.etag);
  return reply.code(answer.status).send(answer.body);
}

/** Sends what a write's run answered. */
function sendExecution(reply: FastifyReply, execution: Execution) {
  switch (execution.kind) {
    case 'dry':
      return send(reply, execution.answer);
    case 'reused':
      return reply
        .code(422)
        .send(
          errorBody(
            'IDEMPOTENCY_KEY_REUSED',
            `Idempotency-Key ${execution.key} was used with another method, path or body; use a new key for a new request.`,
          ),
        );
    case 'unrecoverable':
      return reply.code(409).send(errorBody('KEY_NOT_RECOVERABLE', unrecoverable(execution.key)));
    case 'answered':
      if (execution.stored === undefined) return send(reply, execution.answer);
      return sendBytes(reply, execution.stored);
    case 'replayed':
      reply.header('idempotent-replayed', 'true');
      return sendBytes(reply, execution.answer);
  }
}

/** D-251: why a keyed key's answer cannot be given again. */
export const unrecoverable = (key: string) =>
  `Idempotency-Key ${key} made a key that cannot be shown again: OPERATOR_KEY changed since. Revoke that key (GET /keys lists it) and issue another.`;

/** A stored answer: its very bytes, fresh or replayed. */
function sendBytes(reply: FastifyReply, answer: { status: number; body: string; location?: string; etag?: string }) {
  if (answer.location !== undefined) reply.header('location', answer.location);
  if (answer.etag !== undefined) reply.header('etag', answer.etag);
  return reply.code(answer.status).type(JSON_TYPE).send(answer.body);
}

function writeHandler(service: PipelineService, op: WriteOperation, rendering: Rendering<unknown>) {
  return async (request: Request, reply: FastifyReply) => {
    const call = callOf(request, op);
    const mode = modeOf(
      op,
      call,
      op.idempotent ? idempotencyKeyOf(request) : undefined,
      request.query?.dryRun === true,
    );
    return sendExecution(reply, await runWrite(service, op, call, mode, rendering));
  };
}

function readHandler(service: PipelineService, op: ReadOperation) {
  return async (request: Request, reply: FastifyReply) => {
    if (op.csv !== undefined) reply.header('vary', 'Accept');
    const result = await op.read(service, callOf(request, op));
    if (!result.ok) return reply.code(statusOf(result.refusal)).send(refusalBody(result.refusal));
    if (wantsCsv(request, op)) return sendCsvOf(reply, op, op.view(result.value));
    if (op.etag) reply.header('etag', op.etag(result.value));
    if (op.json) return reply.type(JSON_TYPE).send(op.json(result.value));
    return op.view(result.value);
  };
}

function pageHandler(service: PipelineService, op: PageOperation) {
  return async (request: Request, reply: FastifyReply) => {
    // D-74: the answer depends on Accept where the list has a CSV form.
    if (op.csv !== undefined) reply.header('vary', 'Accept');
    const csv = wantsCsv(request, op);
    let page: Awaited<ReturnType<typeof readListPage>>;
    let exported: Awaited<ReturnType<typeof csvPages>> | undefined;
    try {
      if (csv) exported = await csvPages(service, op, request.query, request.caller, request.params?.id);
      page = exported?.first ?? (await readListPage(service, op, request.query, request.caller, request.params?.id));
    } catch (error) {
      // A list of one record's, whose record is unknown to the caller (404).
      if (!(error instanceof RefusedError)) throw error;
      return reply.code(statusOf(error.refusal)).send(refusalBody(error.refusal));
    }
    if (page.records === undefined) {
      return reply
        .code(400)
        .send(
          errorBody('INVALID_CURSOR', 'The cursor is not one this service issued: use the Link of the previous page.'),
        );
    }
    if (exported) return exported.send(reply);
    if (page.nextCursor !== undefined) reply.header('link', `<${nextUrl(request.url, page.nextCursor)}>; rel="next"`);
    return reply.send(page.records.map(op.view));
  };
}

/** The successful answers, with what a dry run answers where the operation has one (D-48). */
function successResponses(op: Operation, keys: boolean) {
  const responses = keys ? (op.keysResponses ?? op.responses) : op.responses;
  if (op.kind !== 'write' || !op.dryRunnable) return responses;
  const real = responses[200];
  if (real === undefined) return { ...responses, 200: Type.Ref(DryRunSchema) };
  return {
    ...responses,
    200: {
      ...Type.Union([real, Type.Ref(DryRunSchema)]),
      type: 'object' as const,
      description: `${real.description ?? 'The answer'}; with \`?dryRun=true\`, the \`DryRun\` of it`,
    },
  };
}

/** The Fastify route of an operation, for a deal service under `prefix`. */
function routeOf(
  service: PipelineService,
  op: Operation,
  prefix: string,
  rendering: (op: WriteOperation) => Rendering<unknown>,
  keys: boolean,
): RouteOptions {
  const path = pathOf(op, prefix);
  const dryRunnable = op.kind === 'write' && op.dryRunnable === true;
  const body = keys ? (op.keysBody ?? op.body) : op.body;
  const route: RouteOptions = {
    method: op.method,
    url: path.replace(/\{(\w+)\}/g, ':$1'),
    // D-53: what the caller's key must allow, checked before anything else is read (authenticate.ts).
    config: { access: op.scope },
    schema: {
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      operationId: op.id,
      tags: [op.tag],
      ...(path.includes('{id}') ? { params: IdParams } : {}),
      ...(op.kind === 'write' && op.ifMatch ? { headers: IfMatchHeaders } : {}),
      // D-38, D-39: a demo route refuses a query parameter it does not document (400 INVALID_QUERY).
      querystring: op.query ?? (dryRunnable ? DryRunQuery : NoQuery),
      ...(body ? { body } : {}),
      response: { ...successResponses(op, keys), ...errorResponses(...op.errors) },
    },
    handler: (op.kind === 'write'
      ? writeHandler(service, op, rendering(op))
      : op.kind === 'read'
        ? readHandler(service, op)
        : pageHandler(service, op)) as RouteOptions['handler'],
  };
  // D-37: a demo POST takes an Idempotency-Key, checked before its body is read.
  if (op.kind === 'write' && op.idempotent) route.onRequest = checkIdempotencyKey;
  return route;
}

/**
 * Every operation of the table as an HTTP route; in keys mode (D-50) the accounts' too, and the
 * demo's reset and clock only with DEMO_CONTROLS=on (D-3). An operation without a declared scope
 * is never served (the type requires one; this checks it).
 */
export const operationRoutes: FastifyPluginAsync<{
  service: PipelineService;
  dealPrefix: string;
  auth: 'demo' | 'keys';
  /** D-3: keys mode serves the demo's reset and clock only when DEMO_CONTROLS=on. */
  demoControls?: boolean;
}> = async (app, { service, dealPrefix, auth, demoControls = false }) => {
  const rendering = renderings(writeAnswers(dealPrefix));
  const keys = auth === 'keys';
  for (const op of OPERATIONS) {
    if (op.scope === undefined || (Array.isArray(op.scope) && op.scope.length === 0))
      throw new Error(`operation ${op.id} declares no scope: it cannot be served`);
    if (!served(op, keys, demoControls)) continue;
    app.route(routeOf(service, op, dealPrefix, rendering, keys));
  }
};
