import { type Change, recordChange, SYSTEM_CHANGE } from '../audit/audit.js'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import type { ApiKeyRow } from '../db/schema.js'
import type { BanRecords, StartedBan } from '../limits/limits.service.js'
import type { LimiterStore } from '../limits/store.js'
import type { Outbox } from '../webhooks/outbox.js'
import { deleteBan, findBan, listActiveBans, recordBan } from './bans.repository.js'
import { findApiKey } from './keys.repository.js'
import type { KeyResult } from './keys.service.js'

export interface BansDeps {
  db: Db
  clock: Clock
  outbox: Outbox
  /**
   * The limiter's store, where a lifted ban ends for every instance that reads it: the running
   * limiter's in a server; in a command, Redis when configured (in-process stores re-read the
   * record within a second).
   */
  store: Pick<LimiterStore, 'unban'>
}

/**
 * The temporary bans of keys that kept calling while rate limited. The limiter decides them and
 * tells this service; it keeps their records (which operators see, and which an in-process
 * limiter holds again after a restart), writes their events, and lifts them with an audit entry.
 */
export class BansService implements BanRecords {
  constructor(private readonly deps: BansDeps) {}

  /** A ban the limiter started: its record, its `ban.started` event and its audit entry (the system's), in one transaction. */
  async started(ban: StartedBan): Promise<void> {
    const row = { key_id: ban.keyId, level: ban.level, banned_at: new Date(ban.bannedAt).toISOString(), until: new Date(ban.until).toISOString() }
    await this.deps.db.transaction().execute(async (trx) => {
      await recordBan(trx, row)
      await this.deps.outbox.write(trx, ban.projectId, 'ban.started', { keyId: row.key_id, level: row.level, bannedAt: row.banned_at, until: row.until })
      await recordChange(trx, this.deps.clock, SYSTEM_CHANGE, { action: 'key.banned', target: { type: 'key', id: ban.keyId }, projectId: ban.projectId, details: { level: row.level, until: row.until } })
    })
  }

  async running(): Promise<{ keyId: string; level: number; until: number }[]> {
    const bans = await listActiveBans(this.deps.db, new Date(this.deps.clock.now()).toISOString())
    return bans.map((ban) => ({ keyId: ban.key_id, level: ban.level, until: Date.parse(ban.until) }))
  }

  async until(keyId: string): Promise<number | undefined> {
    const ban = await findBan(this.deps.db, keyId)
    return ban && Date.parse(ban.until)
  }

  /**
   * Lifts a key's ban everywhere: deletes its record (with its audit entry, and its `ban.lifted`
   * event when there was one), then lifts it in the limiter's store. Answers whether a ban was recorded.
   */
  async lift(key: ApiKeyRow, change: Change): Promise<boolean> {
    const { db, clock, outbox } = this.deps
    const wasBanned = await db.transaction().execute(async (trx) => {
      const deleted = await deleteBan(trx, key.id)
      await recordChange(trx, clock, change, { action: 'key.ban_lifted', target: { type: 'key', id: key.id }, projectId: key.project_id, details: { wasBanned: deleted } })
      if (deleted) await outbox.write(trx, key.project_id, 'ban.lifted', { keyId: key.id, liftedAt: new Date(clock.now()).toISOString() })
      return deleted
    })
    await this.deps.store.unban(key.id)
    return wasBanned
  }

  /** `lift`, of a key named by its id alone (the CLI). */
  async liftById(keyId: string, change: Change): Promise<KeyResult<{ wasBanned: boolean }>> {
    const key = await findApiKey(this.deps.db, keyId)
    if (!key) return { ok: false, error: 'not_found', message: `No API key with id "${keyId}".` }
    return { ok: true, wasBanned: await this.lift(key, change) }
  }
}
