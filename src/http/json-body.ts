// Request bodies are JSON only; an empty body is "no body" (so a bare POST works where the body is
// optional), and a body that is not JSON, or is JSON null, is refused in the catalogue's words.
import type { FastifyInstance } from 'fastify';

export const NULL_BODY = 'body: must be a JSON object';

export function acceptJsonOnly(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text as string);
    } catch (error) {
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
