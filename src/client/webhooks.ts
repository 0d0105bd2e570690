/**
 * Verifying the events the service POSTs to your webhook endpoints (Standard Webhooks): check the
 * signature and the age of the timestamp before trusting the body, with the raw body as received.
 *
 *     import { verifyWebhook } from 'adoption-store/client'
 *
 *     app.post('/webhooks', express.raw({ type: 'application/json' }), (req, res) => {
 *       const event = verifyWebhook(process.env.WEBHOOK_SECRET, req.body, req.headers)
 *       if (event.type === 'pet.created') console.log('new animal', event.data.name)
 *       res.sendStatus(204)
 *     })
 *
 * It throws a `WebhookVerificationError` for a missing header, a wrong signature or a timestamp
 * more than 5 minutes away from now (a replay). Deduplicate by `webhook-id`: delivery is at least once.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks'
import type { webhooks } from './schema.js'

export { WebhookVerificationError }

/** Every event type of the catalogue. */
export type WebhookEventType = keyof webhooks

type BodyOf<T extends WebhookEventType> = webhooks[T]['post'] extends { requestBody: { content: { 'application/json': infer Body } } } ? Body : never

/** A verified event: `{ type, timestamp, data }`, its `data` typed by its `type`. */
export type WebhookEvent = { [T in WebhookEventType]: BodyOf<T> }[WebhookEventType]

/** The headers of the request, as Node.js (`IncomingHttpHeaders`), the Fetch API (`Headers`) or a plain object give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>

function header(headers: WebhookHeaders, name: string): string {
  const value = typeof (headers as Headers).get === 'function' ? (headers as Headers).get(name) : (headers as Record<string, string | string[] | undefined>)[name]
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '')
}

/**
 * Verifies an event and answers it parsed. `secret` is the endpoint's `whsec_…` secret; give two
 * (the new and the previous) while you switch after a rotation. `body` must be the raw body, byte
 * for byte: a body parsed and serialized again does not verify.
 */
export function verifyWebhook(secret: string | readonly string[], body: string | Uint8Array, headers: WebhookHeaders): WebhookEvent {
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body)
  const signed = { 'webhook-id': header(headers, 'webhook-id'), 'webhook-timestamp': header(headers, 'webhook-timestamp'), 'webhook-signature': header(headers, 'webhook-signature') }
  let failure: unknown
  for (const each of typeof secret === 'string' ? [secret] : secret) {
    try {
      return new Webhook(each).verify(text, signed) as WebhookEvent
    } catch (error) {
      failure = error
    }
  }
  throw failure ?? new WebhookVerificationError('No secret to verify with')
}
