// The demo MCP door's tools, made from the table of operations (src/operations/table.ts): each
// stands for one operation and answers its JSON. A tool's arguments are the operation's path id
// and body fields (or its query), and what HTTP reads beside the body: `idempotencyKey` for the
// Idempotency-Key (D-37), `ifMatch` for If-Match (D-47), `dryRun` for ?dryRun (D-48). The run is
// the HTTP door's (src/operations/run.ts), so one request means one thing through either door.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type TObject, type TSchema, Type } from '@sinclair/typebox';
import type { Caller } from '../domain/access.ts';
import { authorizeCaller } from '../domain/authorization.ts';
import type { Refusal } from '../domain/refusal.ts';
import type { Call, Operation, WriteOperation } from '../operations/operation.ts';
import { modeOf, readListPage, renderings, runWrite } from '../operations/run.ts';
import { TOOL_OPERATIONS } from '../operations/table.ts';
import { keysDescription, keysTitle } from '../operations/tool-notes.ts';
import { IdempotencyKeySchema, IdParams } from '../schemas/common.ts';
import { DryRunSchema } from '../schemas/dry-run.ts';
import type { Rendering } from '../service/execute.ts';
import { IDEMPOTENCY_KEY_PATTERN } from '../service/idempotency.ts';
import type { PipelineService } from '../service/pipeline-service.ts';
import { writeAnswers } from '../views/answers.ts';
import { errorBody, refusalBody, statusOf } from '../views/errors.ts';
import { ESCALATION_NOTE, noteEscalation } from './escalation-note.ts';
import { IfMatchArgument, ifMatchOf } from './if-match-argument.ts';
import { scopeRefusal } from './scope-refusal.ts';
import { defineTool, errorResult, type McpTool, toolResult } from './tool-server.ts';

/** What every call of the demo door is served with. */
export interface DemoContext {
  service: PipelineService;
  /** Keys mode: who the request's key belongs to; every tool call acts as it. */
  caller?: Caller;
  /** The deal service's prefix (DEAL_PREFIX), in descriptions. */
  prefix: string;
  rendering(op: WriteOperation): Rendering<unknown>;
}

export function demoContext(service: PipelineService, prefix: string, caller?: Caller): DemoContext {
  return { service, prefix, rendering: renderings(writeAnswers(prefix)), ...(caller ? { caller } : {}) };
}

const DryRunArgument = Type.Boolean({
  description: 'true: answer what the call would do (the gate included) and do nothing (D-48)',
});

const IdempotencyKeyArgument = {
  ...IdempotencyKeySchema,
  description: `${IdempotencyKeySchema.description}: a retry with this key replays the first answer`,
};

const NextCursor = Type.String({ description: 'present when a further page exists: pass it as cursor' });

const INVALID_CURSOR = errorBody(
  'INVALID_CURSOR',
  'The cursor is not one this service issued: pass nextCursor of the previous page.',
);

/** HTTP checks the key before the body (D-37); so does a tool, before its other arguments. */
function screenKey(args: Record<string, unknown>): CallToolResult | undefined {
  const key = args.idempotencyKey;
  if (key === undefined || (typeof key === 'string' && IDEMPOTENCY_KEY_PATTERN.test(key))) return undefined;
  return errorResult(
    errorBody('IDEMPOTENCY_KEY_INVALID', 'The idempotencyKey argument must be 1 to 255 visible ASCII characters.'),
  );
}

/** The kinds of record a tool's id names, by the path's first segment, and what an unknown one is. */
const ID_KINDS: Record<string, { kind: string; code: string }> = {
  gigs: { kind: 'gig', code: 'GIG_NOT_FOUND' },
  approvals: { kind: 'approval', code: 'APPROVAL_NOT_FOUND' },
};

/** The id argument of an operation on one record, in the words of its kind. */
function idArgument(op: Operation) {
  const { kind, code } = ID_KINDS[op.path.split('/')[1] ?? ''] ?? { kind: 'deal', code: 'DEAL_NOT_FOUND' };
  const shape = kind === 'approval' ? 'apr' : kind;
  return {
    ...IdParams.properties.id,
    description: `the ${kind}, \`${shape}_<NNNN>\`; an id of any other shape names nothing (404 ${code})`,
  };
}

/**
 * A tool's arguments: the path id, then the body's fields (or the query's), then a write's own;
 * in keys mode the body's fields are those its HTTP route takes in keys mode (a closer's claim
 * may leave closerId out, D-55).
 */
function inputOf(op: Operation, keys: boolean): TObject {
  if (op.kind !== 'write' && !op.path.includes('{id}'))
    return op.query ?? Type.Object({}, { additionalProperties: false });
  const body = (keys ? (op.keysBody ?? op.body) : op.body) as TObject | undefined;
  return Type.Object(
    {
      ...(op.path.includes('{id}') ? { id: idArgument(op) } : {}),
      ...(body?.properties ?? {}),
      ...(op.kind === 'write' && op.ifMatch ? { ifMatch: Type.Optional(IfMatchArgument) } : {}),
      ...(op.kind === 'write' && op.dryRunnable ? { dryRun: Type.Optional(DryRunArgument) } : {}),
      ...(op.kind === 'write' && op.idempotent ? { idempotencyKey: Type.Optional(IdempotencyKeyArgument) } : {}),
    },
    { additionalProperties: false },
  );
}

