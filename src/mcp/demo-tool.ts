// What every demo tool shares: what it is served with, the words that tell it from the ROOT
// sandbox tools, and how a write runs. A writing tool stands for one HTTP operation and answers
// as it does: its result is rendered by writeAnswers (src/views/answers.ts), and under an
// `idempotencyKey` argument it runs as a keyed request (D-37) with the fingerprint of that HTTP
// operation, so that one key means one request whichever door it came through: a retry over MCP
// of a request first sent over HTTP (or the other way round) replays the stored answer. A write
// on a deal or its gigs takes `ifMatch` (D-47, HTTP's If-Match), and the writes HTTP lets dry-run
// take `dryRun` (D-48): the same meaning, the same code path.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Static, type TObject, type TSchema, Type } from '@sinclair/typebox';
import type { IfMatch } from '../domain/version.ts';
import { IdempotencyKeySchema } from '../schemas/common.ts';
import { DryRunSchema } from '../schemas/dry-run.ts';
import { fingerprint, IDEMPOTENCY_KEY_PATTERN } from '../service/idempotency.ts';
import type { PipelineService, Result, WriteOptions } from '../service/pipeline-service.ts';
import { ok } from '../service/unit.ts';
import { type Answer, dryRunAnswer, rendered, type WriteAnswers } from '../views/answers.ts';
import type { DryRunnable } from '../views/dry-run.ts';
import { errorBody } from '../views/errors.ts';
import { defineTool, errorResult, type McpTool, type ToolSpec, toolResult } from './tool-server.ts';

/** What every call of the demo door is served with. */
export interface DemoContext {
  service: PipelineService;
  answers: WriteAnswers;
  /** The deal service's prefix (DEAL_PREFIX), in descriptions and fingerprints. */
  prefix: string;
}

/** How every demo description begins: these tools change live records, the sandbox's never do. */
export const DEMO_STORE =
  'Demo store (live records that demo calls create and change, shared by every client and wiped by a demo reset; ' +
  'fictional data only; not the read-only sandbox of the ROOT door):';

export const REFUSAL_NOTE =
  'A refusal is an error result (isError) whose text is the HTTP error body {error, code, ...}; a gate refusal ' +
  'also carries gate: {error, code}. A refused call changes nothing.';

export const KEY_NOTE =
  'idempotencyKey (optional, 1 to 255 visible ASCII characters) makes a retry safe: the same key with the same ' +
  'arguments replays the first answer and changes nothing, also when the key was first sent as the ' +
  'Idempotency-Key header of the same HTTP request; the same key with other arguments is refused 422 ' +
  'IDEMPOTENCY_KEY_REUSED. Keys are kept 24 hours.';

/** The cursor of a list tool's next page: the one HTTP puts in its Link header. */
export const NextCursor = Type.String({ description: 'present when a further page exists: pass it as cursor' });

export const INVALID_CURSOR = errorBody(
  'INVALID_CURSOR',
  'The cursor is not one this service issued: pass nextCursor of the previous page.',
);

export const IF_MATCH_NOTE =
  'ifMatch (optional): the version of the deal you decided on (deal.version of your last read): if the deal has ' +
  'changed since, the call is refused (412 PRECONDITION_FAILED, with current {version, stage}) and changes nothing; ' +
  'read the deal again and decide again. "*" accepts any version.';

export const DRY_RUN_NOTE =
  'dryRun: true answers what the call would do without doing it: {dryRun: true, accepted: true, deal, gig?, ' +
  'settlement?, events} (ids it would hand out are null), or the very refusal the real call would get; nothing ' +
  'is stored, no event is published, an idempotencyKey is ignored.';

/** What the tools that can close a deal add: look before you leap. */
export const DRY_RUN_CLOSE_NOTE =
  'Dry-run a close (advanceTo closed_won) before proposing it: the gate checks the value against the floor, and ' +
  'the dry run shows the settlement it would make.';

/** D-47: a version as HTTP's If-Match names it (one, or any). */
const IfMatchArgument = Type.Union([Type.Integer({ minimum: 1, maximum: 999_999_999_999_999 }), Type.Literal('*')], {
  description: 'the deal version this call was decided on (deal.version), or "*" for any',
});

const DryRunArgument = Type.Boolean({
  description: 'true: answer what the call would do (the gate included) and do nothing (D-48)',
});

