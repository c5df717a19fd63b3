// The machine surfaces of the ROOT origin (spec "ROOT", D-32): the offer stub, the family of
// sibling properties, the capability card, the ideal customer profile and llms.txt. Their
// contents are not in the spec; they describe this service truthfully and point at each other.
import { COMMAND } from '../command.ts';
import { SERVICE_VERSION } from '../version.ts';
import { SANDBOX_LABEL } from './catalog.ts';

/** The tools each MCP door serves, as the doors name them (src/mcp/): the surfaces list them. */
export interface DoorTools {
  root: readonly string[];
  demo: readonly string[];
}

export const SERVICE = {
  name: 'Sales pipeline service',
  version: SERVICE_VERSION,
  summary:
    'A sales pipeline as a typed state machine: deals move through seven stages, agents and human closers only ' +
    'propose moves, and one gate commits or refuses them. Roles that need a human go to a closer marketplace as gigs; ' +
    'closed-won deals settle money exactly, in cents.',
};

export function offerStub() {
  return {
    type: 'OFFER',
    status: 'stub',
    id: 'offer_sandbox_stub',
    title: 'Keyed access to a live pipeline (not for sale yet)',
    price: { amount: 0, currency: 'USD', billable: false },
    note: 'A stub: the service is pre-launch and nothing is billable. It shows the shape a real offer will take.',
    rateCard: { url: '/pricing', model: 'free', binding: false },
    alternatives: [
      { kind: 'pay', title: 'Pay for keyed access', status: 'stub', billable: false, href: '/pricing' },
      {
        kind: 'work',
        title: 'Work deals as a closer in the demo marketplace',
        status: 'available',
        href: '/closers/gigs?status=open',
      },
      { kind: 'claim', title: 'Claim an open gig in the demo', status: 'available', href: '/closers/gigs?status=open' },
    ],
    sandbox: true,
    label: SANDBOX_LABEL,
  };
}

export function familyDocument() {
  return {
    name: SERVICE.name,
    version: SERVICE.version,
    description: 'The properties of this service, as typed edges from the origin.',
    edges: [
      { rel: 'self', type: 'origin', href: '/' },
      { rel: 'contract', type: 'openapi', href: '/openapi.json' },
      { rel: 'reference', type: 'html', href: '/docs' },
      { rel: 'capabilities', type: 'agents-card', href: '/.well-known/agents.json' },
      { rel: 'llms', type: 'llms-txt', href: '/llms.txt' },
      { rel: 'pricing', type: 'pricing-document', href: '/pricing' },
      { rel: 'offer', type: 'offer-envelope', href: '/offer' },
      { rel: 'customers', type: 'icp', href: '/icp.json' },
      { rel: 'probes', type: 'probe-suite', href: '/verify' },
      { rel: 'mcp', type: 'mcp-streamable-http', href: '/mcp' },
      { rel: 'demo', type: 'demo-environment', href: '/health' },
      { rel: 'demo-mcp', type: 'mcp-streamable-http', href: '/demo/mcp' },
    ],
  };
}

export function agentsCard(dealPrefix: string, tools: DoorTools) {
  return {
    schemaVersion: '0.1',
    name: SERVICE.name,
    version: SERVICE.version,
    description: SERVICE.summary,
    auth: { type: 'none', note: 'Keyless and anonymous; keys will be issued after launch.' },
    contract: '/openapi.json',
    documentation: '/docs',
    llms: '/llms.txt',
    pricing: '/pricing',
    verify: '/verify',
    capabilities: [
      {
        id: 'read-sandbox',
        summary: 'Read the sandbox deals and gigs (typed envelopes)',
        endpoints: ['GET /deals', 'GET /deals/{id}', 'GET /gigs'],
      },
      {
        id: 'sell',
        summary: 'Create a deal and let the agent work it until it closes or escalates',
        endpoints: [`POST ${dealPrefix}/sell`],
      },
      {
        id: 'propose',
        summary: 'Propose moves to the gate',
        endpoints: [`POST ${dealPrefix}/deals/{id}/advance`, 'POST /closers/gigs/{id}/advance'],
      },
      {
        id: 'marketplace',
        summary: 'Enrol closers, claim and work gigs',
        endpoints: ['POST /closers/closers', 'POST /closers/gigs/{id}/claim'],
      },
    ],
    mcp: [
      { url: '/mcp', transport: 'streamable-http', stateless: true, tools: tools.root },
      { url: '/demo/mcp', transport: 'streamable-http', stateless: true, tools: tools.demo },
      { command: `npx ${COMMAND} mcp`, transport: 'stdio', tools: tools.demo },
    ],
    sandbox: true,
  };
}

