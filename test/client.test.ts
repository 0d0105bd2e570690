/**
 * The typed client (`adoption-store/client`).
 *
 * - Unit tests: the backoff arithmetic and the retry rules, with a scripted `fetch` and an
 *   injected clock, so every wait is known exactly.
 * - Against the real server in process (`createTestApp` + `app.listen`: real HTTP, the real
 *   limiter, idempotency and database) on a ManualClock. The batch of 100 creates at 40 a minute
 *   needs three minute windows; in real time that is two minutes and more. Instead the client's
 *   injected clock *is* the server's clock, and only the client's own waits move it (see
 *   `VirtualTime`): a request is sent at the very virtual instant the client's wait ends, so
 *   "the retry came no earlier than Retry-After" is measured on the clock that the server's
 *   windows and Retry-After are computed from, with no scheduling slack to hide an early retry.
 *   Had the client retried early, the server would have refused it again (its window had not
 *   reset on that clock) and the recorded times would show it.
 * - Real time, on the BUILT server run under libfaketime so that its minute window ends a few
 *   seconds after the test starts: the default clock and `setTimeout` really wait Retry-After.
 * - The CLI's data commands, as processes against a running built server: client-cli.test.ts.
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { execFileSync } from 'node:child_process'
import type { AddressInfo } from 'node:net'
import { afterEach, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import sharp from 'sharp'
import { CLIENT_SCHEMA, generateClientTypes } from '../scripts/client-types.js'
import {
  AdoptionStoreError,
  ApiKeyBannedError,
  backoffMs,
  type Clock,
  createClient,
  type Order,
  parseRetryAfter,
  type Pet,
  RateLimitedError,
  retryDelayMs,
  type RetryEvent,
  servers,
} from '../src/client/index.js'
import { nextLink } from '../src/client/client.js'
import { createTestApp, ManualClock, type TestApp } from './helpers/app.js'
import { runCliOk } from './helpers/cli.js'
import { assertBuilt, cleanup, makeDataDir, type ServerProcess, startServer } from './helpers/process.js'
import type { TestPlan } from '../scripts/test-plan.js'

// Mostly waits on real time: a real Retry-After, from the built server under libfaketime.
export const testPlan: TestPlan = { lane: 'waiting' }

const MINUTE_MS = 60_000

// ---------------------------------------------------------------------------------------------
// Helpers

/** A clock for unit tests: `sleep` records the wait and moves time by exactly that much. */
class FakeClock implements Clock {
  readonly sleeps: number[] = []
  constructor(public ms = Date.UTC(2026, 10, 22, 12, 0, 30)) {}
  now(): number {
    return this.ms
  }
  async sleep(ms: number): Promise<void> {
    this.sleeps.push(ms)
    this.ms += ms
  }
}

interface Scripted {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

/** A `fetch` that answers from a script and records what was asked. */
function scriptedFetch(script: (Scripted | Error)[]) {
  const requests: { url: string; method: string; headers: Headers; body: string | undefined }[] = []
  const fetch: typeof globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    requests.push({ url: String(input), method: init?.method ?? 'GET', headers: new Headers(init?.headers), body: init?.body as string | undefined })
    const next = script.shift()
    if (!next) throw new Error('the script has no more answers')
    if (next instanceof Error) throw next
    return new Response(next.body === undefined ? null : JSON.stringify(next.body), {
      status: next.status,
      headers: { 'content-type': 'application/json', ...next.headers },
    })
  }) as typeof globalThis.fetch
  return { fetch, requests }
}

const error = (status: number, code: string, headers: Record<string, string> = {}): Scripted => ({
  status,
  body: { code, message: `${code} for the test`, status },
  headers,
})
const pet = (id: number, name = `Pet ${id}`): Pet => ({ id, name, categoryId: 1, status: 'available' })
const BASE = 'http://api.test/v1'

/**
 * Virtual time for concurrent callers: the server's ManualClock, moved only when every worker
 * is waiting in the client's `sleep`, and then straight to the earliest wake-up. Requests in
 * flight therefore see time stand still, and each wait ends exactly when it asked to.
 */
class VirtualTime implements Clock {
  private sleepers: { at: number; wake: () => void }[] = []
  private running = 0
  readonly waits: number[] = []

  constructor(private readonly clock: ManualClock) {}

  now(): number {
    return this.clock.now()
  }

  sleep(ms: number): Promise<void> {
    this.waits.push(ms)
    return new Promise((wake) => {
      this.sleepers.push({ at: this.now() + ms, wake })
      this.running--
      this.advance()
    })
  }

  /** Runs a worker; time moves only while no worker is doing anything but wait. */
  async worker(work: () => Promise<void>): Promise<void> {
    this.running++
    try {
      await work()
    } finally {
      this.running--
      this.advance()
    }
  }

  private advance(): void {
    if (this.running > 0 || this.sleepers.length === 0) return
    const at = Math.min(...this.sleepers.map((s) => s.at))
    if (at > this.now()) this.clock.set(at)
    const due = this.sleepers.filter((s) => s.at <= this.now())
    this.sleepers = this.sleepers.filter((s) => s.at > this.now())
    this.running += due.length
    for (const sleeper of due) sleeper.wake()
  }
}

interface Sent {
  /** When the request was sent and its response came, by the clock under test. */
  at: number
  receivedAt?: number
  method: string
  url: string
  idempotencyKey: string | undefined
  contentType: string | undefined
  status?: number
  code?: string
  retryAfter?: number
}

