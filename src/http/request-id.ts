import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

/** A client's X-Request-Id is kept when it is short and plain; anything else gets a fresh id. */
const ACCEPTED = /^[\w.:-]{1,128}$/

export function requestId(request: IncomingMessage): string {
  const given = request.headers['x-request-id']
  return typeof given === 'string' && ACCEPTED.test(given) ? given : randomUUID()
}
