import type { FastifyInstance } from 'fastify'
import type { Caller } from '../auth/caller.hook.js'
import type { UsageRecorder } from './usage.recorder.js'

/**
 * Counts every response of a scope (all of /v1) sent for a request with a valid key, 429s
 * included, toward its project's usage. Runs on every request: callback-style, no allocation.
 */
export function recordUsage(scope: FastifyInstance, usage: UsageRecorder): void {
  scope.addHook('onResponse', (request, reply, done) => {
    // Null when the request was turned away before it was identified (e.g. during shutdown).
    const caller = request.caller as Caller | null
    if (caller?.ok) usage.request(caller.principal.projectId, reply.statusCode === 429)
    done()
  })
}
