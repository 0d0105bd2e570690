import { type Change, recordChange } from '../audit/audit.js'
import type { AuthChangeListener } from '../cache/generations.js'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import { isUniqueViolation } from '../db/errors.js'
import type { Plan, ProjectRow } from '../db/schema.js'
import type { Outcome } from '../errors.js'
import { limitsOf } from '../limits/plans.js'
import type { ObjectStore } from '../storage/store.js'
import type { Outbox } from '../webhooks/outbox.js'
import { deleteProjectData, findProjectBySlug, insertProject, listProjects, updateProjectPlan, updateProjectWebhookPrivateNetworks } from './projects.repository.js'

export interface Project {
  id: number
  slug: string
  plan: Plan
  limits: { perMinute: number; perDay: number }
  createdAt: string
  webhookPrivateNetworks: boolean
}

export interface PlanChoice {
  plan: Plan
  perMinute?: number | undefined
  perDay?: number | undefined
}

/** invalid_request: a malformed slug or plan choice; slug_taken; not_found: no such project. */
export type ProjectResult = Outcome<{ project: Project }, 'invalid_request' | 'slug_taken' | 'not_found'>

/** What deleting a project removed: the rows of each table that has a project column, and the stored photo files. */
export interface ProjectDeletion {
  slug: string
  rows: Record<string, number>
  photoFiles: number
}

/**
 * What deleting a project tells, once its rows are gone: the running instances (cached answers,
 * keys, host routes) and the object store (the photos' files).
 */
export interface ProjectRemoval {
  dialect: 'sqlite' | 'postgres'
  /** Where the photos' files are: deleted after the commit. */
  store: Pick<ObjectStore, 'delete'>
  /** The project's cached answers (animals, orders, site pages) move on, on every instance. */
  dataChanged: (projectId: number) => Promise<void>
  /** Bumps the routing generation in the deletion's transaction: its hosts stop being routed. */
  bumpRouting: (trx: Db) => Promise<number>
  /** Tells every instance the routing generation, after the commit. */
  routingChanged: (generation: number) => Promise<void>
  /** Where a failure to delete files is told (the photo sweep deletes them later). */
  log: { warn(object: object, message: string): void }
}

/** A project slug is a DNS label: it becomes `<slug>.<platform domain>`. */
const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/
const MAX_LIMIT = 1_000_000_000

export function toProject(row: ProjectRow): Project {
  return { id: row.id, slug: row.slug, plan: row.plan, limits: limitsOf(row), createdAt: row.created_at, webhookPrivateNetworks: row.webhook_private_networks === 1 }
}

