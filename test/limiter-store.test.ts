import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, describe, test } from 'node:test'
import { Redis } from 'ioredis'
import type { BanPolicy, ConsumeRequest, LimiterStore, Window } from '../src/limits/store.js'
import { MemoryLimiterStore } from '../src/limits/memory.store.js'
import { RedisLimiterStore } from '../src/limits/redis.store.js'
import { openRedis } from '../src/redis/redis.js'
import { ManualClock } from './helpers/app.js'
import { redisUrl } from './helpers/redis.js'
import type { TestPlan } from '../scripts/test-plan.js'

// Opens no database (the limiter store contract, in process and on Redis): once. Mostly waits
// on real time: the boundaries of Redis's windows and the ends of its bans.
export const testPlan: TestPlan = { legs: 'sqlite', lane: 'waiting' }

/**
 * The limiter contract, run on both stores. Windows and bans are short here so Redis, whose
 * time cannot be moved, runs in real time; the in-process store runs on a manual clock. Each
 * test has subjects and keys of its own, so the tests of a store run at the same time: on Redis
 * they spend their time waiting for window boundaries, and wait for them together.
 */
interface Harness {
  store: LimiterStore
  /** Lets time pass: the manual clock moves, Redis waits. */
  pass(ms: number): Promise<void>
  /** Moves to just after the start of a window of this length. */
  startOfWindow(lengthMs: number): Promise<void>
  /**
   * Makes sure the current window of this length has at least `needMs` left, moving to the start
   * of the next one only when it has not: for a test that must stay within one long window
   * without needing it fresh.
   */
  roomInWindow(lengthMs: number, needMs: number): Promise<void>
}

const SECOND = 1_000
const policy: BanPolicy = { afterRejections: 30, baseMs: 400, maxMs: 1_600, repeatWithinMs: 3_000 }

const stores: { name: string; make(): Promise<Harness> }[] = [
  {
    name: 'memory',
    async make() {
      const clock = new ManualClock(Date.UTC(2026, 10, 22, 12, 0, 0, 500))
      return {
        store: new MemoryLimiterStore(clock),
        pass: async (ms) => clock.advance(ms),
        startOfWindow: async (length) => clock.set((Math.floor(clock.now() / length) + 1) * length + 1),
        roomInWindow: async (length, need) => {
          if (length - (clock.now() % length) < need) clock.set((Math.floor(clock.now() / length) + 1) * length + 1)
        },
      }
    },
  },
]

const prefix = `adoption-store-test:${randomUUID()}:`
const redisStores: RedisLimiterStore[] = []
if (redisUrl) {
  stores.push({
    name: 'redis',
    async make() {
      const store = new RedisLimiterStore(openRedis({ redisUrl: redisUrl!, redisKeyPrefix: prefix, redisTimeoutMs: 1_000 }, 'requests'))
      await store.connect()
      redisStores.push(store)
      // Real time: Redis's own clock, whose window boundaries are waited for.
      const left = async (length: number) => {
        const [s, us] = (await store.redis.client.time()) as unknown as [string, string]
        return length - ((Number(s) * 1000 + Math.floor(Number(us) / 1000)) % length)
      }
      return {
        store,
        pass: (ms) => sleep(ms),
        startOfWindow: async (length) => sleep((await left(length)) + 5),
        roomInWindow: async (length, need) => {
          const ms = await left(length)
          if (ms < need) await sleep(ms + 5)
        },
      }
    },
  })
}

after(async () => {
  if (!redisUrl) return
  // No key may live forever: every key the suites wrote still has an expiry.
  const redis = new Redis(redisUrl)
  const keys = await redis.keys(`${prefix}*`)
  for (const key of keys) assert.ok((await redis.pttl(key)) > 0, `${key} has no expiry`)
  if (keys.length) await redis.del(...keys)
  redis.disconnect()
  for (const store of redisStores) await store.close()
})

let subjects = 0
/** A subject of the test's own, and names derived from it: tests run concurrently. */
function subject(): string {
  return `p:${process.pid}-${++subjects}`
}

/**
 * How much of a 20 s window a test needing one must have left: each such test takes at most
 * about 4 s (the longest waits for two 2 s boundaries), ten leave room for a loaded machine.
 */
const DAY_ROOM = 10 * SECOND

