// Request bodies are JSON only; an empty body is "no body" (so a bare POST works where the body is
// optional), and a body that is not JSON, or is JSON null, is refused in the catalogue's words.
// Every body is also held to what no route takes (parseBody, also used by the MCP doors' own
// parser): no string, value or member name, holding U+0000 (D-200), and no nesting deeper than
// MAX_BODY_DEPTH (D-201). Both are refused here, before any route, key or store sees the body.
import type { FastifyInstance } from 'fastify';

export const NULL_BODY = 'body: must be a JSON object';

/**
 * D-201: how many levels of objects and arrays a body may nest (the body itself is level 1). The
 * deepest body a route documents nests 3 (a mandate's staffing in a deal), 6 in an MCP message
 * (a batch, a tool call's arguments); past 32, nothing a client means to send, and what reads a
 * body after the parser (validation, an Idempotency-Key's fingerprint) walks it level by level.
 * The catalogue's BODY_TOO_DEEP says the same number.
 */
export const MAX_BODY_DEPTH = 32;

/** Why a body that is valid JSON is refused: its catalogue code, and what is wrong in words. */
export class BodyRefusal extends Error {
  readonly statusCode = 400;
  constructor(
    readonly code: 'NUL_CHARACTER' | 'BODY_TOO_DEEP',
    message: string,
  ) {
    super(message);
  }
}

/** A member name or index as a path segment, its NULs written out (`\u0000`) so they show. */
const segment = (key: string | number) => (typeof key === 'number' ? String(key) : key.replaceAll('\u0000', '\\u0000'));

/** Too deep, or where a NUL was found: the path to it, innermost segment first. */
type Found = { nulAt: (string | number)[] } | 'too deep' | undefined;

/**
 * What is first found wrong with a parsed body, walking it at most MAX_BODY_DEPTH levels deep (so
 * the walk itself never runs deep). Strings are searched only when `nul`: JSON cannot carry a NUL
 * unescaped, so a text without `\u0000` has none.
 */
function inspect(value: unknown, depth: number, nul: boolean): Found {
  if (typeof value === 'string') return nul && value.includes('\u0000') ? { nulAt: [] } : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth > MAX_BODY_DEPTH) return 'too deep';
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = inspect(value[i], depth + 1, nul);
      if (found === undefined) continue;
      if (found !== 'too deep') found.nulAt.push(i);
      return found;
    }
    return undefined;
  }
  for (const key in value) {
    if (nul && key.includes('\u0000')) return { nulAt: [key] };
    const found = inspect((value as Record<string, unknown>)[key], depth + 1, nul);
    if (found === undefined) continue;
    if (found !== 'too deep') found.nulAt.push(key);
    return found;
  }
  return undefined;
}

/** How many `{` and `[` a text holds (inside strings too: an overcount only asks for the walk). */
function openings(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 123 || c === 91) count++;
  }
  return count;
}

/**
 * JSON.parse, then D-200 and D-201: throws the SyntaxError of a text that is not JSON, or a
 * BodyRefusal naming the first string holding U+0000 by its path (e.g. `account.name`), or saying
 * that the body nests too deep.
 */
export function parseBody(text: string): unknown {
  const parsed: unknown = JSON.parse(text);
  const nul = text.includes('\\u0000');
  // A text with no more opening brackets than the limit cannot nest deeper: no walk needed.
  if (!nul && openings(text) <= MAX_BODY_DEPTH) return parsed;
  const found = inspect(parsed, 1, nul);
  if (found === undefined) return parsed;
  if (found === 'too deep') {
    throw new BodyRefusal('BODY_TOO_DEEP', `the body nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep`);
  }
  const path = found.nulAt.length === 0 ? 'body' : found.nulAt.reverse().map(segment).join('.');
  throw new BodyRefusal('NUL_CHARACTER', `${path} holds the character U+0000 (NUL), which no text may hold`);
}

export function acceptJsonOnly(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  // D-67: a PATCH's JSON merge may say so (RFC 7396); it is JSON all the same.
  app.addContentTypeParser(
    ['application/json', 'application/merge-patch+json'],
    { parseAs: 'string' },
    (_request, text, done) => {
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
    },
  );
}
