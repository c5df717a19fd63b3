// Validation against the TypeBox schemas, shared by every door (HTTP requests, MCP tool
// arguments): one Ajv compile per schema, every violation listed, no type coercion of bodies
// (a "100" is not a number), unknown fields refused. Nodes marked DOMAIN_VALIDATED are left to
// the domain, whose problems answer 422 rather than 400 (D-20).
import { Ajv, type ErrorObject } from 'ajv';
import { DOMAIN_VALIDATED, PATTERN_WORDS } from './common.ts';

const bodyAjv = new Ajv({
  allErrors: true,
  coerceTypes: false,
  useDefaults: true,
  removeAdditional: false,
  strict: false,
});
// Query strings and headers carry text only, so there a number or a boolean is read from its
// text. verbose: an error carries the schema node it broke, so that a header's pattern says its
// words (PATTERN_WORDS); bodies have no such pattern, and their validators stay lean.
const queryAjv = new Ajv({
  allErrors: true,
  verbose: true,
  coerceTypes: true,
  useDefaults: true,
  removeAdditional: false,
  strict: false,
});
// Formats the schemas state that this validation leaves alone: date-time (only on what the
// service writes) and uri (a webhook url, checked with its address by src/service/webhooks/
// url-check.ts, whose 400 says `url: is not a URL`). Known to Ajv, so it neither warns nor checks.
for (const ajv of [bodyAjv, queryAjv]) {
  ajv.addFormat('date-time', true);
  ajv.addFormat('uri', true);
}

/** A copy of the schema with domain-validated nodes replaced by "anything". */
function forTransport(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(forTransport);
  if (typeof schema !== 'object' || schema === null) return schema;
  const node = schema as Record<string, unknown>;
  if (node[DOMAIN_VALIDATED]) return node.description ? { description: node.description } : {};
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) copy[key] = forTransport(value);
  return copy;
}

export interface Validator {
  /** True when the data is valid; defaults are filled in place. */
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/**
 * Compiles a schema for one kind of input: `json` for values that arrive as JSON (bodies, tool
 * arguments), `text` for values read from text (query strings, headers).
 */
export function compileValidator(schema: unknown, input: 'json' | 'text'): Validator {
  return (input === 'json' ? bodyAjv : queryAjv).compile(forTransport(schema) as object);
}

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);
/** A JSON type in words: `true or false` reads right in a body and in a query string alike. */
const typeNamed = (type: string) =>
  type === 'object' ? 'a JSON object' : type === 'boolean' ? 'true or false' : article(type);

/** Ajv errors → one readable line each: "account.name: must NOT have fewer than 1 characters". */
export function describeViolations(errors: readonly ErrorObject[], part: string): string[] {
  const where = (e: ErrorObject) => e.instancePath.slice(1).replaceAll('/', '.');
  const lines: string[] = [];
  // A union of literals reports one const error per member: gather them into one line.
  const allowed = new Map<string, string[]>();
  for (const e of errors) {
    const path = where(e);
    const at = (name: string) => (path ? `${path}.${name}` : name);
    switch (e.keyword) {
      case 'anyOf':
        break;
      case 'const':
        allowed.set(path || part, [...(allowed.get(path || part) ?? []), String(e.params.allowedValue)]);
        break;
      case 'required':
        lines.push(`${at(String(e.params.missingProperty))}: is required`);
        break;
      case 'additionalProperties':
        lines.push(`${at(String(e.params.additionalProperty))}: unknown field`);
        break;
      case 'enum':
        lines.push(`${path || part}: must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`);
        break;
      case 'type':
        lines.push(`${path || part}: must be ${typeNamed(String(e.params.type))}`);
        break;
      case 'pattern': {
        const words = (e.parentSchema as Record<string, unknown> | undefined)?.[PATTERN_WORDS];
        lines.push(`${path || part}: ${typeof words === 'string' ? words : e.message}`);
        break;
      }
      default:
        lines.push(`${path || part}: ${e.message}`);
    }
  }
  for (const [path, values] of allowed) lines.push(`${path}: must be one of ${values.join(', ')}`);
  return [...new Set(lines)];
}
