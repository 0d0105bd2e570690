import type { Db } from '../db/database.js'

/** How many rows an export reads at once: a page, by the table's key, after the last one read. */
export const EXPORT_PAGE = 500

/** One page of a project's rows after the key `after` (all from the start when undefined), in key order. */
export type PageReader<Row, Key> = (after: Key | undefined) => Promise<Row[]>

/**
 * What an export reads of a project, one page at a time. No column holding a secret is selected:
 * not a key's hash, an endpoint's signing secrets, a password hash, a session or a certificate's
 * private key; the rows are as the tables hold them, the export names their fields.
 */
export function exportReaders(db: Db, projectId: number) {
  const page = EXPORT_PAGE
  return {
    pets: ((after: number | undefined) =>
      db
        .selectFrom('pets')
        .select([
          'id', 'name', 'category_id', 'status', 'external_id', 'location_id', 'profile', 'photos', 'created_at', 'updated_at',
        ])
        .where('project_id', '=', projectId)
        .$if(after !== undefined, (query) => query.where('id', '>', after!))
        .orderBy('id')
        .limit(page)
        .execute()),
    categories: ((after: number | undefined) =>
      db
        .selectFrom('categories')
        .select(['id', 'name', 'breeds', 'created_at', 'updated_at'])
        .where('project_id', '=', projectId)
        .$if(after !== undefined, (query) => query.where('id', '>', after!))
        .orderBy('id')
        .limit(page)
        .execute()),
    locations: ((after: number | undefined) =>
      db
        .selectFrom('locations')
        .select(['id', 'name', 'address', 'latitude', 'longitude', 'created_at', 'updated_at'])
        .where('project_id', '=', projectId)
        .$if(after !== undefined, (query) => query.where('id', '>', after!))
        .orderBy('id')
        .limit(page)
        .execute()),
    orders: ((after: number | undefined) =>
      db
        .selectFrom('orders')
        .select(['id', 'pet_id', 'pet_name', 'status', 'enquiry_name', 'enquiry_email', 'enquiry_phone', 'enquiry_message', 'created_at', 'updated_at'])
        .where('project_id', '=', projectId)
        .$if(after !== undefined, (query) => query.where('id', '>', after!))
        .orderBy('id')
        .limit(page)
        .execute()),
    photos: ((after: string | undefined) =>
      db
        .selectFrom('pet_photos')
        .select(['id', 'pet_id', 'position', 'width', 'height', 'hash', 'variants', 'created_at'])
        .where('project_id', '=', projectId)
        .$if(after !== undefined, (query) => query.where('id', '>', after!))
        .orderBy('id')
        .limit(page)
        .execute()),
    apiKeys: ((after: string | undefined) =>
      db
        .selectFrom('api_keys')
        .select(['id', 'prefix', 'name', 'scopes', 'publishable', 'allowed_origins', 'created_at', 'last_used_at', 'expires_at', 'revoked_at'])
        .where('project_id', '=', projectId)
        .$if(after !== undefined, (query) => query.where('id', '>', after!))
        .orderBy('id')
        .limit(page)
        .execute()),
    webhookEndpoints: ((after: string | undefined) =>
      db
        .selectFrom('webhook_endpoints')
        .select(['id', 'url', 'description', 'enabled', 'disabled_reason', 'previous_secret_until', 'failing_since', 'created_at', 'updated_at'])
        .where('project_id', '=', projectId)
        .$if(after !== undefined, (query) => query.where('id', '>', after!))
        .orderBy('id')
        .limit(page)
        .execute()),
    webhookEvents: ((after: string | undefined) =>
      db
        .selectFrom('webhook_events')
        .select(['id', 'type', 'data', 'created_at'])
        .where('project_id', '=', projectId)
        .$if(after !== undefined, (query) => query.where('id', '>', after!))
        .orderBy('id')
        .limit(page)
        .execute()),
    webhookDeliveries: ((after: number | undefined) =>
      db
        .selectFrom('webhook_deliveries')
        .select([
          'id', 'event_id', 'endpoint_id', 'state', 'manual', 'attempts', 'next_attempt_at', 'last_attempt_at', 'last_status', 'last_error',
          'last_latency_ms', 'response_excerpt', 'created_at', 'completed_at',
        ])
        .where('project_id', '=', projectId)
        .$if(after !== undefined, (query) => query.where('id', '>', after!))
        .orderBy('id')
        .limit(page)
        .execute()),
    webhookAttempts: ((after: number | undefined) =>
      db
        .selectFrom('webhook_attempts')
        .innerJoin('webhook_deliveries', 'webhook_deliveries.id', 'webhook_attempts.delivery_id')
        .select([
          'webhook_attempts.id', 'webhook_attempts.delivery_id', 'webhook_attempts.attempted_at', 'webhook_attempts.status', 'webhook_attempts.duration_ms',
          'webhook_attempts.response_excerpt', 'webhook_attempts.error', 'webhook_attempts.request_headers', 'webhook_attempts.request_body',
        ])
        .where('webhook_deliveries.project_id', '=', projectId)
        .$if(after !== undefined, (query) => query.where('webhook_attempts.id', '>', after!))
        .orderBy('webhook_attempts.id')
        .limit(page)
        .execute()),
    domains: ((after: number | undefined) =>
      db
        .selectFrom('domains')
        .leftJoin('certificates', 'certificates.domain_id', 'domains.id')
        .select([
          'domains.id', 'domains.name', 'domains.apex', 'domains.is_primary', 'domains.redirect_to', 'domains.redirect_status', 'domains.state',
          'domains.reason', 'domains.checked_at', 'domains.verified_at', 'domains.cert_state', 'domains.cert_reason', 'domains.created_at',
          'certificates.not_before', 'certificates.not_after', 'certificates.issued_at',
        ])
        .where('domains.project_id', '=', projectId)
        .$if(after !== undefined, (query) => query.where('domains.id', '>', after!))
        .orderBy('domains.id')
        .limit(page)
        .execute()),
    members: ((after: number | undefined) =>
      db
        .selectFrom('user_projects')
        .innerJoin('users', 'users.id', 'user_projects.user_id')
        .select(['users.id', 'users.email', 'users.role', 'users.created_at', 'users.disabled_at', 'users.last_signed_in_at'])
        .where('user_projects.project_id', '=', projectId)
        .$if(after !== undefined, (query) => query.where('users.id', '>', after!))
        .orderBy('users.id')
        .limit(page)
        .execute()),
    audit: ((after: number | undefined) =>
      db
        .selectFrom('audit_entries')
        .select(['id', 'at', 'actor_kind', 'actor_name', 'actor_key_id', 'action', 'target_type', 'target_id', 'request_id', 'details'])
        .where('project_id', '=', projectId)
        .$if(after !== undefined, (query) => query.where('id', '>', after!))
        .orderBy('id')
        .limit(page)
        .execute()),
    usage: ((after: string | undefined) =>
      db
        .selectFrom('usage_minutes')
        .select(['minute', 'requests', 'limited', 'bans'])
        .where('project_id', '=', projectId)
        .$if(after !== undefined, (query) => query.where('minute', '>', after!))
        .orderBy('minute')
        .limit(page)
        .execute()),
  }
}

/** The event types an endpoint is subscribed to, for the endpoints of one page. */
export async function subscriptionsOf(db: Db, endpointIds: readonly string[]): Promise<{ endpoint_id: string; event_type: string }[]> {
  if (endpointIds.length === 0) return []
  return db.selectFrom('webhook_subscriptions').select(['endpoint_id', 'event_type']).where('endpoint_id', 'in', endpointIds).orderBy('event_type').execute()
}

/** The project's site settings row; undefined while it has the defaults. */
export async function exportedSiteSettings(db: Db, projectId: number) {
  return db
    .selectFrom('site_settings')
    .select(['published', 'display_name', 'logo_url', 'primary_color', 'about', 'contact_email', 'contact_phone', 'updated_at'])
    .where('project_id', '=', projectId)
    .executeTakeFirst()
}
