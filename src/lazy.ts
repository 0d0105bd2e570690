import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

/**
 * A CommonJS package, or a module of Node's own, loaded on first use instead of at start-up. For
 * what only some deployments use (PostgreSQL, Redis, ACME, the public suffix list), and what only
 * the server uses (Node's HTTP client, TLS, DNS, compression and worker threads, which a command
 * never needs although it imports the features that do): a process that never needs one does not
 * pay for it in memory or start-up time.
 */
export function lazy<T>(name: string): () => T {
  let loaded: T | undefined
  return () => (loaded ??= require(name) as T)
}
