import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ProjectLookup } from '../auth/admin-access.js'
import { canSee } from '../auth/admin-access.js'
import { parseInstant } from '../clock.js'
import { ApiError } from '../errors.js'
import { NEXT_LINK_DOC, sendPage } from '../http/pagination.js'
import { errorResponses } from '../openapi/responses.js'
import { AuditEntriesSchema, AuditQuerySchema } from './audit.schemas.js'
import type { AuditService } from './audit.service.js'

/** The audit log (admin API, `/admin/v1`). */
export const auditRoutes: FastifyPluginAsyncTypebox<{ audit: AuditService; findProject: ProjectLookup }> = async (app, { audit, findProject }) => {
  app.get(
    '/audit',
    {
      schema: {
        tags: ['audit'],
        operationId: 'listAuditEntries',
        summary: 'List audit entries',
        description:
          'Every change, newest first: made through the admin API, the dashboard or the CLI, every write through /v1 (actor `api_key`, with the key\'s id), enquiries from the adoption site (`anonymous`), the service\'s automatic actions (`system`: bans by the rate limiter, webhook endpoints disabled after failing, domain and certificate states changed by the background checks) and failed dashboard sign-ins (`anonymous`). Who (actor), what (action and target), when, in which request, and what changed. Operators see every entry; owners see the entries of their projects and their own changes. Secrets (keys, passwords) are never recorded. When more entries exist, the `Link` header carries the next page (`rel="next"`, with the `before` cursor).',
        querystring: AuditQuerySchema,
        response: {
          200: { description: 'A page of entries, newest first', headers: NEXT_LINK_DOC, ...AuditEntriesSchema },
          ...errorResponses(400, 401, 404, 500, 503),
        },
      },
    },
    async (request, reply) => {
      const { project: slug, action, actor, actorKind, key, targetType, targetId, since, until, before, limit } = request.query
      const principal = request.adminPrincipal
      let projectId: number | undefined
      if (slug !== undefined) {
        const project = await findProject(slug)
        // An owner asking for another project learns nothing: the same 404 as for none.
        if (!project || !canSee(principal, project)) throw new ApiError('not_found', `No project with slug "${slug}".`)
        projectId = project.id
      }
      const visibleTo = principal.role === 'operator' ? undefined : { projectIds: [...principal.projectIds], userId: principal.userId }
      const page = await audit.list({
        visibleTo,
        projectId,
        action,
        actorName: actor,
        actorKind,
        keyId: key,
        targetType,
        targetId,
        since: since && instant('since', since),
        until: until && instant('until', until),
        before,
        limit,
      })
      return sendPage(reply, page, '/admin/v1/audit', { project: slug, action, actor, actorKind, key, targetType, targetId, since, until, limit }, 'before')
    },
  )
}

/** The ISO form entries are stored in, so that they compare as text; 400 for a date that does not exist. */
function instant(name: string, value: string): string {
  const time = parseInstant(value)
  if (time === undefined) throw new ApiError('invalid_request', `querystring/${name} is not a real instant: "${value}" (use RFC 3339, e.g. 2026-11-25T00:00:00Z).`)
  return new Date(time).toISOString()
}
