// Shapes of the ROOT machine surfaces (the contract, the reference, pricing, the offer, the cards
// agents read first, the probes), so that the contract documents what each one answers. Open
// (`additionalProperties`) where the document is meant to grow.
import { type TSchema, Type } from '@sinclair/typebox';

const open = (properties: Parameters<typeof Type.Object>[0], description: string) =>
  Type.Object(properties, { additionalProperties: true, description });

const Href = Type.String({ description: 'a path on this origin' });

export const OpenApiDocument = open(
  {
    openapi: Type.Literal('3.1.0'),
    info: open({ title: Type.String(), version: Type.String() }, 'title, version, description, license'),
    paths: Type.Record(Type.String(), Type.Unknown()),
  },
  'This contract, OpenAPI 3.1.0',
);

export const PricingDocumentSchema = Type.Object(
  {
    model: Type.Literal('free'),
    unit: Type.String(),
    price: Type.Number(),
    binding: Type.Literal(false),
    statement: Type.String(),
    ledgerUrl: Type.String(),
    rates: Type.Array(
      Type.Object({
        operation: Type.String({ description: 'an operationId of this contract' }),
        price: Type.Number(),
        unit: Type.String(),
        included: Type.Literal('unlimited'),
        disclosure: Type.Literal('published'),
        note: Type.Optional(Type.String()),
      }),
      { description: 'one row per operationId of the contract' },
    ),
  },
  { description: 'The Pricing Document: every operation free, not binding' },
);

export const FamilyDocument = open(
  {
    name: Type.String(),
    version: Type.String(),
    description: Type.String(),
    edges: Type.Array(Type.Object({ rel: Type.String(), type: Type.String(), href: Href })),
  },
  'The properties of this service as typed edges',
);

export const AgentsCard = open(
  {
    schemaVersion: Type.String(),
    name: Type.String(),
    version: Type.String(),
    description: Type.String(),
    auth: open({ type: Type.String() }, 'how to authenticate: none'),
    contract: Href,
    capabilities: Type.Array(
      Type.Object({ id: Type.String(), summary: Type.String(), endpoints: Type.Array(Type.String()) }),
    ),
    mcp: Type.Array(open({ transport: Type.String(), tools: Type.Array(Type.String()) }, 'an MCP door')),
  },
  'The capability card agents read first',
);

export const IcpDocument = open(
  {
    name: Type.String(),
    version: Type.String(),
    description: Type.String(),
    segments: Type.Array(Type.Object({ actor: Type.String(), fit: Type.String(), why: Type.String() })),
  },
  'The ideal customer profile',
);

export const ProbeSuite = open(
  {
    suite: Type.String(),
    version: Type.String(),
    description: Type.String(),
    probes: Type.Array(open({ id: Type.String() }, 'a probe: request and expected answer')),
  },
  'The probe suite as JSON',
);

/** A text answer of one media type. */
export const text = (
  mediaType: string,
  description: string,
): { content: Record<string, { schema: TSchema }> } & {
  description: string;
} => ({ description, content: { [mediaType]: { schema: Type.String() } } });
