// Dry runs (D-48): the query parameter of the writes that take one, and what an accepted dry run
// answers. The records are the API's own, but an id the real call would hand out is null.
import { type TObject, type TSchema, Type } from '@sinclair/typebox';
import { LimitSchema } from './approvals.ts';
import { ActivitySchema, DealSchema, SettlementSchema } from './deal.ts';
import { EventTypeSchema } from './events.ts';
import { DRY_RUN_EXAMPLE } from './examples.ts';
import { GigSchema } from './marketplace.ts';

export const DryRunParam = Type.Optional(
  Type.Boolean({
    description:
      '`true`: run validation and the gate exactly as the real call would, and answer what it would do (200 `DryRun`) without doing it: nothing is stored, no id is used, no event is published, an Idempotency-Key is ignored. A refusal is the real call’s answer. `false` (the default) is the real call.',
    examples: [true],
  }),
);

export const DryRunQuery = Type.Object({ dryRun: DryRunParam }, { additionalProperties: false });

/** A record schema whose id fields may be null: the ids a dry run would hand out. */
function pending(schema: TObject, fields: string[], description: string): TSchema {
  const { $id: _id, examples: _examples, ...rest } = schema as TObject & { $id?: string; examples?: unknown };
  const properties = { ...rest.properties };
  for (const field of fields) {
    properties[field] = Type.Union([properties[field] as TSchema, Type.Null()], {
      description: 'null when the real call would create it (its id is not handed out by a dry run)',
    });
  }
  return { ...rest, properties, description };
}

/** The deal a dry run answers: its id, and the gig an entry names (D-272), null when the real call would create them. */
function pendingDeal(): TSchema {
  const deal = pending(DealSchema, ['id'], 'the deal as the real call would leave it') as TObject;
  const entry = ActivitySchema.properties;
  const gigId = Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description: 'null when it is the gig the real call would post (its id is not handed out by a dry run)',
    }),
  );
  const activity = Type.Array(Type.Object({ ...entry, gigId }), { description: 'full log, oldest first' });
  return { ...deal, properties: { ...deal.properties, activity } };
}

export const DryRunSchema = Type.Object(
  {
    dryRun: Type.Literal(true),
    accepted: Type.Literal(true, { description: 'the gate would accept it (a refusal answers as the real call does)' }),
    deal: pendingDeal(),
    gig: Type.Optional(pending(GigSchema, ['id', 'dealId'], 'the gig the move would post or change')),
    settlement: Type.Optional(
      pending(SettlementSchema, ['dealId'], 'the settlement the real call would make, when it closes the deal won'),
    ),
    events: Type.Array(
      Type.Object({
        type: EventTypeSchema,
        data: Type.Object(
          {},
          {
            additionalProperties: true,
            description: 'as the event’s data in the feed (`Event`), with the ids the real call would hand out null',
          },
        ),
      }),
      { description: 'the events the real call would publish, in order (not published: they have no seq)' },
    ),
    policy: Type.Optional(
      Type.Object(
        {
          outcome: Type.Union([Type.Literal('commit'), Type.Literal('hold'), Type.Literal('refuse')], {
            description:
              'what the real call would meet: commit; hold (202, an approval); refuse (422 POLICY_LIMIT). Held or refused, `deal` is the deal as it is and `events` are none: nothing would move',
          }),
          limits: Type.Array(Type.Ref(LimitSchema), {
            description:
              "every limit of the key's policy the proposal meets, passed or not, with `used` for the daily ones",
          }),
        },
        {
          additionalProperties: false,
          description:
            'D-71: a proposal through a key with a policy: what the policy would do and what is left of each limit',
        },
      ),
    ),
  },
  {
    $id: 'DryRun',
    description: 'What the real call would do (D-48): nothing of it was done',
    examples: [DRY_RUN_EXAMPLE],
  },
);
