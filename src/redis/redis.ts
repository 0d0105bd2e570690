import type * as IORedis from 'ioredis'
import type { Redis, RedisOptions } from 'ioredis'
import { lazy } from '../lazy.js'

const ioredis = lazy<typeof IORedis>('ioredis')

/**
 * Every Redis connection of the service is opened here, and every script it runs is written
 * here: the limiter's store (src/limits/redis.store.ts), the cache generations
 * (src/cache/generations.ts), the routing changes of custom domains
 * (src/domains/routing-changes.ts), and the announcements a command makes to the running servers.
 * Each connection names its keys and channels under the deployment's REDIS_KEY_PREFIX.
 */
export interface RedisSettings {
  redisUrl: string | undefined
  /** Namespace of every key and channel, so deployments (and test runs) can share a server. */
  redisKeyPrefix: string
  /** Longest wait for one command on the request path; past it the limiter falls back. */
  redisTimeoutMs: number
}

/**
 * What a connection is for: each use waits, retries and queues in its own way.
 * - `requests`: every /v1 request waits on it (the limiter's script, which also reads the cache
 *   generations): a command fails after REDIS_TIMEOUT_MS, nothing queues while disconnected, and
 *   it keeps reconnecting, at most every second, so service returns soon after Redis does.
 * - `publish` and `subscribe`: routing changes, announced and heard by every instance.
 * - `announce`: one announcement of a process that holds no connection of its own (a command).
 */
export type RedisUse = 'requests' | 'publish' | 'subscribe' | 'announce'

function optionsFor(use: RedisUse, settings: RedisSettings): RedisOptions {
  switch (use) {
    case 'requests':
      return {
        lazyConnect: true,
        commandTimeout: settings.redisTimeoutMs,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        connectTimeout: 2_000,
        retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
      }
    case 'publish':
      return { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2_000, commandTimeout: Math.max(settings.redisTimeoutMs, 1_000) }
    case 'subscribe':
      // A subscription waits for messages: no command timeout.
      return { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2_000 }
    case 'announce':
      return { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2_000, commandTimeout: 2_000 }
  }
}

/**
 * Generation keys expire like every key, without a token ever coming back: the epoch lives a
 * day (then every instance reads everything once again), a scope's counter a month after its
 * last bump. A counter that expired reads 0 again, but in a later epoch.
 */
export const EPOCH_MS = 86_400_000
export const SCOPE_MS = 30 * EPOCH_MS

/**
 * The limiter's check-and-charge of every window in one script, so N instances admit exactly the
 * limit. The time comes from Redis (TIME), never from the instance, so instance clocks may differ.
 * Every key written gets an expiry.
 *
 * The same round trip reads the cache generations (src/cache/generations.ts) of a key's
 * request: the auth token and the project's data token, each prefixed by the epoch (renewed at
 * every instance start, and set afresh when Redis lost it, so a token never comes back).
 *
 * KEYS[1] counter prefix (`<prefix>rl:<subject>`), KEYS[2] ban prefix (`<prefix>ban:<key id>`, or ''),
 * KEYS[3] generation prefix (`<prefix>gen:`, or '' for no tokens)
 * ARGV: the auth token the caller's principal was cached at ('' for none), the project id, the
 * window count, then name/limit/length triples, then afterRejections, baseMs, maxMs, repeatWithinMs
 * Returns: { outcome (0 allowed, 1 limited, 2 banned, 3 banned now, 4 stale principal: nothing
 * charged), now, until, level, counts..., resets..., auth token, data token }
 */
