// What the contract says of a request beyond its route's schemas (D-32): an example of every body
// and query parameter (D-267), and that no string of a body holds U+0000 (D-264). The route
// schemas validate requests; these words are added to the contract only, since the runtime check
// is another: the body parser refuses NUL anywhere in a body (400 NUL_CHARACTER, D-200), member
// names and values in open objects alike, before any schema is read.
import { exampleOf } from './contract-examples.ts';

type Json = Record<string, unknown>;

/** No U+0000: the pattern a body's string is held to (the parser's rule, D-200). */
export const NUL_FREE = '^[^\\u0000]*$';

/**
 * Any JSON value whose strings hold no U+0000: a body's open parts (the MCP doors' params). Said
 * to JSON_DEPTH levels, each level a component of its own, the deepest open: a schema that refers
 * to itself is one TypeScript cannot type (web/openapi.d.ts is generated from the contract), and
 * a generator goes no deeper than a few levels anyway. Deeper, the rule holds all the same.
 */
export const JSON_VALUE = 'JsonValue';
const JSON_DEPTH = 3;
const jsonLevel = (level: number) => (level === 1 ? JSON_VALUE : `${JSON_VALUE}${level}`);
const JSON_VALUE_REF = { $ref: `#/components/schemas/${JSON_VALUE}` };

/** The components JSON_VALUE is made of, by name. */
export function jsonValueSchemas(): Record<string, Json> {
  const schemas: Record<string, Json> = {};
  for (let level = 1; level <= JSON_DEPTH; level++) {
    const inner = level < JSON_DEPTH ? { $ref: `#/components/schemas/${jsonLevel(level + 1)}` } : {};
    schemas[jsonLevel(level)] = {
      description: `Any JSON value whose strings, member names included, hold no U+0000 (level ${level} of a body's open part; from level ${JSON_DEPTH + 1} on the schema says nothing, the rule holds all the same)`,
      anyOf: [
        { type: 'string', pattern: NUL_FREE },
        { type: 'number' },
        { type: 'boolean' },
        { type: 'null' },
        { type: 'array', items: inner },
        { type: 'object', propertyNames: { type: 'string', pattern: NUL_FREE }, additionalProperties: inner },
      ],
    };
  }
  return schemas;
}

interface Request {
  parameters?: Json[];
  requestBody?: { content?: Record<string, Json> };
}

/**
 * Completes an operation's request in place: an example for each body and query parameter that
 * has none of its own (built from its schema, as a response's is), then the NUL rule on its body.
 * Says whether the body refers to JSON_VALUE, for the caller to add it to the components.
 */
export function completeRequest(operation: Request, components: Record<string, Json>): boolean {
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in !== 'query' || parameter.example !== undefined || parameter.examples !== undefined) continue;
    const example = exampleOf(parameter.schema, components);
    if (example !== undefined) parameter.example = example;
  }
  let refersToJson = false;
  for (const media of Object.values(operation.requestBody?.content ?? {})) {
    if (media.example === undefined && media.examples === undefined) {
      const example = exampleOf(media.schema, components);
      if (example !== undefined) media.example = example;
    }
    // A copy: the generated document may share a node between a body and an answer.
    const schema = structuredClone(media.schema) as Json;
    refersToJson = withoutNul(schema) || refersToJson;
    media.schema = schema;
  }
  return refersToJson;
}

/** The subschemas of a node, where they sit (never its examples, enum or default: those are data). */
function children(node: Json): unknown[] {
  const found: unknown[] = [];
  for (const key of ['items', 'not', 'if', 'then', 'else', 'contains', 'propertyNames']) found.push(node[key]);
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) {
    if (Array.isArray(node[key])) found.push(...node[key]);
  }
  for (const key of ['properties', 'patternProperties', '$defs']) {
    if (typeof node[key] === 'object' && node[key] !== null) found.push(...Object.values(node[key] as Json));
  }
  if (typeof node.additionalProperties === 'object') found.push(node.additionalProperties);
  return found;
}

const SHAPING = ['type', 'anyOf', 'oneOf', 'allOf', '$ref', 'const', 'enum', 'not'];

/**
 * Adds the NUL rule to a body's schema in place: every string without a pattern of its own gets
 * NUL_FREE (a string's own pattern already says which characters it takes), every open object
 * says its member names and extra members hold none either, and a node that takes any value
 * takes JSON_VALUE. Says whether it referred to JSON_VALUE.
 */
function withoutNul(node: unknown): boolean {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return false;
  const schema = node as Json;
  if (schema.const !== undefined || schema.enum !== undefined || schema.$ref !== undefined) return false;
  if (!SHAPING.some((key) => key in schema)) {
    Object.assign(schema, JSON_VALUE_REF);
    return true;
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  let refers = false;
  if (types.includes('string') && schema.pattern === undefined) schema.pattern = NUL_FREE;
  if (types.includes('object') && schema.additionalProperties !== false) {
    schema.propertyNames ??= { type: 'string', pattern: NUL_FREE };
    if (typeof schema.additionalProperties !== 'object') {
      schema.additionalProperties = { ...JSON_VALUE_REF };
      refers = true;
    }
  }
  for (const child of children(schema)) refers = withoutNul(child) || refers;
  return refers;
}
