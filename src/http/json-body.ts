// Request bodies are JSON only; an empty body is "no body" (so a bare POST works where the body is
// optional), and a body that is not JSON, or is JSON null, is refused in the catalogue's words.
// Every body is also held to what no route takes (parseBody, also used by the MCP doors' own
// parser): no string, value or member name, holding U+0000 (D-200). It is refused here, before
// any route, key or store sees the body.
import type { FastifyInstance } from 'fastify';

export const NULL_BODY = 'body: must be a JSON object';

/** Why a body that is valid JSON is refused: its catalogue code, and what is wrong in words. */
export class BodyRefusal extends Error {
  readonly statusCode = 400;
  constructor(
    readonly code: 'NUL_CHARACTER',
    message: string,
  ) {
    super(message);
  }
}

/** A member name or index as a path segment, its NULs written out (`\u0000`) so they show. */
const segment = (key: string | number) => (typeof key === 'number' ? String(key) : key.replaceAll('\u0000', '\\u0000'));

/** Where a NUL was found: the path to it, innermost segment first. */
type Found = { nulAt: (string | number)[] } | undefined;

/** The first string of a parsed body that holds a NUL. */
function inspect(value: unknown): Found {
  if (typeof value === 'string') return value.includes('\u0000') ? { nulAt: [] } : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = inspect(value[i]);
      if (found === undefined) continue;
      found.nulAt.push(i);
      return found;
    }
    return undefined;
  }
  for (const key in value) {
    if (key.includes('\u0000')) return { nulAt: [key] };
    const found = inspect((value as Record<string, unknown>)[key]);
    if (found === undefined) continue;
    found.nulAt.push(key);
    return found;
  }
  return undefined;
}

/**
 * JSON.parse, then D-200: throws the SyntaxError of a text that is not JSON, or a BodyRefusal
 * naming the first string holding U+0000 by its path (e.g. `account.name`). JSON cannot carry a
 * NUL unescaped, so a text without `\u0000` has none and its strings are not searched.
 */
export function parseBody(text: string): unknown {
  const parsed: unknown = JSON.parse(text);
  if (!text.includes('\\u0000')) return parsed;
  const found = inspect(parsed);
  if (found === undefined) return parsed;
  const path = found.nulAt.length === 0 ? 'body' : found.nulAt.reverse().map(segment).join('.');
  throw new BodyRefusal('NUL_CHARACTER', `${path} holds the character U+0000 (NUL), which no text may hold`);
}

export function acceptJsonOnly(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    let parsed: unknown;
    try {
      parsed = parseBody(text as string);
    } catch (error) {
      if (error instanceof BodyRefusal) return done(error, undefined);
      // Checked only here, where JSON.parse has already refused it: most bodies are not blank.
      if ((text as string).trim() === '') return done(null, undefined);
      const problem = error instanceof Error ? error.message : String(error);
      done(
        Object.assign(new Error(`The body is not valid JSON: ${problem}`), { statusCode: 400, code: 'INVALID_JSON' }),
        undefined,
      );
      return;
    }
    // Fastify hands an absent body to the validator as null, so a JSON `null` would pass where the
    // body is optional: refuse it here, as any other body that is not an object (D-5).
    if (parsed === null) {
      done(Object.assign(new Error(NULL_BODY), { statusCode: 400, code: 'INVALID_BODY' }), undefined);
      return;
    }
    done(null, parsed);
  });
}
