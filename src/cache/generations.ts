import type { FastifyBaseLogger } from 'fastify'
import type { DatabaseHandle, Db } from '../db/database.js'
import type { Tokens } from '../limits/store.js'
import type { LimiterBackend } from '../limits/backend.js'
import { EPOCH_MS, type RedisConnection, type RedisSettings, SCOPE_MS, withRedis } from '../redis/redis.js'
import { readGeneration } from './generations.repository.js'

/**
 * Generations: how an instance knows, without reading the data again, whether an answer it
 * keeps (a serialized page, a key's principal) is still true. Two kinds of scope: `auth` (keys
 * and projects: which project a key acts for, whether it is revoked, its plan) and
 * `data:<project id>` (a project's animals and orders). A scope's token changes with every
 * committed write to it, before that write is acknowledged; so a read that follows an
 * acknowledged write, on any instance, sees a new token and reads the database.
 *
 * - embedded (SQLite): triggers bump `cache_generations` inside the writing transaction,
 *   whoever writes (this process, another one on the same file, the CLI); the connection's
 *   change counter says when the rows must be read again.
 * - shared (Redis): tokens live in Redis. The limiter's script reads them in the round trip
 *   every request makes already (and refuses to charge a cached principal whose auth token
 *   moved on); every write sets a new token after it commits, before it answers.
 * - none (PostgreSQL without Redis): instances share no signal, so nothing is cached.
 */
export interface Generations {
  readonly kind: 'embedded' | 'shared' | 'none'
  /** The auth token this instance holds now; undefined: trust no cached principal. */
  auth(): Promise<string | undefined>
  /**
   * A project's data token, for a request whose key was checked (so `auth()` ran after the
   * request arrived); `seen` is what the limiter's round trip returned. Undefined: do not cache.
   */
  data(projectId: number, seen: string | undefined): Promise<string | undefined>
  /**
   * A project's data token now, for a request no key authenticated (the adoption site's pages):
   * read after the request arrived, before the data. Undefined: do not cache.
   */
  current(projectId: number): Promise<string | undefined>
  /** After a committed write of a project's animals or orders. */
  dataChanged(projectId: number): Promise<void>
  /** After a committed change of keys or projects. */
  authChanged(): Promise<void>
  /** The tokens a key's rate-limit decision read (shared generations). */
  observe(tokens: Tokens): void
  /** Forget what was learnt: after Redis was away, its tokens may have missed bumps. */
  forget(): void
  /** Before the first request (shared generations: a new epoch). */
  start?(): Promise<void>
  close?(): void
}

/**
 * Told by the services that revoke keys and change plans, once the change is committed: the
 * app's generations, or the CLI's announcement through Redis. The embedded store needs neither
 * (its triggers bump the file's own generations).
 */
export type AuthChangeListener = () => Promise<void>

/** The one place that chooses how generations travel: the database's own, Redis, or none. */
export async function createGenerations(database: DatabaseHandle, limiter: LimiterBackend, log: FastifyBaseLogger): Promise<Generations> {
  if (database.changeCounter) return new EmbeddedGenerations(database.db, database.changeCounter)
  if (!limiter.shared) return new NoGenerations()
  return new SharedGenerations(limiter.shared.redis, () => limiter.status() !== 'redis', log)
}

/**
 * After the CLI changed keys or projects. The embedded store's triggers did it already; a
 * deployment that shares generations in Redis hears of it there.
 */
export async function announceAuthChange(settings: RedisSettings & { databaseUrl: string | undefined }): Promise<void> {
  if (!settings.databaseUrl) return
  await withRedis(settings, 'requests', (redis) => bumpScopes(redis, ['auth']))
}

/** After the CLI changed projects' animals, categories or locations: as `announceAuthChange`, for their data. */
export async function announceDataChange(settings: RedisSettings & { databaseUrl: string | undefined }, projectIds: Iterable<number>): Promise<void> {
  const scopes = [...new Set(projectIds)].map((id) => `data:${id}`)
  if (!settings.databaseUrl || scopes.length === 0) return
  await withRedis(settings, 'requests', (redis) => bumpScopes(redis, scopes))
}

/** Moves cache generation scopes (`auth`, `data:<project id>`) to new tokens. */
async function bumpScopes(redis: RedisConnection, scopes: readonly string[]): Promise<void> {
  if (scopes.length === 0) return
  const pipeline = redis.client.multi()
  for (const scope of new Set(scopes)) pipeline.incr(redis.key(`gen:${scope}`)).pexpire(redis.key(`gen:${scope}`), SCOPE_MS)
  const results = await pipeline.exec()
  const failed = results?.find(([err]) => err)
  if (!results || failed) throw failed?.[0] ?? new Error('Redis transaction aborted')
}

