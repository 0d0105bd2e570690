import type { FastifyBaseLogger } from 'fastify'
import { isDatabaseUnavailable } from './errors.js'
import type { StorageFull } from './storage-full.js'

/** How often an unavailable database is asked whether it answers again. */
const PROBE_INTERVAL_MS = 1_000

/** Where background work (the workers of domains and webhooks) tells its failures. */
export interface FailureLog {
  /**
   * A database outage is logged once for all that meets it, and so is a full storage; any other
   * failure as a warning of its own.
   */
  failed(err: unknown, message: string, fields?: Record<string, unknown>): void
}

/**
 * Logs database outages once each: one warning when the first request (or background pass) finds
 * the database unavailable, one line when it answers again. Requests during an outage answer 503
 * and log nothing more; a line (and a stack) per request would bury the one that matters.
 */
export class DatabaseOutage implements FailureLog {
  private since: number | undefined
  private probe: NodeJS.Timeout | undefined
  private closed = false

  constructor(
    private readonly ping: () => Promise<void>,
    private readonly log: FastifyBaseLogger,
    /** Where a write refused for a full storage goes instead: it has its own one warning. */
    private readonly storage?: Pick<StorageFull, 'refused'>,
  ) {}

  /** Whether an outage is under way (from the first failure until a probe succeeds). */
  get active(): boolean {
    return this.since !== undefined
  }

  /** A request found the database unavailable. */
  report(error: unknown): void {
    if (this.since !== undefined || this.closed) return
    this.since = Date.now()
    const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
    this.log.warn({ code, reason: message }, 'database unavailable: requests that need it answer 503 until it answers again')
    this.schedule()
  }

  failed(err: unknown, message: string, fields: Record<string, unknown> = {}): void {
    if (isDatabaseUnavailable(err)) this.report(err)
    else if (!this.storage?.refused(err)) this.log.warn({ ...fields, err }, message)
  }

  close(): void {
    this.closed = true
    clearTimeout(this.probe)
  }

  // One probe at a time: a ping bounded by the database timeout, then the next one.
  private schedule(): void {
    this.probe = setTimeout(() => {
      this.ping().then(
        () => {
          if (this.closed) return
          const seconds = Math.round((Date.now() - (this.since ?? Date.now())) / 100) / 10
          this.since = undefined
          this.log.info({ seconds }, 'database available again')
        },
        () => {
          if (!this.closed) this.schedule()
        },
      )
    }, PROBE_INTERVAL_MS)
    this.probe.unref()
  }
}