/** Projects and their plans: what the admin API's and the CLI's project operations do. */
export class ProjectsService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    /** Told once a plan change committed: every instance applies it from the next request. */
    private readonly authChanged: AuthChangeListener,
    private readonly removal: ProjectRemoval,
    /** Where a plan change writes its `project.plan_changed` event, with the change. */
    private readonly outbox: Pick<Outbox, 'write'>,
  ) {}

  async create(slug: string, choice: PlanChoice, change: Change): Promise<ProjectResult> {
    if (!SLUG_PATTERN.test(slug)) {
      return { ok: false, error: 'invalid_request', message: `Invalid slug "${slug}": use 1-63 lowercase letters, digits and inner hyphens.` }
    }
    const limits = checkPlanChoice(choice)
    if (!limits.ok) return limits
    if (await findProjectBySlug(this.db, slug)) {
      return { ok: false, error: 'slug_taken', message: `A project with slug "${slug}" already exists.` }
    }
    let row: ProjectRow
    try {
      row = await this.db.transaction().execute(async (trx) => {
        const created = await insertProject(trx, { slug, plan: choice.plan, ...limits.custom, createdAt: new Date(this.clock.now()).toISOString() })
        await recordChange(trx, this.clock, change, { action: 'project.created', target: { type: 'project', id: slug }, projectId: created.id, details: planDetails(created) })
        return created
      })
    } catch (error) {
      // The same slug created at the same moment by another request or process.
      if (isUniqueViolation(error)) return { ok: false, error: 'slug_taken', message: `A project with slug "${slug}" already exists.` }
      throw error
    }
    return { ok: true, project: toProject(row) }
  }

  async list(): Promise<Project[]> {
    return (await listProjects(this.db)).map(toProject)
  }

  /** The project's row, for the admin scope's access checks; undefined when there is none. */
  async find(slug: string): Promise<ProjectRow | undefined> {
    return findProjectBySlug(this.db, slug)
  }

  async setPlan(slug: string, choice: PlanChoice, change: Change): Promise<ProjectResult> {
    const limits = checkPlanChoice(choice)
    if (!limits.ok) return limits
    let unchanged = false
    const row = await this.db.transaction().execute(async (trx) => {
      const before = await findProjectBySlug(trx, slug)
      // The plan it has (and its limits): nothing to write, record or tell.
      if (before && before.plan === choice.plan && before.per_minute === limits.custom.perMinute && before.per_day === limits.custom.perDay) {
        unchanged = true
        return before
      }
      const updated = await updateProjectPlan(trx, slug, { plan: choice.plan, ...limits.custom })
      if (before && updated) {
        await recordChange(trx, this.clock, change, {
          action: 'project.plan_changed',
          target: { type: 'project', id: slug },
          projectId: updated.id,
          details: { from: planDetails(before), to: planDetails(updated) },
        })
        await this.outbox.write(trx, updated.id, 'project.plan_changed', { project: slug, from: planOf(before), to: planOf(updated) })
      }
      return updated
    })
    if (!row) return { ok: false, error: 'not_found', message: `No project with slug "${slug}".` }
    if (!unchanged) await this.authChanged()
    return { ok: true, project: toProject(row) }
  }

  /**
   * Deletes the project and everything that belongs to it, in one transaction: a project is there
   * whole or not at all. Its audit entries go with it but for the entry of the deletion itself,
   * kept for operators (with no project: the project's id is never reused). After the commit: its
   * keys stop working and its cached answers and hosts are dropped on every instance, then its
   * photos' files are deleted (a file left by a failure there is named by no row, so the photo
   * sweep deletes it within PHOTO_SWEEP_INTERVAL_MS of its grace period).
   */
  async delete(slug: string, change: Change): Promise<Outcome<{ deletion: ProjectDeletion }, 'not_found'>> {
    const { dialect, store, log } = this.removal
    const done = await this.db.transaction().execute(async (trx) => {
      const project = await findProjectBySlug(trx, slug)
      if (!project) return undefined
      const deleted = await deleteProjectData(trx, dialect, project.id)
      await recordChange(trx, this.clock, change, {
        action: 'project.deleted',
        target: { type: 'project', id: slug },
        projectId: null,
        details: { ...planDetails(project), rows: deleted.rows, photoFiles: deleted.photoKeys.length },
      })
      return { project, deleted, generation: await this.removal.bumpRouting(trx) }
    })
    if (!done) return { ok: false, error: 'not_found', message: `No project with slug "${slug}".` }
    const { project, deleted, generation } = done
    await this.authChanged()
    await this.removal.dataChanged(project.id)
    await this.removal.routingChanged(generation)
    try {
      if (deleted.photoKeys.length > 0) await store.delete(deleted.photoKeys)
    } catch (error) {
      // Named by no row, so never served: the photo sweep deletes them later.
      log.warn({ err: error, keys: deleted.photoKeys.length }, "a deleted project's photo files were not deleted; the sweep will delete them")
    }
    return { ok: true, deletion: { slug, rows: deleted.rows, photoFiles: deleted.photoKeys.length } }
  }

  /**
   * An operator's decision: whether the project's webhook endpoints may reach the networks of
   * WEBHOOK_ALLOWED_NETWORKS. Applies from the next endpoint added and the next attempt.
   */
  async setWebhookPrivateNetworks(slug: string, allowed: boolean, change: Change): Promise<ProjectResult> {
    const row = await this.db.transaction().execute(async (trx) => {
      const before = await findProjectBySlug(trx, slug)
      // The grant it has: nothing to write or record.
      if (!before || before.webhook_private_networks === (allowed ? 1 : 0)) return before
      const updated = await updateProjectWebhookPrivateNetworks(trx, slug, allowed)
      if (updated) {
        await recordChange(trx, this.clock, change, {
          action: 'project.webhook_private_networks_changed',
          target: { type: 'project', id: slug },
          projectId: updated.id,
          details: { allowed },
        })
      }
      return updated
    })
    return row ? { ok: true, project: toProject(row) } : { ok: false, error: 'not_found', message: `No project with slug "${slug}".` }
  }
}

/** A plan as the `project.plan_changed` event carries it. */
function planOf(row: ProjectRow): { plan: Plan; limits: { perMinute: number; perDay: number } } {
  return { plan: row.plan, limits: limitsOf(row) }
}

/** A plan as the audit log records it. */
function planDetails(row: ProjectRow): { plan: Plan; perMinute: number; perDay: number } {
  return { plan: row.plan, ...limitsOf(row) }
}

type CheckedPlan = Outcome<{ custom: { perMinute: number | null; perDay: number | null } }, 'invalid_request'>

/** Enterprise projects need their own limits; the fixed plans must not be given any. */
function checkPlanChoice({ plan, perMinute, perDay }: PlanChoice): CheckedPlan {
  if (plan !== 'enterprise') {
    if (perMinute !== undefined || perDay !== undefined) {
      return { ok: false, error: 'invalid_request', message: `Plan ${plan} has fixed limits; custom limits (--per-minute and --per-day, or perMinute and perDay in the admin API) are for enterprise only.` }
    }
    return { ok: true, custom: { perMinute: null, perDay: null } }
  }
  for (const [name, field, value] of [['per-minute', 'perMinute', perMinute], ['per-day', 'perDay', perDay]] as const) {
    if (value === undefined || !Number.isSafeInteger(value) || value < 1 || value > MAX_LIMIT) {
      return { ok: false, error: 'invalid_request', message: `Plan enterprise needs its ${name} limit (--${name}, or ${field} in the admin API) as a whole number from 1 to ${MAX_LIMIT}.` }
    }
  }
  return { ok: true, custom: { perMinute: perMinute ?? null, perDay: perDay ?? null } }
}
