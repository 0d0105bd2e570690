import type { FastifyInstance, HTTPMethods } from 'fastify'
import { ApiError } from '../errors.js'
import { sendError } from './error-handler.js'

const METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

/**
 * Answers 405 with an `Allow` header, instead of 404, for a known path called with another
 * method. Call it before registering the scope's routes; call the returned function after.
 */
export function trackMethods(scope: FastifyInstance): () => void {
  const methods = new Map<string, Set<string>>()
  scope.addHook('onRoute', (route) => {
    // Child scopes with their own prefix track their own routes.
    if (route.prefix !== scope.prefix) return
    const path = route.url.slice(scope.prefix.length)
    const known = methods.get(path) ?? new Set<string>()
    for (const method of [route.method].flat()) known.add(method)
    methods.set(path, known)
  })
  return () => {
    for (const [path, known] of [...methods]) {
      const allow = [...known].join(', ')
      const others = METHODS.filter((method) => !known.has(method))
      if (others.length === 0) continue
      scope.route({
        method: others,
        url: path,
        schema: { hide: true },
        // Answered before the body is read: the method is wrong whatever the body is.
        onRequest: async (request, reply) => {
          await sendError(reply, new ApiError('method_not_allowed', `${request.method} is not allowed on this path; use ${allow}.`, { allow }))
        },
        handler: async () => undefined,
      })
    }
  }
}
