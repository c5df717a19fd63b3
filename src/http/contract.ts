// The served OpenAPI contract: what @fastify/swagger generates from the route schemas, completed
// with what the framework-wide mechanisms answer on every operation (D-32, D-38): the errors
// that any request can meet (405 from the method table, 413 and 415 from the body parser, 429
// from the rate limit, 400 for a malformed query or key, 408 and 431 from Node's HTTP parser), the
// headers every answer carries, a description and an example for every response, an example of
// every request body and query parameter and the NUL rule on bodies (contract-requests.ts),
// servers, license, `security: []` (keyless), and links from what an operation creates to the
// operations on it.
import { rule } from '../domain/gate.ts';
import type { Deal } from '../domain/records.ts';
import type { Refusal } from '../domain/refusal.ts';
import { versionMismatch } from '../domain/version.ts';
import { OPERATIONS } from '../operations/table.ts';
import { PRICING_LEDGER, PRICING_STATEMENT } from '../public/pricing.ts';
import { OPTIONAL_BODY } from '../schemas/common.ts';
import { ERRORS, type ErrorCode, refusalBody } from '../views/errors.ts';
import { exampleOf } from './contract-examples.ts';
import { links } from './contract-links.ts';
import { completeRequest, jsonValueSchemas } from './contract-requests.ts';
import { completeSecurity } from './contract-security.ts';

export { exampleOf } from './contract-examples.ts';

type Json = Record<string, unknown>;
interface Operation extends Json {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Json[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Json }> };
  responses: Record<string, Json>;
}
export type OpenApi = { paths: Record<string, Record<string, Operation>> } & Json;

const ERROR_REF = { $ref: '#/components/schemas/Error' };

/** What each status means, when a route did not say. */
const STATUS_WORDS: Record<string, string> = {
  200: 'OK',
  201: 'Created: `Location` names what was created',
  202: 'Accepted',
  204: 'No Content',
  400: 'Malformed request: a body, query parameter or header that is not of its documented form; `violations` lists each problem',
  402: 'Payment Required',
  403: 'Forbidden: the `Host` is not one this service answers to (`HOST_NOT_ALLOWED`), or, on a demo write, a web page on another origin sent it (`ORIGIN_NOT_ALLOWED`); nothing changed',
  404: 'Not found: an unknown id (of any shape) or path',
  405: 'Method not allowed on this path; `Allow` lists the methods it serves',
  406: 'Not Acceptable',
  408: 'Request timeout: the headers did not arrive within 10 s, or the whole request within REQUEST_TIMEOUT_MS (30 s by default); nothing changed, and the connection is closed',
  409: 'Conflict: the record is not in a state that allows this operation',
  412: 'Precondition failed: `If-Match` names a version the deal is no longer at (`current` holds its version and stage); nothing changed',
  413: 'Body too large: over 64 KiB',
  415: 'Unsupported media type: send application/json',
  422: 'Refused: the gate, a platform bound, a limit, a webhook url at a forbidden address, or an idempotency key reused for another request',
  429: 'Too many requests from this address (only when RATE_LIMIT_PER_MINUTE is set); `Retry-After` says when to retry',
  431: 'Request header fields too large: the request line and headers are over 16 KiB (a very long path included); refused before routing, and the connection is closed',
  503: 'The store is busy (`STORE_BUSY`: the request kept colliding with others) or cannot be reached (`STORE_UNAVAILABLE`); `Retry-After` says when to retry',
};

/** The example error of each status (its code from the catalogue), unless a route's own applies. */
const EXAMPLE_CODE: Record<string, ErrorCode> = {
  400: 'INVALID_BODY',
  404: 'ROUTE_NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  408: 'REQUEST_TIMEOUT',
  409: 'DEAL_TERMINAL',
  412: 'PRECONDITION_FAILED',
  413: 'BODY_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'GATE_BELOW_FLOOR',
  429: 'RATE_LIMITED',
  431: 'HEADERS_TOO_LARGE',
  503: 'STORE_BUSY',
};

