import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { canSee, operatorOnly, ownersAndOperators } from '../auth/admin-access.js'
import { changeOf } from '../audit/audit.http.js'
import { orThrow } from '../errors.js'
import { errorResponses } from '../openapi/responses.js'
import { NewProjectSchema, PlanChangeSchema, type ProjectBody, ProjectDeletionSchema, ProjectParamsSchema, ProjectsSchema, WebhookPrivateNetworksSchema } from './projects.schemas.js'
import type { ProjectExporter } from './projects-export.service.js'
import { type Project, type ProjectsService, toProject } from './projects.service.js'

const PROJECTS = { tags: ['projects'] } as const

/** The API shape of a project: the service's, with its published address. */
function present(project: Project, platformDomain: string | undefined): ProjectBody {
  return {
    slug: project.slug,
    plan: project.plan,
    limits: project.limits,
    address: platformDomain ? `https://${project.slug}.${platformDomain}` : null,
    createdAt: project.createdAt,
    webhookPrivateNetworks: project.webhookPrivateNetworks,
  }
}

/** Projects and their plans (admin API, `/admin/v1`). */
export const projectsRoutes: FastifyPluginAsyncTypebox<{ projects: ProjectsService; exporter: ProjectExporter; platformDomain: string | undefined }> = async (
  app,
  { projects, exporter, platformDomain },
) => {
  app.get(
    '/projects',
    {
      schema: {
        ...PROJECTS,
        operationId: 'listProjects',
        summary: 'List projects',
        description: 'Every project for an operator; for an owner, the projects they belong to. Oldest first.',
        response: { 200: { description: 'The projects the caller may see', ...ProjectsSchema }, ...errorResponses(400, 401, 404, 500, 503) },
      },
    },
    async (request) => {
      const all = await projects.list()
      return all.filter((project) => canSee(request.adminPrincipal, project)).map((project) => present(project, platformDomain))
    },
  )

  app.post(
    '/projects',
    {
      onRequest: operatorOnly,
      schema: {
        ...PROJECTS,
        operationId: 'createProject',
        'x-audit-action': 'project.created',
        summary: 'Create a project',
        description:
          'Operators only. `enterprise` needs `perMinute` and `perDay`; the other plans have fixed limits and take neither. Then create a key for the project (createApiKey).',
        body: NewProjectSchema,
        response: {
          201: { description: 'The project', headers: { Location: { type: 'string', description: 'Path of the project' } }, ...Type.Ref('Project') },
          ...errorResponses(400, 401, 403, 404, 409, 413, 415, 500, 503),
        },
      },
    },
    async (request, reply) => {
      const { slug, plan, perMinute, perDay } = request.body
      const { project } = orThrow(await projects.create(slug, { plan, perMinute, perDay }, changeOf(request)))
      return reply.code(201).header('location', `/admin/v1/projects/${project.slug}`).send(present(project, platformDomain))
    },
  )

  app.get(
    '/projects/:slug',
    {
      schema: {
        ...PROJECTS,
        operationId: 'getProject',
        summary: 'Get a project',
        description: 'The project with its plan, the limits in force and its published address.',
        params: ProjectParamsSchema,
        response: { 200: { description: 'The project', ...Type.Ref('Project') }, ...errorResponses(400, 401, 404, 500, 503) },
      },
    },
    async (request) => present(toProject(request.adminProject), platformDomain),
  )

  app.get(
    '/projects/:slug/export',
    {
      onRequest: ownersAndOperators,
      schema: {
        ...PROJECTS,
        operationId: 'exportProject',
        'x-audit-action': 'project.exported',
        'x-stability': 'beta',
        summary: "Download a project's whole data as one archive",
        description:
          "Owners of the project and operators (a viewer is answered 403: the archive holds the members' emails and the enquirers' contact details). A gzip-compressed tar archive, made as it is sent: `project.json` (the project, its plan, limits and site settings), one JSON Lines file per kind of data (animals with their profiles, categories, locations, orders, photos, API keys, webhook endpoints with their event types, events, deliveries and attempts, domains, members, audit entries, usage), the photos' files under `photos/`, and last `manifest.json` (the format version, when, the service's version, the lines of each file). No secret: no key secret or hash, no signing secret, no password hash, session or private key. Recorded in the audit log as `project.exported`. Layout: docs/export.md.",
        params: ProjectParamsSchema,
        response: {
          200: {
            description: 'The archive, `<slug>-<UTC time>.tar.gz`',
            headers: { 'Content-Disposition': { type: 'string', description: 'attachment; filename="<slug>-<yyyymmddThhmmssZ>.tar.gz"' } },
            content: { 'application/gzip': { schema: { type: 'string', format: 'binary', examples: ['(the bytes of the archive)'] } } },
          },
          ...errorResponses(400, 401, 403, 404, 500, 503),
        },
      },
    },
    async (request, reply) => {
      const { archive } = orThrow(await exporter.start(request.adminProject.slug, { operator: request.adminPrincipal.role === 'operator' }, changeOf(request)))
      return reply
        .header('content-type', 'application/gzip')
        .header('content-disposition', `attachment; filename="${archive.filename}"`)
        .header('cache-control', 'no-store')
        // The archive's bytes, as they are made: the schema documents them, no serializer reads them.
        .send(archive.body as unknown as string)
    },
  )

  app.delete(
    '/projects/:slug',
    {
      onRequest: operatorOnly,
      schema: {
        ...PROJECTS,
        operationId: 'deleteProject',
        'x-audit-action': 'project.deleted',
        'x-stability': 'beta',
        summary: 'Delete a project and everything it holds',
        description:
          "Operators only (an owner is answered 403). Deletes, in one transaction, the project with its API keys, animals and their photos, orders, locations, its own categories, webhook endpoints with their deliveries and events, custom domains and certificates, site settings, usage, memberships and audit entries; then its keys stop working and its hosts stop being served on every instance, and its photos' files are deleted. The audit log keeps one entry, `project.deleted`, for operators. Cannot be undone: nothing is kept to restore from.",
        params: ProjectParamsSchema,
        response: { 200: { description: 'What was deleted', ...ProjectDeletionSchema }, ...errorResponses(400, 401, 403, 404, 413, 415, 500, 503) },
      },
    },
    async (request) => {
      const { deletion } = orThrow(await projects.delete(request.adminProject.slug, changeOf(request)))
      return deletion
    },
  )

  app.put(
    '/projects/:slug/plan',
    {
      onRequest: operatorOnly,
      schema: {
        ...PROJECTS,
        operationId: 'setProjectPlan',
        'x-audit-action': 'project.plan_changed',
        summary: "Change a project's plan",
        description:
          'Operators only. Applies on every instance from the next request of any key of the project. `enterprise` needs `perMinute` and `perDay`; the other plans take neither.',
        params: ProjectParamsSchema,
        body: PlanChangeSchema,
        response: { 200: { description: 'The project on its new plan', ...Type.Ref('Project') }, ...errorResponses(400, 401, 403, 404, 413, 415, 500, 503) },
      },
    },
    async (request) => {
      const { project } = orThrow(await projects.setPlan(request.adminProject.slug, request.body, changeOf(request)))
      return present(project, platformDomain)
    },
  )

  app.put(
    '/projects/:slug/webhook-private-networks',
    {
      onRequest: operatorOnly,
      schema: {
        ...PROJECTS,
        operationId: 'setProjectWebhookPrivateNetworks',
        'x-audit-action': 'project.webhook_private_networks_changed',
        summary: "Grant or withdraw a project's use of the private networks for webhooks",
        description:
          "Operators only (an owner is answered 403: reaching internal networks is the operator's decision). With `allowed: true`, the project's webhook endpoints may point at the networks of `WEBHOOK_ALLOWED_NETWORKS` (and use plain http there); without it they are judged as if that setting were empty, when added and at every attempt. The delivery log of a project with the grant shows the answers' excerpts to operators only.",
        params: ProjectParamsSchema,
        body: WebhookPrivateNetworksSchema,
        response: { 200: { description: 'The project with its grant', ...Type.Ref('Project') }, ...errorResponses(400, 401, 403, 404, 413, 415, 500, 503) },
      },
    },
    async (request) => {
      const { project } = orThrow(await projects.setWebhookPrivateNetworks(request.adminProject.slug, request.body.allowed, changeOf(request)))
      return present(project, platformDomain)
    },
  )
}
