import type { FastifyInstance } from 'fastify'
import { UserSchema, UserWithPasswordSchema } from '../accounts/accounts.schemas.js'
import { usersRoutes } from '../accounts/users.routes.js'
import type { UsersService } from '../accounts/users.service.js'
import { auditRoutes } from '../audit/audit.routes.js'
import { AuditEntrySchema } from '../audit/audit.schemas.js'
import type { AuditService } from '../audit/audit.service.js'
import type { Config } from '../config.js'
import type { Domains } from '../domains/domains.module.js'
import { domainsRoutes } from '../domains/domains.routes.js'
import type { BansService } from '../keys/bans.service.js'
import { ApiKeySchema, NewApiKeySchema } from '../keys/keys.schemas.js'
import { keysRoutes } from '../keys/keys.routes.js'
import type { KeysService } from '../keys/keys.service.js'
import { ordersAdminRoutes } from '../orders/orders-admin.routes.js'
import { AdoptionOrderSchema, AdoptionOrdersSchema } from '../orders/orders.schemas.js'
import type { OrdersService } from '../orders/orders.service.js'
import { petsAdminRoutes } from '../pets/pets-admin.routes.js'
import type { PetsService } from '../pets/pets.service.js'
import { projectsRoutes } from '../projects/projects.routes.js'
import { ProjectSchema } from '../projects/projects.schemas.js'
import type { ProjectsService } from '../projects/projects.service.js'
import { usageRoutes } from '../usage/usage.routes.js'
import { UsageSchema } from '../usage/usage.schemas.js'
import type { UsageService } from '../usage/usage.service.js'
import { webhooksRoutes } from '../webhooks/webhooks.routes.js'
import { NewWebhookEndpointSchema, WebhookDeliverySchema, WebhookEndpointSchema } from '../webhooks/webhooks.schemas.js'
import type { WebhooksService } from '../webhooks/webhooks.service.js'

/** The services behind the admin API, built once by the composition root. */
export interface AdminDependencies {
  config: Config
  projects: ProjectsService
  keys: KeysService
  bans: BansService
  usage: UsageService
  domains: Domains
  audit: AuditService
  users: UsersService
  pets: PetsService
  orders: OrdersService
  webhooks: WebhooksService
}

/**
 * Every route of the admin API, in one place: what `registerAdminApi` puts in its scope. The
 * shapes several operations answer are shared schemas of that scope: named in the admin
 * document's components, and kept out of the public one (see registerOpenApi).
 */
export function adminRoutes({ config, projects, keys, bans, usage, domains, audit, users, pets, orders, webhooks }: AdminDependencies): (admin: FastifyInstance) => Promise<void> {
  return async (admin) => {
    const shared = [
      ProjectSchema,
      ApiKeySchema,
      NewApiKeySchema,
      UsageSchema,
      AuditEntrySchema,
      UserSchema,
      UserWithPasswordSchema,
      AdoptionOrderSchema,
      AdoptionOrdersSchema,
      WebhookEndpointSchema,
      NewWebhookEndpointSchema,
      WebhookDeliverySchema,
    ]
    for (const schema of shared) admin.addSchema(schema)
    await admin.register(projectsRoutes, { projects, platformDomain: config.platformDomain })
    await admin.register(keysRoutes, { keys, bans })
    await admin.register(usageRoutes, { usage })
    await admin.register(domainsRoutes, { domains: domains.service, onVerified: () => domains.worker.kick() })
    await admin.register(auditRoutes, { audit, findProject: (slug) => projects.find(slug) })
    await admin.register(usersRoutes, { users })
    await admin.register(petsAdminRoutes, { pets })
    await admin.register(ordersAdminRoutes, { orders })
    await admin.register(webhooksRoutes, { webhooks })
  }
}