export class EmbeddedGenerations implements Generations {
  readonly kind = 'embedded'
  private counter = -1
  private epoch = 0
  private readonly tokens = new Map<string, { epoch: number; token: string }>()

  constructor(
    private readonly db: Db,
    private readonly changeCounter: () => number,
  ) {}

  auth(): Promise<string> {
    this.sync()
    return this.token('auth')
  }

  /**
   * Without a look at the change counter of its own: the request's `auth()` looked after the
   * request arrived, and any look since is later still. One look per request: it is a statement.
   */
  data(projectId: number): Promise<string> {
    return this.token(`data:${projectId}`)
  }

  current(projectId: number): Promise<string> {
    this.sync()
    return this.token(`data:${projectId}`)
  }

  /** The triggers bumped the scope in the writing transaction. */
  async dataChanged(): Promise<void> {}
  async authChanged(): Promise<void> {}
  observe(): void {}
  forget(): void {}

  private sync(): void {
    const counter = this.changeCounter()
    if (counter === this.counter) return
    // Something changed somewhere: every scope is read again, once, on its next use.
    this.counter = counter
    this.epoch++
  }

  private async token(scope: string): Promise<string> {
    const known = this.tokens.get(scope)
    if (known?.epoch === this.epoch) return known.token
    const [row] = await readGeneration(this.db, scope)
    const token = String(row?.value ?? 0)
    this.tokens.set(scope, { epoch: this.epoch, token })
    return token
  }
}

/** How often bumps that could not reach Redis are tried again. */
const RETRY_MS = 1_000

export class SharedGenerations implements Generations {
  readonly kind = 'shared'
  private lastAuth: string | undefined
  /** Scopes whose bump did not reach Redis yet. */
  private readonly pending = new Set<string>()
  private retry: NodeJS.Timeout | undefined

  constructor(
    /** The limiter's connection: its script reads the tokens in each request's round trip. */
    private readonly redis: RedisConnection,
    /** True while the limiter runs on this instance alone (Redis unreachable): no token is current. */
    private readonly degraded: () => boolean,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** A new epoch: whatever any instance cached before this one started is read again. */
  async start(): Promise<void> {
    await this.newEpoch().catch((err: unknown) => this.log.warn({ err }, 'cache epoch not renewed: Redis unavailable'))
  }

  async auth(): Promise<string | undefined> {
    return this.degraded() ? undefined : this.lastAuth
  }

  async data(_projectId: number, seen: string | undefined): Promise<string | undefined> {
    return this.degraded() ? undefined : seen
  }

  /** One round trip, as the limiter's script composes its tokens: no epoch (Redis lost it) caches nothing. */
  async current(projectId: number): Promise<string | undefined> {
    if (this.degraded()) return undefined
    // Redis failing now: answered from the database, as while it is away.
    const [epoch, value] = await this.redis.client.mget(this.redis.key('gen:epoch'), this.redis.key(`gen:data:${projectId}`)).catch(() => [])
    return epoch ? `${epoch}/${value ?? '0'}` : undefined
  }

  observe(tokens: Tokens): void {
    this.lastAuth = tokens.auth
  }

  forget(): void {
    this.lastAuth = undefined
  }

  dataChanged(projectId: number): Promise<void> {
    return this.bump([`data:${projectId}`])
  }

  authChanged(): Promise<void> {
    return this.bump(['auth'])
  }

  close(): void {
    clearTimeout(this.retry)
  }

  /** A new epoch: every token any instance holds becomes stale. */
  private async newEpoch(): Promise<void> {
    const [seconds, micros] = await this.redis.client.time()
    await this.redis.client.set(this.redis.key('gen:epoch'), `${seconds}.${micros}`, 'PX', EPOCH_MS)
  }

  private async bump(scopes: string[]): Promise<void> {
    try {
      await bumpScopes(this.redis, [...scopes, ...this.pending])
      this.pending.clear()
    } catch (err) {
      // The write is committed either way. Instances that reach Redis meanwhile may answer from
      // what they hold until the bump lands; instances that do not reach it cache nothing.
      if (this.pending.size === 0) this.log.warn({ err }, 'cache generation not bumped: Redis unavailable; retrying')
      for (const scope of scopes) this.pending.add(scope)
      this.retry ??= setTimeout(() => {
        this.retry = undefined
        void this.bump([])
      }, RETRY_MS).unref()
    }
  }
}

export class NoGenerations implements Generations {
  readonly kind = 'none'
  async auth(): Promise<undefined> {}
  async data(): Promise<undefined> {}
  async current(): Promise<undefined> {}
  async dataChanged(): Promise<void> {}
  async authChanged(): Promise<void> {}
  observe(): void {}
  forget(): void {}
}
