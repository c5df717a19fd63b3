// D-73: the MCP door's `get_insights {kind, from?, to?}`: one tool for the six insights, each
// answered by its operation of the table (src/operations/insight-operations.ts), held to the
// same scope and read the same way as its HTTP route.
import { Type } from '@sinclair/typebox';
import { authorizeCaller } from '../domain/authorization.ts';
import { INSIGHT_OPERATIONS } from '../operations/insight-operations.ts';
import type { Call, ReadOperation } from '../operations/operation.ts';
import { DEMO_STORE, keysDescription, keysTitle, READ_HINTS } from '../operations/tool-notes.ts';
import { PerformanceQuery, RangeQuery } from '../schemas/insights.ts';
import { errorBody, refusalBody, statusOf } from '../views/errors.ts';
import type { DemoContext } from './operation-tools.ts';
import { scopeRefusal } from './scope-refusal.ts';
import { defineTool, errorResult, type McpTool, toolResult } from './tool-server.ts';

/** The insights by kind: the last segment of each operation's path. */
const BY_KIND = new Map(
  (INSIGHT_OPERATIONS as unknown as ReadOperation[]).map((op) => [op.path.split('/').at(-1) as string, op]),
);
const KINDS = [...BY_KIND.keys()];

const Input = Type.Object(
  {
    kind: Type.Union(
      KINDS.map((kind) => Type.Literal(kind)),
      { description: `which insight: ${KINDS.join(', ')}` },
    ),
    from: RangeQuery.properties.from,
    to: RangeQuery.properties.to,
    by: Type.Optional({ ...PerformanceQuery.properties.by, description: 'performance only (required there)' }),
    sellerId: RangeQuery.properties.sellerId,
  },
  { additionalProperties: false },
);

const TITLE = "Demo store: read the pipeline's insights";
const DESCRIPTION =
  `${DEMO_STORE} the pipeline's figures, learned from every deal's stage history (GET /insights/{kind}): ` +
  'pipeline (the open deals by stage, weighed by win rates learned from the closed ones, and a forecast by ' +
  'month), funnel, velocity, performance (pass by: executor, closer, key or industry), marketplace, money. ' +
  'from/to: ISO 8601 dates or times, the range [from, to), default the last 90 days (money: all time; pipeline ' +
  'and marketplace take none). Each figure names its sample size; a figure over nothing is null.';

export function insightTool(keys: boolean): McpTool<DemoContext> {
  const scope = (BY_KIND.get('pipeline') as ReadOperation).scope;
  return defineTool({
    name: 'get_insights',
    title: keys ? keysTitle(TITLE) : TITLE,
    description: () => (keys ? keysDescription(DESCRIPTION) : DESCRIPTION),
    input: Input,
    output: Type.Object(
      {},
      { additionalProperties: true, description: 'the insight, as GET /insights/{kind} answers it' },
    ),
    annotations: READ_HINTS,
    argumentsAre: 'query',
    // D-225: a key is shown the tool when its scopes allow it; a call without them is refused.
    shown: ({ caller }) => caller === undefined || authorizeCaller(caller, scope).ok,
    screen: (_args, { caller }) => scopeRefusal(scope, caller),
    async run({ service, caller }, args) {
      const { kind, by, ...range } = args;
      const op = BY_KIND.get(kind) as ReadOperation;
      if ((by === undefined) !== (kind !== 'performance'))
        return errorResult(
          errorBody(
            'INVALID_QUERY',
            kind === 'performance' ? 'performance needs by.' : `by is for performance, not ${kind}.`,
          ),
        );
      const hasRange = op.query === RangeQuery || op.query === PerformanceQuery;
      if (!hasRange && (range.from !== undefined || range.to !== undefined))
        return errorResult(errorBody('INVALID_QUERY', `${kind} takes no range: it is as of now.`));
      const call: Call = { id: '', body: undefined, query: { ...range, ...(by !== undefined ? { by } : {}) } };
      if (caller !== undefined) call.caller = caller;
      const result = await op.read(service, call);
      return result.ok
        ? toolResult(200, op.view(result.value))
        : toolResult(statusOf(result.refusal), refusalBody(result.refusal));
    },
  });
}
