/**
 * Clock independence: the shared limiter takes its time from Redis (`TIME`), never from the
 * instance, so instances whose clocks disagree still share the same windows and admit exactly
 * the plan's limit. Three BUILT servers share one PostgreSQL database and one Redis; two run under
 * libfaketime (`faketime -f '+40s'` and `'-40s'`), the third on the real clock.
 *
 * With per-instance clocks, ±40 s puts the instances in at least two different minute windows at
 * any moment, so a burst of 120 would get 100 or more admitted instead of 60: the test would fail.
 *
 * Needs the `faketime` command (Debian package `faketime`), PostgreSQL and Redis; skipped without.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { describe, test } from 'node:test'
import type { ErrorBody } from '../src/errors.js'
import type { ApiKey } from '../src/keys/keys.service.js'
import { postgresUrl } from './helpers/databases.js'
import {
  cliJson,
  type InstanceAnswer,
  requestInstance,
  type ServerProcess,
  sharedInstances,
  startServer,
  tally,
  waitForWindowRoom,
} from './helpers/process.js'
import { redisUrl } from './helpers/redis.js'

const REQUEST_TIMEOUT_MS = 10_000
const MINUTE_MS = 60_000
const DAY_MS = 86_400_000
const SKEW_S = 40

const faketime = (() => {
  try {
    return execFileSync('which', ['faketime'], { encoding: 'utf8' }).trim() || undefined
  } catch {
    return undefined
  }
})()

const skip = !faketime
  ? 'the faketime command is not installed (Debian/Ubuntu: apt-get install faketime)'
  : !postgresUrl
    ? 'PostgreSQL not configured (TEST_DATABASE_URL / DATABASE_URL): skewed instances need a shared database'
    : process.env.TEST_DIALECT === 'sqlite'
      ? 'needs PostgreSQL: runs once, in the PostgreSQL leg of the suite (TEST_DIALECT=postgres)'
      : !redisUrl
      ? 'Redis not configured (TEST_REDIS_URL / REDIS_URL): skewed instances need a shared limiter'
      : false

/** The instances: each clock's offset from the real one, in seconds. */
const OFFSETS = [SKEW_S, -SKEW_S, 0] as const

type CreatedKey = ApiKey & { key: string }

function codeOf(answer: InstanceAnswer): string {
  return answer.status === 200 ? 'ok' : (answer.body as ErrorBody).code
}

/**
 * How far the server's clock is from ours, in seconds, from its `Date` header (whole seconds,
 * truncated): the middle of the interval the offset must lie in. Several samples, the narrowest kept.
 */
async function clockOffset(server: ServerProcess): Promise<{ offset: number; uncertainty: number }> {
  let best: { offset: number; uncertainty: number } | undefined
  for (let i = 0; i < 5; i++) {
    const sent = Date.now()
    const response = await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
    const received = Date.now()
    await response.body?.cancel()
    const date = Date.parse(response.headers.get('date') ?? '')
    assert.ok(Number.isFinite(date), `no Date header from ${server.url}`)
    // The server's time t was within [sent, received] + offset, and date is t truncated to the second.
    const low = date - received
    const high = date + 1_000 - sent
    const estimate = { offset: (low + high) / 2 / 1000, uncertainty: (high - low) / 2 / 1000 }
    if (!best || estimate.uncertainty < best.uncertainty) best = estimate
  }
  return best!
}

