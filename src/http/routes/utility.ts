// D-2: the JSON index of every endpoint of both surfaces, collected as routes are added
// (src/http/route-index.ts).
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { NoQuery } from '../../schemas/common.ts';
import { SERVICE_NAME, SERVICE_VERSION } from '../../version.ts';
import type { IndexEntry } from '../route-index.ts';

export const indexRoute: FastifyPluginAsync<{ index: IndexEntry[] }> = async (app, { index }) => {
  app.get(
    '/',
    {
      schema: {
        summary: 'JSON index of every endpoint of both surfaces',
        operationId: 'getIndex',
        tags: ['demo'],
        querystring: NoQuery,
        response: {
          200: Type.Object({
            service: Type.String(),
            version: Type.String(),
            endpoints: Type.Array(
              Type.Object({
                method: Type.String(),
                path: Type.String(),
                surface: Type.Union([Type.Literal('root'), Type.Literal('demo')]),
                summary: Type.String(),
              }),
            ),
          }),
        },
      },
    },
    async () => ({
      service: SERVICE_NAME,
      version: SERVICE_VERSION,
      endpoints: [...index].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method)),
    }),
  );
};
