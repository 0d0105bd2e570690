import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, test } from 'node:test'
import SQLite from 'better-sqlite3'
import path from 'node:path'
import { SQLITE_FILE } from '../src/db/database.js'
import { bearer, createTestApp, type TestApp } from './helpers/app.js'
import { freshPostgresDatabase, postgresUrl } from './helpers/databases.js'
import { captureLogs } from './helpers/logs.js'
import { TcpProxy } from './helpers/tcp-proxy.js'
import type { TestPlan } from '../scripts/test-plan.js'

// Mostly waits on real time: a database outage's timeouts and reconnects.
export const testPlan: TestPlan = { lane: 'waiting' }

/**
 * The database becoming unavailable: requests answer 503 service_unavailable promptly (no hang,
 * no 500, nothing internal), /readyz says not ready, and service resumes on its own.
 */

/** A request that does not answer within this is a hang, whatever the machine's load. */
const HANG_MS = 5_000

async function timed(t: TestApp, options: Parameters<TestApp['request']>[0]) {
  const started = performance.now()
  const response = await t.request(options)
  return { response, ms: performance.now() - started }
}

function assertUnavailable(response: Awaited<ReturnType<TestApp['request']>>, where: string): void {
  assert.equal(response.statusCode, 503, `${where}: ${response.body}`)
  assert.deepEqual(response.json(), { code: 'service_unavailable', message: response.json().message, status: 503 })
  assert.match(response.json().message, /unavailable/)
  assert.doesNotMatch(response.body, /ECONN|postgres|pg_|sqlite|127\.0\.0\.1|stack/i)
  assert.equal(response.headers['retry-after'], '1')
}

/** A key that could not be checked is no rate-limit decision: nothing charged, no window's headers. */
function assertNotCharged(response: Awaited<ReturnType<TestApp['request']>>, where: string): void {
  for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit', 'ratelimit-policy']) {
    assert.equal(response.headers[header], undefined, `${where}: ${header} belongs to no window`)
  }
}

/** The PostgreSQL timeout of these tests, and the slack a loaded machine may add to it. */
const TIMEOUT_MS = 1_000
const SLACK_MS = 700

describe('PostgreSQL unavailable', { skip: postgresUrl ? false : 'PostgreSQL is not configured (TEST_DATABASE_URL)' }, () => {
  for (const fault of ['refuse', 'hang'] as const) {
    test(`a ${fault === 'refuse' ? 'stopped' : 'hung'} server: 503 within bounded time, /readyz false, recovery on its own`, async () => {
      const database = await freshPostgresDatabase()
      const target = new URL(database.url)
      const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) })
      const viaProxy = new URL(database.url)
      viaProxy.host = `127.0.0.1:${proxy.port}`
      const logs = captureLogs()
      const t = await createTestApp({ config: { databaseUrl: viaProxy.toString(), databaseTimeoutMs: TIMEOUT_MS }, logger: logs.logger })
      try {
        const { key } = await t.project()
        assert.equal((await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(key) })).statusCode, 200)

        await proxy[fault]()
        for (const options of [
          { method: 'GET', url: '/v1/pets', headers: bearer(key) },
          { method: 'POST', url: '/v1/pets', headers: bearer(key), payload: { name: 'Rex', categoryId: 1 } },
        ] as const) {
          const { response, ms } = await timed(t, options)
          assertUnavailable(response, `${options.method} during the outage`)
          assertNotCharged(response, `${options.method} during the outage`)
          // At most the configured timeout (an idle pooled connection to a hung server included).
          assert.ok(ms < TIMEOUT_MS + SLACK_MS, `${options.method} took ${Math.round(ms)} ms; DATABASE_TIMEOUT_MS is ${TIMEOUT_MS}`)
        }
        // More requests than the per-address budget (60 a minute), at once: a valid key whose check
        // failed is never charged to the address, so every one is 503, none 429, each within the bound.
        const burst = await Promise.all(Array.from({ length: 70 }, () => timed(t, { method: 'GET', url: '/v1/pets', headers: bearer(key) })))
        for (const [i, { response, ms }] of burst.entries()) {
          assertUnavailable(response, `request ${i + 1} of the burst`)
          assertNotCharged(response, `request ${i + 1} of the burst`)
          assert.ok(ms < TIMEOUT_MS + SLACK_MS, `request ${i + 1} of the burst took ${Math.round(ms)} ms`)
        }
        // The key-expiry scan (background work) meets the outage too, and joins its one warning.
        t.app.services.keys.close()
        t.app.services.keys.start()
        const ready = await timed(t, { method: 'GET', url: '/readyz' })
        assert.equal(ready.response.statusCode, 503)
        assert.equal(ready.response.json().code, 'service_unavailable')
        assert.ok(ready.ms < HANG_MS)
        assert.equal((await t.request({ method: 'GET', url: '/healthz' })).statusCode, 200, 'the process itself is alive')

        await proxy.restore()
        let status = 0
        for (let i = 0; i < 50 && status !== 200; i++) {
          status = (await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(key) })).statusCode
          if (status !== 200) await sleep(100)
        }
        assert.equal(status, 200, 'service resumed without a restart')
        assert.equal((await t.request({ method: 'GET', url: '/readyz' })).statusCode, 200)
        const created = await t.request({ method: 'POST', url: '/v1/pets', headers: bearer(key), payload: { name: 'Mia', categoryId: 2 } })
        assert.equal(created.statusCode, 201)

        // One warning for the whole outage (74 failed requests, a readiness check and a key scan), without a
        // stack, and one line when it ended.
        let ended: Record<string, unknown> | undefined
        for (let i = 0; i < 30 && !ended; i++) {
          ended = logs.lines().find((line) => line.msg === 'database available again')
          if (!ended) await sleep(100)
        }
        const lines = logs.lines()
        const warnings = lines.filter((line) => (line.level as number) >= 40)
        assert.equal(warnings.length, 1, JSON.stringify(warnings))
        assert.match(String(warnings[0]!.msg), /^database unavailable/)
        assert.ok(!JSON.stringify(warnings[0]).includes('    at '), 'no stack trace in the warning')
        assert.ok(ended, 'the end of the outage is logged')
      } finally {
        await t.close()
        await proxy.close()
        await database.drop()
      }
    })
  }
})

describe('SQLite locked by another process', () => {
  test('writes answer 503 after the busy timeout (2 s a statement); reads keep working; writes resume when the lock goes', async () => {
    const t = await createTestApp({ config: { databaseUrl: undefined } })
    const other = new SQLite(path.join(t.config.dataDir, SQLITE_FILE))
    try {
      const { key } = await t.project()
      other.pragma('busy_timeout = 0')
      other.exec('BEGIN EXCLUSIVE')
      const { response, ms } = await timed(t, { method: 'POST', url: '/v1/pets', headers: bearer(key), payload: { name: 'Rex', categoryId: 1 } })
      assertUnavailable(response, 'write while locked')
      // Two statements may wait their turn (the key's last-used time, then the insert).
      assert.ok(ms < 2 * 2_000 + HANG_MS, `took ${Math.round(ms)} ms`)
      assert.equal((await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(key) })).statusCode, 200, 'reads are not blocked (WAL)')
      other.exec('ROLLBACK')
      const created = await t.request({ method: 'POST', url: '/v1/pets', headers: bearer(key), payload: { name: 'Rex', categoryId: 1 } })
      assert.equal(created.statusCode, 201)
    } finally {
      other.close()
      await t.close()
    }
  })
})
