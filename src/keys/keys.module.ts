import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { KeyLookup } from '../auth/authenticator.js'
import type { AuthChangeListener } from '../cache/generations.js'
import type { Clock } from '../clock.js'
import type { Config } from '../config.js'
import type { Db } from '../db/database.js'
import type { FailureLog } from '../db/outage.js'
import type { LimiterStore } from '../limits/store.js'
import type { Outbox } from '../webhooks/outbox.js'
import { BansService } from './bans.service.js'
import { findKeyByHash, publishableOriginAccess, touchApiKey } from './keys.repository.js'
import { keysRoutes } from './keys.routes.js'
import { KeysService } from './keys.service.js'

export interface KeysDeps {
  db: Db
  clock: Clock
  config: Pick<Config, 'environment'>
  /** Told once a revocation committed: every instance refuses the key from the next request. */
  authChanged: AuthChangeListener
  /** Key and ban events are written in the changes' transactions. */
  outbox: Outbox
  /** Where the expiry scan's failures go. */
  failures: FailureLog
  /** The limiter's store, where a lifted ban ends (see BansDeps). */
  store: Pick<LimiterStore, 'unban'>
}

/** A project's API keys, wired: the keys, their temporary bans, and the admin API's key routes. */
export interface Keys {
  service: KeysService
  bans: BansService
  /** The keys as authentication reads them (one prepared read per request the principal cache misses). */
  lookup: KeyLookup
  /** `/projects/:slug/keys` of the admin API. */
  routes: FastifyPluginAsyncTypebox
}

export function createKeys({ db, clock, config, authChanged, outbox, failures, store }: KeysDeps): Keys {
  const service = new KeysService(db, clock, config.environment, authChanged, outbox, failures)
  const bans = new BansService({ db, clock, outbox, store })
  const lookup: KeyLookup = {
    byHash: (hash) => findKeyByHash(db, hash),
    touch: (keyId, at) => touchApiKey(db, keyId, at),
    originAccess: (origin, projectId, now) => publishableOriginAccess(db, origin, projectId, now),
  }
  return { service, bans, lookup, routes: (app) => keysRoutes(app, { keys: service, bans }) }
}
