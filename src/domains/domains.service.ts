import { type AuditEvent, type Change, recordChange, SYSTEM_CHANGE } from '../audit/audit.js'
import { domainToUnicode } from 'node:url'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import { type CertificateRow, type DomainRow, type Plan, PLANS, type ProjectRow } from '../db/schema.js'
import type { Failure } from '../errors.js'
import { findProjectBySlug } from '../projects/projects.repository.js'
import { type CheckResult, checkDomainDns, type DnsLookup } from './dns.js'
import { parseDomainName, recordToCreate } from './domain-name.js'
import {
  bumpGeneration,
  deleteDomain,
  findDomainByName,
  insertDomain,
  listCertificates,
  listDomains,
  releaseDomain,
  saveDomainCheck,
  setPrimaryDomain,
  updateDomain,
} from './domains.repository.js'
import type { Domain, DomainSettings } from './domains.schemas.js'
import type { Outbox } from '../webhooks/outbox.js'

/** Plans that include custom domains: pro and above. */
export const DOMAIN_PLANS: readonly Plan[] = PLANS.slice(PLANS.indexOf('pro'))

const MINUTE = 60_000
const HOUR = 60 * MINUTE

/**
 * When DNS is checked again after a failed check: every 10 minutes for the first day of the
 * schedule (since the domain was added or last re-verified), then hourly until the third day,
 * then never (the domain is `failed` until someone runs Re-verify). Undefined: give up.
 */
export function nextDnsCheck(since: number, now: number): number | undefined {
  const age = now - since
  if (age < 24 * HOUR) return now + 10 * MINUTE
  if (age < 72 * HOUR) return now + HOUR
  return undefined
}

/** When a failed certificate request is retried: 5 minutes, 15, 1 hour, 3 hours, then every 6 hours. */
export function nextCertificateAttempt(attempts: number, now: number): number {
  const delays = [5 * MINUTE, 15 * MINUTE, HOUR, 3 * HOUR, 6 * HOUR]
  return now + (delays[Math.min(Math.max(attempts, 1), delays.length) - 1] ?? 6 * HOUR)
}

/** How soon a background check is made again when the service's own DNS resolvers did not answer. */
export const RESOLVERS_DOWN_RETRY_MS = 60_000

/** A background check that could not be made: the service's DNS resolvers do not answer. */
export class DnsResolversDown extends Error {
  override name = 'DnsResolversDown'
}

export const GAVE_UP = 'Gave up re-checking after 3 days: fix the DNS record, then run Re-verify.'

export interface DomainSettingsConfig {
  platformDomain: string | undefined
  platformDnsTarget: string | undefined
  /** With the HTTPS port, whether domains get certificates and HTTPS: told to the dashboard. */
  certificateEncryptionKey: string | undefined
  httpsPort: number | undefined
}

/** not_found: domains not enabled, or no such project or domain; the others as the catalog says. */
export type DomainFailure = Failure<'not_found' | 'invalid_request' | 'plan_required' | 'domain_taken' | 'domain_conflict' | 'service_unavailable'>

export type DomainResult<T> = ({ ok: true } & T) | DomainFailure

/** A change that other instances must see: the routing generation after it, for announcing. */
export interface ChangeListener {
  (generation: number): Promise<void>
}

const iso = (ms: number) => new Date(ms).toISOString()

export function toDomain(row: DomainRow, certificate: CertificateRow | undefined, target: string): Domain {
  return {
    name: row.name,
    unicodeName: domainToUnicode(row.name) || row.name,
    apex: row.apex === 1,
    primary: row.is_primary === 1,
    redirect: row.redirect_to ? { to: row.redirect_to, status: row.redirect_status ?? 301 } : null,
    dnsRecord: recordToCreate({ name: row.name, apex: row.apex === 1 }, target),
    status: { state: row.state, reason: row.reason, checkedAt: row.checked_at, nextCheckAt: row.next_check_at, verifiedAt: row.verified_at },
    certificate: {
      state: row.cert_state,
      reason: row.cert_reason,
      checkedAt: row.cert_checked_at,
      nextCheckAt: row.cert_next_at,
      notBefore: certificate?.not_before ?? null,
      notAfter: certificate?.not_after ?? null,
      renewAt: certificate?.renew_at ?? null,
    },
    createdAt: row.created_at,
  }
}

/**
 * The rules of custom domains: adding (plan, name, uniqueness), verification by DNS, removal,
 * the primary domain and redirects. Every change bumps the routing generation in its own
 * transaction and is then announced, so every instance routes by it from its next request.
 */