const CONSUME = `
local EPOCH_MS = ${EPOCH_MS}
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local gen, authToken, dataToken = KEYS[3], '', ''
if gen ~= '' then
  local epoch = redis.call('GET', gen .. 'epoch')
  if not epoch then
    epoch = t[1] .. '.' .. t[2]
    redis.call('SET', gen .. 'epoch', epoch, 'PX', EPOCH_MS)
  end
  authToken = epoch .. '/' .. (redis.call('GET', gen .. 'auth') or '0')
  dataToken = epoch .. '/' .. (redis.call('GET', gen .. 'data:' .. ARGV[2]) or '0')
end
local n = tonumber(ARGV[3])
local keys, counts, limits, resets, names = {}, {}, {}, {}, {}
local allowed = true
for i = 1, n do
  local base = 3 + (i - 1) * 3
  names[i] = ARGV[base + 1]
  limits[i] = tonumber(ARGV[base + 2])
  local length = tonumber(ARGV[base + 3])
  local index = math.floor(now / length)
  resets[i] = (index + 1) * length
  keys[i] = KEYS[1] .. ':' .. names[i] .. ':' .. index
  counts[i] = tonumber(redis.call('GET', keys[i]) or '0')
  if counts[i] >= limits[i] then allowed = false end
end
local function answer(outcome, untilMs, level)
  local out = { outcome, now, untilMs, level }
  for i = 1, n do out[#out + 1] = counts[i] end
  for i = 1, n do out[#out + 1] = resets[i] end
  out[#out + 1] = authToken
  out[#out + 1] = dataToken
  return out
end
if ARGV[1] ~= '' and ARGV[1] ~= authToken then return answer(4, 0, -1) end
local ban = KEYS[2]
if ban ~= '' then
  local untilMs = tonumber(redis.call('GET', ban) or '0')
  if untilMs > now then return answer(2, untilMs, tonumber(redis.call('GET', ban .. ':level') or '0')) end
end
if allowed then
  for i = 1, n do
    counts[i] = redis.call('INCR', keys[i])
    redis.call('PEXPIREAT', keys[i], resets[i] + 1000)
  end
  return answer(0, 0, -1)
end
if ban == '' then return answer(1, 0, -1) end
local p = 4 + n * 3
local afterRejections, baseMs, maxMs, repeatWithinMs = tonumber(ARGV[p]), tonumber(ARGV[p + 1]), tonumber(ARGV[p + 2]), tonumber(ARGV[p + 3])
-- The binding window: fewest remaining, then latest end.
local b = 1
for i = 2, n do
  local ri, rb = limits[i] - counts[i], limits[b] - counts[b]
  if ri < rb or (ri == rb and resets[i] > resets[b]) then b = i end
end
local rejected = ban .. ':rejected:' .. names[b] .. ':' .. resets[b]
local r = redis.call('INCR', rejected)
redis.call('PEXPIREAT', rejected, resets[b])
if r <= afterRejections then return answer(1, 0, -1) end
redis.call('DEL', rejected)
local previous = redis.call('GET', ban .. ':level')
local level = 0
if previous then level = tonumber(previous) + 1 end
local length = math.min(baseMs * math.pow(2, level), maxMs)
redis.call('SET', ban, now + length, 'PX', length)
redis.call('SET', ban .. ':level', level, 'PX', length + repeatWithinMs)
return answer(3, now + length, level)
`

/** The CONSUME script's reply (see CONSUME); the two tokens at its end are strings. */
export type ConsumeReply = number[]

/** One connection, for one use, with the deployment's key names. */
export class RedisConnection {
  readonly client: Redis
  private readonly prefix: string

  constructor(settings: RedisSettings & { redisUrl: string }, use: RedisUse) {
    this.prefix = settings.redisKeyPrefix
    this.client = new (ioredis().Redis)(settings.redisUrl, optionsFor(use, settings))
    if (use === 'requests') this.client.defineCommand('adoptionStoreConsume', { numberOfKeys: 3, lua: CONSUME })
    // Errors surface through failed commands; the client's own event would otherwise be unhandled.
    this.client.on('error', () => undefined)
  }

  /** A key or channel of this deployment: `name` under the prefix. */
  key(name: string): string {
    return `${this.prefix}${name}`
  }

  async connect(): Promise<void> {
    await this.client.connect()
  }

  /** Runs CONSUME (a `requests` connection's): `keys` are its three KEYS, `args` its ARGV. */
  consume(keys: readonly [string, string, string], args: readonly (string | number)[]): Promise<ConsumeReply> {
    const command = (this.client as unknown as Record<string, (...a: unknown[]) => Promise<ConsumeReply>>).adoptionStoreConsume!
    return command.call(this.client, ...keys, ...args)
  }

  close(): void {
    this.client.disconnect()
  }
}

/** Opens a connection for `use` (connected by `connect()`; ioredis reconnects on its own after). */
export function openRedis(settings: RedisSettings & { redisUrl: string }, use: RedisUse): RedisConnection {
  return new RedisConnection(settings, use)
}

/**
 * For a process that holds no connection (a command): a connection of its own for `work`, closed
 * after it. Does nothing without REDIS_URL. Failures (to connect, of `work`) are the caller's.
 */
export async function withRedis(settings: RedisSettings, use: RedisUse, work: (redis: RedisConnection) => Promise<void>): Promise<void> {
  if (!settings.redisUrl) return
  const redis = openRedis({ ...settings, redisUrl: settings.redisUrl }, use)
  try {
    await redis.connect()
    await work(redis)
  } finally {
    redis.close()
  }
}
