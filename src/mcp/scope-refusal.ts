// Keys mode: a tool is its operation, held to the same scope as its HTTP route (D-53), and as
// HTTP refuses a key without the scope before it reads the body, so does a tool before it reads
// its arguments.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Caller } from '../domain/access.ts';
import { authorizeCaller } from '../domain/authorization.ts';
import type { Scope } from '../operations/operation.ts';
import { denialAnswer } from '../views/authorization-refusals.ts';
import { toolResult } from './tool-server.ts';

export function scopeRefusal(scope: Scope, caller: Caller | undefined): CallToolResult | undefined {
  if (caller === undefined) return undefined;
  const decided = authorizeCaller(caller, scope);
  if (decided.ok) return undefined;
  const answer = denialAnswer(decided.denial);
  return toolResult(answer.status, answer.body);
}