export class DomainsService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly settings: DomainSettingsConfig,
    private readonly dns: DnsLookup,
    private readonly onChange: ChangeListener,
    private readonly outbox: Outbox,
  ) {}

  private get target(): string {
    return this.settings.platformDnsTarget ?? this.settings.platformDomain ?? ''
  }

  async list(slug: string): Promise<DomainResult<{ settings: DomainSettings }>> {
    const project = await this.project(slug)
    if (!project.ok) return project
    return { ok: true, settings: await this.settingsOf(project.project) }
  }

  async get(slug: string, name: string): Promise<DomainResult<{ domain: Domain }>> {
    const found = await this.domainOf(slug, name)
    if (!found.ok) return found
    return { ok: true, domain: await this.present(found.domain) }
  }

  async add(slug: string, input: string, change: Change): Promise<DomainResult<{ domain: Domain }>> {
    const project = await this.project(slug)
    if (!project.ok) return project
    if (!DOMAIN_PLANS.includes(project.project.plan)) {
      return {
        ok: false,
        error: 'plan_required',
        message: `Custom domains need plan pro or above; project ${slug} is on plan ${project.project.plan}. Upgrade it (e.g. \`adoption-store projects set-plan ${slug} pro\`).`,
      }
    }
    const parsed = parseDomainName(input, this.settings.platformDomain)
    if (!parsed.ok) return { ok: false, error: 'invalid_request', message: parsed.message }
    const { name, apex } = parsed.domain
    const existing = await findDomainByName(this.db, name)
    if (existing) {
      return {
        ok: false,
        error: 'domain_taken',
        message: existing.project_id === project.project.id ? `${name} is already a domain of project ${slug}.` : `${name} is already taken by another project.`,
      }
    }
    const at = iso(this.clock.now())
    let row: DomainRow
    try {
      row = await this.change(async (trx) => insertDomain(trx, { projectId: project.project.id, name, apex, at }), change, {
        action: 'domain.added',
        target: { type: 'domain', id: name },
        projectId: project.project.id,
        details: { apex },
      })
    } catch (error) {
      // Another request added the same name a moment before: the unique index decided.
      if (await findDomainByName(this.db, name)) return { ok: false, error: 'domain_taken', message: `${name} was just added by another request.` }
      throw error
    }
    return { ok: true, domain: await this.present(row) }
  }

  /** Checks DNS now (Verify / Re-verify) and restarts the background schedule. */
  async verify(slug: string, name: string, change: Change): Promise<DomainResult<{ domain: Domain }>> {
    const found = await this.domainOf(slug, name)
    if (!found.ok) return found
    const now = this.clock.now()
    // A person watches this check: its reason says what failed, the resolvers included.
    const result = await checkDomainDns(this.dns, { name: found.domain.name, apex: found.domain.apex === 1 }, this.target)
    if (!result.ok && result.resolversDown) {
      // The service's fault, not the domain's: nothing is saved, no event is sent.
      return { ok: false, error: 'service_unavailable', message: `${result.reason.replace(/; the check is retried\.$/, '')}. The domain keeps its state (${found.domain.state}); Verify again once they answer.` }
    }
    const checked = this.checked(found.domain, result, now, now)
    const row = await this.change(async (trx) => this.reported(trx, found.domain, checked, await saveDomainCheck(trx, found.domain.id, checked)), change, {
      action: 'domain.verification_requested',
      target: { type: 'domain', id: found.domain.name },
      projectId: found.domain.project_id,
      details: { state: checked.state, reason: checked.reason },
    })
    return { ok: true, domain: await this.present(row ?? found.domain) }
  }

  /**
   * A background re-check of a domain whose lease this holder has; keeps the schedule it is on.
   * Answers the new row, or nothing when the domain was removed or the lease lost meanwhile, or
   * when a Verify checked it meanwhile: that answer is the newer (this one may predate the record
   * Verify found) and stands, and the lease is given back.
   */
  async recheck(row: DomainRow, holder: string): Promise<DomainRow | undefined> {
    const now = this.clock.now()
    const result = await checkDomainDns(this.dns, { name: row.name, apex: row.apex === 1 }, this.target)
    if (!result.ok && result.resolversDown) {
      // The service's fault, not the domain's: its state and schedule stay, no event is sent, and
      // the check is made again in a minute; the worker logs the failure for the operator.
      await releaseDomain(this.db, row.id, holder, { next_check_at: iso(now + RESOLVERS_DOWN_RETRY_MS) })
      throw new DnsResolversDown(result.reason)
    }
    const checked = this.checked(row, result, Date.parse(row.checks_since), now)
    const saved = await this.change(async (trx) => this.reported(trx, row, checked, await saveDomainCheck(trx, row.id, checked, { holder, checks: row.checks }), SYSTEM_CHANGE))
    if (!saved) await releaseDomain(this.db, row.id, holder, {})
    return saved
  }

  /**
   * `domain.verified` or `domain.failed` when the save moved the domain into that state, in the
   * transaction that saves it; with `system` (the background checker's move), its audit entry too.
   */
  private async reported(
    trx: Db,
    before: DomainRow,
    checked: { state: 'verified' | 'failed'; reason: string | null; checked_at: string },
    saved: { row: DomainRow; moved: boolean } | undefined,
    system?: Change,
  ): Promise<DomainRow | undefined> {
    if (saved?.moved) {
      await this.outbox.write(trx, before.project_id, `domain.${checked.state}`, { domain: before.name, state: checked.state, reason: checked.reason, checkedAt: checked.checked_at })
      if (system) {
        await recordChange(trx, this.clock, system, { action: 'domain.state_changed', target: { type: 'domain', id: before.name }, projectId: before.project_id, details: { from: before.state, to: checked.state, reason: checked.reason } })
      }
    }
    return saved?.row
  }

  private checked(row: DomainRow, result: CheckResult, since: number, now: number) {
    const common = { checked_at: iso(now), checks: row.checks + 1, checks_since: iso(since) }
    if (result.ok) {
      const needsCertificate = row.cert_state === 'pending' || row.cert_state === 'failed'
      return {
        ...common,
        state: 'verified' as const,
        reason: null,
        next_check_at: null,
        verified_at: iso(now),
        ...(needsCertificate && { cert_state: 'pending' as const, cert_next_at: iso(now), cert_attempts: 0 }),
      }
    }
    const next = nextDnsCheck(since, now)
    return {
      ...common,
      state: 'failed' as const,
      reason: next === undefined ? `${result.reason} ${GAVE_UP}` : result.reason,
      next_check_at: next === undefined ? null : iso(next),
    }
  }

  async remove(slug: string, name: string, change: Change): Promise<DomainResult<{ name: string }>> {
    const found = await this.domainOf(slug, name)
    if (!found.ok) return found
    await this.change((trx) => deleteDomain(trx, found.domain.project_id, found.domain.name), change, {
      action: 'domain.removed',
      target: { type: 'domain', id: found.domain.name },
      projectId: found.domain.project_id,
    })
    return { ok: true, name: found.domain.name }
  }

  async setPrimary(slug: string, name: string | null, change: Change): Promise<DomainResult<{ settings: DomainSettings }>> {
    const project = await this.project(slug)
    if (!project.ok) return project
    let id: number | null = null
    let primary: string | null = null
    if (name !== null) {
      const found = await this.domainOf(slug, name)
      if (!found.ok) return found
      if (found.domain.redirect_to) {
        return { ok: false, error: 'domain_conflict', message: `${found.domain.name} redirects to ${found.domain.redirect_to}, so it cannot be the primary domain: remove the redirect first.` }
      }
      id = found.domain.id
      primary = found.domain.name
    }
    // The primary it has (or none, as it has none): the settings as they are, with no audit entry.
    const current = await this.settingsOf(project.project)
    if (current.primary === primary) return { ok: true, settings: current }
    await this.change((trx) => setPrimaryDomain(trx, project.project.id, id), change, {
      action: 'domain.primary_set',
      target: { type: 'project', id: slug },
      projectId: project.project.id,
      details: { primary },
    })
    return { ok: true, settings: await this.settingsOf(project.project) }
  }

  async addRedirect(slug: string, fromInput: string, toInput: string, change: Change, status = 301): Promise<DomainResult<{ settings: DomainSettings }>> {
    const project = await this.project(slug)
    if (!project.ok) return project
    const from = await this.domainOf(slug, fromInput)
    if (!from.ok) return from
    const platformHost = this.platformHost(slug)
    const to = toInput.trim().toLowerCase().replace(/\.$/, '') === platformHost ? undefined : await this.domainOf(slug, toInput)
    if (to && !to.ok) return { ...to, message: `${to.message} A redirect goes to another domain of the project or to ${platformHost}.` }
    const toName = to ? to.domain.name : platformHost
    if (toName === from.domain.name) return { ok: false, error: 'domain_conflict', message: `${toName} cannot redirect to itself.` }
    if (from.domain.is_primary === 1) {
      return { ok: false, error: 'domain_conflict', message: `${from.domain.name} is the primary domain: choose another primary before redirecting it.` }
    }
    if (to?.domain.redirect_to) {
      return { ok: false, error: 'domain_conflict', message: `${toName} itself redirects to ${to.domain.redirect_to}: redirect to the final domain instead (no chains).` }
    }
    const redirected = await listDomains(this.db, project.project.id)
    const into = redirected.find((row) => row.redirect_to === from.domain.name)
    if (into) return { ok: false, error: 'domain_conflict', message: `${into.name} redirects to ${from.domain.name}: a redirect from it would make a chain.` }
    await this.change((trx) => updateDomain(trx, from.domain.id, { redirect_to: toName, redirect_status: status }), change, {
      action: 'domain.redirect_added',
      target: { type: 'domain', id: from.domain.name },
      projectId: project.project.id,
      details: { to: toName, status },
    })
    return { ok: true, settings: await this.settingsOf(project.project) }
  }

  async removeRedirect(slug: string, fromInput: string, change: Change): Promise<DomainResult<{ settings: DomainSettings }>> {
    const project = await this.project(slug)
    if (!project.ok) return project
    const from = await this.domainOf(slug, fromInput)
    if (!from.ok) return from
    if (!from.domain.redirect_to) return { ok: false, error: 'not_found', message: `${from.domain.name} has no redirect.` }
    await this.change((trx) => updateDomain(trx, from.domain.id, { redirect_to: null, redirect_status: null }), change, {
      action: 'domain.redirect_removed',
      target: { type: 'domain', id: from.domain.name },
      projectId: project.project.id,
      details: { to: from.domain.redirect_to },
    })
    return { ok: true, settings: await this.settingsOf(project.project) }
  }

  platformHost(slug: string): string | null {
    return this.settings.platformDomain ? `${slug}.${this.settings.platformDomain}` : null
  }

  /**
   * Runs a change and the generation bump in one transaction, with the audit entry of an
   * operator's change (background re-checks have none), then announces it.
   */
  private async change<T>(work: (trx: Db) => Promise<T>, change?: Change, event?: AuditEvent): Promise<T> {
    const { result, generation } = await this.db.transaction().execute(async (trx) => {
      const result = await work(trx)
      if (change && event) await recordChange(trx, this.clock, change, event)
      return { result, generation: await bumpGeneration(trx) }
    })
    await this.onChange(generation)
    return result
  }

  private async settingsOf(project: ProjectRow): Promise<DomainSettings> {
    const rows = await listDomains(this.db, project.id)
    const certificates = await listCertificates(
      this.db,
      rows.map((row) => row.id),
    )
    const domains = rows.map((row) => toDomain(row, certificates.find((c) => c.domain_id === row.id), this.target))
    return {
      project: project.slug,
      platformHost: this.platformHost(project.slug),
      https: this.settings.certificateEncryptionKey !== undefined && this.settings.httpsPort !== undefined,
      primary: rows.find((row) => row.is_primary === 1)?.name ?? null,
      redirects: rows.filter((row) => row.redirect_to).map((row) => ({ from: row.name, to: row.redirect_to ?? '', status: row.redirect_status ?? 301 })),
      domains,
    }
  }

  private async present(row: DomainRow): Promise<Domain> {
    const [certificate] = await listCertificates(this.db, [row.id])
    return toDomain(row, certificate, this.target)
  }

  private async project(slug: string): Promise<{ ok: true; project: ProjectRow } | DomainFailure> {
    if (!this.settings.platformDomain) {
      return { ok: false, error: 'not_found', message: 'Custom domains are not enabled on this service: set PLATFORM_DOMAIN (and PLATFORM_DNS_TARGET).' }
    }
    const project = await findProjectBySlug(this.db, slug)
    if (!project) return { ok: false, error: 'not_found', message: `No project with slug "${slug}".` }
    return { ok: true, project }
  }

  private async domainOf(slug: string, input: string): Promise<{ ok: true; project: ProjectRow; domain: DomainRow } | DomainFailure> {
    const project = await this.project(slug)
    if (!project.ok) return project
    const parsed = parseDomainName(input, undefined)
    const name = parsed.ok ? parsed.domain.name : input.trim().toLowerCase()
    const domain = await findDomainByName(this.db, name)
    // Another project's domain is answered exactly like one that does not exist.
    if (!domain || domain.project_id !== project.project.id) {
      return { ok: false, error: 'not_found', message: `Project ${slug} has no domain ${name}.` }
    }
    return { ok: true, project: project.project, domain }
  }
}
