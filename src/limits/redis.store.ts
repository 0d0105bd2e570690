import type * as IORedis from 'ioredis'
import type { Redis } from 'ioredis'
import { lazy } from '../lazy.js'

const ioredis = lazy<typeof IORedis>('ioredis')
import type { BanPolicy, ConsumeRequest, Decision, LimiterStore, StaleDecision, WindowState } from './store.js'

/**
 * Check-and-charge of every window in one script, so N instances admit exactly the limit.
 * The time comes from Redis (TIME), never from the instance, so instance clocks may differ.
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
/**
 * Generation keys expire like every key, without a token ever coming back: the epoch lives a
 * day (then every instance reads everything once again), a scope's counter a month after its
 * last bump. A counter that expired reads 0 again, but in a later epoch.
 */
const EPOCH_MS = 86_400_000
const SCOPE_MS = 30 * EPOCH_MS

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

export interface RedisStoreOptions {
  /** Namespace of every key, so deployments (and test runs) can share a server. */
  keyPrefix: string
  /** Longest wait for one command; past it the caller falls back. */
  commandTimeoutMs: number
}

type ConsumeReply = number[]

export class RedisLimiterStore implements LimiterStore {
  readonly redis: Redis

  constructor(
    url: string,
    private readonly options: RedisStoreOptions,
  ) {
    this.redis = new (ioredis().Redis)(url, {
      lazyConnect: true,
      // Bounded: a command fails after the timeout, and nothing queues while disconnected.
      commandTimeout: options.commandTimeoutMs,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 2_000,
      // Keep reconnecting, at most every second, so service returns soon after Redis does.
      retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
    })
    this.redis.defineCommand('adoptionStoreConsume', { numberOfKeys: 3, lua: CONSUME })
    // Errors surface through failed commands; the client's own event would otherwise be unhandled.
    this.redis.on('error', () => undefined)
  }

  async connect(): Promise<void> {
    await this.redis.connect()
  }

  async ping(): Promise<void> {
    await this.redis.ping()
  }

  async consume({ subject, windows, ban, generations }: ConsumeRequest): Promise<Decision | StaleDecision> {
    const policy: BanPolicy | undefined = ban?.policy
    const args = [
      generations?.expectAuth ?? '',
      generations?.projectId ?? 0,
      windows.length,
      ...windows.flatMap((w) => [w.name, w.limit, w.lengthMs]),
      ...(policy ? [policy.afterRejections, policy.baseMs, policy.maxMs, policy.repeatWithinMs] : []),
    ]
    const command = (this.redis as unknown as Record<string, (...a: unknown[]) => Promise<ConsumeReply>>).adoptionStoreConsume!
    const reply = await command.call(
      this.redis,
      `${this.options.keyPrefix}rl:${subject}`,
      ban ? this.banKey(ban.keyId) : '',
      generations ? this.generationKey('') : '',
      ...args,
    )
    const [outcome, now, until, level] = reply as [number, number, number, number]
    const states: WindowState[] = windows.map((window, i) => ({
      name: window.name,
      limit: window.limit,
      lengthMs: window.lengthMs,
      // After a charge the script answers the new count, which includes this request.
      remaining: Math.max(0, window.limit - (reply[4 + i] ?? 0)),
      resetAt: reply[4 + windows.length + i] ?? 0,
    }))
    const tokens = generations ? { auth: String(reply[4 + 2 * windows.length]), data: String(reply[5 + 2 * windows.length]) } : undefined
    if (outcome === 0) return { outcome: 'allowed', now, windows: states, tokens }
    if (outcome === 1) return { outcome: 'limited', now, windows: states, tokens }
    if (outcome === 4) return { outcome: 'stale', now, windows: states, tokens: tokens! }
    return { outcome: 'banned', now, windows: states, until, level, started: outcome === 3, tokens }
  }

  /** Moves cache generation scopes (`auth`, `data:<project id>`) to new tokens. */
  async bump(scopes: readonly string[]): Promise<void> {
    if (scopes.length === 0) return
    const pipeline = this.redis.multi()
    for (const scope of new Set(scopes)) pipeline.incr(this.generationKey(scope)).pexpire(this.generationKey(scope), SCOPE_MS)
    const results = await pipeline.exec()
    const failed = results?.find(([err]) => err)
    if (!results || failed) throw failed?.[0] ?? new Error('Redis transaction aborted')
  }

  /** A new epoch: every token any instance holds becomes stale. */
  async newEpoch(): Promise<void> {
    const [seconds, micros] = await this.redis.time()
    await this.redis.set(this.generationKey('epoch'), `${seconds}.${micros}`, 'PX', EPOCH_MS)
  }

  async unban(keyId: string): Promise<void> {
    await this.redis.del(this.banKey(keyId), `${this.banKey(keyId)}:level`)
  }

  async close(): Promise<void> {
    this.redis.disconnect()
  }

  private generationKey(scope: string): string {
    return `${this.options.keyPrefix}gen:${scope}`
  }

  private banKey(keyId: string): string {
    return `${this.options.keyPrefix}ban:${keyId}`
  }
}
