import { Type } from 'typebox'
import { nullableTimestamp as timestamp } from '../shapes.js'
import { MAX_KEY_LIFETIME_DAYS } from './keys.service.js'


const apiKeyProperties = {
  id: Type.String({ description: 'The key\'s public id: safe to show and log', examples: ['key_3kTMd9PqW2xY7bZa'] }),
  name: Type.Union([Type.String(), Type.Null()], { description: 'What the key is for' }),
  prefix: Type.String({ description: 'The first characters of the secret, to recognise the key', examples: ['as_live_Ab3x'] }),
  createdAt: Type.String({ format: 'date-time', description: 'When the key was created' }),
  lastUsedAt: timestamp('When the key was last used (written at most once a minute)'),
  expiresAt: timestamp('When the key stops working; null: never'),
  revokedAt: timestamp('When the key was revoked; null: it was not'),
  bannedUntil: timestamp('The end of the ban running now for ignoring 429 answers; null: none'),
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
  },
  { additionalProperties: false, examples: [{ name: 'checkout service', expiresInDays: 90 }] },
)

export const KeyParamsSchema = Type.Object({
  slug: Type.String({ minLength: 1, maxLength: 63, description: "The project's slug", examples: ['acme'] }),
  id: Type.String({ minLength: 1, maxLength: 64, description: "The key's id", examples: ['key_3kTMd9PqW2xY7bZa'] }),
})
