/**
 * Custom domains in scale-out: two BUILT servers sharing one PostgreSQL database and one Redis.
 * A domain added and verified through one instance is served by the other within a second, and
 * a removal stops it there within a second too, although the other had the host cached. Needs
 * PostgreSQL and Redis; runs once, in the PostgreSQL leg.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { ADMIN_TOKEN } from './helpers/admin.js'
import { freshPostgresDatabase, postgresUrl } from './helpers/databases.js'
import { DNS_TARGET, PLATFORM_DOMAIN, sendTo, TARGET_ADDRESS } from './helpers/domains.js'
import { type ChallTestSrv, pebbleMissing, startChallTestSrv, stopAll } from './helpers/pebble.js'
import { cleanup, deleteRedisKeys, runCli, type ServerProcess, startServer, uniqueRedisPrefix } from './helpers/process.js'
import { redisUrl } from './helpers/redis.js'

const skip = pebbleMissing
  ? pebbleMissing
  : !postgresUrl
    ? 'PostgreSQL not configured (TEST_DATABASE_URL / DATABASE_URL): needs a shared database'
    : process.env.TEST_DIALECT === 'sqlite'
      ? 'needs PostgreSQL: runs once, in the PostgreSQL leg of the suite (TEST_DIALECT=postgres)'
      : !redisUrl
        ? 'Redis not configured (TEST_REDIS_URL / REDIS_URL): needs a shared Redis'
        : false

/** Polls `probe` until it answers `status`; answers how long that took, in milliseconds. */
async function within(limitMs: number, probe: () => Promise<number>, status: number): Promise<number> {
  const started = performance.now()
  for (;;) {
    const seen = await probe()
    const elapsed = performance.now() - started
    if (seen === status) return elapsed
    if (elapsed > limitMs) throw new Error(`still ${seen}, not ${status}, after ${Math.round(elapsed)} ms`)
    await sleep(10)
  }
}

describe('custom domains across instances (PostgreSQL + Redis)', { skip }, () => {
  let dns: ChallTestSrv
  let database: { url: string; drop(): Promise<void> }
  let prefix: string
  let servers: ServerProcess[]
  let env: Record<string, string>

  before(async () => {
    dns = await startChallTestSrv()
    await dns.addA(DNS_TARGET, [TARGET_ADDRESS])
    database = await freshPostgresDatabase()
    prefix = uniqueRedisPrefix()
    env = {
      DATABASE_URL: database.url,
      REDIS_URL: redisUrl!,
      REDIS_KEY_PREFIX: prefix,
      ADMIN_TOKEN,
      PLATFORM_DOMAIN,
      PLATFORM_DNS_TARGET: DNS_TARGET,
      DNS_RESOLVERS: dns.dnsServer,
    }
    servers = [await startServer({ env }), await startServer({ env })]
  })

  after(async () => {
    await cleanup()
    await stopAll()
    await database?.drop()
    if (redisUrl && prefix) await deleteRedisKeys(redisUrl, prefix)
  })

  test('one instance adds and verifies, the other serves within a second; one removes, the other refuses within a second', async () => {
    const [first, second] = servers as [ServerProcess, ServerProcess]
    assert.equal((await runCli(['projects', 'create', 'shared', '--plan', 'pro'], { env })).code, 0)
    const key = JSON.parse((await runCli(['keys', 'create', '--project', 'shared', '--json'], { env })).stdout).key as string
    const domain = `shop.multi-${process.pid}.test`
    const adminCall = (server: ServerProcess, method: string, path: string, body?: unknown) =>
      fetch(`${server.url}/admin/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    const onSecond = async () => (await sendTo(`${second.url}/v1/pets`, { host: domain, headers: { authorization: `Bearer ${key}` } })).status

    // The second instance has the host cached as unknown before anything happens.
    assert.equal(await onSecond(), 404)

    assert.equal((await adminCall(first, 'POST', '/projects/shared/domains', { name: domain })).status, 201)
    await dns.setCname(domain, DNS_TARGET)
    const verified = await adminCall(first, 'POST', `/projects/shared/domains/${domain}/verify`)
    assert.equal(((await verified.json()) as { status: { state: string } }).status.state, 'verified')
    const served = await within(1_000, onSecond, 200)

    assert.equal((await adminCall(first, 'DELETE', `/projects/shared/domains/${domain}`)).status, 204)
    const refused = await within(1_000, onSecond, 404)
    process.stdout.write(`# second instance followed: served after ${Math.round(served)} ms, refused after ${Math.round(refused)} ms\n`)
  })
})
