import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { AuthChangeListener } from '../cache/generations.js'
import type { Clock } from '../clock.js'
import type { Config } from '../config.js'
import type { Db } from '../db/database.js'
import { API_VERSION } from '../openapi/openapi.js'
import type { ObjectStore } from '../storage/store.js'
import { ProjectExporter } from './projects-export.service.js'
import { projectsRoutes } from './projects.routes.js'
import { type ProjectRemoval, ProjectsService } from './projects.service.js'
import type { Outbox } from '../webhooks/outbox.js'

export interface ProjectsDeps {
  db: Db
  clock: Clock
  /** A project's address is `https://<slug>.<PLATFORM_DOMAIN>` when it is set. */
  config: Pick<Config, 'platformDomain'>
  /** Told once a plan change committed: every instance applies it from the next request. */
  authChanged: AuthChangeListener
  /** What deleting a project tells: the caches, the host routes, the object store. */
  removal: ProjectRemoval
  /** Where a plan change writes its webhook event. */
  outbox: Pick<Outbox, 'write'>
  /** Where an export reads the photos' files from. */
  files: Pick<ObjectStore, 'get'>
}

/** Projects and their plans, wired: the service and the admin API's project routes. */
export interface Projects {
  service: ProjectsService
  /** A project's whole data as one archive (the admin API's export, `projects export`). */
  exporter: ProjectExporter
  /** `/projects` of the admin API. */
  routes: FastifyPluginAsyncTypebox
}

export function createProjects({ db, clock, config, authChanged, removal, outbox, files }: ProjectsDeps): Projects {
  const service = new ProjectsService(db, clock, authChanged, removal, outbox)
  const exporter = new ProjectExporter({ db, clock, files, version: API_VERSION })
  return { service, exporter, routes: (app) => projectsRoutes(app, { projects: service, exporter, platformDomain: config.platformDomain }) }
}