export function icpDocument() {
  return {
    name: SERVICE.name,
    version: SERVICE.version,
    description: 'Who this service is for: Sellers who want a pipeline that agents can work and humans can take over.',
    segments: [
      {
        actor: 'B2B',
        fit: 'strong',
        why: 'multi-stage deals with meetings, proposals and negotiation; human closers for large deals',
      },
      {
        actor: 'B2C',
        fit: 'good',
        why: 'short cycles worked by the agent end to end; a 7-day stall timeout by default',
      },
      { actor: 'B2D', fit: 'good', why: 'developer-facing deals where an agent qualifies and a human closes' },
      {
        actor: 'B2A',
        fit: 'experimental',
        why: 'agent-to-agent deals: proposals from software, the gate still decides',
      },
    ],
    signals: ['needs a negotiation floor enforced', 'pays human closers on outcome only', 'wants every move audited'],
    dealSizeUsd: { min: 0.01, max: 1e12, humanCloserTypicalFrom: 100_000 },
    sandbox: true,
    label: SANDBOX_LABEL,
  };
}

export function llmsTxt(dealPrefix: string, tools: DoorTools): string {
  return [
    `# ${SERVICE.name}`,
    '',
    `> ${SERVICE.summary} Keyless; the public origin serves labeled sandbox data, the demo runs the full mechanics in memory.`,
    '',
    'Executors only propose; the deal service holds the only commit authority. Money is USD with two decimals',
    'outside and integer cents inside. Errors are JSON with `error` and a stable `code`.',
    '',
    '## Contract and docs',
    '',
    '- [OpenAPI 3.1 contract](/openapi.json): every operation of both surfaces',
    '- [API reference](/docs): the contract rendered as HTML',
    '- [Capability card](/.well-known/agents.json): what an agent can do here',
    `- [Probe suite](/verify): checks any deployment must pass; from a clone: \`npx ${COMMAND} verify <base-url>\``,
    '',
    '## Sandbox collections (read-only)',
    '',
    '- [Deals](/deals): `?stage=`, `?role=`, `?limit=`, `?cursor=`; typed envelopes OK, EMPTY, BLOCKED',
    '- [Gigs](/gigs): `?role=`, `?status=`, `?limit=`, `?cursor=`; typed envelopes OK, EMPTY, BLOCKED',
    `- [MCP door](/mcp): tools ${tools.root.join(', ')} (streamable HTTP, POST)`,
    '',
    '## Demo environment',
    '',
    `- [Sell](${dealPrefix}/sell): POST a deal; the agent works it until it closes or escalates`,
    '- [Gigs](/closers/gigs): the closer marketplace',
    `- [Demo MCP door](/demo/mcp): tools ${tools.demo.join(', ')}; over stdio from a clone: \`npx ${COMMAND} mcp\``,
    '- [Endpoint index](/): JSON list of every endpoint',
    '',
    '## Optional',
    '',
    '- [Pricing](/pricing): free; a stated intent, not a binding price',
    '- [Offer](/offer): a 402 stub; nothing is billable',
    '- [Ideal customer profile](/icp.json)',
    '- [Family](/family.json): the properties of this service as typed edges',
    '',
  ].join('\n');
}
