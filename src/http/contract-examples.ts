// An example for every schema of the contract (D-32), built from the schema itself.
type Json = Record<string, unknown>;

/**
 * An example value of a schema: its own `examples`/`example`/`const`/`default` where it has one,
 * else one built from its parts (each property, the first branch of a union), so that every
 * example is valid against its schema (a test holds them to it).
 */
export function exampleOf(schema: unknown, components: Record<string, Json>, depth = 0): unknown {
  if (typeof schema !== 'object' || schema === null || depth > 12) return undefined;
  const node = schema as Json;
  if (Array.isArray(node.examples) && node.examples.length > 0) return node.examples[0];
  if (node.example !== undefined) return node.example;
  if (node.const !== undefined) return node.const;
  if (node.default !== undefined) return node.default;
  if (Array.isArray(node.enum)) return node.enum[0];
  if (typeof node.$ref === 'string')
    return exampleOf(components[node.$ref.split('/').pop() as string], components, depth + 1);
  for (const union of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(node[union])) return exampleOf(node[union][0], components, depth + 1);
  }
  if (Array.isArray(node.allOf)) {
    return Object.assign({}, ...node.allOf.map((part) => exampleOf(part, components, depth + 1) as Json));
  }
  switch (node.type) {
    case 'object': {
      const example: Json = {};
      for (const [name, property] of Object.entries((node.properties as Record<string, unknown>) ?? {})) {
        const value = exampleOf(property, components, depth + 1);
        if (value !== undefined) example[name] = value;
      }
      return example;
    }
    case 'array': {
      const item = exampleOf(node.items, components, depth + 1);
      return item === undefined ? [] : [item];
    }
    case 'string':
      return node.format === 'date-time'
        ? '2026-01-05T09:00:00.000Z'
        : typeof node.pattern === 'string'
          ? undefined
          : 'text';
    case 'integer':
      return typeof node.minimum === 'number' ? node.minimum : 1;
    case 'number':
      return typeof node.minimum === 'number' ? node.minimum : 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return undefined;
  }
}
