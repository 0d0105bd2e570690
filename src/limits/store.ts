/**
 * The limiter contract: one atomic check-and-charge of fixed windows, with temporary bans for
 * keys that keep calling while rejected. Two stores implement it: in process (memory.store.ts)
 * and in Redis (redis.store.ts); `limits.ts` chooses.
 */

export interface Window {
  name: 'minute' | 'day'
  limit: number
  /** Windows are aligned to multiples of their length since the Unix epoch (so to the UTC minute and day). */
  lengthMs: number
}

export interface BanPolicy {
  /** A key is banned when it sends more than this many requests while rejected within one window. */
  afterRejections: number
  /** The first ban's length; each repeat doubles it. */
  baseMs: number
  maxMs: number
  /** A ban counts as a repeat when it starts within this time of the previous ban's end. */
  repeatWithinMs: number
}

export interface ConsumeRequest {
  /** Whose quota: `p:<project id>` or `ip:<address>`. */
  subject: string
  windows: readonly Window[]
  /** The key to ban for ignoring 429s; absent for unauthenticated traffic. */
  ban?: { keyId: string; policy: BanPolicy } | undefined
  /**
   * A key's request: read its cache generations in the same step (stores that share them).
   * With `expectAuth` (the token a cached principal was resolved at), a moved-on auth token
   * answers `stale` and charges nothing: the principal must be resolved again first.
   */
  generations?: { projectId: number; expectAuth: string | undefined } | undefined
}

/** Cache generation tokens read with a decision (see src/cache/generations.ts). */
export interface Tokens {
  auth: string
  data: string
}

export interface WindowState {
  name: Window['name']
  limit: number
  lengthMs: number
  remaining: number
  /** When the window ends, in milliseconds since the epoch. */
  resetAt: number
}

export type Decision =
  | { outcome: 'allowed' | 'limited'; now: number; windows: WindowState[]; tokens?: Tokens | undefined }
  | {
      outcome: 'banned'
      now: number
      windows: WindowState[]
      until: number
      /** Escalation level of the ban: 0 for a first ban. */
      level: number
      /** True for the request that started the ban. */
      started: boolean
      tokens?: Tokens | undefined
    }

/** A cached principal's auth token moved on: nothing was charged; resolve the key again. */
export type StaleDecision = { outcome: 'stale'; now: number; windows: WindowState[]; tokens: Tokens }

export interface LimiterStore {
  /**
   * Checks every window and, only when all have room, charges each by one, atomically.
   * A rejected or banned request charges nothing.
   */
  consume(request: ConsumeRequest): Promise<Decision | StaleDecision>
  /** Lifts a key's ban and forgets its escalation. */
  unban(keyId: string): Promise<void>
  close(): Promise<void>
}

export const MINUTE_MS = 60_000
export const DAY_MS = 86_400_000

export const BAN_POLICY: BanPolicy = {
  afterRejections: 30,
  baseMs: 10 * MINUTE_MS,
  maxMs: DAY_MS,
  repeatWithinMs: DAY_MS,
}

/** The length of a ban at an escalation level: 10 minutes doubled per repeat, at most 24 hours. */
export function banLength(policy: BanPolicy, level: number): number {
  return Math.min(policy.baseMs * 2 ** level, policy.maxMs)
}

/**
 * The window that decides: the one with the fewest requests remaining; among equals, the one
 * that ends last (a request is only possible again once every exhausted window has reset).
 */
export function bindingWindow(windows: readonly WindowState[]): WindowState {
  let binding = windows[0]
  if (!binding) throw new Error('a limit needs at least one window')
  for (const window of windows) {
    if (window.remaining < binding.remaining || (window.remaining === binding.remaining && window.resetAt > binding.resetAt)) {
      binding = window
    }
  }
  return binding
}
