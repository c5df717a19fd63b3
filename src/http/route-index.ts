// D-2: `GET /` lists every endpoint of both surfaces. The routes say what they are as they are
// added (the operations' from the table, src/operations/table.ts), so the index is what the app
// serves, never a list kept beside it.
import type { FastifyInstance } from 'fastify';

export interface IndexEntry {
  method: string;
  path: string;
  surface: 'root' | 'demo';
  summary: string;
}

/** Collects the index as routes are added: hidden ones (a 405 answer, the console's files) stay out. */
export function collectIndex(app: FastifyInstance): IndexEntry[] {
  const index: IndexEntry[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    // The reference is one entry, not the plugin's many routes (hidden or not).
    if (route.url === '/docs' && methods.includes('GET')) {
      index.push({
        method: 'GET',
        path: '/docs',
        surface: 'root',
        summary: 'Interactive API reference rendered from the contract',
      });
    }
    if ((route.schema as { hide?: boolean } | undefined)?.hide || route.config?.methodAnswer) return;
    for (const method of methods) {
      if (method === 'HEAD') continue;
      index.push({
        method,
        path: route.url.replace(/:([A-Za-z]+)/g, '{$1}'),
        surface: route.config?.surface ?? 'demo',
        summary: String((route.schema as { summary?: string } | undefined)?.summary ?? ''),
      });
    }
  });
  return index;
}
