/** Where the service reads the time; tests pass their own to move it. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }
