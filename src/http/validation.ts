// Request validation: the route schemas compiled by the shared validator (src/schemas/validate.ts),
// bodies as JSON, query strings as text. An empty POST passes where the body is optional.
import type { FastifySchemaCompiler } from 'fastify';
import { OPTIONAL_BODY } from '../schemas/common.ts';
import { compileValidator, type Validator } from '../schemas/validate.ts';

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const validate = compileValidator(schema, httpPart === 'body' ? 'json' : 'text');
  const optional = (schema as Record<string, unknown>)[OPTIONAL_BODY] === true;
  const check = (data: unknown) => {
    // Fastify passes an absent body as null; an empty POST is fine where the body is optional.
    if (optional && (data === null || data === undefined)) return true;
    const valid = validate(data);
    check.errors = validate.errors;
    return valid;
  };
  check.errors = null as Validator['errors'];
  return check;
};
