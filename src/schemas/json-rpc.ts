// What the MCP doors take (D-33, D-265): one JSON-RPC 2.0 message, or a batch of them, as the MCP
// SDK's transport reads them (its JSONRPCMessageSchema, checked in src/http/routes/mcp.ts before
// the transport sees the body): a request, a notification, a result or an error, each with only
// its own members. The schema documents that check; the check itself is the SDK's.
import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { Type } from '@sinclair/typebox';

/** The SDK takes an integer id only within the safe integers. */
const SafeInteger = (description: string) =>
  Type.Integer({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER, description });

const Id = Type.Union([Type.String(), SafeInteger('a number id')], {
  description: 'the request id: a string or an integer',
});

const JsonRpc = Type.Literal('2.0');

/** `_meta` of a request's params or a result, as the SDK reads it: its members of known meaning typed. */
const Meta = Type.Object(
  {
    progressToken: Type.Optional(Type.Union([Type.String(), SafeInteger('a number token')])),
    'io.modelcontextprotocol/related-task': Type.Optional(
      Type.Object({ taskId: Type.String() }, { additionalProperties: true }),
    ),
  },
  { additionalProperties: true },
);

const Params = Type.Object(
  { _meta: Type.Optional(Meta) },
  { additionalProperties: true, description: "the method's parameters, an object (never a list)" },
);

const JsonRpcRequest = Type.Object(
  {
    jsonrpc: JsonRpc,
    id: Id,
    method: Type.String({ description: 'e.g. initialize, tools/list, tools/call' }),
    params: Type.Optional(Params),
  },
  { additionalProperties: false, description: 'A request: answered with a result or an error under its id' },
);

const JsonRpcNotification = Type.Object(
  { jsonrpc: JsonRpc, method: Type.String(), params: Type.Optional(Params) },
  { additionalProperties: false, description: 'A notification (no id): answered 202, with no body' },
);

const JsonRpcResult = Type.Object(
  {
    jsonrpc: JsonRpc,
    id: Id,
    result: Type.Object({ _meta: Type.Optional(Meta) }, { additionalProperties: true }),
  },
  { additionalProperties: false, description: "A response to the server's request: answered 202" },
);

const JsonRpcErrorMessage = Type.Object(
  {
    jsonrpc: JsonRpc,
    id: Type.Optional(Id),
    error: Type.Object(
      {
        code: SafeInteger('the error code'),
        message: Type.String(),
        data: Type.Optional(Type.Unknown()),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: false, description: "An error answering the server's request: answered 202" },
);

const JsonRpcMessage = Type.Union([JsonRpcRequest, JsonRpcNotification, JsonRpcResult, JsonRpcErrorMessage]);

/** One message, or a batch of 1 to the SDK's 100; JSON that is neither is 400 -32600 Invalid Request. */
export const JsonRpcBody = Type.Union(
  [JsonRpcMessage, Type.Array(JsonRpcMessage, { minItems: 1, maxItems: MAX_BATCH_SIZE })],
  {
    description:
      'A JSON-RPC 2.0 message of the MCP Streamable HTTP transport (or a batch of them). Text that is not JSON, or JSON with U+0000 in a string or a member name, is 400 -32700 Parse error; JSON that is no such message (`{"jsonrpc": "2.0"}`, `null`, `[]`) is 400 -32600 Invalid Request.',
    examples: [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }],
  },
);
