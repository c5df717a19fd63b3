// GET /docs: an HTML API reference rendered on the server from the OpenAPI contract itself,
// so it can never drift from it and needs nothing from a CDN.
import { PRICING_STATEMENT } from './pricing.ts';

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is walked loosely, for display only
type Json = Record<string, any>;

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

const pretty = (value: unknown) => `<pre>${escapeHtml(JSON.stringify(value, null, 2))}</pre>`;

function operation(path: string, method: string, op: Json): string {
  const id = op.operationId ?? `${method}-${path}`;
  const params = (op.parameters ?? []) as Json[];
  const body = op.requestBody?.content?.['application/json']?.schema;
  const responses = Object.entries((op.responses ?? {}) as Json);
  return `
<section class="op" id="${escapeHtml(id)}">
  <h3><span class="method ${escapeHtml(method)}">${escapeHtml(method.toUpperCase())}</span> <code>${escapeHtml(path)}</code></h3>
  <p>${escapeHtml(op.summary ?? '')} <a class="anchor" href="#${escapeHtml(id)}">${escapeHtml(id)}</a></p>
  ${
    params.length
      ? `<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>required</th><th>schema</th></tr>${params
          .map(
            (p) =>
              `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${escapeHtml(p.in)}</td><td>${p.required ? 'yes' : 'no'}</td><td><code>${escapeHtml(
                JSON.stringify(p.schema ?? {}),
              )}</code></td></tr>`,
          )
          .join('')}</table>`
      : ''
  }
  ${body ? `<details><summary>Request body</summary>${pretty(body)}</details>` : ''}
  <h4>Responses</h4>
  <ul>${responses
    .map(
      ([status, r]) =>
        `<li><details><summary><code>${escapeHtml(status)}</code> ${escapeHtml(r.description ?? '')}</summary>${pretty(
          r.content?.['application/json']?.schema ?? {},
        )}</details></li>`,
    )
    .join('')}</ul>
</section>`;
}

export function renderDocs(openapi: Json): string {
  const byTag = new Map<string, string[]>();
  for (const [path, item] of Object.entries((openapi.paths ?? {}) as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      const tag = (op.tags?.[0] as string) ?? 'other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), operation(path, method, op)]);
    }
  }
  const schemas = Object.entries((openapi.components?.schemas ?? {}) as Json);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(openapi.info?.title ?? 'API')} ${escapeHtml(openapi.info?.version ?? '')}: API reference</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1d2330}
code,pre{font:13px ui-monospace,monospace}pre{background:#f4f5f7;padding:.75rem;overflow:auto;border-radius:4px}
.op{border-top:1px solid #dde;padding:.5rem 0}.method{display:inline-block;min-width:4.5em;font-weight:600}
.get{color:#1a7f37}.post{color:#0550ae}.put,.patch{color:#9a6700}.delete{color:#cf222e}
table{border-collapse:collapse}td,th{border:1px solid #dde;padding:.2rem .5rem;text-align:left}.anchor{color:#888;font-size:12px}
nav a{margin-right:1rem}
</style>
</head>
<body>
<h1>${escapeHtml(openapi.info?.title ?? 'API')} <small>${escapeHtml(openapi.info?.version ?? '')}</small></h1>
<p>${escapeHtml(openapi.info?.description ?? '')}</p>
<nav>${[...byTag.keys()].map((t) => `<a href="#tag-${escapeHtml(t)}">${escapeHtml(t)}</a>`).join('')}<a href="#schemas">schemas</a><a href="#pricing-ledger">pricing</a></nav>
<p>OpenAPI ${escapeHtml(openapi.openapi ?? '')} contract: <a href="/openapi.json">/openapi.json</a>.</p>
${[...byTag.entries()].map(([tag, ops]) => `<h2 id="tag-${escapeHtml(tag)}">${escapeHtml(tag)}</h2>${ops.join('')}`).join('\n')}
<h2 id="schemas">Schemas</h2>
${schemas.map(([name, schema]) => `<details id="schema-${escapeHtml(name)}"><summary><code>${escapeHtml(name)}</code></summary>${pretty(schema)}</details>`).join('\n')}
<h2 id="pricing-ledger">Pricing ledger</h2>
<p>${escapeHtml(PRICING_STATEMENT)}</p>
<p>Open item: publish binding terms (a <code>termsUrl</code>) before keys are issued. Until then
<a href="/pricing">/pricing</a> declares <code>binding: false</code>.</p>
</body>
</html>
`;
}
