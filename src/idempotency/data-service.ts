import type { Generations } from '../cache/generations.js'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import type { Outbox } from '../webhooks/outbox.js'
import type { Idempotency } from './idempotency.service.js'

/**
 * What a service that changes a project's shelter data (its animals, its orders) works with: the
 * database, the clock, changes made at most once per Idempotency-Key, the caches' generations
 * (told before the answer) and the webhook outbox (events written in the change's transaction).
 */
export abstract class DataService {
  constructor(
    protected readonly db: Db,
    protected readonly clock: Clock,
    protected readonly idempotency: Idempotency,
    protected readonly generations: Generations,
    protected readonly outbox: Outbox,
  ) {}
}
