import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { siteAdminRoutes } from './site-admin.routes.js'
import { siteRoutes, type SiteRoutesDeps } from './site.routes.js'
import { type SiteDeps, SiteService } from './site.service.js'

/** The shelter's adoption site, wired: its settings, its pages and its admin operations. */
export interface Site {
  service: SiteService
  routes: {
    /** The pages: `/animals/:id`, `/embed`, … on a project's hosts, `/sites/<slug>/…` on the API's. */
    pages: FastifyPluginAsync
    /** `/` of a project's host, for the index route: undefined when the host has no published site. */
    root: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>
    /** `/admin/v1/projects/:slug/site`. */
    admin: FastifyPluginAsyncTypebox
  }
}

export function createSite({ db, clock, generations, ...features }: SiteDeps & Omit<SiteRoutesDeps, 'site' | 'clock'>): Site {
  const service = new SiteService({ db, clock, generations })
  const pages = siteRoutes({ ...features, site: service, clock })
  return { service, routes: { pages: pages.plugin, root: pages.root, admin: (app) => siteAdminRoutes(app, { site: service }) } }
}
