import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'

/**
 * What every answer carries unless its route says otherwise: API answers are one caller's data
 * at one instant (and carry that caller's rate-limit headers), so no cache, shared or private,
 * may keep them; and a body is only what its Content-Type says (no MIME sniffing).
 * The dashboard's and /docs' static files set their own Cache-Control over this one.
 */
export function setDefaultResponseHeaders(reply: FastifyReply): void {
  reply.header('cache-control', 'no-store')
  reply.header('x-content-type-options', 'nosniff')
}

/**
 * Serves a JSON document that changes only with a deployment (the OpenAPI documents): serialised
 * once, with a weak ETag of its content, `Cache-Control: no-cache` (store it, but ask each time)
 * and 304 Not Modified for a matching `If-None-Match`. Weak, because the bytes sent differ with
 * the content coding while the document is the same. `Vary: accept-encoding` on every answer,
 * since a stored copy may be compressed or not.
 */
export function revalidatedJson(build: () => unknown): (request: FastifyRequest, reply: FastifyReply) => FastifyReply {
  let document: { body: string; etag: string } | undefined
  return (request, reply) => {
    document ??= serialise(build())
    reply.header('cache-control', 'no-cache').header('etag', document.etag).header('vary', 'accept-encoding')
    if (matches(request.headers['if-none-match'], document.etag)) return reply.code(304).send()
    return reply.type('application/json; charset=utf-8').send(document.body)
  }
}

function serialise(value: unknown): { body: string; etag: string } {
  const body = JSON.stringify(value)
  return { body, etag: `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` }
}

/** RFC 9110 §13.1.2: `*`, or a list of tags compared weakly (`W/` ignored on both sides). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false
  const opaque = etag.replace(/^W\//, '')
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim()
    return trimmed === '*' || trimmed.replace(/^W\//, '') === opaque
  })
}
