// People (D-62, D-63) as bodies and answers. A user's password or token is never in an answer.
import { Type } from '@sinclair/typebox';
import { EMAIL_PATTERN, PASSWORD_MAX, USER_ROLES } from '../domain/users.ts';
import { pageParams, Timestamp } from './common.ts';
import { INVITE_EXAMPLE } from './request-examples.ts';

export const RoleSchema = Type.Union(
  USER_ROLES.map((role) => Type.Literal(role)),
  {
    description:
      "a person's role (D-62): a Seller's `admin`, `manager`, `rep` or `viewer`; a closer's `closer`; the operator's `operator`",
  },
);

const Email = Type.String({
  minLength: 3,
  maxLength: 254,
  pattern: EMAIL_PATTERN,
  description: 'unique across the deployment, compared without regard to case',
});

export const UserSchema = Type.Object(
  {
    id: Type.String({ description: '`usr_<NNNN>`' }),
    email: Type.String(),
    name: Type.String(),
    principal: Type.String({ description: 'whom the person acts as: `operator`, a Seller id or a closer id' }),
    role: RoleSchema,
    createdAt: Timestamp,
    lastSignInAt: Type.Union([Timestamp, Type.Null()], { description: 'null: never signed in' }),
    disabledAt: Type.Union([Timestamp, Type.Null()], { description: 'null: enabled' }),
    invitationAccepted: Type.Boolean({ description: 'whether the person has set a password' }),
  },
  { additionalProperties: false, description: 'A person with an account (keys mode)' },
);

export const CreateUserBody = Type.Object(
  {
    email: Email,
    name: Type.String({
      minLength: 1,
      maxLength: 200,
      description: "the person's name, shown on every move they make",
    }),
    role: RoleSchema,
    principal: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: "whose person: the caller's own principal unless the operator names another",
      }),
    ),
  },
  { additionalProperties: false, examples: [INVITE_EXAMPLE] },
);

export const RoleBody = Type.Object(
  { role: RoleSchema },
  { additionalProperties: false, examples: [{ role: 'manager' }] },
);

export const UserListQuery = Type.Object(
  {
    principal: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: "the operator's filter", examples: ['seller_0001'] }),
    ),
    ...pageParams('usr'),
  },
  { additionalProperties: false },
);

const Password = Type.String({
  minLength: 1,
  maxLength: PASSWORD_MAX * 4,
  description: '12 to 256 characters, not containing the part of the email before the @ (else 400 WEAK_PASSWORD)',
});
const Token = Type.String({ minLength: 1, maxLength: 256, description: 'the token of the link that was mailed' });

export const AcceptBody = Type.Object(
  { token: Token, password: Password },
  {
    additionalProperties: false,
    examples: [{ token: 'Jm2sYV0iO3aXQ7k1n0Qq4b8wqz8xkq2yP1s5c9d3e7f', password: 'correct horse battery staple' }],
  },
);

export const ResetRequestBody = Type.Object(
  { email: Email },
  { additionalProperties: false, examples: [{ email: 'dana@acme-robotics.example' }] },
);

export const PasswordSignInBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 254 }),
    password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX * 4 }),
  },
  { additionalProperties: false },
);
