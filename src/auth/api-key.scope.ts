import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Environment } from '../config.js'
import { ApiError } from '../errors.js'
import { sendError } from '../http/error-handler.js'
import { RATE_LIMIT_HEADER_DOCS } from '../limits/limits.hook.js'
import { API_KEY_SECURITY } from '../openapi/security.js'
import { CHECKSUM_LENGTH, KEY_PREFIXES, RANDOM_LENGTH, REALM } from './api-key.js'
import type { AuthResult, Principal } from './authenticator.js'
import type { Caller } from './caller.hook.js'
import { refusedOrigin } from './cors.hook.js'
import { allows, type ApiScope } from './scopes.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller of an authenticated route; set by `requireApiKey` before any of its handlers run. */
    principal: Principal
  }
  interface FastifyContextConfig {
    /** A /v1 operation: the scope a key needs to call it (every operation declares one). */
    scope?: ApiScope
  }
}

/** What an operation answers a key that may not call it, in the public document. */
const FORBIDDEN = {
  403: {
    description:
      "The API key may not call this operation: its scopes do not include the operation's (code: insufficient_scope, the message names the scope), or it is a publishable key sent from an origin it does not allow (code: origin_not_allowed)",
    // Refused after the rate limit's charge (see limits/limits.hook.ts), so with its headers.
    headers: RATE_LIMIT_HEADER_DOCS,
    $ref: 'Error',
  },
}

/**
 * Makes an encapsulated scope authenticated: every route registered in it afterwards requires
 * a valid key that has the route's scope (`config.scope`, which every route declares), is
 * documented with the bearer security requirement, the scope (`x-scopes`) and the 403
 * of a key without it, and sees `request.principal`. A publishable key sent from a page of an
 * origin it does not allow is refused here too, whatever the route.
 */
export function requireApiKey(scope: FastifyInstance, environment: Environment): void {
  scope.decorateRequest('principal', null as unknown as Principal)
  scope.addHook('onRoute', (route) => {
    const needed = route.config?.scope
    if (needed === undefined) throw new Error(`${[route.method].flat().join(',')} ${route.url}: a /v1 operation declares the scope a key needs (config.scope)`)
    route.schema = {
      ...route.schema,
      // A bearer scheme's requirement names no scopes in OpenAPI (only OAuth's do): the scope is
      // the operation's `x-scopes`, and the scheme's description lists them.
      security: [{ [API_KEY_SECURITY]: [] }],
      ...{ 'x-scopes': [needed] },
      response: { ...(route.schema?.response as object | undefined), ...FORBIDDEN },
    }
  })
  const refusals = unauthorizedAnswers(environment)
  scope.addHook('onRequest', (request: FastifyRequest, reply, done) => {
    const caller: Caller = request.caller
    if (caller.ok) {
      const { principal } = caller
      request.principal = principal
      const origin = refusedOrigin(principal, request.headers.origin)
      if (origin) return sendError(reply, origin)
      const needed = request.routeOptions.config.scope
      if (needed !== undefined && !allows(principal.scopes, needed)) {
        return sendError(reply, new ApiError('insufficient_scope', `This API key does not have the scope "${needed}" this operation needs (it has ${principal.scopes?.join(', ') || 'none'}). Create a key with the scope "${needed}".`))
      }
      return done()
    }
    if (caller.reason === 'error') return done(caller.error as Error)
    // Answered here rather than thrown: a refusal is not a failure, and the error handler would
    // only send the same envelope after more work. The request ends; `done` is not called.
    sendError(reply, refusals[caller.reason] ?? unauthorized(caller, environment))
  })
}

type Refusal = Extract<AuthResult, { ok: false }>

/**
 * The 401s whose message depends only on the environment, built once and shared by every
 * request they answer (an ApiError's fields are read-only). Revoked and expired keys name a time,
 * so theirs are built per request.
 */
function unauthorizedAnswers(environment: Environment): Partial<Record<Refusal['reason'], ApiError>> {
  const fixed: Refusal['reason'][] = ['missing', 'scheme', 'malformed', 'checksum', 'environment', 'unknown']
  return Object.fromEntries(fixed.map((reason) => [reason, unauthorized({ ok: false, reason }, environment)]))
}

function unauthorized(result: Refusal, environment: Environment): ApiError {
  const use = 'send it as the header "Authorization: Bearer <API key>"'
  const other: Environment = environment === 'production' ? 'staging' : 'production'
  const messages: Record<typeof result.reason, string> = {
    missing: `Missing API key: ${use}.`,
    scheme: `The Authorization header must use the Bearer scheme: ${use}.`,
    malformed: `The API key is malformed: keys look like ${KEY_PREFIXES[environment]}<${RANDOM_LENGTH} letters and digits>_<${CHECKSUM_LENGTH} letters and digits>.`,
    checksum: 'The API key fails its checksum: it was mistyped or cut short. Copy it again.',
    environment: `The API key is a ${other} key (${KEY_PREFIXES[other]}…), but this is the ${environment} environment: use a ${environment} key (${KEY_PREFIXES[environment]}…).`,
    unknown: 'The API key is not recognised. Check that you copied it whole, or create a new one.',
    revoked: `The API key was revoked at ${result.at ?? 'an earlier time'}. Create a new key.`,
    expired: `The API key expired at ${result.at ?? 'an earlier time'}. Create a new key.`,
  }
  // RFC 6750: a request without a bearer token gets the bare challenge; a bad token gets an error code.
  const challenge = result.reason === 'missing' || result.reason === 'scheme' ? REALM : `${REALM}, error="invalid_token"`
  return new ApiError('unauthorized', messages[result.reason], { 'www-authenticate': challenge })
}
