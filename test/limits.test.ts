import { commandLineChange } from '../src/audit/audit.js'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { afterEach, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { Redis } from 'ioredis'
import { sql } from 'kysely'
import { generateApiKey } from '../src/auth/api-key.js'
import { cliContext, withFeatures } from '../src/cli/common.js'
import { deleteBan } from '../src/keys/bans.repository.js'
import { createKeys } from '../src/keys/keys.module.js'
import { commandStore } from '../src/limits/backend.js'
import { bearer, createTestApp, ManualClock, type TestApp } from './helpers/app.js'
import { waitForWindowRoom } from './helpers/process.js'
import { redisUrl } from './helpers/redis.js'

const RATE_LIMIT_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit-policy', 'ratelimit']

/**
 * Plan limits through the HTTP boundary, on both stores. Tests that move time run on the
 * in-process store with a manual clock; Redis takes its time from itself, so its tests use
 * what a real clock allows: each waits, when it must, for room in the current minute window.
 */

const prefix = `adoption-store-test:${randomUUID()}:`
// Each app gets its own namespace: every test database numbers its projects from 1.
const stores = [
  { name: 'memory', get config() { return {} } },
  // Counts on Redis are what these tests check: on a machine so busy that a Redis answer takes
  // longer than the 250 ms default, the app would fall back to limits of its own (the outage
  // policy, redis-outage.test.ts's subject), so here it waits for Redis up to 2 s.
  ...(redisUrl ? [{ name: 'redis', get config() { return { redisUrl, redisKeyPrefix: `${prefix}${randomUUID()}:`, redisTimeoutMs: 2_000 } } }] : []),
]

let apps: TestApp[] = []
afterEach(async () => {
  for (const app of apps) await app.close()
  apps = []
})

async function start(config: object = {}, clock = new ManualClock()): Promise<TestApp & { clock: ManualClock }> {
  const t = await createTestApp({ clock, config })
  apps.push(t)
  return Object.assign(t, { clock })
}

const list = (t: TestApp, key: string) => t.request({ method: 'GET', url: '/v1/pets', headers: bearer(key) })

/**
 * How much of the minute window a test's requests may take: under a second on an idle machine,
 * ten leave room for a loaded one.
 */
const WINDOW_ROOM_MS = 10_000

/**
 * Makes sure the requests that follow count in one minute window (and one day window: a day ends
 * as a minute does). The in-process store's manual clock stands still; Redis counts by its own
 * clock, so on Redis this waits for the next window when the current one has too little left.
 */
async function roomInMinute(store: (typeof stores)[number]): Promise<void> {
  if (store.name === 'redis') await waitForWindowRoom(redisUrl, 60_000, WINDOW_ROOM_MS)
}

function secondsToNextUtcMidnight(now: number): number {
  const day = 86_400_000
  return Math.ceil(((Math.floor(now / day) + 1) * day - now) / 1000)
}

for (const store of stores) {
  describe(`plan limits over HTTP (${store.name} store)`, () => {
    test('a free project gets exactly 60 requests a minute, Remaining counting down, then 429', async () => {
      const t = await start(store.config)
      const { key } = await t.project()
      await roomInMinute(store)
      for (let i = 0; i < 60; i++) {
        const response = await list(t, key)
        assert.equal(response.statusCode, 200)
        assert.equal(response.headers['x-ratelimit-limit'], '60')
        assert.equal(response.headers['x-ratelimit-remaining'], String(59 - i))
      }
      const refused = await list(t, key)
      assert.equal(refused.statusCode, 429)
      assert.deepEqual(Object.keys(refused.json()).sort(), ['code', 'message', 'status'])
      assert.equal(refused.json().code, 'rate_limited')
      assert.match(refused.json().message, /the free plan allows 60 requests per minute for this project\. Retry after \d+ s/)
      assert.equal(refused.headers['x-ratelimit-remaining'], '0')
      const retryAfter = Number(refused.headers['retry-after'])
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`)
      const reset = Number(refused.headers['x-ratelimit-reset'])
      assert.equal(reset % 60, 0, 'the minute window is aligned to the UTC minute')
      assert.match(String(refused.headers['ratelimit-policy']), /^"minute";q=60;w=60, "day";q=1000;w=86400$/)
      assert.match(String(refused.headers.ratelimit), /^"minute";r=0;t=\d+, "day";r=940;t=\d+$/)
    })

    test('120 concurrent requests on a free project admit exactly 60, with distinct Remaining values', async () => {
      const t = await start(store.config)
      const { key } = await t.project()
      await roomInMinute(store)
      const responses = await Promise.all(Array.from({ length: 120 }, () => t.app.inject({ method: 'GET', url: '/v1/pets', headers: bearer(key) })))
      const admitted = responses.filter((r) => r.statusCode === 200)
      assert.equal(admitted.length, 60)
      assert.equal(responses.filter((r) => r.statusCode === 429).length, 60)
      assert.equal(new Set(admitted.map((r) => r.headers['x-ratelimit-remaining'])).size, 60)
    })

    test('the day window binds: enterprise 1,000 a minute and 5 a day; Retry-After runs to UTC midnight', async () => {
      const t = await start(store.config)
      const { key } = await t.project({ plan: 'enterprise', perMinute: 1000, perDay: 5 })
      await roomInMinute(store)
      for (let i = 0; i < 5; i++) {
        const response = await list(t, key)
        assert.equal(response.statusCode, 200)
        assert.equal(response.headers['x-ratelimit-limit'], '5', 'the day window has the fewest remaining')
        assert.equal(response.headers['x-ratelimit-remaining'], String(4 - i))
      }
      const refused = await list(t, key)
      assert.equal(refused.statusCode, 429)
      assert.match(refused.json().message, /5 requests per day for this project \(the day resets at 00:00 UTC\)/)
      const now = store.name === 'memory' ? t.clock.now() : Date.now()
      const expected = secondsToNextUtcMidnight(now)
      assert.ok(Math.abs(Number(refused.headers['retry-after']) - expected) <= 2, `Retry-After ${refused.headers['retry-after']}, expected ${expected}`)
      assert.equal(Number(refused.headers['x-ratelimit-reset']) % 86_400, 0, 'the day window is aligned to UTC midnight')
    })

    test('a plan change applies to the very next request', async () => {
      const t = await start(store.config)
      const { key, slug } = await t.project({ plan: 'enterprise', perMinute: 2, perDay: 100 })
      await roomInMinute(store)
      await list(t, key)
      await list(t, key)
      assert.equal((await list(t, key)).statusCode, 429)
      const changed = await t.app.services.projects.setPlan(slug, { plan: 'pro' }, commandLineChange())
      assert.ok(changed.ok)
      const next = await list(t, key)
      assert.equal(next.statusCode, 200)
      assert.equal(next.headers['x-ratelimit-limit'], '300')
      assert.equal(next.headers['x-ratelimit-remaining'], '297', 'the two earlier admitted requests still count')
    })

    test('all keys of a project share its quota; other projects are not affected', async () => {
      const t = await start(store.config)
      const first = await t.project({ plan: 'enterprise', perMinute: 3, perDay: 100 })
      const second = await t.key(first.slug)
      const other = await t.project({ plan: 'enterprise', perMinute: 3, perDay: 100 })
      await roomInMinute(store)
      await list(t, first.key)
      await list(t, second.secret)
      await list(t, first.key)
      assert.equal((await list(t, second.secret)).statusCode, 429)
      assert.equal((await list(t, other.key)).statusCode, 200)
    })

    test('a key that keeps calling while limited is banned: 429 api_key_banned with Retry-After to the end of the ban', async () => {
      const t = await start(store.config)
      const { key, slug } = await t.project({ plan: 'enterprise', perMinute: 1, perDay: 1000 })
      const spare = await t.key(slug)
      await roomInMinute(store)
      assert.equal((await list(t, key)).statusCode, 200)
      for (let i = 0; i < 30; i++) assert.equal((await list(t, key)).json().code, 'rate_limited', `rejection ${i + 1}`)
      const banned = await list(t, key)
      assert.equal(banned.statusCode, 429)
      assert.equal(banned.json().code, 'api_key_banned')
      assert.match(banned.json().message, /banned until \d{4}-\d\d-\d\dT[\d:.]+Z for sending too many requests while rate limited/)
      assert.equal(banned.headers['retry-after'], '600')
      assert.equal(banned.headers['x-ratelimit-remaining'], '0')
      // Every header points at the end of the ban, not at the end of the minute: a client that
      // waits for the reset the headers announce never retries into the ban.
      const now = store.name === 'memory' ? t.clock.now() : Date.now()
      const reset = Number(banned.headers['x-ratelimit-reset'])
      assert.ok(Math.abs(reset - 600 - now / 1000) <= 2, `X-RateLimit-Reset ${reset} is the end of the ban, 600 s after ${now / 1000}`)
      assert.equal(banned.headers.ratelimit, '"minute";r=0;t=600, "day";r=0;t=600')
      assert.equal(banned.headers['ratelimit-policy'], '"minute";q=1;w=60, "day";q=1000;w=86400')
      assert.equal((await list(t, key)).json().code, 'api_key_banned')
      // The ban is the key's: another key of the project is only rate limited.
      assert.equal((await list(t, spare.secret)).json().code, 'rate_limited')
      const keys = await t.database.db.selectFrom('api_key_bans').selectAll().execute()
      assert.equal(keys.length, 1, 'the ban is recorded for operators')
      assert.equal(keys[0]?.level, 0)
    })

    test('an operator lifts a ban (the CLI path): the next request is limited, not banned', async () => {
      const t = await start(store.config)
      const { key, slug } = await t.project({ plan: 'enterprise', perMinute: 1, perDay: 1000 })
      await roomInMinute(store)
      await list(t, key)
      for (let i = 0; i < 31; i++) await list(t, key)
      assert.equal((await list(t, key)).json().code, 'api_key_banned')
      const [row] = await t.database.db.selectFrom('api_keys').select('id').where('prefix', '=', key.slice(0, 12)).execute()
      // As `adoption-store keys unban` builds it: on a database handle of its own.
      let lifted: unknown
      await withFeatures(
        cliContext(process, () => t.config),
        (deps) => createKeys({ ...deps, store: commandStore(deps.config) }),
        async ({ bans }) => {
          lifted = await bans.liftById(row!.id, commandLineChange())
        },
      )
      assert.deepEqual(lifted, { ok: true, wasBanned: true })
      if (store.name === 'memory') {
        // The in-process store learns of it from the record, within a second.
        t.clock.advance(1_000)
      }
      const next = await list(t, key)
      assert.notEqual(next.json().code, 'api_key_banned', next.body)
      void slug
    })

    test('a ban survives a restart of the instance', async () => {
      const t = await start(store.config)
      const { key } = await t.project({ plan: 'enterprise', perMinute: 1, perDay: 1000 })
      await roomInMinute(store)
      for (let i = 0; i < 32; i++) await list(t, key)
      assert.equal((await list(t, key)).json().code, 'api_key_banned')
      apps = apps.filter((a) => a !== t)
      const restarted = await t.restart()
      apps.push(restarted)
      const after = await list(restarted, key)
      assert.equal(after.json().code, 'api_key_banned')
      assert.ok(Math.abs(Number(after.headers['retry-after']) - 600) <= 2)
    })

    test('every /v1 response carries the headers: 2xx, 400, 401, 404, 405, 413, 429 and 5xx', async () => {
      const t = await start({ ...store.config, bodyLimit: 2048 })
      const { key } = await t.project({ plan: 'enterprise', perMinute: 12, perDay: 1000 })
      await roomInMinute(store)
      const responses: [number, LightMyRequestResponse][] = []
      const send = async (expected: number, options: Parameters<TestApp['request']>[0]) => {
        const response = await t.request(options)
        assert.equal(response.statusCode, expected, `${options.method} ${options.url}: ${response.body}`)
        responses.push([expected, response])
      }
      await send(200, { method: 'GET', url: '/v1/pets', headers: bearer(key) })
      await send(201, { method: 'POST', url: '/v1/pets', headers: bearer(key), payload: { name: 'Rex', categoryId: 1 } })
      await send(400, { method: 'GET', url: '/v1/pets?limit=0', headers: bearer(key) })
      await send(401, { method: 'GET', url: '/v1/pets' })
      await send(404, { method: 'GET', url: '/v1/pets/999999', headers: bearer(key) })
      await send(404, { method: 'GET', url: '/v1/nowhere', headers: bearer(key) })
      await send(405, { method: 'DELETE', url: '/v1/pets', headers: bearer(key) })
      await send(413, { method: 'POST', url: '/v1/pets', headers: bearer(key), payload: { name: 'x'.repeat(3000), categoryId: 1 } })
      await send(200, { method: 'GET', url: '/v1/openapi.json' })
      for (let i = 0; i < 5; i++) await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(key) })
      await send(429, { method: 'GET', url: '/v1/pets', headers: bearer(key) })
      // A failure after the key was checked and charged: the animals' table is gone.
      await sql`drop table pets${sql.raw(t.database.dialect === 'postgres' ? ' cascade' : '')}`.execute(t.database.db)
      const { key: fresh } = await t.project({ plan: 'enterprise', perMinute: 12, perDay: 1000 }) // the first is out of requests
      const { key: unused } = await t.project({ plan: 'enterprise', perMinute: 12, perDay: 1000 })
      await send(500, { method: 'GET', url: '/v1/pets', headers: bearer(fresh) })
      for (const [status, response] of responses) {
        for (const header of RATE_LIMIT_HEADERS) assert.ok(response.headers[header] !== undefined, `${status} lacks ${header}`)
      }
      // A key that could not be checked at all is no decision: nothing charged, no window's headers.
      // (A key used before may be answered from the principal cache: this one never was.)
      await t.database.close()
      const unchecked = await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(unused) })
      assert.equal(unchecked.statusCode, 500, unchecked.body)
      for (const header of RATE_LIMIT_HEADERS) assert.equal(unchecked.headers[header], undefined, `${header} on an unchecked key`)
    })
  })
}

if (redisUrl) {
  describe('two instances sharing Redis', () => {
    test('admit exactly the plan limit together, and share bans', async () => {
      const a = await start(stores[1]!.config)
      const b = await a.sibling()
      apps.push(b)
      const { key } = await a.project()
      await roomInMinute(stores[1]!)
      const responses = await Promise.all(
        Array.from({ length: 120 }, (_, i) => (i % 2 ? a : b).app.inject({ method: 'GET', url: '/v1/pets', headers: bearer(key) })),
      )
      assert.equal(responses.filter((r) => r.statusCode === 200).length, 60)
      // 60 refused so far; one more than 30 refusals in the window started the ban on whichever
      // instance saw it, and both answer it.
      const codes = responses.filter((r) => r.statusCode === 429).map((r) => r.json().code)
      assert.ok(codes.includes('api_key_banned'))
      assert.equal((await list(a, key)).json().code, 'api_key_banned')
      assert.equal((await list(b, key)).json().code, 'api_key_banned')
    })
  })
}

describe('plan limits over time (in-process store, manual clock)', () => {
  test('the minute window rolls over at the UTC minute; the day window keeps counting', async () => {
    const t = await start()
    const { key } = await t.project()
    for (let i = 0; i < 60; i++) await list(t, key)
    const refused = await list(t, key)
    assert.equal(refused.headers['retry-after'], '60', 'the clock stands at hh:mm:00.000')
    t.clock.advance(59_999)
    assert.equal((await list(t, key)).statusCode, 429)
    t.clock.advance(1)
    const next = await list(t, key)
    assert.equal(next.statusCode, 200)
    assert.equal(next.headers['x-ratelimit-remaining'], '59')
    assert.match(String(next.headers.ratelimit), /"day";r=939;/)
  })

  test('rejected requests charge neither window', async () => {
    const t = await start()
    const { key } = await t.project({ plan: 'enterprise', perMinute: 3, perDay: 10 })
    for (let i = 0; i < 3; i++) await list(t, key)
    for (let i = 0; i < 5; i++) assert.equal((await list(t, key)).statusCode, 429)
    t.clock.advance(60_000)
    const next = await list(t, key)
    assert.match(String(next.headers.ratelimit), /^"minute";r=2;t=60, "day";r=6;t=\d+$/)
  })

  test('bans last 10 minutes, double on a repeat within 24 hours, and cap at 24 hours', async () => {
    const t = await start()
    const { key } = await t.project({ plan: 'enterprise', perMinute: 1, perDay: 100_000 })
    const lengths: number[] = []
    for (let round = 0; round < 9; round++) {
      // A fresh minute: one admitted request, then 30 rejected, then the ban.
      t.clock.set((Math.floor(t.clock.now() / 60_000) + 1) * 60_000)
      assert.equal((await list(t, key)).statusCode, 200, `round ${round}`)
      for (let i = 0; i < 30; i++) assert.equal((await list(t, key)).json().code, 'rate_limited')
      const banned = await list(t, key)
      assert.equal(banned.json().code, 'api_key_banned')
      const seconds = Number(banned.headers['retry-after'])
      lengths.push(seconds)
      // Still banned one second before the end; free right after it.
      t.clock.advance((seconds - 1) * 1000)
      assert.equal((await list(t, key)).json().code, 'api_key_banned')
      t.clock.advance(1000)
    }
    assert.deepEqual(lengths, [600, 1200, 2400, 4800, 9600, 19200, 38400, 76800, 86400])
  })

  test('a ban more than 24 hours after the last one ends starts again at 10 minutes', async () => {
    const t = await start()
    const { key } = await t.project({ plan: 'enterprise', perMinute: 1, perDay: 100_000 })
    const ban = async () => {
      t.clock.set((Math.floor(t.clock.now() / 60_000) + 1) * 60_000)
      await list(t, key)
      for (let i = 0; i < 30; i++) await list(t, key)
      return Number((await list(t, key)).headers['retry-after'])
    }
    assert.equal(await ban(), 600)
    t.clock.advance(600_000 + 24 * 3_600_000 + 60_000)
    assert.equal(await ban(), 600)
  })

  test('a ban lifted by deleting its record (as the CLI does from another process) ends within a second', async () => {
    const t = await start()
    const { key } = await t.project({ plan: 'enterprise', perMinute: 1, perDay: 1000 })
    for (let i = 0; i < 32; i++) await list(t, key)
    const [ban] = await t.database.db.selectFrom('api_key_bans').selectAll().execute()
    t.clock.advance(10_000)
    assert.equal((await list(t, key)).json().code, 'api_key_banned')
    assert.ok(await deleteBan(t.database.db, ban!.key_id))
    t.clock.advance(1_000)
    assert.equal((await list(t, key)).json().code, 'rate_limited')
  })

  test('X-Forwarded-For is ignored unless TRUST_PROXY is set', async () => {
    const unknownKey = bearer(generateApiKey('production').secret)
    const direct = await start()
    for (let i = 0; i < 60; i++) {
      const r = await direct.request({ method: 'GET', url: '/v1/pets', headers: { ...unknownKey, 'x-forwarded-for': `203.0.113.${i}` } })
      assert.equal(r.statusCode, 401)
    }
    const spoofed = await direct.request({ method: 'GET', url: '/v1/pets', headers: { ...unknownKey, 'x-forwarded-for': '198.51.100.7' } })
    assert.equal(spoofed.statusCode, 429, 'a forged header does not buy a new quota')

    const proxied = await start({ trustProxy: true })
    for (let i = 0; i < 60; i++) await proxied.request({ method: 'GET', url: '/v1/pets', headers: { ...unknownKey, 'x-forwarded-for': '203.0.113.1' } })
    assert.equal((await proxied.request({ method: 'GET', url: '/v1/pets', headers: { ...unknownKey, 'x-forwarded-for': '203.0.113.1' } })).statusCode, 429)
    assert.equal((await proxied.request({ method: 'GET', url: '/v1/pets', headers: { ...unknownKey, 'x-forwarded-for': '203.0.113.2' } })).statusCode, 401)
  })

  test('429s and bans are counted in /metrics', async () => {
    const t = await start()
    const { key } = await t.project({ plan: 'enterprise', perMinute: 1, perDay: 1000 })
    for (let i = 0; i < 33; i++) await list(t, key)
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' })
    assert.equal(metrics.statusCode, 200)
    assert.match(metrics.body, /adoption_store_rate_limit_refusals_total\{reason="rate_limited",subject="project"\} 30/)
    assert.match(metrics.body, /adoption_store_rate_limit_refusals_total\{reason="api_key_banned",subject="project"\} 2/)
    assert.match(metrics.body, /adoption_store_api_key_bans_total\{level="0"\} 1/)
    assert.match(metrics.body, /adoption_store_http_requests_total\{method="GET",route="\/v1\/pets",status="429"\} 32/)
  })
})

if (redisUrl) {
  test('every Redis key the HTTP suites wrote has an expiry', async () => {
    const redis = new Redis(redisUrl!)
    try {
      const keys = await redis.keys(`${prefix}*`)
      assert.ok(keys.length > 0, 'the Redis suites wrote keys')
      for (const key of keys) assert.ok((await redis.pttl(key)) > 0, `${key} has no expiry`)
      await redis.del(...keys)
    } finally {
      redis.disconnect()
    }
  })
}