/** D-74: the lists that answer CSV with `Accept: text/csv`, and how the contract says so. */
const CSV_LISTS = new Set(OPERATIONS.flatMap((op) => (op.kind !== 'write' && op.csv !== undefined ? [op.id] : [])));
const CSV_MEDIA = {
  schema: {
    type: 'string',
    description:
      'RFC 4180 CSV: a header row of the columns (dotted paths into the JSON record; an object or a list as its JSON), then a row per record of every page from the one asked, CRLF line ends',
  },
  example: 'id,stage\r\ndeal_0001,sourced\r\n',
};

/** The tags of the operations that use the store (and so may answer 503, D-46). */
const STORE_TAGS = new Set(['deals', 'events', 'marketplace', 'demo', 'approvals', 'insights', 'ledger']);

const header = (description: string, schema: Json = { type: 'string' }) => ({ description, schema });

/** D-47: the operations whose answer carries one deal, and with it the deal's version as an `ETag`. */
const ETAG_OPERATIONS = new Set([
  'getDeal',
  'createDeal',
  'sell',
  'advanceDeal',
  'reportSignals',
  'deescalateDeal',
  'editDeal',
  'reengageDeal',
  'claimGig',
  'advanceGig',
  'reviveGig',
]);
const ETAG = {
  ...header(
    'The version of the deal the answer carries, quoted (`"5"`): send it back as `If-Match` to move only that version. Absent on a dry run’s answer.',
  ),
  example: '"5"',
};
const REQUEST_ID = header('The request id: the caller’s `x-request-id` when well formed, else a fresh one.');

/**
 * The example deal at negotiation, at version 6 (the contract's other examples hold one too):
 * its list value $120,000.00 and the default 80% floor.
 */
const NEGOTIATION = {
  id: 'deal_0001',
  version: 6,
  stage: 'negotiation',
  listValueCents: 12_000_000,
  mandate: { floorPct: 0.8 },
} as unknown as Deal;

const EXAMPLE_REFUSALS = {
  GATE_BELOW_FLOOR: (() => {
    const ruling = rule(NEGOTIATION, { to: 'closed_won', valueCents: 9_000_000 });
    if (ruling.ok) throw new Error('the example close is above the floor');
    return ruling.refusal;
  })(),
  PRECONDITION_FAILED: versionMismatch(NEGOTIATION, 5) as Refusal,
};

function errorExample(status: string, method: string, operation: Operation): Json {
  const isGig = /gig/i.test(operation.operationId ?? '');
  const isCloser = /closer/i.test(operation.operationId ?? '') && !/match/i.test(operation.operationId ?? '');
  let code: ErrorCode = EXAMPLE_CODE[status] ?? 'INVALID_BODY';
  if (status === '404' && operation.parameters?.some((p) => p.in === 'path')) {
    const isWebhook = /webhook/i.test(operation.operationId ?? '');
    code = isGig ? 'GIG_NOT_FOUND' : isCloser ? 'CLOSER_NOT_FOUND' : isWebhook ? 'WEBHOOK_NOT_FOUND' : 'DEAL_NOT_FOUND';
  }
  if (status === '409' && isGig) code = 'GIG_NOT_OPEN';
  // The Origin rule holds every demo write; ROOT (and a read) meets only the Host rule.
  if (status === '403')
    code = method === 'post' && !operation.tags?.includes('root') ? 'ORIGIN_NOT_ALLOWED' : 'HOST_NOT_ALLOWED';
  if (status === '422' && !/advance/i.test(operation.operationId ?? '')) code = 'IDEMPOTENCY_KEY_REUSED';
  const example: Json = { error: `${ERRORS[code].when[0].toUpperCase()}${ERRORS[code].when.slice(1)}.`, code };
  // The gate's and If-Match's refusals in their own words, made by the rules that make them.
  if (code === 'GATE_BELOW_FLOOR' || code === 'PRECONDITION_FAILED') return { ...refusalBody(EXAMPLE_REFUSALS[code]) };
  if (code === 'INVALID_BODY') example.violations = ['listValueUsd: is required'];
  return example;
}

