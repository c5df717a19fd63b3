// Holds every answer the end-to-end suites receive to the contract the service serves: the
// status must be documented for the operation (or be the 405/404 of a wrong method or path), and
// a JSON body must match the documented schema (Ajv over the served /openapi.json). An
// undocumented status or a shape that differs fails the test that received it, so views and
// contract cannot drift apart.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
type Contract = { paths: Record<string, Record<string, Operation>> };

interface Route {
  template: string;
  pattern: RegExp;
  operations: Record<string, Operation>;
}

class Checker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  private readonly routes: Route[];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(contract: Contract) {
    addFormats.default(this.ajv);
    this.ajv.addSchema(contract as object, 'contract');
    this.routes = Object.entries(contract.paths).map(([template, operations]) => ({
      template,
      // A template's literal parts match as they are; `{id}` matches one path segment.
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
      operations,
    }));
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.compiled.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `contract#${pointer}` });
      this.compiled.set(pointer, validate);
    }
    return validate;
  }

  /** Undefined when the answer agrees with the contract, else what is wrong. */
  problem(method: string, url: string, status: number, contentType: string | null, body: unknown): string | undefined {
    if (method === 'HEAD') return undefined;
    const path = url.split('#')[0].split('?')[0];
    // Static paths first, so that /pipeline/deals/x is not taken for /pipeline/deals.
    const route =
      this.routes.find((r) => r.template === path) ??
      this.routes.find((r) => (!r.template.includes('{') ? false : r.pattern.test(path)));
    const lower = method.toLowerCase();
    // A path whose percent-encoding is malformed names nothing: 404 whatever the method.
    if (status === 404 && !decodes(path)) return this.errorShape(body);
    if (!route) {
      return status === 404 || status === 405 || status === 403
        ? this.errorShape(body)
        : `${method} ${path}: no such path in the contract, answered ${status}`;
    }
    const operation = route.operations[lower];
    if (!operation) {
      // A wrong method on a known path: 405 (or 204 for OPTIONS), shaped as any 405 of the path;
      // or 403 where the Host or Origin rule refused it first (D-49), shaped as any error.
      if (status === 403) return this.errorShape(body);
      if (method === 'OPTIONS') return status === 204 ? undefined : `OPTIONS ${path} answered ${status}, not 204`;
      if (status !== 405) return `${method} ${path} is no operation, yet it answered ${status}, not 405`;
      return this.errorShape(body);
    }
    const response = operation.responses[String(status)];
    if (!response)
      return `${method} ${route.template}: status ${status} is not documented (documented: ${Object.keys(operation.responses).join(', ')})`;
    if (!response.content || body === undefined || body === '') return undefined;
    const mediaTypes = Object.keys(response.content);
    const media = (contentType ?? '').split(';')[0].trim();
    if (!mediaTypes.includes(media))
      return `${method} ${route.template} ${status}: answered ${media}, documented ${mediaTypes.join(', ')}`;
    if (media !== 'application/json') return undefined;
    const pointer = `/paths/${route.template.replaceAll('~', '~0').replaceAll('/', '~1')}/${lower}/responses/${status}/content/${media.replace('/', '~1')}/schema`;
    const validate = this.validator(pointer);
    if (validate(body)) return undefined;
    return `${method} ${route.template} ${status}: the body does not match the documented schema: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 600)}`;
  }

  private errorShape(body: unknown): string | undefined {
    const validate = this.validator('/components/schemas/Error');
    return validate(body) ? undefined : `not an error body: ${JSON.stringify(body).slice(0, 300)}`;
  }
}

function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** A JSON pointer's token: `~` and `/` escaped (RFC 6901). */
export const pointerToken = (token: string) => token.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * Validators of the schemas a served contract declares, by JSON pointer (a request body's, a
 * parameter's), with formats checked as the response check does: to hold what the contract says
 * a request may be to what the service accepts.
 */
export function contractSchemas(contract: object): (pointer: string) => ValidateFunction {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats.default(ajv);
  ajv.addSchema(contract, 'contract');
  const compiled = new Map<string, ValidateFunction>();
  return (pointer) => {
    let validate = compiled.get(pointer);
    if (!validate) {
      validate = ajv.compile({ $ref: `contract#${pointer}` });
      compiled.set(pointer, validate);
    }
    return validate;
  };
}

const checkers = new Map<string, Promise<Checker | undefined>>();

/** The checker of the service at baseUrl (its contract read once). */
function checkerOf(baseUrl: string): Promise<Checker | undefined> {
  let checker = checkers.get(baseUrl);
  if (!checker) {
    checker = fetch(`${baseUrl}/openapi.json`).then(async (response) =>
      response.ok ? new Checker((await response.json()) as Contract) : undefined,
    );
    checkers.set(baseUrl, checker);
  }
  return checker;
}

/**
 * The same check against a contract in hand: an in-process app's, whose /openapi.json is read
 * through inject rather than fetched (test/support/inject.ts).
 */
export function contractCheck(
  contract: object,
): (method: string, path: string, status: number, contentType: string | null, body: unknown) => void {
  const checker = new Checker(contract as Contract);
  return (method, path, status, contentType, body) => {
    const problem = checker.problem(method, path, status, contentType, body);
    if (problem) throw new Error(`contract check: ${problem}`);
  };
}

/** Throws when an answer disagrees with the served contract (see the top of this file). */
export async function checkAgainstContract(
  baseUrl: string,
  method: string,
  path: string,
  status: number,
  contentType: string | null,
  body: unknown,
): Promise<void> {
  const checker = await checkerOf(baseUrl);
  if (!checker) return;
  const problem = checker.problem(method, path, status, contentType, body);
  if (problem) throw new Error(`contract check: ${problem}`);
}
