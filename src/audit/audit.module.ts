import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ProjectLookup } from '../auth/admin-access.js'
import type { Db } from '../db/database.js'
import { auditRoutes } from './audit.routes.js'
import { AuditService } from './audit.service.js'

export interface AuditDeps {
  db: Db
  /** The project a listing is filtered to, checked against the caller's access. */
  findProject: ProjectLookup
}

/** The audit log, wired: read by its service and its admin route (the changes record their entries themselves). */
export interface Audit {
  service: AuditService
  /** `/audit` of the admin API. */
  routes: FastifyPluginAsyncTypebox
}

export function createAudit({ db, findProject }: AuditDeps): Audit {
  const service = new AuditService(db)
  return { service, routes: (app) => auditRoutes(app, { audit: service, findProject }) }
}
