import assert from 'node:assert/strict'
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import net from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, describe, test } from 'node:test'
import { Redis } from 'ioredis'
import { generateApiKey } from '../src/auth/api-key.js'
import { bearer, createTestApp, type TestApp } from './helpers/app.js'
import type { TestPlan } from '../scripts/test-plan.js'

// Mostly waits on real time: Redis outages, the commands' timeouts and the recoveries.
export const testPlan: TestPlan = { lane: 'waiting' }

/**
 * The Redis outage policy, against a Redis server of the test's own (so the shared one is never
 * paused): requests keep being answered through the in-process fallback, /readyz says degraded,
 * authentication never fails open, and service returns to Redis on its own.
 */

const redisServer = (() => {
  try {
    return execFileSync('which', ['redis-server'], { encoding: 'utf8' }).trim() || undefined
  } catch {
    return undefined
  }
})()

/** A request that does not answer within this is a hang, whatever the machine's load. */
const HANG_MS = 3_000
/**
 * REDIS_TIMEOUT_MS of the tests' apps: well above a command's round trip on a loaded machine. At
 * 100 ms, a command to a Redis that is up but busy (catching up after the pause, on a machine
 * running the suite) could time out: that request was then counted by this instance's fallback,
 * not by Redis (`remaining 54`, the fallback's six, where Redis had counted two or three).
 */
const REDIS_TIMEOUT_MS = 1_000

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
    server.on('error', reject)
  })
}

async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(redisServer!, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
  const client = new Redis({ port, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 })
  client.on('error', () => undefined)
  for (let i = 0; i < 100; i++) {
    try {
      await client.connect()
      await client.ping()
      client.disconnect()
      return child
    } catch {
      client.disconnect()
      await sleep(50)
    }
  }
  child.kill('SIGKILL')
  throw new Error('redis-server did not start')
}

async function readiness(t: TestApp): Promise<{ status: string; checks: { limiter: string } }> {
  return (await t.request({ method: 'GET', url: '/readyz' })).json()
}

async function timed(t: TestApp, key: string): Promise<{ status: number; ms: number; remaining: string | undefined }> {
  const started = performance.now()
  const response = await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(key) })
  return { status: response.statusCode, ms: performance.now() - started, remaining: response.headers['x-ratelimit-remaining'] as string | undefined }
}

async function until(condition: () => Promise<boolean>, withinMs: number): Promise<number> {
  const started = Date.now()
  while (Date.now() - started < withinMs) {
    if (await condition()) return Date.now() - started
    await sleep(100)
  }
  throw new Error(`condition not met within ${withinMs} ms`)
}

describe('Redis outage', { skip: redisServer ? false : 'redis-server is not installed' }, () => {
  const children: ChildProcess[] = []
  after(() => {
    for (const child of children) child.kill('SIGKILL')
  })

  test('paused Redis: answers continue through the fallback, readiness says degraded, recovery on its own', async () => {
    const port = await freePort()
    const redis = await startRedis(port)
    children.push(redis)
    const t = await createTestApp({ config: { redisUrl: `redis://127.0.0.1:${port}`, redisTimeoutMs: REDIS_TIMEOUT_MS } })
    try {
      const { key } = await t.project()
      // Redis counts in its own clock's minutes: the test starts early in one, so that the
      // first request and the last are counted in the same window.
      const first = await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(key) })
      assert.equal(first.statusCode, 200)
      const secondsLeft = Number(/"minute";r=\d+;t=(\d+)/.exec(String(first.headers.ratelimit))?.[1])
      assert.ok(secondsLeft > 0 && secondsLeft <= 60, `RateLimit: ${String(first.headers.ratelimit)}`)
      if (secondsLeft < 20) {
        await sleep(secondsLeft * 1000 + 200)
        assert.equal((await timed(t, key)).remaining, '59', 'a new minute')
      }
      assert.deepEqual(await readiness(t), { status: 'ready', checks: { database: 'ok', limiter: 'redis' } })

      redis.kill('SIGSTOP')
      for (let i = 0; i < 5; i++) {
        const answer = await timed(t, key)
        assert.equal(answer.status, 200)
        assert.ok(answer.ms < HANG_MS, `request ${i} took ${answer.ms} ms`)
      }
      const degraded = await readiness(t)
      assert.equal(degraded.status, 'degraded')
      assert.match(degraded.checks.limiter, /^degraded/)
      // Authentication never fails open.
      const unknown = await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(generateApiKey('production').secret) })
      assert.equal(unknown.statusCode, 401)
      const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body
      assert.match(metrics, /adoption_store_limiter_fallbacks_total 1/)
      assert.match(metrics, /adoption_store_limiter_degraded 1/)
      assert.match(metrics, /adoption_store_limiter_store_errors_total [1-9]/)

      redis.kill('SIGCONT')
      const took = await until(async () => (await readiness(t)).status === 'ready', 5_000)
      assert.ok(took < 5_000)
      // Counting is back in Redis, where the first request was charged. The command that timed
      // out when Redis froze may have been applied once it resumed: at most one more.
      const back = await timed(t, key)
      assert.equal(back.status, 200)
      assert.ok(back.remaining === '58' || back.remaining === '57', `remaining ${back.remaining}`)
    } finally {
      await t.close()
    }
  })

  test('stopped Redis: the fallback holds the plan limit per instance; a restarted Redis is used again', async () => {
    const port = await freePort()
    let redis = await startRedis(port)
    children.push(redis)
    const t = await createTestApp({ config: { redisUrl: `redis://127.0.0.1:${port}`, redisTimeoutMs: REDIS_TIMEOUT_MS } })
    try {
      const { key } = await t.project({ plan: 'enterprise', perMinute: 3, perDay: 1000 })
      assert.equal((await timed(t, key)).status, 200)
      redis.kill('SIGKILL')
      await sleep(100)
      const answers = []
      for (let i = 0; i < 5; i++) answers.push(await timed(t, key))
      assert.ok(answers.every((a) => a.ms < HANG_MS))
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 200, 429, 429],
        'the in-process store applies the plan limit',
      )
      assert.equal((await readiness(t)).status, 'degraded')

      redis = await startRedis(port)
      children.push(redis)
      await until(async () => (await readiness(t)).status === 'ready', 5_000)
      // The restarted Redis is empty: this instance's requests count there from zero again.
      const back = await timed(t, key)
      assert.equal(back.status, 200)
      assert.equal(back.remaining, '2')
    } finally {
      await t.close()
    }
  })

  test('Redis down at start-up: the service starts, limited per instance, and joins Redis when it appears', async () => {
    const port = await freePort()
    const t = await createTestApp({ config: { redisUrl: `redis://127.0.0.1:${port}`, redisTimeoutMs: REDIS_TIMEOUT_MS } })
    try {
      const { key } = await t.project()
      assert.equal((await timed(t, key)).status, 200)
      assert.equal((await readiness(t)).status, 'degraded')
      const redis = await startRedis(port)
      children.push(redis)
      await until(async () => (await readiness(t)).status === 'ready', 5_000)
      assert.equal((await timed(t, key)).status, 200)
    } finally {
      await t.close()
    }
  })
})
