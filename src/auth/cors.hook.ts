import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError } from '../errors.js'
import { sendError } from '../http/error-handler.js'
import type { OriginAccess, Principal } from './authenticator.js'
import { parseOrigin } from './scopes.js'

/**
 * Cross-origin requests (CORS) for publishable keys only: a web page of one of the key's allowed
 * origins may read the answers; any other origin is refused; every other key is answered as
 * before, without CORS headers, so a browser never lets a page read what a secret key fetched.
 */

/** What a page may send: its key, and a revalidation. Publishable keys only read. */
const ALLOWED_METHODS = 'GET, HEAD'
const ALLOWED_HEADERS = 'Authorization, If-None-Match'
/** The answers' headers a page may read, beyond the CORS-safelisted ones. */
const EXPOSED_HEADERS = [
  'ETag',
  'Link',
  'X-Total-Count',
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Deprecation',
  'Sunset',
].join(', ')
/** How long a browser may keep a preflight's answer (Chromium keeps it at most 2 hours). */
const PREFLIGHT_MAX_AGE_S = 600

/** The refusal of a publishable key sent from a page whose origin it does not allow; undefined otherwise. */
export function refusedOrigin(principal: Principal, origin: string | undefined): ApiError | undefined {
  if (!principal.publishable || origin === undefined || principal.allowedOrigins.includes(origin)) return undefined
  return new ApiError(
    'origin_not_allowed',
    `This publishable key is not allowed from the origin ${JSON.stringify(origin)}: use it from one of its allowed origins, or create a key that allows this one.`,
  )
}

/** The CORS headers of an answer to a publishable key from one of its allowed origins. */
export function allowOrigin(reply: FastifyReply, principal: Principal, origin: string | undefined): void {
  if (!principal.publishable) return
  // The answer depends on the Origin header, whichever it was.
  addVary(reply, 'Origin')
  if (origin === undefined || !principal.allowedOrigins.includes(origin)) return
  reply.header('access-control-allow-origin', origin)
  reply.header('access-control-expose-headers', EXPOSED_HEADERS)
}

function addVary(reply: FastifyReply, name: string): void {
  const vary = reply.getHeader('vary')
  if (vary === undefined) reply.header('vary', name)
  else if (!String(vary).split(/\s*,\s*/).includes(name)) reply.header('vary', `${String(vary)}, ${name}`)
}

export interface PreflightDeps {
  /** What the live publishable keys (of `projectId`, on a project's host) say of `origin` (undefined: not a valid origin). */
  originAccess(origin: string | undefined, projectId: number | undefined): Promise<OriginAccess>
}

/**
 * Answers CORS preflight requests (OPTIONS with Origin and Access-Control-Request-Method) on the
 * scope's paths. A preflight carries no key, so the origin is checked against every live
 * publishable key (on a project's host, that project's): allowed, 204 with the methods and
 * headers a page may use; else 403 `origin_not_allowed` without CORS headers, and the browser
 * sends nothing. Where there is no publishable key at all, the API takes no cross-origin request,
 * and a preflight is answered as before the keys existed: 405, like any other OPTIONS request.
 * Runs after the caller step: a preflight is charged to the client's address like any request
 * without a key.
 */
export function answerPreflight(scope: FastifyInstance, { originAccess }: PreflightDeps): void {
  scope.addHook('onRequest', async (request: FastifyRequest, reply) => {
    if (request.method !== 'OPTIONS' || request.is404) return
    const sent = request.headers.origin
    if (sent === undefined || request.headers['access-control-request-method'] === undefined) return
    const origin = parseOrigin(sent)
    const access = await originAccess(origin, request.site?.projectId)
    if (access === 'none') return
    reply.header('vary', 'Origin')
    if (origin === undefined || access === 'refused') {
      return sendError(reply, new ApiError('origin_not_allowed', `No publishable key allows the origin ${JSON.stringify(sent)}: list it in the key's allowed origins.`))
    }
    return reply
      .code(204)
      .headers({
        'access-control-allow-origin': origin,
        'access-control-allow-methods': ALLOWED_METHODS,
        'access-control-allow-headers': ALLOWED_HEADERS,
        'access-control-max-age': String(PREFLIGHT_MAX_AGE_S),
      })
      .send()
  })
}
