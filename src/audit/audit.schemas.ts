import { Type, type Static } from 'typebox'
import { ACTOR_KINDS } from '../db/schema.js'
import { StringEnum } from '../shapes.js'
import { AUDIT_ACTIONS, type AuditAction } from './audit.js'

const ACTIONS = Object.keys(AUDIT_ACTIONS) as AuditAction[]

/** An RFC 3339 instant, with its offset; the handler also checks it is a real date. */
const instant = (description: string) =>
  Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2})$', description, examples: ['2026-11-25T00:00:00Z'] })

export const AuditQuerySchema = Type.Object(
  {
    project: Type.Optional(Type.String({ minLength: 1, maxLength: 63, description: 'Only entries of this project (its slug)', examples: ['acme'] })),
    action: Type.Optional(StringEnum(ACTIONS, { description: 'Only entries of this action', examples: ['key.revoked'] })),
    actor: Type.Optional(Type.String({ minLength: 1, maxLength: 254, description: 'Only changes made by this actor: a user\'s email, `ADMIN_TOKEN`, `cli:<system user>` or `system`', examples: ['ada@shelter.example'] })),
    actorKind: Type.Optional(StringEnum(ACTOR_KINDS, { description: 'Only changes made by this kind of actor: `user`, `admin_token`, `cli`, `system`, `api_key` (writes through /v1) or `anonymous` (the adoption site\'s enquiries, failed sign-ins)', examples: ['api_key'] })),
    key: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Only writes made with this API key (its id, as the keys list shows it)', examples: ['key_3xAmpLe5Dq9LzT0p'] })),
    targetType: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'Only entries about this kind of thing: `project`, `key`, `domain`, `pet`, `order`, `user`', examples: ['key'] })),
    targetId: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Only entries about the thing with this id (with `targetType`)', examples: ['key_3xAmpLe5Dq9LzT0p'] })),
    since: Type.Optional(instant('Only entries at or after this instant (RFC 3339, with its offset)')),
    until: Type.Optional(instant('Only entries before this instant (RFC 3339, with its offset)')),
    before: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Cursor: only entries with a smaller id (the `Link` header of the previous page carries it)', examples: [120] })),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'Page size, 1..100', examples: [50] }),
  },
  { additionalProperties: false },
)

export type AuditQuery = Static<typeof AuditQuerySchema>

export const AuditEntrySchema = Type.Object(
  {
    id: Type.Integer({ description: 'Ascending in the order changes were recorded', examples: [42] }),
    at: Type.String({ format: 'date-time', description: 'When the change was made' }),
    actor: Type.Object(
      {
        kind: StringEnum(ACTOR_KINDS, {
          description:
            '`user` (signed in), `admin_token` (the ADMIN_TOKEN bearer), `cli` (the command line on a server), `system` (the service itself: first start, the limiter\'s bans, the background checks), `api_key` (a write through /v1), `anonymous` (an enquiry on the adoption site, a failed sign-in)',
        }),
        name: Type.String({ description: "The user's email, `ADMIN_TOKEN`, `cli:<system user>`, `system`, `key:<key id>` or `anonymous`, as it was at the time" }),
        keyId: Type.Optional(Type.String({ description: 'For `api_key`: the id of the key that made the write (never its secret)', examples: ['key_3xAmpLe5Dq9LzT0p'] })),
      },
      { additionalProperties: false },
    ),
    action: StringEnum(ACTIONS, { description: 'What was done' }),
    target: Type.Object(
      {
        type: Type.String({ description: 'What it was done to: `project`, `key`, `domain`, `pet`, `order`, `user` or `session`' }),
        id: Type.String({ description: "The thing's id: a slug, key id, domain name, animal or order id, or user id" }),
      },
      { additionalProperties: false },
    ),
    project: Type.Union([Type.String(), Type.Null()], { description: 'The slug of the project the change belongs to; null for changes outside projects (users, sessions)' }),
    requestId: Type.Union([Type.String(), Type.Null()], { description: "The request's X-Request-Id, the CLI invocation's id (`cli-…`), or null for the service's own changes" }),
    details: Type.Record(Type.String(), Type.Unknown(), { description: 'What changed (never a secret)' }),
  },
  { $id: 'AuditEntry', additionalProperties: false, description: 'One change: made through the admin API, the dashboard or the CLI, a write through /v1, an enquiry on the adoption site, an automatic action of the service, or a failed sign-in' },
)

export type AuditEntry = Static<typeof AuditEntrySchema>

export const AuditEntriesSchema = Type.Array(Type.Ref('AuditEntry'), { description: 'Audit entries, newest first' })
