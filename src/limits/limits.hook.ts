import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Generations } from '../cache/generations.js'
import { sendError } from '../http/error-handler.js'
import type { ChargeCaller } from '../auth/caller.hook.js'
import type { Metrics } from '../ops/metrics.js'
import type { Decision, StaleDecision, Tokens } from './store.js'
import { errorResponses, type HeaderDocs } from '../openapi/responses.js'
import { rateLimitHeaders, refusal } from './limits.http.js'
import type { RateLimiter } from './limits.service.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The cache generation tokens a key's rate-limit decision read, when they are shared in Redis. */
    tokens: Tokens | undefined
    /** The rate limiter's decision for the caller, kept by `chargeCaller` for `limitRequests` to answer. */
    rateLimit: Decision | StaleDecision
  }
}

/** The headers every /v1 response carries, as documented on every operation. */
export const RATE_LIMIT_HEADER_DOCS: HeaderDocs = {
  'X-RateLimit-Limit': { type: 'integer', description: 'The limit of the binding window (the one with the fewest requests remaining)' },
  'X-RateLimit-Remaining': { type: 'integer', description: 'Requests left in the binding window; 0 while the key is banned' },
  'X-RateLimit-Reset': { type: 'integer', description: 'Unix time (seconds) at which the binding window resets; while the key is banned, the end of the ban' },
  'RateLimit-Policy': { type: 'string', description: 'Every window in force, IETF draft form: `"minute";q=60;w=60, "day";q=1000;w=86400`' },
  RateLimit: { type: 'string', description: 'Every window\'s remaining requests and seconds to reset: `"minute";r=59;t=30, "day";r=999;t=4000`; while the key is banned, every window says r=0 and t the seconds left in the ban' },
  'X-Request-Id': { type: 'string', description: 'The request id: the client\'s own when it sent a sane one, else generated' },
}

const documented = new WeakMap<object, object>()

/**
 * A response's schema with the rate-limit headers, made once per schema: the apps of a process
 * share it, and with it their serializers (src/http/serialization.ts).
 */
function withRateLimitHeaders(response: { headers?: HeaderDocs }): { headers?: HeaderDocs } {
  let made = documented.get(response)
  if (!made) documented.set(response, (made = { ...response, headers: { ...response.headers, ...RATE_LIMIT_HEADER_DOCS } }))
  return made
}

/**
 * The rate limiter's charge of the caller, for the caller step (`identifyCaller`, auth/caller.hook.ts):
 * a valid key is charged to its project's plan, anything else to the client's address. A stale
 * decision (the key's cached principal is out of date: a key revoked, a plan changed on another
 * instance) charges nothing: its auth token is given back, for the key to be read again under it.
 */
export function chargeCaller(limiter: RateLimiter, generations: Generations): ChargeCaller {
  return async (request, caller) => {
    const decision = caller.ok ? await limiter.forKey(caller.principal) : await limiter.forAddress(request.ip)
    request.rateLimit = decision
    if (decision.outcome !== 'stale') return undefined
    generations.observe(decision.tokens)
    return { authToken: decision.tokens.auth }
  }
}

/**
 * Rate limits for every request of a scope (all of /v1), as `chargeCaller` decided them. Every
 * answer, errors included, carries the headers of the decision; a refusal is a 429.
 * Runs after `identifyCaller`, before authentication is enforced.
 */
export function limitRequests(scope: FastifyInstance, metrics: Metrics, generations: Generations): void {
  scope.decorateRequest('tokens', undefined)
  scope.decorateRequest('rateLimit', null as never)
  scope.addHook('onRoute', (route) => {
    if (route.schema?.hide) return
    const responses: Record<string, { headers?: HeaderDocs }> = { ...(route.schema?.response as object), ...errorResponses(429) }
    for (const [status, response] of Object.entries(responses)) {
      // An overlong URL is refused before the caller is identified (see app.ts): no decision, no headers.
      if (status === '414') continue
      responses[status] = withRateLimitHeaders(response)
    }
    route.schema = { ...route.schema, response: responses }
  })
  scope.addHook('onRequest', async (request: FastifyRequest, reply) => {
    const { caller } = request
    // A principal read just now is not checked against the token again: never stale.
    const decision = request.rateLimit as Decision
    if (decision.tokens) {
      generations.observe(decision.tokens)
      request.tokens = decision.tokens
    }
    reply.headers(rateLimitHeaders(decision))
    const refused = refusal(decision, caller.ok ? { plan: caller.principal.plan, publishable: caller.principal.publishable } : 'address')
    if (refused) {
      metrics.refused.inc({ reason: refused.code, subject: caller.ok ? 'project' : 'address' })
      // Answered here rather than thrown: the error handler would only send the same envelope.
      return sendError(reply, refused)
    }
  })
}
