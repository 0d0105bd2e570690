import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ApiError } from '../errors.js'
import { REALM } from './api-key.js'
import type { AuthResult, Authenticator } from './authenticator.js'
import { allowOrigin } from './cors.hook.js'

/** The project a request's host selects (a `<slug>.<PLATFORM_DOMAIN>` host or a custom domain). */
export interface Site {
  host: string
  projectId: number
  slug: string
}

/** A key's verdict, or a refusal decided before authentication (another project's host). */
export type Caller = AuthResult | { ok: false; reason: 'error'; error: unknown }

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Who sent the request, as far as its key and its host tell; written by `identifyCaller` only,
     * for every /v1 request.
     */
    caller: Caller
    /** The project the Host header selects, when it is a project's host rather than the API's own (set by host routing). */
    site: Site | null
  }
}

/**
 * Charges a caller to the rate limiter (`chargeCaller`, limits/limits.hook.ts) and keeps its
 * decision for the request. When the caller's cached principal turned out older than the tokens
 * the limiter read, nothing was charged: the answer is the auth token to read the key again under.
 */
export type ChargeCaller = (request: FastifyRequest, caller: Caller) => Promise<{ authToken: string } | undefined>

export interface CallerDeps {
  authenticator: Pick<Authenticator, 'authenticate'>
  charge: ChargeCaller
}

/**
 * The one step that says who is calling, for every request of a scope (all of /v1), before
 * anything else needs it: the key's principal (from the authenticator's cache, else the keys);
 * on a project's host, only that project's keys (another project's key is refused like an invalid
 * one, 401, and is charged to the client's address); then the rate limiter's charge, which counts
 * by project for a valid key and by address otherwise. A principal the limiter finds stale (a key
 * revoked, a plan changed on another instance) is read again at once, under the token it read,
 * and charged then: a principal read just now is never stale.
 *
 * A publishable key's answers carry CORS headers for its allowed origins (auth/cors.ts).
 *
 * A key that cannot be checked (the database is unavailable) ends the request at once, with
 * 503 and no rate-limit decision: it is not "no valid key", so it is never charged to the
 * client's address budget (which would turn an outage into 429s), and it never fails open.
 */
export function identifyCaller(scope: FastifyInstance, { authenticator, charge }: CallerDeps): void {
  scope.decorateRequest('caller', null as never)
  scope.addHook('onRequest', async (request: FastifyRequest, reply) => {
    request.caller = onSite(request, await authenticator.authenticate(request.headers.authorization))
    const fresh = await charge(request, request.caller)
    if (fresh) {
      request.caller = onSite(request, await authenticator.authenticate(request.headers.authorization, fresh))
      await charge(request, request.caller)
    }
    // A publishable key's page can read every answer, a 429 or a 404 included; a page of another
    // origin gets no CORS headers, and requireApiKey refuses it.
    if (request.caller.ok) allowOrigin(reply, request.caller.principal, request.headers.origin)
  })
}

/** On a project's host, a valid key of another project: refused by requireApiKey, which rethrows a failure recorded as the caller. */
function onSite(request: FastifyRequest, caller: AuthResult): Caller {
  const { site } = request
  if (!site || !caller.ok || caller.principal.projectId === site.projectId) return caller
  return {
    ok: false,
    reason: 'error',
    error: new ApiError('unauthorized', `This API key is not a key of the project served at ${site.host}: use one of that project's keys.`, {
      'www-authenticate': `${REALM}, error="invalid_token"`,
    }),
  }
}
