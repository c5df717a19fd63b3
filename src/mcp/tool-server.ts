// Both MCP doors serve a table of tools through the SDK's low-level Server, so that a tool's
// published input and output schemas are the TypeBox schemas of src/schemas themselves (as
// plain JSON Schema), and its arguments are checked by the validator HTTP bodies are checked
// by (src/schemas/validate.ts): one source of shapes, one way to refuse them. The high-level
// McpServer takes zod schemas only, which would be a second copy of every shape.

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
  type ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { ErrorObject } from 'ajv';
import { PATTERN_WORDS } from '../schemas/common.ts';
import { selfContained } from '../schemas/shared.ts';
import { compileValidator, describeViolations, type Validator } from '../schemas/validate.ts';
import { type ErrorBody, errorBody, storeFailure } from '../views/errors.ts';
import { plainJson, stringify } from '../views/exact-json.ts';

export { SERVICE_VERSION as MCP_VERSION } from '../version.ts';

/** A tool as its door defines it; `C` is what every call of the door is served with. */
export interface ToolSpec<I extends TObject, C> {
  name: string;
  title: string;
  /** Words for an agent; a function of the door's context where they name its paths. */
  description: string | ((context: C) => string);
  input: I;
  /** The schema of structuredContent: an object schema (MCP requires type object at the root). */
  output: TSchema;
  annotations: ToolAnnotations;
  /**
   * What the arguments stand for in the HTTP request: a query string or a body. Their problems
   * are answered with that request's code (INVALID_QUERY or INVALID_BODY).
   */
  argumentsAre: 'query' | 'body';
  /**
   * Whether tools/list shows the tool under this context (default: always). A tool not shown
   * still answers its call, which refuses what it must (D-225).
   */
  shown?: (context: C) => boolean;
  /** A check that comes before the arguments are validated; a result refuses the call. */
  screen?: (args: Record<string, unknown>, context: C) => CallToolResult | undefined;
  run(context: C, args: Static<I>): Promise<CallToolResult>;
}

/** A tool ready to serve: its tools/list entry and its tools/call. */
export interface McpTool<C> {
  readonly name: string;
  /** Whether tools/list shows it under this context. */
  shown(context: C): boolean;
  describe(context: C): Tool;
  call(context: C, args: Record<string, unknown>): Promise<CallToolResult>;
}

/** An answer as a tool result: a 2xx body as structured content, anything else as an error result. */
export function toolResult(status: number, body: unknown, text = stringify(body)): CallToolResult {
  const content = [{ type: 'text' as const, text }];
  if (status >= 200 && status < 300) return { structuredContent: plainJson(body) as Record<string, unknown>, content };
  return { isError: true, content };
}

/** A refusal of the call itself, in the error catalogue's shape. */
export const errorResult = (body: ErrorBody): CallToolResult => toolResult(400, body);

/**
 * The violations of a tool's arguments, one line each. An argument whose schema says in words
 * what a value must be (PATTERN_WORDS on a union, as ifMatch's) gets those words once, not a line
 * per branch of the union ("must be an integer; must match pattern ...").
 */
function describeArguments(input: TObject, errors: readonly ErrorObject[]): string[] {
  const worded = new Map<string, string>();
  for (const [name, schema] of Object.entries(input.properties)) {
    const words = (schema as Record<string, unknown>)[PATTERN_WORDS];
    if (typeof words === 'string') worded.set(`/${name}`, `${name}: ${words}`);
  }
  const plain = describeViolations(
    errors.filter((error) => !worded.has(error.instancePath)),
    'arguments',
  );
  const said = errors.flatMap((error) => worded.get(error.instancePath) ?? []);
  return [...new Set([...plain, ...said])];
}

export function defineTool<I extends TObject, C>(spec: ToolSpec<I, C>): McpTool<C> {
  // Built on first use and kept: the HTTP doors build a server per request.
  let validate: Validator | undefined;
  let schemas: Pick<Tool, 'inputSchema' | 'outputSchema'> | undefined;
  return {
    name: spec.name,
    shown: (context) => spec.shown?.(context) ?? true,
    describe(context) {
      schemas ??= {
        inputSchema: selfContained(spec.input) as Tool['inputSchema'],
        outputSchema: selfContained(spec.output) as Tool['outputSchema'],
      };
      const description = typeof spec.description === 'string' ? spec.description : spec.description(context);
      return { name: spec.name, title: spec.title, description, ...schemas, annotations: spec.annotations };
    },
    async call(context, args) {
      const refused = spec.screen?.(args, context);
      if (refused) return refused;
      validate ??= compileValidator(spec.input, 'json');
      if (!validate(args)) {
        const violations = describeArguments(spec.input, validate.errors ?? []);
        const code = spec.argumentsAre === 'query' ? 'INVALID_QUERY' : 'INVALID_BODY';
        const message = `The arguments of ${spec.name} are invalid: ${violations.join('; ')}`;
        return errorResult(errorBody(code, message, violations));
      }
      try {
        return await spec.run(context, args as Static<I>);
      } catch (error) {
        // D-46: a store failure is answered as HTTP answers it; anything else stays a bug.
        const failure = storeFailure(error);
        if (failure) return toolResult(failure.status, failure.body);
        throw error;
      }
    },
  };
}

/**
 * A server of the given tools, each call served with `context`. It declares tools without
 * listChanged: the table is fixed, and a stateless door could never send the notification.
 */
export function createToolServer<C>(
  info: { name: string; version: string },
  instructions: string,
  tools: readonly McpTool<C>[],
  context: C,
): Server {
  // The low-level Server is what the SDK offers for tools whose schemas are plain JSON Schema.
  const server = new Server(info, { capabilities: { tools: {} }, instructions });
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.filter((tool) => tool.shown(context)).map((tool) => tool.describe(context)),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      throw new McpError(ErrorCode.InvalidParams, `No tool ${request.params.name}; tools/list names every tool.`);
    }
    return tool.call(context, request.params.arguments ?? {});
  });
  return server;
}
