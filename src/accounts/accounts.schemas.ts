import { Type } from 'typebox'
import { MAX_INT53, nullableTimestamp as timestamp, StringEnum } from '../shapes.js'
import { MAX_PASSWORD_LENGTH } from './passwords.js'
import { USER_ROLES } from '../db/schema.js'
import { MIN_PASSWORD_LENGTH, ONE_TIME_PASSWORD_TTL_MS } from './users.service.js'

const ONE_TIME_DAYS = ONE_TIME_PASSWORD_TTL_MS / 86_400_000

/** A password a person chooses: the length rule of creation, reset and change alike. */
const chosenPassword = (description: string) => Type.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: MAX_PASSWORD_LENGTH, description })
const emailField = (description: string) => Type.String({ minLength: 3, maxLength: 254, description, examples: ['ops@example.com'] })
const roleField = StringEnum(USER_ROLES, {
  description:
    '`operator`: every project and every action; `owner`: only their projects, no plan changes, no new projects, no user management; `viewer` (volunteers, auditors): sees only their projects and changes nothing (403 `forbidden` on every change but signing out and their own password)',
})
const slugsField = (description: string) => Type.Array(Type.String({ minLength: 1, maxLength: 63 }), { maxItems: 1000, description, examples: [['acme']] })

export const SignInSchema = Type.Object(
  {
    email: emailField('The email the account was created with; case does not matter'),
    password: Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH, description: 'The password, or the one-time password an operator handed over' }),
    newPassword: Type.Optional(
      chosenPassword(
        `Only with a one-time password (the sign-in answered 403 \`password_change_required\`): your own password, ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters, other than the one-time one. It replaces the one-time password, and the session opens.`,
      ),
    ),
  },
  { additionalProperties: false, description: 'Credentials', examples: [{ email: 'ops@example.com', password: 'correct horse battery staple' }] },
)

export const SessionSchema = Type.Object(
  {
    user: Type.Object(
      {
        email: Type.String({ description: 'The signed-in user, lowercase' }),
        role: StringEnum(USER_ROLES, { description: '`operator`: every project and every action; `owner`: only their projects, no plan changes, no new projects; `viewer`: sees only their projects, changes nothing' }),
        projects: Type.Array(Type.String(), { description: "Slugs of the projects the user may see: an owner's or a viewer's own, every project for an operator" }),
      },
      { additionalProperties: false },
    ),
    csrfToken: Type.String({ description: 'Send it as the header `X-CSRF-Token` with every POST, PUT, PATCH and DELETE made with the session cookie' }),
    features: Type.Object(
      {
        customDomains: Type.Boolean({ description: 'Custom domains can be added (the operator set `PLATFORM_DOMAIN`); when false, every domain operation is 404' }),
        webhooks: Type.Boolean({ description: 'Webhook endpoints can be added (the operator set `WEBHOOK_ENCRYPTION_KEY`, or else `CERTIFICATE_ENCRYPTION_KEY`, which seals their secrets); when false, adding one is 503' }),
        webhookPrivateNetworks: Type.Boolean({
          description: "Private networks can be granted to a project's webhook endpoints (the operator set `WEBHOOK_ALLOWED_NETWORKS`); when false, a grant has no network to open",
        }),
      },
      { additionalProperties: false, description: 'What the operator configured on this service, so that a client offers only what can work' },
    ),
  },
  { additionalProperties: false, description: 'The signed-in session' },
)

export const PasswordChangeSchema = Type.Object(
  {
    currentPassword: Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH, description: 'The password you signed in with' }),
    newPassword: chosenPassword(`Your new password, ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`),
  },
  { additionalProperties: false, examples: [{ currentPassword: 'correct horse battery staple', newPassword: 'a new and longer pass phrase' }] },
)

const userProperties = {
  id: Type.Integer({ minimum: 1, description: "The user's id: what the admin API's paths and the audit log's `user` targets name", examples: [7] }),
  email: Type.String({ description: 'The email they sign in with, lowercase', examples: ['ann@example.com'] }),
  role: roleField,
  projects: Type.Array(Type.String(), { description: "Slugs of an owner's or a viewer's projects, in order; empty for an operator, who sees every project" }),
  state: StringEnum(['enabled', 'disabled'], { description: '`disabled`: the user cannot sign in and has no session' }),
  disabledAt: timestamp('When the user was disabled; null while enabled'),
  createdAt: Type.String({ format: 'date-time', description: 'When the user was created' }),
  lastSignedInAt: timestamp('When the user last signed in; null: never'),
  oneTimePasswordExpiresAt: timestamp(
    'Set while the password is a one-time password (from creation or a reset) the user has not yet replaced with their own at sign-in: it stops working at this instant. Null once they chose their own.',
  ),
}

export const UserSchema = Type.Object(userProperties, {
  $id: 'User',
  additionalProperties: false,
  description: 'An account that signs in to the dashboard. Its password is never shown.',
})

export const UsersSchema = Type.Array(Type.Ref('User'), { description: 'Every user, oldest first' })

export const UserWithPasswordSchema = Type.Object(
  {
    ...userProperties,
    password: Type.String({
      description: `The one-time password, shown this once: hand it over safely. It opens no session: at sign-in its user chooses their own (\`newPassword\`). It works for ${ONE_TIME_DAYS} days (\`oneTimePasswordExpiresAt\`).`,
    }),
  },
  { $id: 'UserWithPassword', additionalProperties: false, description: 'A user with the one-time password just generated for them' },
)

export const NewUserSchema = Type.Object(
  {
    email: emailField('The email they will sign in with; stored lowercase, unique without case'),
    role: roleField,
    projects: Type.Optional(slugsField('Owners and viewers only, and at least one: the slugs of their projects')),
  },
  { additionalProperties: false, examples: [{ email: 'ann@example.com', role: 'owner', projects: ['acme'] }] },
)

export const UserProjectsSchema = Type.Object(
  { projects: Type.Array(Type.String({ minLength: 1, maxLength: 63 }), { minItems: 1, maxItems: 1000, description: 'The slugs of every project the owner or viewer belongs to from now on (at least one)' }) },
  { additionalProperties: false, examples: [{ projects: ['acme', 'shelter'] }] },
)

export const UserParamsSchema = Type.Object({
  userId: Type.Integer({ format: 'int64', minimum: 1, maximum: MAX_INT53, description: "The user's id (`id` in the list of users)", examples: [7] }),
})
