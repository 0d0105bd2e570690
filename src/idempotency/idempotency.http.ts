import { Type } from 'typebox'

/** 1 to 255 printable ASCII characters, bare or as a structured-field string in double quotes. */
const IDEMPOTENCY_KEY = /^"?([\x21\x23-\x7e][\x20\x21\x23-\x7e]{0,253}[\x21\x23-\x7e]|[\x21\x23-\x7e])"?$/

/** The `Idempotency-Key` request header of an unsafe operation, for its route schema. */
export const IdempotencyKeyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      pattern: IDEMPOTENCY_KEY.source,
      description:
        'Makes retries safe: the same key and body within 24 hours replay the first response. A unique value per intended operation (a UUID works), 1 to 255 printable ASCII characters.',
      examples: ['8e03978e-40d5-43e8-bc93-6894a57f9324'],
    }),
  ),
})

export const IDEMPOTENT_REPLAYED_DOC = {
  'Idempotent-Replayed': { type: 'string', description: '`true` when this is the stored response of an earlier request with the same Idempotency-Key' },
} as const

/** The key itself, without the structured-field quotes; the header was validated by the schema. */
export function idempotencyKeyOf(header: string | undefined): string | undefined {
  return header === undefined ? undefined : IDEMPOTENCY_KEY.exec(header)?.[1]
}
