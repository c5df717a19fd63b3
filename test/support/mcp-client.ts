// An MCP client of a test server's demo door, as an agent host connects (the SDK's own client),
// with its tools listed first so that the client checks each structured result against its
// tool's output schema; `call` answers a tool call's result.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { TestServer } from './http.ts';

export interface DemoMcp {
  client: Client;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
}

export async function demoMcp(t: Pick<TestServer, 'url'>, name: string): Promise<DemoMcp> {
  const client = new Client({ name, version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/demo/mcp`)));
  await client.listTools();
  return {
    client,
    call: async (tool, args) => (await client.callTool({ name: tool, arguments: args })) as CallToolResult,
  };
}
