import type { FastifyInstance, onSendHookHandler } from 'fastify'

/**
 * HEAD is answered for every GET route (Fastify's `exposeHeadRoutes`) by running the GET route
 * itself, hooks included (authentication, rate limits, headers), then dropping the body. Fastify
 * drops it in a last `onSend` handler, which it places before the handlers that plugins add to
 * the route later; compression is one of those, so a HEAD would announce the uncompressed length
 * where its GET sends compressed bytes. This moves the body's removal back to the very end, so a
 * HEAD carries exactly the headers of its GET: Content-Encoding, Vary and Content-Length included.
 * Call after the plugins that add `onSend` handlers to routes, before the routes are added.
 */
export function answerHeadLikeGet(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (route.method !== 'HEAD' || !Array.isArray(route.onSend)) return
    const handlers = route.onSend as onSendHookHandler[]
    const dropBody = handlers.findIndex((handler) => handler.name === 'headRouteOnSendHandler')
    if (dropBody === -1 || dropBody === handlers.length - 1) return
    route.onSend = [...handlers.slice(0, dropBody), ...handlers.slice(dropBody + 1), handlers[dropBody]!]
  })
}
