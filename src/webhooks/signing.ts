import { randomBytes } from 'node:crypto'
import { Webhook } from 'standardwebhooks'

/** A new signing secret, as Standard Webhooks writes it: `whsec_` and 32 random bytes in base64. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`
}

/**
 * The `webhook-signature` header of one attempt (Standard Webhooks): `v1,<base64 HMAC-SHA256 of
 * "<id>.<timestamp>.<body>">` for each secret, space-separated. During a rotation's overlap both
 * the new and the previous secret sign, so receivers may switch at their own pace.
 */
export function signatureHeader(secrets: readonly string[], id: string, timestampSeconds: number, body: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(id, new Date(timestampSeconds * 1000), body)).join(' ')
}

/** The body of every attempt of an event: `{ type, timestamp, data }`, the same bytes each time. */
export function eventBody(type: string, createdAt: string, data: string): string {
  return `{"type":${JSON.stringify(type)},"timestamp":${JSON.stringify(createdAt)},"data":${data}}`
}