/** Wraps `fetch` to record every request, its time, and what came back. */
function recordingFetch(now: () => number, log: Sent[], inner: typeof fetch = fetch): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers)
    const entry: Sent = {
      at: now(),
      method: init?.method ?? 'GET',
      url: String(input),
      idempotencyKey: headers.get('idempotency-key') ?? undefined,
      contentType: headers.get('content-type') ?? undefined,
    }
    log.push(entry)
    const response = await inner(input, init)
    entry.receivedAt = now()
    entry.status = response.status
    if (!response.ok) entry.code = ((await response.clone().json()) as { code: string }).code
    const retryAfter = response.headers.get('retry-after')
    if (retryAfter !== null) entry.retryAfter = Number(retryAfter)
    return response
  }) as typeof fetch
}

/** Each call's requests in order, grouped by Idempotency-Key. */
function byKey(log: Sent[]): Map<string, Sent[]> {
  const calls = new Map<string, Sent[]>()
  for (const entry of log) {
    assert.ok(entry.idempotencyKey, `${entry.method} ${entry.url} was sent without an Idempotency-Key`)
    calls.set(entry.idempotencyKey, [...(calls.get(entry.idempotencyKey) ?? []), entry])
  }
  return calls
}

/** No request followed a 429 of the same call before its Retry-After had passed. */
function assertHonouredRetryAfter(calls: Map<string, Sent[]>): number {
  let retries = 0
  for (const [key, attempts] of calls) {
    for (let i = 1; i < attempts.length; i++) {
      const refused = attempts[i - 1]!
      assert.equal(refused.status, 429, `call ${key}: only a 429 is retried here`)
      assert.ok(refused.retryAfter !== undefined && refused.retryAfter >= 1, 'a 429 carries Retry-After')
      const earliest = refused.receivedAt! + refused.retryAfter * 1000
      assert.ok(attempts[i]!.at >= earliest, `call ${key}: retried at ${attempts[i]!.at}, ${earliest - attempts[i]!.at} ms before Retry-After allowed`)
      retries++
    }
  }
  return retries
}

async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  return `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/v1`
}

async function countPets(t: TestApp, projectId: number): Promise<number> {
  const row = await t.database.db.selectFrom('pets').select((eb) => eb.fn.countAll<number | string>().as('n')).where('project_id', '=', projectId).executeTakeFirstOrThrow()
  return Number(row.n)
}

let apps: TestApp[] = []
afterEach(async () => {
  for (const app of apps) await app.close()
  apps = []
})

async function startApp(clock = new ManualClock()): Promise<TestApp & { clock: ManualClock; baseUrl: string }> {
  const t = await createTestApp({ clock })
  apps.push(t)
  return Object.assign(t, { clock, baseUrl: await listen(t) })
}

// ---------------------------------------------------------------------------------------------

describe('generated types', () => {
  test('src/client/schema.ts is what openapi.json generates (run `npm run client:types` after `npm run openapi`)', async () => {
    assert.equal(fs.readFileSync(CLIENT_SCHEMA, 'utf8'), await generateClientTypes())
  })

  test('the default base URLs are the document servers', () => {
    const document = JSON.parse(fs.readFileSync(new URL('../openapi.json', import.meta.url), 'utf8')) as { servers: { url: string; description: string }[] }
    const server = (description: string) => document.servers.find((s) => s.description === description)?.url
    // The document's first server is relative (`/v1`, for the /docs page); the client takes the absolute ones.
    assert.equal(document.servers[0]!.url, '/v1')
    assert.deepEqual(servers, { production: server('Production'), staging: server('Staging') })
    assert.match(servers.production, /^https?:\/\/[^/]+\/v1$/)
    assert.match(servers.staging, /^https?:\/\/[^/]+\/v1$/)
    assert.equal(createClient({ apiKey: 'k' }).baseUrl, servers.production)
    assert.equal(createClient({ apiKey: 'k', environment: 'staging' }).baseUrl, servers.staging)
    assert.equal(createClient({ apiKey: 'k', environment: 'staging', baseUrl: 'https://x.test/api/v1/' }).baseUrl, 'https://x.test/api/v1')
    assert.equal(createClient({ apiKey: 'k', baseUrl: 'http://127.0.0.1:8080' }).baseUrl, 'http://127.0.0.1:8080/v1')
    assert.throws(() => createClient({ apiKey: '' }), /apiKey is required/)
    assert.throws(() => createClient({ apiKey: 'k', baseUrl: 'nope' }), /not a URL/)
  })
})

