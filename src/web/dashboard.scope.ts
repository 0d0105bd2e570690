import fs from 'node:fs'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import fastifyStatic from '@fastify/static'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError } from '../errors.js'
import { sendError } from '../http/error-handler.js'
import { trackMethods } from '../http/method-not-allowed.js'
import { named } from '../http/plugin-name.js'

/**
 * The web dashboard: a static single-page app built by Vite (`dashboard/`) into `dist/dashboard/`
 * and served here under `/dashboard`. It lives in `src/web/` rather than `src/dashboard/`: the
 * compiler's output for that folder would land in Vite's output folder, which each build empties.
 */

export const DASHBOARD_PREFIX = '/dashboard'

/**
 * What the dashboard's pages may load and do: their own scripts, styles and the API, nothing else;
 * images also from `mediaOrigin`, where photos are served (MEDIA_BASE_URL: this service's `/media`,
 * or a CDN in front of it), for the animals' thumbnails.
 */
export function dashboardCsp(mediaOrigin?: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' data:${mediaOrigin ? ` ${mediaOrigin}` : ''}`,
    "connect-src 'self'",
    "font-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ')
}

function securityHeaders(mediaOrigin: string | undefined) {
  return {
    'content-security-policy': dashboardCsp(mediaOrigin),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
  } as const
}

/** Vite's output next to the compiled code: `dist/dashboard/` from `src/web/` and from `dist/web/` alike. */
export const DEFAULT_DASHBOARD_ROOT = fileURLToPath(new URL('../../dist/dashboard/', import.meta.url))

export interface DashboardOptions {
  /** The built dashboard (holding `index.html` and `assets/`); default: `dist/dashboard/`. */
  root?: string
  /** Where photos' files are served (MEDIA_BASE_URL): its origin may show images in the pages. */
  mediaBaseUrl?: string
}

/**
 * Serves the dashboard: `index.html` (never cached) at `/dashboard`, `/dashboard/` and every other
 * `/dashboard/...` path, so the app's own routes survive a reload; hashed files under
 * `/dashboard/assets/` cached for a year as immutable, and a JSON 404 for an unknown one. Every
 * answer carries a strict Content-Security-Policy and the other security headers. Until the
 * dashboard is built, every path answers 503 saying so. The routes are not in the OpenAPI documents.
 */
export async function installDashboard(app: FastifyInstance, options: DashboardOptions = {}): Promise<void> {
  const root = path.resolve(options.root ?? DEFAULT_DASHBOARD_ROOT)
  const headers = securityHeaders(options.mediaBaseUrl === undefined ? undefined : new URL(options.mediaBaseUrl).origin)
  const indexFile = path.join(root, 'index.html')
  // Checked until found, so building while the service runs needs no restart.
  let built = false
  const isBuilt = () => (built ||= fs.existsSync(indexFile))

  await app.register(
    named(async (scope) => {
      const finishMethods = trackMethods(scope)

      scope.addHook('onRequest', async (request: FastifyRequest) => {
        // The operator's surfaces stay on the API's own hosts, never on a project's (custom) domain.
        if (request.site) throw new ApiError('not_found', `No route ${request.method} ${request.url.split('?', 1)[0]} on a project's host.`)
        if (!isBuilt()) throw notBuilt()
      })
      scope.addHook('onSend', (_request, reply, payload, done) => {
        reply.headers(headers)
        done(null, payload)
      })
      const noFile = (request: FastifyRequest) =>
        new ApiError('not_found', `No dashboard file ${request.url.split('?', 1)[0]}: the dashboard may have been updated since this page was loaded; reload it.`)
      scope.setNotFoundHandler((request, reply) => sendError(reply, noFile(request)))
      // The static files' refusals (a directory, a path with `..`) are not-founds too; the rest goes up.
      scope.setErrorHandler((error: FastifyError, request, reply) => {
        if (!(error instanceof ApiError) && (error.statusCode === 403 || error.statusCode === 404)) return sendError(reply, noFile(request))
        throw error
      })

      await scope.register(fastifyStatic, {
        root: path.join(root, 'assets'),
        prefix: '/assets/',
        // The file names carry a hash of their content: a changed file is a new name.
        cacheControl: true,
        maxAge: 31_536_000_000,
        immutable: true,
        index: false,
        list: false,
        redirect: false,
        dotfiles: 'deny',
        decorateReply: false,
        schemaHide: true,
        suppressWarning: true,
      })

      const sendIndex = async (_request: FastifyRequest, reply: FastifyReply) => {
        let html: Buffer
        try {
          html = await readFile(indexFile)
        } catch {
          built = false
          throw notBuilt()
        }
        return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(html)
      }
      // `/` also answers `/dashboard` itself; `/*` is every client-side route of the app.
      scope.route({ method: ['GET', 'HEAD'], url: '/', schema: { hide: true }, handler: sendIndex })
      scope.route({ method: ['GET', 'HEAD'], url: '/*', schema: { hide: true }, handler: sendIndex })
      finishMethods()
    }, 'dashboard'),
    { prefix: DASHBOARD_PREFIX },
  )
}

function notBuilt(): ApiError {
  return new ApiError('service_unavailable', 'The dashboard is not built on this instance: run `npm run build` (it builds the dashboard into dist/dashboard/), then reload.')
}
