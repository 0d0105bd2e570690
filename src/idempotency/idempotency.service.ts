import { createHash } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import { type Failure, type Outcome, Refusal } from '../errors.js'
import { completeClaim, deleteClaimsBefore, findClaim, insertClaim, releaseClaim, retakeClaim } from './idempotency.repository.js'

/** How long a key remembers its response. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000
const PURGE_EVERY_MS = 3_600_000
/** A claim older than this that never completed belongs to a crashed request and may be retaken. */
const ABANDONED_AFTER_MS = 60_000

export interface StoredResponse<T> {
  status: number
  body: T
}

export type IdempotentOutcome<T> =
  | { kind: 'done'; response: StoredResponse<T>; replayed: boolean }
  | { kind: 'reused' }
  | { kind: 'in_flight' }

/** An unsafe request sent with an Idempotency-Key. */
export interface IdempotentRequest {
  key: string
  /** The operation and what it was sent (path parameters, body): a retry must send the same. */
  request: unknown
  /** The status its success answers, stored with the body for a replay. */
  status: number
}

/** A change's result: what its work answered (replayed from the first request, or not), or why it did not happen. */
export type ChangeOutcome<T> = Outcome<{ value: T; replayed: boolean }>

/** Why a request's Idempotency-Key cannot be used now. */
export const KEY_FAILURES = {
  reused: {
    ok: false,
    error: 'idempotency_key_reused',
    message: 'This Idempotency-Key was already used with a different body: use a new key for a new request.',
  },
  in_flight: {
    ok: false,
    error: 'idempotency_in_flight',
    message: 'A request with this Idempotency-Key is still being processed: retry in a moment.',
  },
} as const satisfies Record<string, Failure>

/**
 * Runs unsafe operations at most once per Idempotency-Key (draft-ietf-httpapi-idempotency-key-header):
 * the first request claims the key, its response is stored with the change in one transaction,
 * and a retry with the same body replays it for 24 hours.
 */
export class Idempotency {
  private purgeTimer: NodeJS.Timeout | undefined

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Forgets keys older than 24 hours every hour, in the background, until `close`. */
  start(): void {
    this.purgeTimer = setInterval(() => void this.purge().catch((err: unknown) => this.log.warn({ err }, 'idempotency purge failed')), PURGE_EVERY_MS)
    this.purgeTimer.unref()
  }

  close(): void {
    clearInterval(this.purgeTimer)
  }

  /**
   * A change, in one transaction: `work` runs at most once per key when the request came with
   * one, and a retry replays what it answered. `work` may `refuse()`: the transaction is undone,
   * the key stays free for a retry, and the refusal is the answer.
   */
  async change<T>(projectId: number, idempotent: IdempotentRequest | undefined, work: (trx: Db) => Promise<T>): Promise<ChangeOutcome<T>> {
    try {
      if (!idempotent) return { ok: true, value: await this.db.transaction().execute(work), replayed: false }
      const outcome = await this.run(projectId, idempotent.key, idempotent.request, async (trx) => ({ status: idempotent.status, body: await work(trx) }))
      if (outcome.kind === 'done') return { ok: true, value: outcome.response.body, replayed: outcome.replayed }
      return KEY_FAILURES[outcome.kind]
    } catch (error) {
      if (error instanceof Refusal) return error.failure
      throw error
    }
  }

  async run<T>(
    projectId: number,
    key: string,
    request: unknown,
    work: (trx: Db) => Promise<StoredResponse<T>>,
  ): Promise<IdempotentOutcome<T>> {
    const requestHash = fingerprint(request)
    for (let attempt = 0; attempt < 3; attempt++) {
      const at = new Date(this.clock.now()).toISOString()
      if (await insertClaim(this.db, { projectId, key, requestHash, at })) {
        return { kind: 'done', response: await this.perform(projectId, key, at, work), replayed: false }
      }
      const existing = await findClaim(this.db, projectId, key)
      if (!existing) continue
      const age = this.clock.now() - Date.parse(existing.created_at)
      const reclaimable = age >= IDEMPOTENCY_TTL_MS || (existing.state === 'in_flight' && age >= ABANDONED_AFTER_MS)
      if (reclaimable) {
        if (await retakeClaim(this.db, existing, { requestHash, at })) {
          return { kind: 'done', response: await this.perform(projectId, key, at, work), replayed: false }
        }
        continue
      }
      if (existing.request_hash !== requestHash) return { kind: 'reused' }
      if (existing.state === 'in_flight') return { kind: 'in_flight' }
      return {
        kind: 'done',
        response: { status: existing.response_status ?? 200, body: JSON.parse(existing.response_body ?? 'null') as T },
        replayed: true,
      }
    }
    // Three lost races in a row: another request holds the key right now.
    return { kind: 'in_flight' }
  }

  /** Forgets keys past their 24 hours; run periodically. */
  async purge(): Promise<number> {
    return deleteClaimsBefore(this.db, new Date(this.clock.now() - IDEMPOTENCY_TTL_MS).toISOString())
  }

  private async perform<T>(projectId: number, key: string, at: string, work: (trx: Db) => Promise<StoredResponse<T>>) {
    try {
      return await this.db.transaction().execute(async (trx) => {
        const response = await work(trx)
        await completeClaim(trx, projectId, key, { status: response.status, body: JSON.stringify(response.body) })
        return response
      })
    } catch (error) {
      // The change did not happen, so the key must not block a retry.
      await releaseClaim(this.db, projectId, key, at).catch(() => undefined)
      throw error
    }
  }
}

/** A stable digest of a request: object keys are sorted, so key order does not matter. */
export function fingerprint(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value, (_key, v: unknown) => (isPlainObject(v) ? sortKeys(v) : v))).digest('hex')
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function sortKeys(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, value[k]]))
}
