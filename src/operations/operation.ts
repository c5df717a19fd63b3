// An operation of the demo surface, declared once: its method and path, its input schemas, the
// service call, its answer, whether it takes an Idempotency-Key, ?dryRun and If-Match, and the
// scope a caller needs. The HTTP routes (src/http/operation-routes.ts), the MCP tools
// (src/mcp/operation-tools.ts), the contract and the index are generated from the table
// (table.ts), so both doors behave alike by construction.
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { TObject, TSchema } from '@sinclair/typebox';
import type { Access, Caller } from '../domain/access.ts';
import type { ListKind } from '../domain/ids.ts';
import type { IfMatch } from '../domain/version.ts';
import type { Answer } from '../service/idempotency.ts';
import type { PipelineService } from '../service/pipeline-service.ts';
import type { Result } from '../service/result.ts';
import type { UnitCommand } from '../service/unit-command.ts';
import { MARKETPLACE_PREFIX, type WriteAnswers } from '../views/answers.ts';

/**
 * What a caller's key must allow to call an operation in keys mode (D-53): `open`, `key` (any
 * valid key) or any one of a list of scopes. Every operation declares one (deny by default: the
 * type has no default, and the HTTP door refuses to serve a route without one). In the demo
 * mode nothing is asked of anyone.
 */
export type Scope = Access;

/** Where an operation's path is served: under the deal prefix (DEAL_PREFIX), the marketplace's, or at the root. */
export type Mount = 'deals' | 'marketplace' | 'root';

/**
 * A request as both doors hand it to an operation: the path's id, the query, the body, the
 * If-Match, and in keys mode who is calling (D-54: what it may see and act on).
 */
export interface Call<B = unknown, Q = unknown> {
  id: string;
  body: B;
  query: Q;
  ifMatch?: IfMatch;
  caller?: Caller;
  /** The origin the request was made to (PUBLIC_URL's when set), for links in mail (D-64). */
  origin?: string;
}

/** How an operation is offered as an MCP tool of the demo door. */
export interface ToolSpec {
  name: string;
  title: string;
  /** Words for an agent, given the deal service's prefix. */
  description: (prefix: string) => string;
  annotations: ToolAnnotations;
}

interface Common {
  /** The contract's operationId. */
  id: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  mount: Mount;
  /** The path under the mount, in the contract's form (`/deals/{id}`). */
  path: string;
  summary: string;
  description?: string;
  tag: 'deals' | 'proposals' | 'marketplace' | 'events' | 'demo' | 'accounts' | 'approvals' | 'insights' | 'ledger';
  query?: TObject;
  body?: TSchema;
  /** The successful answers' schemas, by status. */
  responses: Record<number, TSchema>;
  /** The error statuses it may answer (their schema is the catalogue's). */
  errors: readonly number[];
  scope: Scope;
  /** Served in keys mode only (the accounts: Sellers and keys); the demo has no such path. */
  keysOnly?: true;
  /**
   * D-3: a demo control (the reset, the clock): always served in the demo, and in keys mode only
   * when DEMO_CONTROLS=on; otherwise no such path.
   */
  demoControl?: true;
  /** Keys mode's body, where it differs from the demo's (a closer's claim names no closer). */
  keysBody?: TSchema;
  /** Keys mode's successful answers, where they differ from the demo's (health answers no counts). */
  keysResponses?: Record<number, TSchema>;
  tool?: ToolSpec;
}

/** A write: a unit command run by the service's runner (plain, keyed or dry). */
export interface WriteOperation<T = unknown> extends Common {
  kind: 'write';
  /** D-37: a POST takes an Idempotency-Key (HTTP) or an idempotencyKey argument (MCP). */
  idempotent: boolean;
  /** D-47: a write on a deal or its gigs takes If-Match (HTTP) or ifMatch (MCP). */
  ifMatch?: true;
  /** D-48: `?dryRun=true` (HTTP) or dryRun: true (MCP) answers what it would do. */
  dryRunnable?: true;
  /** It needs the request's origin (a mail's link: D-64). */
  origin?: true;
  command(service: PipelineService, call: Call): UnitCommand<T> | Promise<UnitCommand<T>>;
  answer(answers: WriteAnswers): (result: Result<T>) => Answer;
}

/** A read of one answer. */
export interface ReadOperation<T = unknown> extends Common {
  kind: 'read';
  read(service: PipelineService, call: Call): Promise<Result<T>>;
  view(value: T): unknown;
  /** The answer's JSON, when a cached rendering exists (the HTTP door sends it as it is). */
  json?(value: T): string;
  /** D-47: the entity tag of the one deal the answer is. */
  etag?(value: T): string;
  /** D-74: a list inside the answer as CSV with `Accept: text/csv` (a closer's payouts). */
  csv?: { readonly columns: readonly string[]; rows(view: unknown): readonly unknown[] };
}

/**
 * A list a page at a time (D-39): HTTP answers the bare array with a Link, MCP {<list>, nextCursor}.
 * A list of one record's (a deal's refused proposals) throws a RefusedError for an unknown id.
 */
export interface PageOperation<T = unknown> extends Common {
  kind: 'page';
  /** The kind of id the cursor names. */
  idKind: ListKind;
  /** The property the MCP tool answers the page in. */
  list: string;
  fetch(
    service: PipelineService,
    filter: Record<string, unknown>,
    afterId: string | undefined,
    limit: number,
    caller: Caller | undefined,
    /** The path's id (a deal's own list, D-61); '' when the path has none. */
    id: string,
  ): Promise<T[]>;
  view(record: T): unknown;
  idOf?(record: T): string;
  /** D-74: the list as CSV with `Accept: text/csv`: its columns, dotted paths into the view. */
  csv?: readonly string[];
}

export type Operation = WriteOperation | ReadOperation | PageOperation;

/** Typed declarations: each infers its value type, then joins the table as an Operation. */
export const write = <T>(op: Omit<WriteOperation<T>, 'kind'>): Operation =>
  ({ kind: 'write', ...op }) as unknown as Operation;
export const read = <T>(op: Omit<ReadOperation<T>, 'kind'>): Operation =>
  ({ kind: 'read', ...op }) as unknown as Operation;
export const page = <T>(op: Omit<PageOperation<T>, 'kind'>): Operation =>
  ({ kind: 'page', ...op }) as unknown as Operation;

/** D-50, D-3: whether a deployment in this mode serves the operation. */
export function served(op: Pick<Operation, 'keysOnly' | 'demoControl'>, keys: boolean, demoControls: boolean): boolean {
  if (op.keysOnly && !keys) return false;
  return !(op.demoControl && keys && !demoControls);
}

/** An operation's full path for a deal service under `prefix`. */
export function pathOf(op: Pick<Operation, 'mount' | 'path'>, prefix: string): string {
  const mount = op.mount === 'deals' ? prefix : op.mount === 'marketplace' ? MARKETPLACE_PREFIX : '';
  return `${mount}${op.path}`;
}