describe('backoff arithmetic', () => {
  const options = { baseDelayMs: 500, maxDelayMs: 30_000 }

  test('full jitter: uniform below min(max, base · 2^(n-1))', () => {
    const ceilings = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => backoffMs(n, { ...options, random: () => 0.999_999_9 }))
    assert.deepEqual(ceilings, [499, 999, 1999, 3999, 7999, 15_999, 29_999, 29_999, 29_999])
    for (let n = 1; n < 10; n++) assert.equal(backoffMs(n, { ...options, random: () => 0 }), 0)
    assert.equal(backoffMs(3, { ...options, random: () => 0.5 }), 1000)
  })

  test('never less than Retry-After: the backoff comes on top of it', () => {
    for (const random of [0, 0.25, 0.999]) {
      for (let attempt = 1; attempt <= 5; attempt++) {
        const delay = retryDelayMs(attempt, 7, { ...options, random: () => random })
        assert.ok(delay >= 7000 && delay < 7000 + Math.min(30_000, 500 * 2 ** (attempt - 1)), `${delay}`)
      }
    }
    assert.equal(retryDelayMs(2, undefined, { ...options, random: () => 0.5 }), 500)
  })

  test('Retry-After in seconds or as an HTTP date, rounded up', () => {
    const now = Date.UTC(2026, 10, 22, 12, 0, 0, 200)
    assert.equal(parseRetryAfter('17', now), 17)
    assert.equal(parseRetryAfter(' 0 ', now), 0)
    assert.equal(parseRetryAfter(new Date(Date.UTC(2026, 10, 22, 12, 0, 10)).toUTCString(), now), 10)
    assert.equal(parseRetryAfter(new Date(Date.UTC(2026, 10, 22, 11, 0, 0)).toUTCString(), now), 0)
    assert.equal(parseRetryAfter(null, now), undefined)
    assert.equal(parseRetryAfter('soon', now), undefined)
    assert.equal(parseRetryAfter('-3', now), undefined)
  })

  test('Link: rel="next" among other links, resolved against the request URL', () => {
    const base = 'http://api.test/v1/pets?limit=2'
    assert.equal(nextLink('</v1/pets?limit=2&after=4>; rel="next"', base), 'http://api.test/v1/pets?limit=2&after=4')
    assert.equal(nextLink('<https://x.test/a>; rel="prev", <?after=9>; title="n"; rel=next', base), 'http://api.test/v1/pets?after=9')
    assert.equal(nextLink('</v1/a>; rel="prev next"', base), 'http://api.test/v1/a')
    assert.equal(nextLink('</v1/a>; rel="successor-version"', base), undefined)
    assert.equal(nextLink(null, base), undefined)
  })
})

