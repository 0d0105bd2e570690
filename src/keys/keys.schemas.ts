import { Type } from 'typebox'
import { nullableTimestamp as timestamp, StringEnum } from '../shapes.js'
import { API_SCOPES } from '../auth/scopes.js'
import { MAX_ALLOWED_ORIGINS, MAX_KEY_LIFETIME_DAYS } from './keys.service.js'

/** Fields added with key scopes: their shape may still change, with notice. */
const BETA = { 'x-stability': 'beta' } as const

const ScopeSchema = StringEnum(API_SCOPES, {
  description: 'pets:read (animals, photos, changes, categories, breeds, locations), pets:write (add, change, remove animals and photos), orders:read, orders:write',
})


const apiKeyProperties = {
  id: Type.String({ description: 'The key\'s public id: safe to show and log', examples: ['key_3kTMd9PqW2xY7bZa'] }),
  name: Type.Union([Type.String(), Type.Null()], { description: 'What the key is for' }),
  prefix: Type.String({ description: 'The first characters of the secret, to recognise the key', examples: ['as_live_Ab3x'] }),
  createdAt: Type.String({ format: 'date-time', description: 'When the key was created' }),
  lastUsedAt: timestamp('When the key was last used (written at most once a minute)'),
  expiresAt: timestamp('When the key stops working; null: never'),
  revokedAt: timestamp('When the key was revoked; null: it was not'),
  bannedUntil: timestamp('The end of the ban running now for ignoring 429 answers; null: none'),
  scopes: Type.Union([Type.Array(Type.String()), Type.Null()], {
    ...BETA,
    description: 'What the key may call (pets:read, pets:write, orders:read, orders:write); null: everything, as keys made without scopes',
    examples: [['pets:read', 'orders:read']],
  }),
  publishable: Type.Boolean({ ...BETA, description: 'A key for web pages: read-only (pets:read), answered with CORS headers for its allowedOrigins only' }),
  allowedOrigins: Type.Array(Type.String(), { ...BETA, description: "A publishable key's origins; empty for other keys", examples: [['https://shelter.example']] }),
}

export const ApiKeySchema = Type.Object(apiKeyProperties, {
  $id: 'ApiKey',
  additionalProperties: false,
  description: 'An API key of a project. The secret is never shown again after creation.',
})

export const ApiKeysSchema = Type.Array(Type.Ref('ApiKey'), { description: "The project's keys, oldest first, revoked ones included" })

export const NewApiKeySchema = Type.Object(
  {
    ...apiKeyProperties,
    key: Type.String({ description: 'The secret, shown this once: store it now. Send it as `Authorization: Bearer <key>`.' }),
  },
  { $id: 'NewApiKey', additionalProperties: false, description: 'A new API key, with its secret' },
)

export const KeyRequestSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 100, description: 'What the key is for: at most 100 characters, no control characters' })),
    expiresInDays: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_KEY_LIFETIME_DAYS, description: 'Lifetime in days; without it the key does not expire' })),
    scopes: Type.Optional(
      Type.Array(ScopeSchema, {
        ...BETA,
        minItems: 1,
        maxItems: API_SCOPES.length,
        uniqueItems: true,
        description: 'What the key may call; without it the key has full access (a publishable key: pets:read, the only scope it may have). A call beyond them is 403 insufficient_scope.',
      }),
    ),
    publishable: Type.Optional(
      Type.Boolean({ ...BETA, description: 'A key to put in web pages: read-only (pets:read), with its own rate-limit budget, answered with CORS headers for allowedOrigins only' }),
    ),
    allowedOrigins: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 300 }), {
        ...BETA,
        minItems: 1,
        maxItems: MAX_ALLOWED_ORIGINS,
        description: 'A publishable key\'s origins, exactly as browsers send them: `https://host` or `https://host:port` in lower case; `http://localhost[:port]` for development',
        examples: [['https://shelter.example']],
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ name: 'checkout service', expiresInDays: 90 }, { name: 'shelter site', publishable: true, allowedOrigins: ['https://shelter.example'] }],
  },
)

export const KeyParamsSchema = Type.Object({
  slug: Type.String({ minLength: 1, maxLength: 63, description: "The project's slug", examples: ['acme'] }),
  id: Type.String({ minLength: 1, maxLength: 64, description: "The key's id", examples: ['key_3kTMd9PqW2xY7bZa'] }),
})
