import type { Generations } from '../cache/generations.js'
import type { Clock } from '../clock.js'
import type { Config } from '../config.js'
import { Authenticator, type KeyLookup } from './authenticator.js'

export interface AuthDeps {
  /** The keys feature's reads of its keys (`Keys.lookup`). */
  keys: KeyLookup
  clock: Clock
  config: Pick<Config, 'environment'>
  /** A key's principal is cached while the auth generation stands. */
  generations: Generations
}

/** Who is calling, wired: the authenticator of API keys (the admin scope's checks are its own, in admin.scope.ts). */
export interface Auth {
  authenticator: Authenticator
}

export function createAuth({ keys, clock, config, generations }: AuthDeps): Auth {
  return { authenticator: new Authenticator(keys, clock, config.environment, generations) }
}