const minute = (limit: number, lengthMs = 2 * SECOND): Window => ({ name: 'minute', limit, lengthMs })
const day = (limit: number, lengthMs = 20 * SECOND): Window => ({ name: 'day', limit, lengthMs })

for (const { name, make } of stores) {
  describe(`limiter store: ${name}`, { concurrency: true }, () => {
    test('admits exactly the limit, counting Remaining down, then limits without charging', async () => {
      const h = await make()
      await h.startOfWindow(2 * SECOND)
      const request: ConsumeRequest = { subject: subject(), windows: [minute(5)] }
      const remaining: number[] = []
      for (let i = 0; i < 5; i++) {
        const decision = await h.store.consume(request)
        assert.equal(decision.outcome, 'allowed')
        remaining.push(decision.windows[0]!.remaining)
      }
      assert.deepEqual(remaining, [4, 3, 2, 1, 0])
      const refused = await h.store.consume(request)
      assert.equal(refused.outcome, 'limited')
      assert.equal(refused.windows[0]!.remaining, 0)
      assert.ok(refused.windows[0]!.resetAt > refused.now && refused.windows[0]!.resetAt - refused.now <= 2 * SECOND)
      assert.equal(refused.windows[0]!.resetAt % (2 * SECOND), 0, 'windows are aligned to their length')
    })

    test('the window rolls over: a new window has the whole limit again', async () => {
      const h = await make()
      await h.startOfWindow(2 * SECOND)
      const request: ConsumeRequest = { subject: subject(), windows: [minute(2)] }
      await h.store.consume(request)
      await h.store.consume(request)
      assert.equal((await h.store.consume(request)).outcome, 'limited')
      await h.startOfWindow(2 * SECOND)
      const fresh = await h.store.consume(request)
      assert.equal(fresh.outcome, 'allowed')
      assert.equal(fresh.windows[0]!.remaining, 1)
    })

    test('120 concurrent requests on a limit of 60 admit exactly 60, each with a distinct Remaining', async () => {
      const h = await make()
      await h.startOfWindow(4 * SECOND)
      const request: ConsumeRequest = { subject: subject(), windows: [minute(60, 4 * SECOND), day(1_000)] }
      const decisions = await Promise.all(Array.from({ length: 120 }, () => h.store.consume(request)))
      const admitted = decisions.filter((d) => d.outcome === 'allowed')
      assert.equal(admitted.length, 60)
      assert.equal(new Set(admitted.map((d) => d.windows[0]!.remaining)).size, 60)
      assert.equal(decisions.filter((d) => d.outcome === 'limited').length, 60)
    })

    test('both windows are charged together; a rejection charges neither', async () => {
      const h = await make()
      // The day window must outlast a minute boundary (at most 2 s away): 10 s is plenty. The 8
      // requests before it must fall in one minute window: a fresh one.
      await h.roomInWindow(20 * SECOND, DAY_ROOM)
      await h.startOfWindow(2 * SECOND)
      const request: ConsumeRequest = { subject: subject(), windows: [minute(3), day(10)] }
      for (let i = 0; i < 3; i++) assert.equal((await h.store.consume(request)).outcome, 'allowed')
      for (let i = 0; i < 5; i++) assert.equal((await h.store.consume(request)).outcome, 'limited')
      await h.startOfWindow(2 * SECOND)
      const next = await h.store.consume(request)
      assert.equal(next.outcome, 'allowed')
      assert.deepEqual(
        next.windows.map((w) => [w.name, w.remaining]),
        [
          ['minute', 2],
          ['day', 6],
        ],
        'the 5 rejected requests were not counted in the day window',
      )
    })

    test('the day window binds when it runs out first', async () => {
      const h = await make()
      await h.roomInWindow(20 * SECOND, DAY_ROOM)
      // The minute window's count (995 left) needs the 6 requests in one of them: a fresh one.
      await h.startOfWindow(2 * SECOND)
      const request: ConsumeRequest = { subject: subject(), windows: [minute(1_000), day(5)] }
      for (let i = 0; i < 5; i++) assert.equal((await h.store.consume(request)).outcome, 'allowed')
      const refused = await h.store.consume(request)
      assert.equal(refused.outcome, 'limited')
      const dayWindow = refused.windows.find((w) => w.name === 'day')!
      assert.equal(dayWindow.remaining, 0)
      assert.equal(refused.windows.find((w) => w.name === 'minute')!.remaining, 995)
      await h.startOfWindow(2 * SECOND)
      assert.equal((await h.store.consume(request)).outcome, 'limited', 'a new minute does not help while the day is used up')
    })

    test('a key sending more than 30 requests while rejected is banned, escalating on repeats', async () => {
      const h = await make()
      await h.roomInWindow(20 * SECOND, DAY_ROOM)
      const own = subject()
      const keyId = `key_${own}`
      const request: ConsumeRequest = { subject: own, windows: [minute(1_000), day(1)], ban: { keyId, policy } }
      assert.equal((await h.store.consume(request)).outcome, 'allowed')
      for (let i = 0; i < 30; i++) assert.equal((await h.store.consume(request)).outcome, 'limited', `rejection ${i + 1}`)
      const banned = await h.store.consume(request)
      assert.equal(banned.outcome, 'banned')
      assert.ok(banned.outcome === 'banned' && banned.started && banned.level === 0)
      assert.equal(banned.outcome === 'banned' && banned.until - banned.now, policy.baseMs)
      const still = await h.store.consume(request)
      assert.ok(still.outcome === 'banned' && !still.started && still.level === 0)

      // The ban ends on its own; the day is still used up, so the key is limited again, and a
      // second ban within repeatWithinMs lasts twice as long.
      await h.pass(policy.baseMs + 50)
      for (let i = 0; i < 30; i++) assert.equal((await h.store.consume(request)).outcome, 'limited')
      const again = await h.store.consume(request)
      assert.ok(again.outcome === 'banned' && again.started)
      assert.equal(again.outcome === 'banned' && again.level, 1)
      assert.equal(again.outcome === 'banned' && again.until - again.now, 2 * policy.baseMs)
    })

    test('ban length is capped', async () => {
      const h = await make()
      await h.roomInWindow(20 * SECOND, DAY_ROOM)
      const own = subject()
      const keyId = `key_cap_${own}`
      const capped: BanPolicy = { ...policy, afterRejections: 1, baseMs: 300, maxMs: 500 }
      const request: ConsumeRequest = { subject: own, windows: [day(0)], ban: { keyId, policy: capped } }
      const lengths: number[] = []
      for (let round = 0; round < 3; round++) {
        await h.store.consume(request)
        const ban = await h.store.consume(request)
        assert.equal(ban.outcome, 'banned')
        if (ban.outcome === 'banned') lengths.push(ban.until - ban.now)
        await h.pass(ban.outcome === 'banned' ? ban.until - ban.now + 30 : 0)
      }
      assert.deepEqual(lengths, [300, 500, 500])
    })

    test('unban lifts a ban and its escalation', async () => {
      const h = await make()
      // Only the 2 s window is used: all of it happens in a fresh one.
      await h.startOfWindow(2 * SECOND)
      const own = subject()
      const keyId = `key_unban_${own}`
      const request: ConsumeRequest = { subject: own, windows: [minute(1)], ban: { keyId, policy: { ...policy, afterRejections: 1 } } }
      await h.store.consume(request)
      await h.store.consume(request)
      assert.equal((await h.store.consume(request)).outcome, 'banned')
      await h.store.unban(keyId)
      assert.equal((await h.store.consume(request)).outcome, 'limited', 'unbanned, and the window is still used up')
      await h.store.consume(request)
      const next = await h.store.consume(request)
      assert.ok(next.outcome === 'banned' && next.level === 0, 'escalation starts over')
    })

    test('unauthenticated subjects are limited but never banned', async () => {
      const h = await make()
      await h.startOfWindow(2 * SECOND)
      const request: ConsumeRequest = { subject: `ip:127.0.0.${++subjects}`, windows: [minute(1)] }
      await h.store.consume(request)
      for (let i = 0; i < 40; i++) assert.equal((await h.store.consume(request)).outcome, 'limited')
    })
  })
}

test('the in-process store forgets expired windows', async () => {
  const clock = new ManualClock()
  const store = new MemoryLimiterStore(clock)
  for (let i = 0; i < 50; i++) await store.consume({ subject: `p:${i}`, windows: [minute(10, 60_000)] })
  assert.equal(store.size, 50)
  clock.advance(61_000)
  store.sweep()
  assert.equal(store.size, 0)
  await store.close()
})
