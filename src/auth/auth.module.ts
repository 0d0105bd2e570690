import type { Generations } from '../cache/generations.js'
import type { Clock } from '../clock.js'
import type { Config } from '../config.js'
import type { Db } from '../db/database.js'
import { Authenticator } from './authenticator.js'

export interface AuthDeps {
  db: Db
  clock: Clock
  config: Pick<Config, 'environment'>
  /** A key's principal is cached while the auth generation stands. */
  generations: Generations
}

/** Who is calling, wired: the authenticator of API keys (the admin scope's checks are its own, in admin.scope.ts). */
export interface Auth {
  authenticator: Authenticator
}

export function createAuth({ db, clock, config, generations }: AuthDeps): Auth {
  return { authenticator: new Authenticator(db, clock, config.environment, generations) }
}