describe('retry rules (scripted fetch, injected clock)', () => {
  test('429 rate_limited: waits Retry-After plus jitter, then succeeds; the same Idempotency-Key every time', async () => {
    const clock = new FakeClock()
    const events: RetryEvent[] = []
    const { fetch, requests } = scriptedFetch([
      error(429, 'rate_limited', { 'retry-after': '30', 'x-ratelimit-limit': '40', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1795358760' }),
      error(429, 'rate_limited', { 'retry-after': '2' }),
      { status: 201, body: pet(7, 'Rex'), headers: { 'x-ratelimit-limit': '40', 'x-ratelimit-remaining': '39', 'x-ratelimit-reset': '1795358820' } },
    ])
    const client = createClient({ apiKey: 'as_test_key', baseUrl: BASE, fetch, retry: { clock, random: () => 0.5, onRetry: (e) => events.push(e) } })
    assert.deepEqual(await client.createPet({ name: 'Rex', categoryId: 1 }), pet(7, 'Rex'))
    assert.deepEqual(clock.sleeps, [30_000 + 250, 2_000 + 500])
    assert.equal(requests.length, 3)
    const keys = requests.map((r) => r.headers.get('idempotency-key'))
    assert.match(keys[0] ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    assert.deepEqual(new Set(keys).size, 1)
    for (const r of requests) {
      assert.equal(r.headers.get('authorization'), 'Bearer as_test_key')
      assert.equal(r.headers.get('content-type'), 'application/json')
      assert.equal(r.body, JSON.stringify({ name: 'Rex', categoryId: 1 }))
      assert.equal(r.url, `${BASE}/pets`)
    }
    assert.deepEqual(
      events.map((e) => [e.operation, e.attempt, e.delayMs, e.code, e.retryAfter]),
      [
        ['createPet', 1, 30_250, 'rate_limited', 30],
        ['createPet', 2, 2_500, 'rate_limited', 2],
      ],
    )
    assert.deepEqual(client.rateLimit, { limit: 40, remaining: 39, reset: 1795358820 })
  })

  test('a second call gets a new key; a key of your own is used as given', async () => {
    const { fetch, requests } = scriptedFetch([{ status: 201, body: pet(1) }, { status: 201, body: pet(2) }, { status: 201, body: { id: 1, petId: 1, status: 'placed', createdAt: '2026-11-22T12:00:00.000Z', complete: false } }])
    const client = createClient({ apiKey: 'k', baseUrl: BASE, fetch })
    await client.createPet({ name: 'a', categoryId: 1 })
    await client.createPet({ name: 'b', categoryId: 1 }, { idempotencyKey: 'my-own-key' })
    await client.placeOrder({ petId: 1 })
    const keys = requests.map((r) => r.headers.get('idempotency-key'))
    assert.equal(keys[1], 'my-own-key')
    assert.equal(new Set(keys).size, 3)
  })

  test('the attempts are bounded: the 5th 429 is thrown as a RateLimitedError', async () => {
    const clock = new FakeClock()
    const { fetch, requests } = scriptedFetch(Array.from({ length: 6 }, () => error(429, 'rate_limited', { 'retry-after': '1' })))
    const client = createClient({ apiKey: 'k', baseUrl: BASE, fetch, retry: { clock, random: () => 0 } })
    const failure = await client.listPets().catch((e: unknown) => e)
    assert.ok(failure instanceof RateLimitedError)
    assert.equal(failure.code, 'rate_limited')
    assert.equal(failure.status, 429)
    assert.equal(failure.retryAfter, 1)
    assert.equal(failure.attempts, 5)
    assert.equal(requests.length, 5)
    assert.deepEqual(clock.sleeps, [1000, 1000, 1000, 1000])
  })

  test('the total time is bounded: a wait that would end past maxElapsedMs is not started', async () => {
    const clock = new FakeClock()
    const start = clock.now()
    const { fetch, requests } = scriptedFetch([error(429, 'rate_limited', { 'retry-after': '70' }), error(429, 'rate_limited', { 'retry-after': '70' }), error(429, 'rate_limited', { 'retry-after': '70' })])
    const client = createClient({ apiKey: 'k', baseUrl: BASE, fetch, retry: { clock, random: () => 0.9, maxElapsedMs: 120_000 } })
    await assert.rejects(client.listPets(), (e: unknown) => e instanceof RateLimitedError && e.attempts === 2)
    assert.equal(requests.length, 2)
    // 70.45 s, then 70.9 s more would end at 141.35 s: not started.
    assert.deepEqual(clock.sleeps, [70_450])
    assert.ok(clock.now() - start <= 120_000)
  })

  test('429 api_key_banned: stops at once, no wait, the ban end from Retry-After', async () => {
    const clock = new FakeClock()
    const { fetch, requests } = scriptedFetch([error(429, 'api_key_banned', { 'retry-after': '600' })])
    const client = createClient({ apiKey: 'k', baseUrl: BASE, fetch, retry: { clock } })
    const failure = await client.createPet({ name: 'Rex', categoryId: 1 }).catch((e: unknown) => e)
    assert.ok(failure instanceof ApiKeyBannedError)
    assert.ok(failure instanceof AdoptionStoreError)
    assert.equal(failure.code, 'api_key_banned')
    assert.equal(failure.retryAfter, 600)
    assert.equal(failure.bannedUntil.getTime(), clock.now() + 600_000)
    assert.equal(failure.attempts, 1)
    assert.equal(requests.length, 1)
    assert.deepEqual(clock.sleeps, [])
  })

  test('503: reads and idempotent creates are retried (Retry-After or not); order moves are not', async () => {
    const clock = new FakeClock()
    const order: Order = { id: 3, petId: 1, status: 'placed', createdAt: '2026-11-22T12:00:00.000Z', complete: false }
    const scripted = scriptedFetch([
      error(503, 'service_unavailable', { 'retry-after': '1' }),
      { status: 200, body: order },
      error(503, 'service_unavailable'),
      { status: 201, body: order },
      error(503, 'service_unavailable', { 'retry-after': '1' }),
    ])
    const client = createClient({ apiKey: 'k', baseUrl: BASE, fetch: scripted.fetch, retry: { clock, random: () => 0.5 } })
    assert.deepEqual(await client.getOrder(3), order)
    assert.deepEqual(await client.placeOrder({ petId: 1 }), order)
    await assert.rejects(client.approveOrder(3), (e: unknown) => e instanceof AdoptionStoreError && e.code === 'service_unavailable' && e.retryAfter === 1 && e.attempts === 1)
    assert.deepEqual(clock.sleeps, [1000 + 250, 250])
    assert.equal(scripted.requests.length, 5)
  })

  test('order moves are never retried, not even on 429; a lost response is retried only with an Idempotency-Key', async () => {
    const clock = new FakeClock()
    const { fetch, requests } = scriptedFetch([
      error(429, 'rate_limited', { 'retry-after': '3' }),
      new TypeError('fetch failed'),
      new TypeError('fetch failed'),
      { status: 201, body: pet(9) },
    ])
    const client = createClient({ apiKey: 'k', baseUrl: BASE, fetch, retry: { clock, random: () => 0 } })
    await assert.rejects(client.cancelOrder(3), (e: unknown) => e instanceof RateLimitedError && e.retryAfter === 3)
    await assert.rejects(client.deliverOrder(3), (e: unknown) => e instanceof AdoptionStoreError && e.code === 'network_error' && e.status === 0)
    assert.deepEqual(await client.createPet({ name: 'x', categoryId: 1 }), pet(9))
    assert.equal(requests.length, 4)
    // deliverOrder was not retried, but it was sent only once the 429's Retry-After had passed.
    assert.deepEqual(clock.sleeps, [3000, 0])
  })

  test("after a 429, the client's other calls wait for its Retry-After before they send", async () => {
    const clock = new FakeClock()
    const sentAt: number[] = []
    const { fetch } = scriptedFetch([error(429, 'rate_limited', { 'retry-after': '20' }), { status: 200, body: [] }, { status: 200, body: [] }, { status: 200, body: [] }])
    const timed = (async (input: string | URL | Request, init?: RequestInit) => {
      sentAt.push(clock.now() - start)
      return fetch(input, init)
    }) as typeof globalThis.fetch
    const start = clock.now()
    const client = createClient({ apiKey: 'k', baseUrl: BASE, fetch: timed, retry: { clock, random: () => 0.5 } })
    await client.listPets()
    await client.listOrders()
    await client.listPets()
    // The refused call waited 20 s + 250 ms of jitter; the next call found the window open again.
    assert.deepEqual(sentAt, [0, 20_250, 20_250, 20_250])
    assert.deepEqual(clock.sleeps, [20_250])

    // A call that finds the quota used up waits for the reset, then sends once.
    const second = scriptedFetch([error(429, 'rate_limited', { 'retry-after': '5' }), { status: 200, body: [] }])
    const other = createClient({ apiKey: 'k', baseUrl: BASE, fetch: second.fetch, retry: { clock, random: () => 0, maxAttempts: 1 } })
    await assert.rejects(other.listPets(), RateLimitedError)
    assert.deepEqual((await other.listOrders()).items, [])
    assert.deepEqual(clock.sleeps.slice(1), [5_000])
  })

  test('errors other than 429, 503 and lost responses are thrown at once, typed', async () => {
    const clock = new FakeClock()
    const { fetch } = scriptedFetch([
      error(400, 'invalid_request'),
      error(404, 'not_found', { 'x-request-id': 'req-1' }),
      error(409, 'idempotency_in_flight'),
      { status: 201, body: pet(4) },
      { status: 502, body: undefined },
    ])
    const client = createClient({ apiKey: 'k', baseUrl: BASE, fetch, retry: { clock, random: () => 0 } })
    await assert.rejects(client.listPets({ limit: 1000 }), { name: 'AdoptionStoreError', code: 'invalid_request', status: 400 })
    await assert.rejects(client.getOrder(1), { code: 'not_found', status: 404, requestId: 'req-1' })
    // idempotency_in_flight: the first attempt with this key is still running; asking again is safe.
    assert.deepEqual(await client.createPet({ name: 'x', categoryId: 1 }), pet(4))
    await assert.rejects(client.approveOrder(1), { code: 'unexpected_response', status: 502 })
  })

  test('an abort stops the wait', async () => {
    const { fetch } = scriptedFetch([error(429, 'rate_limited', { 'retry-after': '60' })])
    const client = createClient({ apiKey: 'k', baseUrl: BASE, fetch })
    const controller = new AbortController()
    const started = Date.now()
    setTimeout(() => controller.abort(new Error('enough')), 50)
    await assert.rejects(client.listPets({}, { signal: controller.signal }), /enough/)
    assert.ok(Date.now() - started < 5_000)
  })

  test('the iterator follows rel="next", gives each item once, and keeps the key to the configured origin', async () => {
    const link = (after: number) => ({ link: `</v1/pets?limit=2&after=${after}>; rel="next"` })
    const { fetch, requests } = scriptedFetch([
      { status: 200, body: [pet(1), pet(2)], headers: link(2) },
      // A repeated item (the page moved under us) is not given out twice.
      { status: 200, body: [pet(2), pet(5)], headers: link(5) },
      { status: 200, body: [pet(6)] },
    ])
    const client = createClient({ apiKey: 'k', baseUrl: BASE, fetch })
    const ids: number[] = []
    for await (const p of client.iteratePets({ limit: 2, status: 'available' })) ids.push(p.id)
    assert.deepEqual(ids, [1, 2, 5, 6])
    assert.deepEqual(
      requests.map((r) => r.url),
      [`${BASE}/pets?limit=2&status=available`, `${BASE}/pets?limit=2&after=2`, `${BASE}/pets?limit=2&after=5`],
    )

    const elsewhere = scriptedFetch([{ status: 200, body: [pet(1)], headers: { link: '<https://evil.test/v1/pets?after=1>; rel="next"' } }])
    const other = createClient({ apiKey: 'k', baseUrl: BASE, fetch: elsewhere.fetch })
    await assert.rejects(other.listPets(), { code: 'unexpected_response' })
  })
})

// ---------------------------------------------------------------------------------------------

describe('against the server (in process, ManualClock)', () => {
  test("photos: upload the image's bytes, list, order and remove; the animal carries them", async () => {
    const t = await startApp()
    const project = await t.project({ plan: 'enterprise', perMinute: 1000, perDay: 100_000 })
    const client = createClient({ apiKey: project.key, baseUrl: t.baseUrl })
    const pet = await client.createPet({ name: 'Pix', categoryId: 1 })
    const png = await sharp({ create: { width: 120, height: 80, channels: 3, background: '#336699' } }).png().toBuffer()
    const first = await client.uploadPetPhoto(pet.id, png)
    const second = await client.uploadPetPhoto(pet.id, new Uint8Array(await sharp(png).jpeg().toBuffer()))
    assert.deepEqual([first.width, first.height, first.variants.webp.map((v) => v.width)], [120, 80, [100, 120]])
    assert.deepEqual((await client.listPetPhotos(pet.id)).map((photo) => photo.id), [first.id, second.id])
    assert.deepEqual((await client.orderPetPhotos(pet.id, [second.id, first.id])).map((photo) => photo.id), [second.id, first.id])
    assert.deepEqual((await client.listPets()).items[0]!.photos?.map((photo) => photo.id), [second.id, first.id])
    await client.deletePetPhoto(pet.id, second.id)
    assert.deepEqual((await client.listPetPhotos(pet.id)).map((photo) => photo.id), [first.id])
    await assert.rejects(client.uploadPetPhoto(pet.id, new TextEncoder().encode('<svg/>')), (error: AdoptionStoreError) => error.status === 415 && error.code === 'unsupported_image_type')
  })

  test('100 creates at 40 a minute: no duplicate, no retry before Retry-After, no ban', { timeout: 60_000 }, async () => {
    // 15 s before a minute boundary, so the first window is a short one.
    const t = await startApp(new ManualClock(Date.UTC(2026, 10, 22, 12, 0, 45)))
    const project = await t.project({ plan: 'enterprise', perMinute: 40, perDay: 100_000 })
    const time = new VirtualTime(t.clock)
    const log: Sent[] = []
    const client = createClient({ apiKey: project.key, baseUrl: t.baseUrl, fetch: recordingFetch(() => time.now(), log), retry: { clock: time } })
    const started = time.now()

    // Eight callers share one client and one queue of 100 animals.
    const queue = Array.from({ length: 100 }, (_, i) => i + 1)
    const created: Pet[] = []
    await Promise.all(
      Array.from({ length: 8 }, () =>
        time.worker(async () => {
          for (let n = queue.shift(); n !== undefined; n = queue.shift()) created.push(await client.createPet({ name: `Animal ${n}`, categoryId: 1 + (n % 5) }))
        }),
      ),
    )

    // Exactly 100 animals, each created once: distinct ids and names, 100 rows in the database.
    assert.equal(created.length, 100)
    assert.equal(new Set(created.map((p) => p.id)).size, 100)
    assert.equal(new Set(created.map((p) => p.name)).size, 100)
    assert.equal(await countPets(t, project.id), 100)

    // Every refusal was rate_limited (never a ban), and no call came back before its Retry-After.
    const calls = byKey(log)
    assert.equal(calls.size, 100, 'one Idempotency-Key per call')
    const refusals = log.filter((e) => e.status === 429)
    assert.ok(refusals.length > 0, 'the batch was rate limited')
    assert.deepEqual(new Set(refusals.map((e) => e.code)), new Set(['rate_limited']))
    for (const attempts of calls.values()) {
      assert.deepEqual(attempts.map((a) => a.status).slice(-1), [201])
      assert.ok(attempts.slice(0, -1).every((a) => a.status === 429))
    }
    const retries = assertHonouredRetryAfter(calls)
    assert.equal(retries, refusals.length)
    // Far from the ban threshold (more than 30 refusals in one window).
    const perWindow = new Map<number, number>()
    for (const r of refusals) perWindow.set(Math.floor(r.at / MINUTE_MS), (perWindow.get(Math.floor(r.at / MINUTE_MS)) ?? 0) + 1)
    assert.ok(Math.max(...perWindow.values()) <= 8, JSON.stringify([...perWindow]))
    // At most 40 admitted in any minute, and the batch needed three windows.
    const admitted = new Map<number, number>()
    for (const e of log.filter((x) => x.status === 201)) admitted.set(Math.floor(e.at / MINUTE_MS), (admitted.get(Math.floor(e.at / MINUTE_MS)) ?? 0) + 1)
    assert.ok(Math.max(...admitted.values()) <= 40)
    assert.equal(admitted.size, 3)
    assert.ok(time.now() - started >= 75_000, 'two minute boundaries were waited for')
    assert.deepEqual(Object.keys(client.rateLimit ?? {}).sort(), ['limit', 'remaining', 'reset'])
    assert.equal(client.rateLimit?.limit, 40)

    // The iterator gives every animal exactly once.
    const ids: number[] = []
    for await (const p of client.iteratePets({ limit: 7 })) ids.push(p.id)
    assert.deepEqual(ids, created.map((p) => p.id).sort((a, b) => a - b))
  })

  test('the iterator returns every animal exactly once, with a status filter, across pages', async () => {
    const t = await startApp()
    const { key } = await t.project({ plan: 'pro' })
    const client = createClient({ apiKey: key, baseUrl: t.baseUrl })
    const made: Pet[] = []
    for (let i = 0; i < 23; i++) made.push(await client.createPet({ name: `P${i}`, categoryId: 1, status: i % 3 === 0 ? 'pending' : 'available' }))
    const all: number[] = []
    for await (const p of client.iteratePets({ limit: 5 })) all.push(p.id)
    assert.deepEqual(all, made.map((p) => p.id))
    const pending: Pet[] = []
    for await (const p of client.iteratePets({ limit: 2, status: 'pending' })) pending.push(p)
    assert.deepEqual(pending, made.filter((p) => p.status === 'pending'))
    const firstPage = await client.listPets({ limit: 5 })
    assert.equal(firstPage.items.length, 5)
    assert.equal(firstPage.next, `${t.baseUrl}/pets?limit=5&after=${made[4]!.id}`)
    assert.equal((await client.listPets({ limit: 100 })).next, undefined)
  })

  test('the search, its sorts and the change feed: every animal once, in the order asked; categories, breeds and locations', async () => {
    const t = await startApp()
    const { key } = await t.project({ plan: 'pro' })
    const client = createClient({ apiKey: key, baseUrl: t.baseUrl })
    const made: Pet[] = []
    for (const name of ['Rex', 'ada', 'Max', 'Bella', 'Zed', 'Chloé', 'Mia']) made.push(await client.createPet({ name, categoryId: 1, sex: name === 'Rex' ? 'male' : 'female' }))
    const byName: string[] = []
    for await (const p of client.iteratePets({ limit: 2, sort: 'name' })) byName.push(p.name)
    assert.deepEqual(byName, ['ada', 'Bella', 'Chloé', 'Max', 'Mia', 'Rex', 'Zed'])
    const shuffled: number[] = []
    for await (const p of client.iteratePets({ limit: 3, sort: 'random', seed: 5 })) shuffled.push(p.id)
    assert.deepEqual([...shuffled].sort((a, b) => a - b), made.map((p) => p.id))
    assert.deepEqual((await client.listPets({ sex: 'male', fields: 'createdAt' })).items.map((p) => [p.name, typeof p.createdAt]), [['Rex', 'string']])

    await client.deletePet(made[1]!.id)
    const changes = []
    for await (const change of client.iteratePetChanges({ limit: 2 })) changes.push(change)
    assert.deepEqual(changes.map((change) => [change.type, change.id]), [...made.filter((_, i) => i !== 1).map((p) => ['changed', p.id]), ['removed', made[1]!.id]])
    const cursor = changes.at(-1)!.cursor
    await client.updatePet(made[0]!.id, { description: 'Loves walks.' })
    const later = []
    for await (const change of client.iteratePetChanges({ after: cursor })) later.push(change)
    assert.deepEqual(later.map((change) => [change.id, change.pet?.description]), [[made[0]!.id, 'Loves walks.']])

    assert.equal((await client.listCategories())[1]?.name, 'Cat')
    assert.ok((await client.listBreeds(2)).some((breed) => breed.name === 'Maine Coon'))
    assert.deepEqual((await client.listLocations()).items, [])
  })

  test('a banned key stops at once with the end of its ban', async () => {
    const t = await startApp()
    const { key } = await t.project({ plan: 'enterprise', perMinute: 1, perDay: 1000 })
    const raw = (url: string) => fetch(`${t.baseUrl}${url}`, { headers: { authorization: `Bearer ${key}` } })
    assert.equal((await raw('/pets')).status, 200)
    // A client that ignores 429s: 30 refusals, so the next request starts a ban.
    for (let i = 0; i < 30; i++) assert.equal((await raw('/pets')).status, 429)

    const clock = { now: () => t.clock.now(), sleeps: [] as number[], sleep: async (ms: number) => void clock.sleeps.push(ms) }
    const log: Sent[] = []
    const client = createClient({ apiKey: key, baseUrl: t.baseUrl, fetch: recordingFetch(() => t.clock.now(), log), retry: { clock } })
    const failure = await client.createPet({ name: 'Rex', categoryId: 1 }).catch((e: unknown) => e)
    assert.ok(failure instanceof ApiKeyBannedError, String(failure))
    assert.equal(failure.status, 429)
    assert.equal(failure.retryAfter, 600)
    assert.equal(failure.bannedUntil.toISOString(), new Date(t.clock.now() + 600_000).toISOString())
    assert.match(failure.message, new RegExp(`banned until ${failure.bannedUntil.toISOString().replace(/\./g, '\\.')}`))
    assert.equal(log.length, 1, 'one request, no retry')
    assert.deepEqual(clock.sleeps, [], 'no wait')
    // Still banned later on: each call is one request.
    t.clock.advance(5 * MINUTE_MS)
    await assert.rejects(client.listPets(), (e: unknown) => e instanceof ApiKeyBannedError && e.retryAfter === 300)
    assert.equal(log.length, 2)
  })

  test('typed errors for 400, 401, 404, 409 and 422', async () => {
    const t = await startApp()
    const { key } = await t.project({ plan: 'pro' })
    const client = createClient({ apiKey: key, baseUrl: t.baseUrl })

    const expectError = async (call: Promise<unknown>, code: string, status: number) => {
      const failure = await call.then(
        () => assert.fail(`expected ${code}`),
        (e: unknown) => e,
      )
      assert.ok(failure instanceof AdoptionStoreError, String(failure))
      assert.equal(failure.code, code, failure.message)
      assert.equal(failure.status, status)
      assert.ok(failure.message.length > 10)
      assert.ok(failure.requestId)
      return failure
    }
    await expectError(client.createPet({ name: '   ', categoryId: 1 }), 'invalid_request', 400)
    await expectError(client.listPets({ limit: 1000 }), 'invalid_request', 400)
    await expectError(createClient({ apiKey: 'as_live_nope', baseUrl: t.baseUrl }).listPets(), 'unauthorized', 401)
    await expectError(client.getPet(424242), 'not_found', 404)
    await expectError(client.getOrder(424242), 'not_found', 404)
    await expectError(client.placeOrder({ petId: 424242 }), 'not_found', 404)

    const rex = await client.createPet({ name: 'Rex', categoryId: 1 })
    assert.deepEqual(await client.getPet(rex.id), rex)
    const order = await client.placeOrder({ petId: rex.id })
    assert.deepEqual(order, { id: order.id, petId: rex.id, status: 'placed', createdAt: order.createdAt, complete: false })
    await expectError(client.placeOrder({ petId: rex.id }), 'pet_unavailable', 409)
    assert.equal((await client.approveOrder(order.id)).status, 'approved')
    await expectError(client.approveOrder(order.id), 'invalid_transition', 409)
    assert.deepEqual(await client.deliverOrder(order.id), { ...order, status: 'delivered', complete: true })
    await expectError(client.cancelOrder(order.id), 'invalid_transition', 409)
    assert.deepEqual(await client.getOrder(order.id), { ...order, status: 'delivered', complete: true })
    const listed: Order[] = []
    for await (const o of client.iterateOrders({ status: 'delivered' })) listed.push(o)
    assert.deepEqual(listed.map((o) => o.id), [order.id])
    assert.deepEqual((await client.listOrders({ status: 'placed' })).items, [])

    await client.createPet({ name: 'A', categoryId: 1 }, { idempotencyKey: 'same-key' })
    await expectError(client.createPet({ name: 'B', categoryId: 1 }, { idempotencyKey: 'same-key' }), 'idempotency_key_reused', 422)
  })

  test('updatePet sends a merge patch with an Idempotency-Key; deletePet removes, and says why it cannot', async () => {
    const t = await startApp()
    const { key } = await t.project({ plan: 'pro' })
    const log: Sent[] = []
    const client = createClient({ apiKey: key, baseUrl: t.baseUrl, fetch: recordingFetch(() => t.clock.now(), log) })
    const rex = await client.createPet({ name: 'Rex', categoryId: 1 })
    assert.deepEqual(await client.updatePet(rex.id, { name: 'Rexi' }), { ...rex, name: 'Rexi' })
    assert.deepEqual(await client.updatePet(rex.id, { categoryId: 4 }, { idempotencyKey: 'recategorise' }), { ...rex, name: 'Rexi', categoryId: 4 })
    const patches = log.filter((sent) => sent.method === 'PATCH')
    assert.equal(patches.length, 2)
    assert.ok(patches.every((sent) => sent.contentType === 'application/merge-patch+json'), JSON.stringify(patches))
    assert.match(String(patches[0]?.idempotencyKey), /^[0-9a-f-]{36}$/)
    assert.equal(patches[1]?.idempotencyKey, 'recategorise')

    const order = await client.placeOrder({ petId: rex.id })
    const refused = await client.deletePet(rex.id).catch((e: unknown) => e)
    assert.ok(refused instanceof AdoptionStoreError, String(refused))
    assert.equal(refused.code, 'pet_has_open_order')
    assert.equal(refused.status, 409)
    await client.cancelOrder(order.id)
    assert.equal(await client.deletePet(rex.id), undefined)
    const gone = await client.getPet(rex.id).catch((e: unknown) => e)
    assert.ok(gone instanceof AdoptionStoreError && gone.code === 'not_found', String(gone))
    assert.deepEqual(await client.getOrder(order.id), { ...order, status: 'cancelled' }, 'the order outlives its animal')
  })

  test('a lost response is retried with the same Idempotency-Key: the server replays, nothing is duplicated', async () => {
    const t = await startApp()
    const project = await t.project({ plan: 'pro' })
    const log: Sent[] = []
    const replayed: (string | null)[] = []
    let lose = 0
    // The request reaches the server and is done there; its response is lost on the way back.
    const lossy = (async (input: string | URL | Request, init?: RequestInit) => {
      const response = await fetch(input, init)
      replayed.push(response.headers.get('idempotent-replayed'))
      if (lose > 0) {
        lose--
        await response.body?.cancel()
        throw new TypeError('fetch failed', { cause: new Error('socket hang up') })
      }
      return response
    }) as typeof fetch
    const clock = new FakeClock()
    const client = createClient({ apiKey: project.key, baseUrl: t.baseUrl, fetch: recordingFetch(() => clock.now(), log, lossy), retry: { clock } })

    lose = 2
    const rex = await client.createPet({ name: 'Rex', categoryId: 1 })
    assert.equal(await countPets(t, project.id), 1)
    assert.deepEqual(replayed, [null, 'true', 'true'])
    lose = 1
    const order = await client.placeOrder({ petId: rex.id })
    assert.deepEqual(replayed.slice(3), [null, 'true'])
    assert.equal((await client.listOrders()).items.length, 1)
    assert.equal(order.petId, rex.id)

    const calls = byKey(log.filter((e) => e.method === 'POST'))
    assert.deepEqual(
      [...calls.values()].map((attempts) => attempts.length),
      [3, 2],
      'each call kept its key across its retries',
    )
    assert.equal(clock.sleeps.length, 3)
  })
})

// ---------------------------------------------------------------------------------------------

const faketime = (() => {
  try {
    return execFileSync('which', ['faketime'], { encoding: 'utf8' }).trim() || undefined
  } catch {
    return undefined
  }
})()

describe('against the built server, in real time', () => {
  before(() => assertBuilt())
  afterEach(cleanup)

  test(
    'the default clock really waits Retry-After (server under libfaketime, its minute ending in seconds)',
    { timeout: 90_000, skip: faketime ? false : 'needs the faketime command (Debian package faketime)' },
    async () => {
      const dataDir = makeDataDir()
      await runCliOk(['projects', 'create', 'realtime', '--plan', 'enterprise', '--per-minute', '5', '--per-day', '1000'], dataDir)
      const key = (JSON.parse(await runCliOk(['keys', 'create', '--project', 'realtime', '--json'], dataDir)) as { key: string }).key

      // Start the server with its clock shifted so that its current minute has about 10 s left,
      // read from the server itself (`RateLimit: "minute";r=..;t=<seconds left>`). Start-up that
      // took longer than planned (a busy machine: several seconds) is made up for by starting
      // again further into the next minute (a new window, so the probes never add up); more time
      // left than wanted is waited out.
      let offset = (((50 - (Date.now() / 1000 + 1)) % 60) + 60) % 60
      let server: ServerProcess | undefined
      let secondsLeft = 0
      for (let tries = 0; ; tries++) {
        server = await startServer({ dataDir, wrapper: [faketime!, '-f', `+${Math.round(offset)}s`] })
        const probe = await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })
        await probe.body?.cancel()
        secondsLeft = Number(/"minute";r=\d+;t=(\d+)/.exec(probe.headers.get('ratelimit') ?? '')?.[1])
        if (secondsLeft >= 3 || tries === 5) break
        await server.stop()
        offset = (offset + secondsLeft - 10 + 60) % 60
      }
      if (secondsLeft > 12) {
        await sleep((secondsLeft - 8) * 1000)
        secondsLeft = 8
      }
      assert.ok(secondsLeft >= 3 && secondsLeft <= 12, `the server's minute has ${secondsLeft} s left`)

      // 4 requests left in this window (the probe took one), 8 creates: the 5th is refused.
      const log: Sent[] = []
      const client = createClient({ apiKey: key, baseUrl: `${server.url}/v1`, fetch: recordingFetch(() => Date.now(), log) })
      const started = Date.now()
      const created: Pet[] = []
      for (let i = 0; i < 8; i++) created.push(await client.createPet({ name: `Realtime ${i}`, categoryId: 1 }))
      const elapsed = Date.now() - started

      const refusals = log.filter((e) => e.status === 429)
      assert.equal(refusals.length, 1, JSON.stringify(log))
      assert.equal(refusals[0]!.code, 'rate_limited')
      assert.ok(refusals[0]!.retryAfter! >= 1 && refusals[0]!.retryAfter! <= secondsLeft)
      assert.equal(assertHonouredRetryAfter(byKey(log)), 1)
      assert.ok(elapsed >= refusals[0]!.retryAfter! * 1000)
      assert.equal(new Set(created.map((p) => p.id)).size, 8)
      // The window's fifth and last request.
      assert.deepEqual((await client.listPets({ limit: 100 })).items, created)
      assert.deepEqual(client.rateLimit?.remaining, 0)
    },
  )
})
