// The probe suite of /verify (D-31): real, read-only requests any deployment must answer as
// the spec says. The project's tests run every probe; `sales-pipeline-gate verify <base-url>`
// runs them against any deployment.
import { COMMAND } from '../command.ts';
import { SERVICE_VERSION } from '../version.ts';

export interface Probe {
  id: string;
  description: string;
  request: { method: 'GET' | 'POST'; path: string; headers?: Record<string, string>; body?: unknown };
  expect: {
    status: number;
    /** Start of the content-type header. */
    contentType?: string;
    /** A JSON subset the body must contain (objects by key, arrays by index). */
    json?: unknown;
    /** Text the body must contain (for non-JSON faces). */
    text?: string;
    headers?: Record<string, string>;
  };
}

const JSON_TYPE = 'application/json';
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

export const PROBES: readonly Probe[] = [
  {
    id: 'deals-ok',
    description: 'GET /deals answers an OK envelope of sandbox deals, readable from any origin',
    request: { method: 'GET', path: '/deals' },
    expect: {
      status: 200,
      contentType: JSON_TYPE,
      json: { type: 'OK', sandbox: true },
      headers: { 'access-control-allow-origin': '*' },
    },
  },
  {
    id: 'deals-filter-empty',
    description: 'a stage filter that matches nothing is 200 EMPTY, never a bare empty array',
    request: { method: 'GET', path: '/deals?stage=no_such_stage' },
    expect: { status: 200, json: { type: 'EMPTY', sandbox: true } },
  },
  {
    id: 'deals-stage-filter',
    description: 'GET /deals?stage=negotiation answers only negotiation deals',
    request: { method: 'GET', path: '/deals?stage=negotiation' },
    expect: { status: 200, json: { type: 'OK', deals: [{ stage: 'negotiation', sandbox: true }] } },
  },
  {
    id: 'deals-role-filter',
    description: 'GET /deals?role=nurturer answers the stalled deals',
    request: { method: 'GET', path: '/deals?role=nurturer&limit=1' },
    expect: { status: 200, json: { type: 'OK', count: 1, deals: [{ signals: ['gone_dark'] }] } },
  },
  {
    id: 'deals-scope-tenant-blocked',
    description: 'the reserved scope tenant is 403 BLOCKED with a worded reason',
    request: { method: 'GET', path: '/deals?scope=tenant' },
    expect: { status: 403, json: { type: 'BLOCKED' } },
  },
  {
    id: 'deals-scope-settlement-blocked',
    description: 'the reserved scope settlement is 403 BLOCKED',
    request: { method: 'GET', path: '/deals?scope=settlement' },
    expect: { status: 403, json: { type: 'BLOCKED' } },
  },
  {
    id: 'deal-ok',
    description: 'GET /deals/deal_0001 answers the deal in an OK envelope',
    request: { method: 'GET', path: '/deals/deal_0001' },
    expect: { status: 200, json: { type: 'OK', deal: { id: 'deal_0001', sandbox: true } } },
  },
  {
    id: 'deal-unknown-empty',
    description: 'an unknown deal id is 404 with an EMPTY envelope',
    request: { method: 'GET', path: '/deals/deal_9999' },
    expect: { status: 404, json: { type: 'EMPTY' } },
  },
  {
    id: 'gigs-ok',
    description: 'GET /gigs?role=closer&status=fulfilled answers fulfilled closer gigs',
    request: { method: 'GET', path: '/gigs?role=closer&status=fulfilled' },
    expect: { status: 200, json: { type: 'OK', gigs: [{ role: 'closer', status: 'fulfilled' }] } },
  },
  {
    id: 'root-read-only',
    description: 'ROOT is read-only: a write on /deals is 405 with a JSON error',
    request: { method: 'POST', path: '/deals', headers: { 'content-type': 'application/json' }, body: {} },
    expect: { status: 405, contentType: JSON_TYPE },
  },
  {
    id: 'offer-stub',
    description: 'GET /offer is a 402 OFFER stub: nothing is billable',
    request: { method: 'GET', path: '/offer' },
    expect: { status: 402, json: { type: 'OFFER', status: 'stub' } },
  },
  {
    id: 'pricing-free',
    description: 'GET /pricing: model free, binding false, with a stated intent',
    request: { method: 'GET', path: '/pricing' },
    expect: { status: 200, json: { model: 'free', binding: false } },
  },
  {
    id: 'openapi',
    description: `GET /openapi.json is the OpenAPI 3.1.0 contract, version ${SERVICE_VERSION}`,
    request: { method: 'GET', path: '/openapi.json' },
    expect: { status: 200, json: { openapi: '3.1.0', info: { version: SERVICE_VERSION } } },
  },
  {
    id: 'family',
    description: 'GET /family.json lists sibling properties as typed edges',
    request: { method: 'GET', path: '/family.json' },
    expect: { status: 200, contentType: JSON_TYPE },
  },
  {
    id: 'agents-card',
    description: 'GET /.well-known/agents.json is the capability card',
    request: { method: 'GET', path: '/.well-known/agents.json' },
    expect: { status: 200, contentType: JSON_TYPE },
  },
  {
    id: 'icp',
    description: 'GET /icp.json describes who the service is for',
    request: { method: 'GET', path: '/icp.json' },
    expect: { status: 200, contentType: JSON_TYPE },
  },
  {
    id: 'llms-txt',
    description: 'GET /llms.txt follows the llms.txt convention (an H1 first)',
    request: { method: 'GET', path: '/llms.txt' },
    expect: { status: 200, contentType: 'text/plain', text: '# ' },
  },
  {
    id: 'docs',
    description: 'GET /docs is an HTML API reference',
    request: { method: 'GET', path: '/docs' },
    expect: { status: 200, contentType: 'text/html', text: '<html' },
  },
  {
    id: 'verify-json',
    description: 'GET /verify?format=json answers this suite as JSON',
    request: { method: 'GET', path: '/verify?format=json' },
    expect: { status: 200, json: { suite: 'sales-pipeline-root' } },
  },
  {
    id: 'mcp-initialize',
    description: 'POST /mcp speaks MCP over streamable HTTP',
    request: {
      method: 'POST',
      path: '/mcp',
      headers: MCP_HEADERS,
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-03-26',
          capabilities: {},
          clientInfo: { name: 'verify', version: SERVICE_VERSION },
        },
      },
    },
    expect: { status: 200, text: '"serverInfo"' },
  },
  {
    id: 'health',
    description: 'GET /health answers ok',
    request: { method: 'GET', path: '/health' },
    expect: { status: 200, json: { ok: true } },
  },
];

