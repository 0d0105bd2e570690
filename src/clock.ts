/** Where the service reads the time; tests pass their own to move it. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }

/**
 * Milliseconds on the process's monotonic clock, the same on every thread of the process: the
 * clock of a bound on a wait (a write's, for a lock), which a step of the wall clock (a VM's
 * time sync) must neither shorten nor stretch. Not a time of day.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint() / 1000n) / 1000
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/i

/**
 * An RFC 3339 instant (`2026-11-25T10:00:00Z`, or with an offset) as milliseconds since the
 * epoch; undefined for anything else, a date that does not exist (30 February) included, which
 * `Date.parse` would quietly move to another day.
 */
export function parseInstant(value: string): number | undefined {
  const match = RFC3339.exec(value)
  if (!match) return undefined
  const [year, month, day, hour, minute, second = 0, offsetHour = 0, offsetMinute = 0] = match.slice(1).map((part) => (part === undefined ? undefined : Number(part)))
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate()
  if (month! < 1 || month! > 12 || day! < 1 || day! > daysInMonth || hour! > 23 || minute! > 59 || second! > 59 || offsetHour! > 23 || offsetMinute! > 59) return undefined
  const time = Date.parse(value)
  return Number.isNaN(time) ? undefined : time
}
