import type { Db } from '../db/database.js'
import type { AuditEntryRow } from '../db/schema.js'
import { type Page, pageOf } from '../shapes.js'
import { type AuditFilter, listAuditEntries } from './audit.repository.js'
import type { AuditAction } from './audit.js'
import type { AuditEntry } from './audit.schemas.js'

export function toAuditEntry(row: AuditEntryRow & { project_slug: string | null }): AuditEntry {
  return {
    id: Number(row.id),
    at: row.at,
    actor: row.actor_key_id === null ? { kind: row.actor_kind, name: row.actor_name } : { kind: row.actor_kind, name: row.actor_name, keyId: row.actor_key_id },
    action: row.action as AuditAction,
    target: { type: row.target_type, id: row.target_id },
    project: row.project_slug,
    requestId: row.request_id,
    details: JSON.parse(row.details) as Record<string, unknown>,
  }
}

/** Reads the audit log; the changes themselves record their entries (recordChange). */
export class AuditService {
  constructor(private readonly db: Db) {}

  /** One page, newest first; `nextAfter` is the `before` cursor of the next page. */
  async list(filter: AuditFilter): Promise<Page<AuditEntry>> {
    const rows = await listAuditEntries(this.db, { ...filter, limit: filter.limit + 1 })
    return pageOf(rows.map(toAuditEntry), filter.limit)
  }
}