/** expected ⊆ actual: objects by their keys, arrays by index (a longer actual array is fine). */
export function contains(actual: unknown, expected: unknown): boolean {
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && expected.every((item, i) => contains(actual[i], item));
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null) return false;
    return Object.entries(expected).every(([key, value]) => contains((actual as Record<string, unknown>)[key], value));
  }
  return Object.is(actual, expected);
}

export interface ProbeResult {
  id: string;
  ok: boolean;
  detail: string;
}

export async function runProbe(baseUrl: string, probe: Probe): Promise<ProbeResult> {
  const { request, expect } = probe;
  const problems: string[] = [];
  try {
    const response = await fetch(new URL(request.path, baseUrl), {
      method: request.method,
      headers: request.headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    if (response.status !== expect.status) problems.push(`status ${response.status}, expected ${expect.status}`);
    const type = response.headers.get('content-type') ?? '';
    if (expect.contentType && !type.startsWith(expect.contentType)) {
      problems.push(`content-type ${type || '(none)'}, expected ${expect.contentType}`);
    }
    for (const [name, value] of Object.entries(expect.headers ?? {})) {
      if (response.headers.get(name) !== value)
        problems.push(`header ${name}: ${response.headers.get(name)}, expected ${value}`);
    }
    if (expect.text && !text.includes(expect.text)) problems.push(`body lacks ${JSON.stringify(expect.text)}`);
    if (expect.json !== undefined) {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        problems.push('body is not JSON');
      }
      if (body !== undefined && !contains(body, expect.json))
        problems.push(`body does not contain ${JSON.stringify(expect.json)}`);
    }
  } catch (error) {
    problems.push(`request failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  const summary = `${request.method} ${request.path}`;
  return {
    id: probe.id,
    ok: problems.length === 0,
    detail: problems.length ? `${summary}: ${problems.join('; ')}` : `${summary}: ok`,
  };
}

export async function runProbes(baseUrl: string): Promise<{ ok: boolean; results: ProbeResult[] }> {
  const results: ProbeResult[] = [];
  for (const probe of PROBES) results.push(await runProbe(baseUrl, probe));
  return { ok: results.every((r) => r.ok), results };
}

export function probeSuiteJson() {
  return {
    suite: 'sales-pipeline-root',
    version: SERVICE_VERSION,
    description: `Read-only probes every deployment of this service must pass. Run them: npx ${COMMAND} verify <base-url>.`,
    probes: PROBES,
  };
}

export function probeSuiteMarkdown(): string {
  const rows = PROBES.map(
    (p) => `| \`${p.id}\` | \`${p.request.method} ${p.request.path}\` | ${p.expect.status} | ${p.description} |`,
  );
  return [
    '# Probe suite: sales pipeline service',
    '',
    'Read-only probes that any deployment of this service must pass. They are real requests;',
    `the project's tests run every one of them, and \`npx ${COMMAND} verify <base-url>\` runs them`,
    'against any deployment (exit code 1 on a failure). The same suite as JSON:',
    '`GET /verify?format=json` or `Accept: application/json`.',
    '',
    '| Probe | Request | Status | Checks |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
