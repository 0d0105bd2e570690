import { randomBytes } from 'node:crypto'
import { type Change, recordChange } from '../audit/audit.js'
import type { Generations } from '../cache/generations.js'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import type { SiteSettingsRow, SiteSettingsTable } from '../db/schema.js'
import { findSiteSettings, saveSiteSettings, siteKey } from './site.repository.js'
import type { SiteSettings, SiteSettingsChanges } from './site.schemas.js'

export interface SiteDeps {
  db: Db
  clock: Clock
  /** A change of the settings moves the project's data generation: cached pages go stale. */
  generations: Generations
}

const FIELDS = {
  displayName: 'display_name',
  logoUrl: 'logo_url',
  primaryColor: 'primary_color',
  about: 'about',
  contactEmail: 'contact_email',
  contactPhone: 'contact_phone',
} as const satisfies Record<Exclude<keyof SiteSettings, 'published'>, keyof SiteSettingsTable>

export function toSiteSettings(row: SiteSettingsRow | undefined): SiteSettings {
  const settings: SiteSettings = { published: row ? row.published === 1 : true }
  if (!row) return settings
  for (const [field, column] of Object.entries(FIELDS)) {
    const value = row[column]
    if (value !== null) settings[field as keyof typeof FIELDS] = value
  }
  return settings
}

/** A project's adoption site: its settings (published, branding) and the secret its forms are signed with. */
export class SiteService {
  private secret: Promise<string> | undefined

  constructor(private readonly deps: SiteDeps) {}

  async settings(projectId: number): Promise<SiteSettings> {
    return toSiteSettings(await findSiteSettings(this.deps.db, projectId))
  }

  /** A JSON Merge Patch of the settings, with its audit entry. */
  async update(projectId: number, changes: SiteSettingsChanges, change?: Change): Promise<SiteSettings> {
    const at = new Date(this.deps.clock.now()).toISOString()
    const saved = await this.deps.db.transaction().execute(async (trx) => {
      const before = toSiteSettings(await findSiteSettings(trx, projectId))
      const after: SiteSettings = { ...before, ...(changes.published !== undefined && { published: changes.published }) }
      for (const field of Object.keys(FIELDS) as (keyof typeof FIELDS)[]) {
        const value = changes[field]
        if (value === null) delete after[field]
        else if (value !== undefined) after[field] = value
      }
      await saveSiteSettings(trx, {
        project_id: projectId,
        published: after.published ? 1 : 0,
        display_name: after.displayName ?? null,
        logo_url: after.logoUrl ?? null,
        primary_color: after.primaryColor ?? null,
        about: after.about ?? null,
        contact_email: after.contactEmail ?? null,
        contact_phone: after.contactPhone ?? null,
        updated_at: at,
      })
      if (change) {
        const changed = Object.keys(changes).filter((field) => JSON.stringify(before[field as keyof SiteSettings]) !== JSON.stringify(after[field as keyof SiteSettings]))
        await recordChange(trx, this.deps.clock, change, { action: 'site.updated', target: { type: 'site', id: projectId }, projectId, details: { changed } })
      }
      return after
    })
    await this.deps.generations.dataChanged(projectId)
    return saved
  }

  /** The secret the site's form tokens are signed with: the same on every instance, read once. */
  async formSecret(): Promise<string> {
    this.secret ??= siteKey(this.deps.db, { secret: randomBytes(32).toString('hex'), at: new Date(this.deps.clock.now()).toISOString() }).catch((error: unknown) => {
      this.secret = undefined
      throw error
    })
    return this.secret
  }
}