const IdempotencyKeyArgument = {
  ...IdempotencyKeySchema,
  description: `${IdempotencyKeySchema.description}: a retry with this key replays the first answer`,
};

/** HTTP checks the key before the body (D-37); so does a tool, before its other arguments. */
function screenKey(args: Record<string, unknown>): CallToolResult | undefined {
  const key = args.idempotencyKey;
  if (key === undefined || (typeof key === 'string' && IDEMPOTENCY_KEY_PATTERN.test(key))) return undefined;
  return errorResult(
    errorBody('IDEMPOTENCY_KEY_INVALID', 'The idempotencyKey argument must be 1 to 255 visible ASCII characters.'),
  );
}

interface WriteSpec<I extends TObject, T> extends Omit<ToolSpec<I, DemoContext>, 'run' | 'argumentsAre' | 'screen'> {
  /** The path of the HTTP operation the tool stands for (its body is the arguments but `id`). */
  path(args: Static<I>, prefix: string): string;
  call(service: PipelineService, args: Static<I>, options?: WriteOptions): Promise<Result<T>>;
  answer(answers: WriteAnswers): (result: Result<T>) => Answer;
  /** A write on a deal or its gigs: it takes `ifMatch` (D-47). */
  conditional?: true;
  /**
   * A write HTTP lets dry-run takes `dryRun` (D-48): this is its value as a dry run shows it (the
   * identity; it typechecks only for writes whose value is a deal, a move of one or a gig move).
   */
  dryRunnable?: (value: T) => DryRunnable;
}

/** The arguments a write takes beside its HTTP request's. */
type Extra = { idempotencyKey?: string; ifMatch?: IfMatch; dryRun?: boolean };

/**
 * A writing tool: `input` is its arguments but the ones every write takes (idempotencyKey), a
 * write on a deal takes (ifMatch) and a dry-runnable one takes (dryRun).
 */
export function writeTool<I extends TObject, T>(spec: WriteSpec<I, T>): McpTool<DemoContext> {
  const { path, call, answer, conditional, dryRunnable, ...described } = spec;
  const input = Type.Object(
    {
      ...spec.input.properties,
      ...(conditional ? { ifMatch: Type.Optional(IfMatchArgument) } : {}),
      ...(dryRunnable ? { dryRun: Type.Optional(DryRunArgument) } : {}),
      idempotencyKey: Type.Optional(IdempotencyKeyArgument),
    },
    { additionalProperties: false },
  );
  const output: TSchema = dryRunnable
    ? {
        ...Type.Union([spec.output, Type.Ref(DryRunSchema)]),
        type: 'object',
        description: `${spec.output.description ?? 'The answer'}; with dryRun: true, the DryRun of the call`,
      }
    : spec.output;
  return defineTool({
    ...described,
    input,
    output,
    argumentsAre: 'body',
    screen: screenKey,
    async run({ service, answers, prefix }, args) {
      const { idempotencyKey: key, ifMatch, dryRun, ...request } = args as Static<I> & Extra;
      const rest = request as Static<I>;
      const render = answer(answers);
      const condition: WriteOptions | undefined = ifMatch === undefined ? undefined : { ifMatch };
      if (dryRun === true && dryRunnable) {
        const result = await service.dryRun(async (options) => {
          const outcome = await call(service, rest, { ...condition, ...options });
          return outcome.ok ? ok(dryRunnable(outcome.value)) : outcome;
        });
        const shown = dryRunAnswer(result, render);
        return toolResult(shown.status, shown.body);
      }
      if (key === undefined) {
        const plain = render(await call(service, rest, condition));
        return toolResult(plain.status, plain.body);
      }
      const { id: _id, ...body } = request as Record<string, unknown>;
      const outcome = await service.keyed(
        { key, fingerprint: fingerprint('POST', path(rest, prefix), body) },
        (options) => call(service, rest, { ...condition, ...options }),
        (result) => rendered(render(result)),
      );
      if (outcome.kind === 'reused') {
        return toolResult(
          422,
          errorBody(
            'IDEMPOTENCY_KEY_REUSED',
            `idempotencyKey ${key} was used with another request (another operation, or other arguments); use a new key for a new request.`,
          ),
        );
      }
      // The stored bytes are the answer, fresh or replayed: the text block is them as they are.
      const { status, body: bytes } = outcome.answer;
      return toolResult(status, JSON.parse(bytes), bytes);
    },
  });
}