describe('instances with skewed clocks share one limiter through Redis time', () => {
  const { servers, cli } = sharedInstances({
    skip,
    redisUrl,
    // Only the wall clock moves: timers (libuv's monotonic clock) keep running true.
    extraEnv: { FAKETIME_DONT_FAKE_MONOTONIC: '1', FAKETIME_NO_CACHE: '1' },
    async start(env) {
      // The CLI (on the real clock) migrates the database first, so the instances do not race.
      await cliJson(['migrate', '--json'], { env })
      const started: ServerProcess[] = []
      for (const offset of OFFSETS) {
        const wrapper = offset === 0 ? undefined : [faketime!, '-f', `${offset > 0 ? '+' : ''}${offset}s`]
        started.push(await startServer({ env, wrapper }))
      }
      return started
    },
  })

  test('the wrapped instances really run ±40 s off the real clock', { skip, timeout: 30_000 }, async (t) => {
    for (const [instance, expected] of OFFSETS.entries()) {
      const { offset, uncertainty } = await clockOffset(servers[instance]!)
      t.diagnostic(`instance ${instance + 1}: clock ${offset >= 0 ? '+' : ''}${offset.toFixed(2)} s (±${uncertainty.toFixed(2)} s), expected ${expected} s`)
      assert.ok(Math.abs(offset - expected) <= 2, `instance ${instance + 1} runs ${offset.toFixed(2)} s off the real clock, expected ${expected} s`)
    }
  })

  test('120 concurrent requests spread over the skewed instances admit exactly the free plan\'s 60', { skip, timeout: 90_000 }, async (t) => {
    await cliJson(['projects', 'create', 'burst', '--plan', 'free', '--json'], cli())
    const { key } = await cliJson<CreatedKey>(['keys', 'create', '--project', 'burst', '--json'], cli())
    await waitForWindowRoom(redisUrl!, MINUTE_MS, 20_000)

    const answers = await Promise.all(Array.from({ length: 120 }, (_, i) => requestInstance(servers, i % servers.length, 'GET', '/v1/pets', key)))
    const admitted = answers.filter((a) => a.status === 200)
    t.diagnostic(`admitted per instance: ${JSON.stringify(tally(admitted.map((a) => OFFSETS[a.instance])))} (by clock offset)`)
    assert.deepEqual(tally(answers.map((a) => a.status)), { 200: 60, 429: 60 })
    const remaining = admitted.map((a) => Number(a.headers.get('x-ratelimit-remaining')))
    assert.deepEqual(
      [...remaining].sort((a, b) => a - b),
      Array.from({ length: 60 }, (_, i) => i),
      'each admitted request had its own place in the one shared count',
    )
    // One window, the same end for every instance whatever its clock (a banned key's headers
    // point at the end of its ban instead, checked below).
    const inWindow = answers.filter((a) => codeOf(a) !== 'api_key_banned')
    assert.equal(new Set(inWindow.map((a) => a.headers.get('x-ratelimit-reset'))).size, 1, 'every instance reports the same window end')
    // The ban (31st refusal) is shared, and its length is measured on Redis's clock: a skewed
    // instance would otherwise report 10 minutes ± 40 s.
    const refused = answers.filter((a) => a.status !== 200)
    assert.deepEqual(tally(refused.map(codeOf)), { rate_limited: 30, api_key_banned: 30 })
    const banned = refused.filter((a) => codeOf(a) === 'api_key_banned')
    for (const answer of banned) {
      const retryAfter = Number(answer.headers.get('retry-after'))
      assert.ok(retryAfter > 590 && retryAfter <= 600, `instance ${answer.instance + 1} (clock ${OFFSETS[answer.instance]} s): Retry-After ${retryAfter}`)
    }
    // Every instance names the same end of the ban, on Redis's clock, whatever its own.
    const banEnds = banned.map((a) => Number(a.headers.get('x-ratelimit-reset')))
    assert.ok(Math.max(...banEnds) - Math.min(...banEnds) <= 1, `ban ends reported: ${[...new Set(banEnds)].join(', ')}`)
  })

  test('an enterprise project allowing 5 a day gets exactly 5 across the skewed instances', { skip, timeout: 90_000 }, async () => {
    const args = ['projects', 'create', 'daily', '--plan', 'enterprise', '--per-minute', '1000', '--per-day', '5', '--json']
    await cliJson(args, cli())
    // Several keys, so that no key collects the 31 refusals that would ban it.
    const keys = await Promise.all(
      Array.from({ length: 3 }, (_, i) => cliJson<CreatedKey>(['keys', 'create', '--project', 'daily', '--name', `k${i}`, '--json'], cli())),
    )
    const redisNow = await waitForWindowRoom(redisUrl!, DAY_MS, 20_000)

    const answers = await Promise.all(
      Array.from({ length: 45 }, (_, i) => requestInstance(servers, i % servers.length, 'GET', '/v1/pets', keys[Math.floor(i / servers.length) % keys.length]!.key)),
    )
    assert.deepEqual(tally(answers.map(codeOf)), { ok: 5, rate_limited: 40 })
    for (const answer of answers) assert.equal(answer.headers.get('x-ratelimit-limit'), '5', 'the day window binds')
    // The day ends at the next UTC midnight of Redis's clock, for every instance.
    const midnight = (Math.floor(redisNow / DAY_MS) + 1) * DAY_MS
    for (const answer of answers) {
      assert.equal(Number(answer.headers.get('x-ratelimit-reset')), midnight / 1000, `instance ${answer.instance + 1} (clock ${OFFSETS[answer.instance]} s)`)
    }
    // Retry-After counts to that midnight from Redis's now, not from the instance's own clock.
    const finishedAt = Date.now()
    for (const answer of answers.filter((a) => a.status === 429)) {
      const retryAfter = Number(answer.headers.get('retry-after'))
      const expected = (midnight - finishedAt) / 1000
      assert.ok(Math.abs(retryAfter - expected) <= 5, `instance ${answer.instance + 1} (clock ${OFFSETS[answer.instance]} s): Retry-After ${retryAfter}, expected about ${Math.round(expected)}`)
    }
    // And the next one, on any instance, is still refused.
    for (let instance = 0; instance < servers.length; instance++) {
      assert.equal(codeOf(await requestInstance(servers, instance, 'GET', '/v1/pets', keys[0]!.key)), 'rate_limited')
    }
  })
})
