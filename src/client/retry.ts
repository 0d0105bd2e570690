/**
 * When to retry and how long to wait: the arithmetic, kept free of I/O so it can be tested
 * with an injected clock and random source.
 */

/** Where the client reads the time and waits; tests inject their own. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number
  /** Resolves after `ms` milliseconds; rejects with the signal's reason when it aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason)
      const onAbort = () => {
        clearTimeout(timer)
        reject(signal?.reason)
      }
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort)
        resolve()
      }, ms)
      signal?.addEventListener('abort', onAbort, { once: true })
    }),
}

export interface RetryOptions {
  /** Requests one call may send in total, the first included. Default 5; 1 turns retries off. */
  maxAttempts?: number
  /**
   * The longest a call may take, retries and waits included, in ms. Default 120 000. A wait
   * that would end past it is not started: the call fails at once with the last error.
   */
  maxElapsedMs?: number
  /** The backoff of the first retry, doubled for each further one, in ms. Default 500. */
  baseDelayMs?: number
  /** The largest backoff, in ms. Default 30 000. */
  maxDelayMs?: number
  /** Where time is read and waits happen. Default: the system clock and `setTimeout`. */
  clock?: Clock
  /** A number in [0, 1) for the jitter. Default `Math.random`. */
  random?: () => number
  /** Told before each wait, e.g. to log it. */
  onRetry?: (event: RetryEvent) => void
}

export interface RetryEvent {
  /** The operation, by its operationId (`createPet`, …). */
  operation: string
  /** The attempt that failed, from 1. */
  attempt: number
  /** How long the client waits before the next attempt, in ms. */
  delayMs: number
  /** What the failed attempt got: its status (0 without a response), code and Retry-After. */
  status: number
  code: string
  retryAfter: number | undefined
}

export type ResolvedRetryOptions = Required<Omit<RetryOptions, 'onRetry'>> & Pick<RetryOptions, 'onRetry'>

export const RETRY_DEFAULTS = {
  maxAttempts: 5,
  maxElapsedMs: 120_000,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
} as const

export function resolveRetryOptions(options: RetryOptions | false | undefined): ResolvedRetryOptions {
  const given = options === false ? { maxAttempts: 1 } : (options ?? {})
  const resolved: ResolvedRetryOptions = {
    maxAttempts: given.maxAttempts ?? RETRY_DEFAULTS.maxAttempts,
    maxElapsedMs: given.maxElapsedMs ?? RETRY_DEFAULTS.maxElapsedMs,
    baseDelayMs: given.baseDelayMs ?? RETRY_DEFAULTS.baseDelayMs,
    maxDelayMs: given.maxDelayMs ?? RETRY_DEFAULTS.maxDelayMs,
    clock: given.clock ?? systemClock,
    random: given.random ?? Math.random,
    onRetry: given.onRetry,
  }
  if (!Number.isInteger(resolved.maxAttempts) || resolved.maxAttempts < 1) throw new TypeError('retry.maxAttempts must be a whole number of at least 1')
  for (const name of ['maxElapsedMs', 'baseDelayMs', 'maxDelayMs'] as const) {
    if (!Number.isFinite(resolved[name]) || resolved[name] < 0) throw new TypeError(`retry.${name} must be a number of at least 0`)
  }
  return resolved
}

/**
 * Exponential backoff with full jitter: a uniformly random wait in [0, min(max, base · 2^(n-1)))
 * after the n-th failed attempt.
 */
export function backoffMs(attempt: number, options: Pick<ResolvedRetryOptions, 'baseDelayMs' | 'maxDelayMs' | 'random'>): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.max(0, attempt - 1))
  return Math.floor(options.random() * ceiling)
}

/**
 * The wait before the next attempt: never less than the server's `Retry-After` (whole seconds),
 * with the backoff on top, so clients told the same Retry-After do not all return at once.
 */
export function retryDelayMs(attempt: number, retryAfterSeconds: number | undefined, options: Pick<ResolvedRetryOptions, 'baseDelayMs' | 'maxDelayMs' | 'random'>): number {
  return (retryAfterSeconds ?? 0) * 1000 + backoffMs(attempt, options)
}

/**
 * `Retry-After` in seconds (RFC 9110: a number of seconds or an HTTP date), rounded up so a
 * client never returns early; undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined
  const text = value.trim()
  if (/^\d+$/.test(text)) return Number(text)
  const date = Date.parse(text)
  if (!/[a-z]/i.test(text) || Number.isNaN(date)) return undefined
  return Math.max(0, Math.ceil((date - now) / 1000))
}