/** structuredContent's schema: the answer's, a page's, or with a dry run's besides. */
function outputOf(op: Operation): TSchema {
  // Every success the operation may answer: a proposal's 202 held (D-69) beside its 200 or 201.
  const successes = Object.entries(op.responses)
    .filter(([status]) => status.startsWith('2'))
    .map(([, schema]) => schema);
  const success: TSchema =
    successes.length === 1
      ? successes[0]
      : {
          ...Type.Union(successes),
          type: 'object',
          description: successes
            .map((schema) => schema.description ?? (schema.$ref === 'Held' ? 'held for approval (D-69)' : undefined))
            .filter((words) => words !== undefined)
            .join('; or '),
        };
  if (op.kind === 'page') {
    return Type.Object({
      [op.list]: Type.Array((success as unknown as { items: TSchema }).items, {
        description: 'this page, in id order',
      }),
      nextCursor: Type.Optional(NextCursor),
    });
  }
  if (op.kind === 'write' && op.dryRunnable) {
    return {
      ...Type.Union([success, Type.Ref(DryRunSchema)]),
      type: 'object',
      description: `${success.description ?? 'The answer'}; with dryRun: true, the DryRun of the call`,
    };
  }
  return success;
}

/** D-270: a tool whose answer may be an escalation says how one reads. */
const withEscalation = (op: Operation, description: string) =>
  JSON.stringify(op.responses).includes('"$ref":"Escalation"') ? `${description} ${ESCALATION_NOTE}` : description;

/** The arguments a write takes beside its HTTP request's. */
type Extra = { id?: string; idempotencyKey?: string; ifMatch?: number | string; dryRun?: boolean };

function toolOf(op: Operation, keys: boolean): McpTool<DemoContext> {
  const tool = op.tool as NonNullable<Operation['tool']>;
  const asQuery = op.kind !== 'write' && !op.path.includes('{id}');
  return defineTool({
    name: tool.name,
    // D-269: keys mode is a deployment's, not the demo's: its tools say so.
    title: keys ? keysTitle(tool.title) : tool.title,
    description: ({ prefix }: DemoContext) =>
      withEscalation(op, keys ? keysDescription(tool.description(prefix)) : tool.description(prefix)),
    input: inputOf(op, keys),
    output: outputOf(op),
    annotations: tool.annotations,
    argumentsAre: asQuery ? 'query' : 'body',
    // D-225: a key is shown the tools its scopes allow; a call of another is refused as before.
    shown: ({ caller }: DemoContext) => caller === undefined || authorizeCaller(caller, op.scope).ok,
    screen: (args, { caller }) =>
      scopeRefusal(op.scope, caller) ?? (op.kind === 'write' && op.idempotent ? screenKey(args) : undefined),
    async run({ service, rendering, caller }, args) {
      const { id = '', idempotencyKey, ifMatch, dryRun, ...rest } = args as Record<string, unknown> & Extra;
      const call: Call = asQuery ? { id, body: undefined, query: rest } : { id, body: rest, query: {} };
      // Keys mode: the call acts as the key's principal (its scope was checked by screen).
      if (caller !== undefined) call.caller = caller;
      if (op.kind === 'page') {
        const page = await readListPage(service, op, rest as Record<string, never>, caller);
        if (page.records === undefined) return errorResult(INVALID_CURSOR);
        const records = page.records.map(op.view);
        return toolResult(200, { [op.list]: records, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) });
      }
      if (op.kind === 'read') {
        const result = await op.read(service, call);
        return result.ok ? toolResult(200, op.view(result.value)) : toolResult(...refused(result.refusal));
      }
      if (ifMatch !== undefined) call.ifMatch = ifMatchOf(ifMatch);
      const execution = await runWrite(
        service,
        op,
        call,
        modeOf(op, call, idempotencyKey, dryRun === true),
        rendering(op),
      );
      switch (execution.kind) {
        case 'answered':
        case 'dry':
          // Under a key, the stored bytes are the answer: the JSON text block is them as they are.
          // D-270: an escalation also says in words that the deal did not move.
          return noteEscalation(
            tool.name,
            execution.kind === 'answered' && execution.stored
              ? toolResult(execution.stored.status, JSON.parse(execution.stored.body), execution.stored.body)
              : toolResult(execution.answer.status, execution.answer.body),
          );
        case 'replayed':
          return noteEscalation(
            tool.name,
            toolResult(execution.answer.status, JSON.parse(execution.answer.body), execution.answer.body),
          );
        case 'unrecoverable':
          return toolResult(
            409,
            errorBody('KEY_NOT_RECOVERABLE', `idempotencyKey ${execution.key} made a key that cannot be shown again.`),
          );
        case 'reused':
          return toolResult(
            422,
            errorBody(
              'IDEMPOTENCY_KEY_REUSED',
              `idempotencyKey ${execution.key} was used with another request (another operation, or other arguments); use a new key for a new request.`,
            ),
          );
      }
    },
  });
}

const refused = (refusal: Refusal): [number, unknown] => [statusOf(refusal), refusalBody(refusal)];

/** The demo door's tools, in the table's order. */
export const DEMO_TOOLS: readonly McpTool<DemoContext>[] = TOOL_OPERATIONS.filter((op) => !op.keysOnly).map((op) =>
  toolOf(op, false),
);

/** The same tools in keys mode: their arguments are those of the HTTP routes in keys mode. */
export const KEYS_TOOLS: readonly McpTool<DemoContext>[] = TOOL_OPERATIONS.map((op) => toolOf(op, true));
