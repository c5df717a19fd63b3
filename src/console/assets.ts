// The web console's assets (D-43), built from web/ by esbuild in this process, in memory, the
// first time the console is asked for (a fraction of a second), and kept: one script and one
// stylesheet with content-hashed names (served immutable) and the page that names them. Nothing
// is written to disk and nothing is fetched from outside; a fresh clone serves the console right
// after `npm ci && npm start`.
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { projectFile } from '../project-files.ts';

export interface ConsoleAssets {
  /**
   * The page, for a deal service under `prefix`, in the service's mode (D-59: keys signs in first),
   * saying whether the deployment serves the demo's reset and clock (D-3; the demo always does).
   */
  page(prefix: string, auth?: 'demo' | 'keys', demoControls?: boolean): { html: string; etag: string };
  /** The hashed files by name. */
  files: Map<string, { bytes: Uint8Array; type: string }>;
}

const ENTRY = fileURLToPath(projectFile('web/main.tsx'));
const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

async function buildAssets(): Promise<ConsoleAssets> {
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: 'app-[hash]',
    outdir: '/console-assets',
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const files = new Map<string, { bytes: Uint8Array; type: string }>();
  for (const file of result.outputFiles) {
    const name = basename(file.path);
    files.set(name, {
      bytes: file.contents,
      type: TYPES[name.slice(name.lastIndexOf('.'))] ?? 'application/octet-stream',
    });
  }
  const names = [...files.keys()];
  const script = names.find((n) => n.endsWith('.js'));
  const style = names.find((n) => n.endsWith('.css'));
  if (!script || !style) throw new Error(`the console build made ${names.join(', ')}`);
  return {
    files,
    page(prefix, auth = 'demo', demoControls = auth === 'demo') {
      const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="deal-prefix" content="${prefix.replace(/[^\w/-]/g, '')}">
<meta name="auth" content="${auth === 'keys' ? 'keys' : 'demo'}">
<meta name="demo-controls" content="${demoControls ? 'on' : 'off'}">
<title>Sales pipeline console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/assets/${style}">
<script type="module" src="/console/assets/${script}"></script>
</head>
<body>
<div id="app"></div>
<noscript>The console needs JavaScript; the API is described at /openapi.json.</noscript>
</body>
</html>
`;
      return { html, etag: `"${createHash('sha256').update(html).digest('base64url').slice(0, 22)}"` };
    },
  };
}

let built: Promise<ConsoleAssets> | undefined;

/** The console's assets, built once per process on first use. */
export function consoleAssets(): Promise<ConsoleAssets> {
  built ??= buildAssets().catch((error) => {
    built = undefined;
    throw error;
  });
  return built;
}
