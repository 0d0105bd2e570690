import { createHash } from 'node:crypto'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import { addToCounter, deleteCounter } from './accounts.repository.js'

/**
 * Sign-in throttling: at most 20 attempts per client address per minute, and at most 5 failed
 * sign-ins per email per 15 minutes, in fixed windows aligned to the epoch (as the API's limits).
 *
 * Why counters in a table rather than the limiter store of src/limits: that contract is one
 * check-and-charge, with no way to read a count without charging it nor to give a charge back.
 * Counting only *failures* needs one of the two (a correct password must not use up the email's
 * allowance), and adding them would change the Redis script and both stores for this one caller.
 * A table also holds across instances and restarts on every deployment, Redis or not; sign-ins
 * are rare, so one small write per attempt costs nothing that matters.
 *
 * The email's counter is charged *before* the password is checked and given back on success: so
 * concurrent guesses cannot slip past the limit between a check and a charge.
 */
export const ADDRESS_ATTEMPTS = { limit: 20, windowMs: 60_000 } as const
export const EMAIL_FAILURES = { limit: 5, windowMs: 15 * 60_000 } as const

type Rule = typeof ADDRESS_ATTEMPTS | typeof EMAIL_FAILURES

export interface Refusal {
  retryAfterSeconds: number
  message: string
}

export class SignInThrottle {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Charges an attempt to the client address; a refusal once it has made too many. */
  async attempt(address: string): Promise<Refusal | undefined> {
    return this.charge(ADDRESS_ATTEMPTS, `address:${address}`, (after) => `Too many sign-in attempts from your address: at most ${ADDRESS_ATTEMPTS.limit} per minute. Retry after ${after} s.`)
  }

  /** Charges a failure to the email before its password is checked; `succeeded` gives it back. */
  async failure(email: string): Promise<Refusal | undefined> {
    return this.charge(EMAIL_FAILURES, `email:${email}`, (after) => `Too many failed sign-ins for this email: at most ${EMAIL_FAILURES.limit} per 15 minutes. Retry after ${after} s.`)
  }

  async succeeded(email: string): Promise<void> {
    const { key, end } = this.window(EMAIL_FAILURES, `email:${email}`)
    await addToCounter(this.db, key, -1, new Date(end).toISOString())
  }

  /** Forgets the email's failures of the current window: its password was just reset. */
  async forgive(email: string): Promise<void> {
    await deleteCounter(this.db, this.window(EMAIL_FAILURES, `email:${email}`).key)
  }

  private async charge(rule: Rule, subject: string, message: (retryAfter: number) => string): Promise<Refusal | undefined> {
    const { key, end, now } = this.window(rule, subject)
    const count = await addToCounter(this.db, key, 1, new Date(end).toISOString())
    if (count <= rule.limit) return undefined
    const retryAfterSeconds = Math.max(1, Math.ceil((end - now) / 1000))
    return { retryAfterSeconds, message: message(retryAfterSeconds) }
  }

  /** The counter of a subject in the current window: hashed, so no email or address is stored. */
  private window(rule: Rule, subject: string) {
    const now = this.clock.now()
    const index = Math.floor(now / rule.windowMs)
    const key = createHash('sha256').update(`${subject}:${rule.windowMs}:${index}`).digest('hex')
    return { key, end: (index + 1) * rule.windowMs, now }
  }
}
