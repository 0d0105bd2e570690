import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import { Idempotency } from './idempotency.service.js'

export interface IdempotencyDeps {
  db: Db
  clock: Clock
  log: FastifyBaseLogger
}

/** Changes made at most once per Idempotency-Key, for the services that change a project's data. */
export interface IdempotencyFeature {
  service: Idempotency
}

export function createIdempotency({ db, clock, log }: IdempotencyDeps): IdempotencyFeature {
  return { service: new Idempotency(db, clock, log) }
}
