import type { FastifyInstance, FastifyRequest } from 'fastify'
import { CHECKSUM_LENGTH, KEY_PREFIXES, RANDOM_LENGTH } from '../keys/api-key.js'
import type { AuthResult, Authenticator, Principal } from '../keys/keys.service.js'
import { ApiError } from '../errors.js'
import type { Environment } from '../config.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller; set by the authenticated scope's hook before any of its handlers run. */
    principal: Principal
  }
}

export const REALM = 'Bearer realm="adoption-store"'
export const SECURITY_SCHEME = 'bearerAuth'

/**
 * Makes an encapsulated scope authenticated: every route registered in it afterwards requires
 * a valid key, is documented with the bearer security requirement, and sees `request.principal`.
 */
export function requireApiKey(scope: FastifyInstance, authenticator: Authenticator, environment: Environment): void {
  scope.decorateRequest('principal', null as unknown as Principal)
  scope.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, security: [{ [SECURITY_SCHEME]: [] }] }
  })
  scope.addHook('onRequest', async (request: FastifyRequest) => {
    const result = await authenticator.authenticate(request.headers.authorization)
    if (!result.ok) throw unauthorized(result, environment)
    request.principal = result.principal
  })
}

function unauthorized(result: Extract<AuthResult, { ok: false }>, environment: Environment): ApiError {
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
