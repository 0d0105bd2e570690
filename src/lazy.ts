import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

/**
 * A CommonJS package loaded on first use instead of at start-up. For what only some
 * deployments use (PostgreSQL, Redis, ACME, the public suffix list): a process that never needs
 * one does not pay for it in memory or start-up time.
 */
export function lazy<T>(name: string): () => T {
  let loaded: T | undefined
  return () => (loaded ??= require(name) as T)
}
