import { randomUUID } from 'node:crypto'
import os from 'node:os'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import type { Insertable } from 'kysely'
import type { ActorKind, AuditEntryTable } from '../db/schema.js'
import { insertAuditEntry } from './audit.repository.js'

/** Who makes a change. */
export interface Actor {
  kind: ActorKind
  /** The signed-in user, for `user`. */
  userId: number | null
  /** The user's email, `ADMIN_TOKEN`, `cli:<system user>`, `system`, `key:<key id>` or `anonymous`. */
  name: string
  /** The API key's public id (never its secret), for `api_key`. */
  keyId?: string | undefined
}

/**
 * Who makes a change, and in which request: every service method that changes something the
 * audit log records takes one, and records it in the change's own transaction.
 */
export interface Change {
  actor: Actor
  /** The request's X-Request-Id, or one id per CLI invocation. */
  requestId: string | null
}

/** A write through the public API (/v1) by an API key: the key's public id, never its secret. */
export function apiKeyChange(keyId: string, requestId: string): Change {
  return { actor: { kind: 'api_key', userId: null, name: `key:${keyId}`, keyId }, requestId }
}

/** A write by someone who signed nothing: a visitor of the adoption site, a failed sign-in. */
export function anonymousChange(requestId: string): Change {
  return { actor: { kind: 'anonymous', userId: null, name: 'anonymous' }, requestId }
}

/**
 * Every action the audit log records, with what it means: the one list the admin document's
 * `x-audit-action`, the audit filter and the docs take their values from.
 */
export const AUDIT_ACTIONS = {
  'session.signed_in': 'A user signed in to the dashboard',
  'session.signed_out': 'A user signed out',
  'session.sign_in_failed': 'A dashboard sign-in failed: wrong password, unknown or disabled email (the password is never recorded; bounded by the sign-in throttle)',
  'project.created': 'A project was created',
  'project.plan_changed': "A project's plan (and limits) changed",
  'project.deleted': "A project was deleted with everything it held (the project's other entries with it; this one is kept, for operators)",
  'project.exported': "A project's whole data was exported as one archive (its photos' files, animals, orders, members' emails…; no secret)",
  'project.webhook_private_networks_changed': "An operator granted or withdrew a project's webhook endpoints the use of the private networks the service allows",
  'key.created': 'An API key was created (its secret is never recorded)',
  'key.revoked': 'An API key was revoked',
  'key.ban_lifted': "An API key's temporary ban was lifted",
  'key.banned': 'The rate limiter banned an API key for a while (it kept sending while refused)',
  'domain.added': 'A custom domain was added',
  'domain.verification_requested': "A domain's DNS check was run on demand",
  'domain.removed': 'A custom domain was removed',
  'domain.primary_set': "The project's primary domain was set or cleared",
  'domain.redirect_added': 'A domain redirect was added',
  'domain.redirect_removed': 'A domain redirect was removed',
  'domain.state_changed': "The background checker changed a domain's DNS state (verified, failed, …)",
  'domain.certificate_changed': "The background checker changed a domain's certificate state (issued, failed, renewing, …)",
  'pet.created': 'An animal was added',
  'pet.updated': "An animal's name, category or profile was changed",
  'pet.deleted': 'An animal was removed',
  'pet.photo_added': 'A photo of an animal was added',
  'pet.photo_removed': 'A photo of an animal was removed',
  'pet.photos_ordered': "An animal's photos were put in another order (the first is the main one)",
  'pet.imported': "A file of animals was imported (one entry per import, with its counts)",
  'location.created': 'A location was added',
  'location.updated': "A location's name, address or coordinates changed",
  'location.deleted': 'A location was removed',
  'category.set': "A category's name or breeds were set for the project",
  'category.removed': "The project's own name and breeds of a category were removed",
  'site.updated': "The project's adoption site was published, unpublished or rebranded",
  'order.placed': 'An adoption order was placed (through the API, or as an enquiry on the adoption site)',
  'order.approved': 'An adoption order was approved',
  'order.delivered': 'An adoption order was delivered',
  'order.cancelled': 'An adoption order was cancelled',
  'webhook.created': 'A webhook endpoint was added (its signing secret is never recorded)',
  'webhook.updated': "A webhook endpoint's URL, event types, description or state changed",
  'webhook.deleted': 'A webhook endpoint was removed',
  'webhook.disabled': 'A webhook endpoint was disabled after its deliveries failed for days',
  'webhook.secret_rotated': "A webhook endpoint's signing secret was rotated (never recorded)",
  'webhook.redelivered': 'A webhook delivery was sent again on request',
  'webhook.test_sent': 'A test event was sent to a webhook endpoint',
  'webhook.recovered': "A webhook endpoint's failed deliveries of a time range were queued again (with how many)",
  'webhook.replayed': "A project's past events were queued for a webhook endpoint (with how many)",
  'user.created': 'A user was created',
  'user.disabled': 'A user was disabled (their sessions ended)',
  'user.enabled': 'A disabled user was enabled again',
  'user.deleted': 'A user was deleted (their sessions ended)',
  'user.password_reset': "A user's password was reset to a one-time password (never recorded)",
  'user.password_changed': 'A user changed their own password (never recorded)',
  'user.projects_changed': "An owner's projects changed",
} as const

export type AuditAction = keyof typeof AUDIT_ACTIONS

/** What a change did, as the audit log records it. */
export interface AuditEvent {
  action: AuditAction
  target: { type: string; id: string | number }
  /** The project the change belongs to, if any: owners see their projects' entries. */
  projectId: number | null
  /** What changed, for people. Never a secret: no key, password, token or private key. */
  details?: Record<string, unknown>
}

/** Records a change. Call it with the change's own transaction, so both commit or neither does. */
export async function recordChange(trx: Db, clock: Clock, change: Change, event: AuditEvent): Promise<void> {
  await insertAuditEntry(trx, entryOf(clock, change, event))
}

/** The row of a change, for a repository that writes it with the change itself (see PetsService.create). */
export function entryOf(clock: Clock, change: Change, event: AuditEvent): Insertable<AuditEntryTable> {
  return {
    at: new Date(clock.now()).toISOString(),
    actor_kind: change.actor.kind,
    actor_user_id: change.actor.userId,
    actor_name: change.actor.name,
    actor_key_id: change.actor.keyId ?? null,
    action: event.action,
    target_type: event.target.type,
    target_id: String(event.target.id),
    project_id: event.projectId,
    request_id: change.requestId,
    details: JSON.stringify(event.details ?? {}),
  }
}

/** A change made with the CLI: the system user who ran it, and a request id of its own (a command takes one for all it changes, `cliContext`). */
export function commandLineChange(): Change {
  return { actor: { kind: 'cli', userId: null, name: `cli:${systemUser()}` }, requestId: `cli-${randomUUID()}` }
}

/** A change the service makes on its own: the first start's project and key, the limiter's bans, the background workers' changes. */
export const SYSTEM_CHANGE: Change = { actor: { kind: 'system', userId: null, name: 'system' }, requestId: null }

function systemUser(): string {
  try {
    return os.userInfo().username
  } catch {
    // No passwd entry for the uid (some containers).
    return String(process.getuid?.() ?? 'unknown')
  }
}