/** Adds a response unless the route documented that status itself. */
function ensure(operation: Operation, status: number, response: Json) {
  operation.responses[status] ??= response;
}

const errorResponse = (status: number) => ({
  description: STATUS_WORDS[status],
  content: { 'application/json': { schema: ERROR_REF } },
});

/**
 * The contract as served. `generated` is @fastify/swagger's document (not changed: a copy is
 * completed).
 */
export function completeContract(generated: OpenApi): OpenApi {
  const contract = structuredClone(generated);
  contract.info = {
    ...(contract.info as Json),
    license: { name: 'Proprietary: all rights reserved', identifier: 'LicenseRef-Proprietary' },
    contact: { name: 'Sales pipeline service', url: 'https://example.invalid/sales-pipeline' },
    'x-pricing-ledger': { statement: PRICING_STATEMENT, openItem: PRICING_LEDGER, pricing: '/pricing' },
  };
  contract.servers = [
    {
      url: '{origin}',
      description: 'This service: ROOT and DEMO paths share one origin',
      variables: { origin: { default: 'http://127.0.0.1:3000', description: 'where the service listens' } },
    },
  ];
  contract.security = [];
  // The reference is rendered by @fastify/swagger-ui (its own routes are not operations).
  contract.paths['/docs'] = {
    get: {
      operationId: 'getDocs',
      summary: 'Interactive API reference rendered from this contract',
      description: 'Swagger UI, served from this process with nothing fetched from elsewhere; it reads /openapi.json.',
      tags: ['root'],
      responses: {
        200: { description: 'The reference page', content: { 'text/html': { schema: { type: 'string' } } } },
      },
    },
  };
  const linked = links();
  const components = ((contract.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  let refersToJson = false;
  for (const [path, item] of Object.entries(contract.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      completeOperation(path, method, operation, components, linked[operation.operationId ?? '']);
      refersToJson = completeRequest(operation, components) || refersToJson;
    }
  }
  if (refersToJson) Object.assign(components, jsonValueSchemas());
  return contract;
}

function completeOperation(
  path: string,
  method: string,
  operation: Operation,
  components: Record<string, Json>,
  opLinks?: Record<string, Json>,
) {
  // Keys mode's operations declare their key and scopes (contract-security.ts); the rest are keyless.
  operation.security ??= [];
  completeSecurity(operation);
  operation.description ??= operation.summary;
  // D-37, D-75: every demo write (a POST, and a deal's PATCH) takes an Idempotency-Key, but the MCP
  // doors (a key per tool call) and the console's sign-in and sign-out (a retried sign-in makes a
  // second session, which lapses).
  const isDemoWrite =
    (method === 'post' || method === 'patch') &&
    !path.startsWith('/mcp') &&
    path !== '/demo/mcp' &&
    !path.startsWith('/console/') &&
    operation.tags?.[0] !== 'root';
  const body = operation.requestBody;
  if (body) {
    // @fastify/swagger marks every body required; an optional one (x-optional-body) may be left out.
    if (Object.values(body.content ?? {}).some((media) => media.schema?.[OPTIONAL_BODY] === true))
      body.required = false;
    ensure(operation, 413, errorResponse(413));
    ensure(operation, 415, errorResponse(415));
  } else if (method === 'delete') {
    // A DELETE takes no body, but the framework reads one that is sent (RFC 9110 leaves its
    // meaning undefined): too large or not JSON, it is refused as on any other route.
    ensure(operation, 413, errorResponse(413));
    ensure(operation, 415, errorResponse(415));
  }
  operation.parameters ??= [];
  operation.parameters.push({
    name: 'x-request-id',
    in: 'header',
    required: false,
    // Any value is taken, never refused: the schema bounds none (D-38, src/http/request-id.ts).
    schema: { type: 'string' },
    description:
      'Your id for this request (1 to 128 visible ASCII characters), echoed back; another value is replaced by a fresh id.',
  });
  if (isDemoWrite) {
    operation.parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
      description:
        'Makes a retry safe: the same key with the same method, path and body replays the first answer (with `idempotent-replayed: true`) and changes nothing; with another request it is 422 IDEMPOTENCY_KEY_REUSED. Kept 24 hours.',
    });
    ensure(operation, 400, errorResponse(400));
    ensure(operation, 422, errorResponse(422));
  }
  // Every demo route refuses a query parameter it does not document, and every query can be malformed.
  if (!operation.tags?.includes('root') || operation.parameters.some((p) => p.in === 'query')) {
    ensure(operation, 400, errorResponse(400));
  }
  // D-49: every request is held to the Host rule, every demo write to the Origin rule too.
  ensure(operation, 403, errorResponse(403));
  ensure(operation, 405, errorResponse(405));
  ensure(operation, 429, errorResponse(429));
  // D-266: Node's HTTP parser answers these to any request, before a route is chosen
  // (src/http/client-errors.ts): headers over the limit, or a request that did not arrive in time.
  ensure(operation, 408, errorResponse(408));
  ensure(operation, 431, errorResponse(431));
  // D-46: every operation that reads or writes the store (the demo's; ROOT serves fixed data).
  if (STORE_TAGS.has(operation.tags?.[0] ?? '') && path !== '/') ensure(operation, 503, errorResponse(503));

  for (const [status, response] of Object.entries(operation.responses)) {
    if (response.description === undefined || response.description === 'Default Response') {
      response.description = STATUS_WORDS[status] ?? 'Answer';
    }
    const headers: Record<string, Json> = {
      'x-request-id': REQUEST_ID,
      ...((response.headers as Record<string, Json>) ?? {}),
    };
    if (status === '201') headers.Location = header('The path of what was created');
    if (status === '405') headers.Allow = header('The methods this path serves');
    if (status === '503') {
      headers['Retry-After'] = header('Seconds until a retry may succeed', { type: 'integer' });
    }
    if (status === '429') {
      headers['Retry-After'] = header('Seconds until a request will be accepted', { type: 'integer' });
      headers['RateLimit-Limit'] = header('Requests allowed per minute', { type: 'integer' });
      headers['RateLimit-Remaining'] = header('Requests left in this minute', { type: 'integer' });
      headers['RateLimit-Reset'] = header('Seconds until the minute resets', { type: 'integer' });
    }
    if (ETAG_OPERATIONS.has(operation.operationId ?? '') && status.startsWith('2')) headers.ETag = ETAG;
    if (isDemoWrite && status.startsWith('2')) {
      headers['idempotent-replayed'] = header('`true` when the answer is replayed under an Idempotency-Key');
    }
    if (
      status === '200' &&
      operation.parameters.some((p) => p.name === 'cursor') &&
      !operation.tags?.includes('root')
    ) {
      headers.Link = header('`<next page>; rel="next"` when a further page exists (demo lists)');
    }
    if (status === '200' && CSV_LISTS.has(operation.operationId ?? '')) {
      headers.Vary = header('`Accept`: the list is JSON or, with `Accept: text/csv`, CSV (D-74)');
      response.content = { ...(response.content as Json), 'text/csv': CSV_MEDIA };
    }
    response.headers = headers;
    for (const [type, media] of Object.entries((response.content as Record<string, Json> | undefined) ?? {})) {
      if (media.example !== undefined) continue;
      const isError = (media.schema as Json | undefined)?.$ref === ERROR_REF.$ref;
      media.example = isError ? errorExample(status, method, operation) : exampleOf(media.schema, components);
      if (media.example === undefined || (type !== 'application/json' && typeof media.example !== 'string')) {
        delete media.example;
      }
    }
    if (opLinks?.[status]) response.links = opLinks[status];
  }
}
