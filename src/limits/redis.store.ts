import type * as IORedis from 'ioredis'
import type { Redis } from 'ioredis'
import { lazy } from '../lazy.js'

const ioredis = lazy<typeof IORedis>('ioredis')
import type { BanPolicy, ConsumeRequest, Decision, LimiterStore, WindowState } from './limiter.js'

/**
 * Check-and-charge of every window in one script, so N instances admit exactly the limit.
 * The time comes from Redis (TIME), never from the instance, so instance clocks may differ.
 * Every key written gets an expiry.
 *
 * KEYS[1] counter prefix (`<prefix>rl:<subject>`), KEYS[2] ban prefix (`<prefix>ban:<key id>`, or '')
 * ARGV: window count, then name/limit/length triples, then afterRejections, baseMs, maxMs, repeatWithinMs
 * Returns: { outcome (0 allowed, 1 limited, 2 banned, 3 banned now), now, until, level, counts..., resets... }
 */
const CONSUME = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n = tonumber(ARGV[1])
local keys, counts, limits, resets, names = {}, {}, {}, {}, {}
local allowed = true
for i = 1, n do
  local base = 1 + (i - 1) * 3
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
  return out
end
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
local p = 2 + n * 3
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
    this.redis.defineCommand('adoptionStoreConsume', { numberOfKeys: 2, lua: CONSUME })
    // Errors surface through failed commands; the client's own event would otherwise be unhandled.
    this.redis.on('error', () => undefined)
  }

  async connect(): Promise<void> {
    await this.redis.connect()
  }

  async ping(): Promise<void> {
    await this.redis.ping()
  }

  async consume({ subject, windows, ban }: ConsumeRequest): Promise<Decision> {
    const policy: BanPolicy | undefined = ban?.policy
    const args = [
      windows.length,
      ...windows.flatMap((w) => [w.name, w.limit, w.lengthMs]),
      ...(policy ? [policy.afterRejections, policy.baseMs, policy.maxMs, policy.repeatWithinMs] : []),
    ]
    const command = (this.redis as unknown as Record<string, (...a: unknown[]) => Promise<ConsumeReply>>).adoptionStoreConsume!
    const reply = await command.call(this.redis, `${this.options.keyPrefix}rl:${subject}`, ban ? this.banKey(ban.keyId) : '', ...args)
    const [outcome, now, until, level] = reply as [number, number, number, number]
    const states: WindowState[] = windows.map((window, i) => ({
      name: window.name,
      limit: window.limit,
      lengthMs: window.lengthMs,
      // After a charge the script answers the new count, which includes this request.
      remaining: Math.max(0, window.limit - (reply[4 + i] ?? 0)),
      resetAt: reply[4 + windows.length + i] ?? 0,
    }))
    if (outcome === 0) return { outcome: 'allowed', now, windows: states }
    if (outcome === 1) return { outcome: 'limited', now, windows: states }
    return { outcome: 'banned', now, windows: states, until, level, started: outcome === 3 }
  }

  async unban(keyId: string): Promise<void> {
    await this.redis.del(this.banKey(keyId), `${this.banKey(keyId)}:level`)
  }

  async close(): Promise<void> {
    this.redis.disconnect()
  }

  private banKey(keyId: string): string {
    return `${this.options.keyPrefix}ban:${keyId}`
  }
}
