// Request validation: one Ajv compile per route schema, every violation listed, no type
// coercion of bodies (a "100" is not a number), unknown fields refused. Nodes marked
// DOMAIN_VALIDATED are left to the domain, whose problems answer 422 rather than 400 (D-20).
import { Ajv, type ErrorObject } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import { DOMAIN_VALIDATED, OPTIONAL_BODY } from '../schemas/common.ts';

const bodyAjv = new Ajv({
  allErrors: true,
  coerceTypes: false,
  useDefaults: true,
  removeAdditional: false,
  strict: false,
});
const queryAjv = new Ajv({
  allErrors: true,
  coerceTypes: true,
  useDefaults: true,
  removeAdditional: false,
  strict: false,
});
for (const ajv of [bodyAjv, queryAjv]) ajv.addFormat('date-time', true);

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

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : queryAjv;
  const validate = ajv.compile(forTransport(schema) as object);
  const optional = (schema as Record<string, unknown>)[OPTIONAL_BODY] === true;
  const check = (data: unknown) => {
    // Fastify passes an absent body as null; an empty POST is fine where the body is optional.
    if (optional && (data === null || data === undefined)) return true;
    const valid = validate(data);
    check.errors = validate.errors;
    return valid;
  };
  check.errors = null as ErrorObject[] | null | undefined;
  return check;
};

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

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
        lines.push(
          `${path || part}: must be ${e.params.type === 'object' ? 'a JSON object' : article(String(e.params.type))}`,
        );
        break;
      default:
        lines.push(`${path || part}: ${e.message}`);
    }
  }
  for (const [path, values] of allowed) lines.push(`${path}: must be one of ${values.join(', ')}`);
  return [...new Set(lines)];
}
