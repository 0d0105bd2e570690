import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Environment } from '../config.js'
import { ApiError } from '../errors.js'
import { sendError } from '../http/error-handler.js'
import { API_KEY_SECURITY } from '../openapi/security.js'
import { CHECKSUM_LENGTH, KEY_PREFIXES, RANDOM_LENGTH, REALM } from './api-key.js'
import type { AuthResult, Principal } from './authenticator.js'
import type { Caller } from './caller.hook.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller of an authenticated route; set by `requireApiKey` before any of its handlers run. */
    principal: Principal
  }
}

/**
 * Makes an encapsulated scope authenticated: every route registered in it afterwards requires
 * a valid key, is documented with the bearer security requirement, and sees `request.principal`.
 */
export function requireApiKey(scope: FastifyInstance, environment: Environment): void {
  scope.decorateRequest('principal', null as unknown as Principal)
  scope.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, security: [{ [API_KEY_SECURITY]: [] }] }
  })
  const refusals = unauthorizedAnswers(environment)
  scope.addHook('onRequest', (request: FastifyRequest, reply, done) => {
    const caller: Caller = request.caller
    if (caller.ok) {
      request.principal = caller.principal
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
