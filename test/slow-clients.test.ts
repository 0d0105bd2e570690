import assert from 'node:assert/strict'
import http from 'node:http'
import net from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, afterEach, describe, test } from 'node:test'
import { applyConnectionLimits, type ConnectionLimits, connectionLimits, DEFAULT_CONNECTION_LIMITS } from '../src/http/connection-limits.js'
import { MAX_JSON_DEPTH, MAX_URL_LENGTH } from '../src/http/request-limits.js'
import { bearer, createTestApp, type TestApp } from './helpers/app.js'
import { cleanup, startServer } from './helpers/process.js'
import type { TestPlan } from '../scripts/test-plan.js'

// Mostly waits on real time: the built server's 10 s header timeout and the slow clients. The
// connection limits are the HTTP server's, the same on both back ends (docs/decisions.md).
export const testPlan: TestPlan = { legs: 'sqlite', lane: 'waiting' }

/**
 * Slow and abusive clients against the real HTTP server on loopback: the app listening with the
 * connection limits `server.ts` applies (`connectionLimits`), the timeouts shortened only where a
 * test waits for one. Deadlines here are generous and only prove that something happens at all;
 * how fast is for the benchmark.
 */

/** Far beyond any timeout under test: only a hung server misses it. */
const DEADLINE_MS = 30_000
/** Timeouts short enough to wait for, checked often. */
const SHORT_TIMEOUTS: Partial<ConnectionLimits> = { headersTimeoutMs: 1_000, requestTimeoutMs: 2_000, timeoutCheckIntervalMs: 100 }

interface Listening {
  t: TestApp
  port: number
  url: string
}

const running: Listening[] = []
const sockets = new Set<net.Socket>()

afterEach(async () => {
  for (const socket of sockets) socket.destroy()
  sockets.clear()
  await Promise.all(running.splice(0).map(({ t }) => t.close()))
})

/** A fresh app listening on loopback with the process's connection limits, some overridden. */
async function listen(overrides: Partial<ConnectionLimits> = {}): Promise<Listening> {
  const t = await createTestApp()
  applyConnectionLimits(t.app.server, connectionLimits(t.config, overrides))
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = t.app.server.address() as net.AddressInfo
  const listening = { t, port, url: `http://127.0.0.1:${port}` }
  running.push(listening)
  return listening
}

/** A raw TCP client that records every byte the server sends and when it closes. */
class RawClient {
  readonly socket: net.Socket
  received = ''
  closed = false
  private readonly whenClosed: Promise<void>
  private trickle: NodeJS.Timeout | undefined

  constructor(port: number) {
    this.socket = net.connect({ port, host: '127.0.0.1' })
    sockets.add(this.socket)
    this.socket.setEncoding('latin1')
    this.socket.on('data', (chunk: string) => (this.received += chunk))
    // Writes racing the server's close fail with EPIPE or ECONNRESET: that is the point.
    this.socket.on('error', () => undefined)
    this.whenClosed = new Promise((resolve) =>
      this.socket.once('close', () => {
        this.closed = true
        clearInterval(this.trickle)
        resolve()
      }),
    )
  }

  connected(): Promise<void> {
    if (!this.socket.connecting) return Promise.resolve()
    return new Promise((resolve, reject) => {
      this.socket.once('connect', resolve)
      this.socket.once('close', () => reject(new Error('closed before connecting')))
    })
  }

  write(text: string): void {
    if (!this.socket.destroyed && this.socket.writable) this.socket.write(text, 'latin1')
  }

  /** Writes `next(i)` every `everyMs` until the connection closes. */
  trickleEvery(everyMs: number, next: (i: number) => string): void {
    let i = 0
    this.trickle = setInterval(() => this.write(next(i++)), everyMs)
  }

  async waitForClose(what: string, deadlineMs = DEADLINE_MS): Promise<void> {
    // Unreferenced: a deadline that was not needed must not hold the test process.
    const timer = sleep(deadlineMs, 'deadline' as const, { ref: false })
    if ((await Promise.race([this.whenClosed, timer])) === 'deadline') {
      assert.fail(`${what}: still open after ${deadlineMs} ms; received ${JSON.stringify(this.received.slice(0, 300))}`)
    }
  }
}

interface RawResponse {
  status: number
  headers: Record<string, string>
  body: string
}

/** Reads one response from the text a RawClient received (or fails naming what came). */
function parseResponse(text: string): RawResponse {
  const end = text.indexOf('\r\n\r\n')
  assert.ok(end > 0, `no complete response: ${JSON.stringify(text.slice(0, 300))}`)
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n')
  const match = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine)
  assert.ok(match, `not a status line: ${statusLine}`)
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
  }
  return { status: Number(match[1]), headers, body: text.slice(end + 4) }
}

/** The error envelope, and nothing else, as application/json. */
function assertEnvelope(response: RawResponse, status: number, code: string, message?: RegExp): void {
  assert.equal(response.status, status, response.body)
  assert.match(response.headers['content-type'] ?? '', /^application\/json/)
  // Refused before any route or after, the answer is never cached nor sniffed.
  assert.equal(response.headers['cache-control'], 'no-store')
  assert.equal(response.headers['x-content-type-options'], 'nosniff')
  const body = JSON.parse(response.body) as Record<string, unknown>
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message', 'status'])
  assert.equal(body.code, code)
  assert.equal(body.status, status)
  if (message) assert.match(String(body.message), message)
}

/** One request on a new connection (no keep-alive pool), with the answer read whole. */
function send(
  url: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer; chunks?: Buffer[] },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${url}${options.path}`, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (body += chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers as Record<string, string>, body }))
      response.on('error', reject)
    })
    request.setTimeout(DEADLINE_MS, () => request.destroy(new Error(`no answer to ${options.path} within ${DEADLINE_MS} ms`)))
    // The server may answer (413) and close before the whole body is written.
    request.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)))
    for (const chunk of options.chunks ?? []) request.write(chunk)
    request.end(options.body)
  })
}

async function enterpriseKey(t: TestApp): Promise<string> {
  return (await t.project({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })).key
}

async function countPets(t: TestApp): Promise<number> {
  const row = await t.database.db.selectFrom('pets').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
  return Number(row.n)
}

describe('slow clients', () => {
  test('a client trickling its headers gets 408 request_timeout in the envelope and is disconnected at the header timeout', async () => {
    const { port, t } = await listen(SHORT_TIMEOUTS)
    const key = await enterpriseKey(t)
    const slow = new RawClient(port)
    await slow.connected()
    slow.write(`GET /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\n`)
    // A header every 200 ms: the connection is never idle, but the headers never end.
    slow.trickleEvery(200, (i) => `X-Slow-${i}: ${'x'.repeat(10)}\r\n`)
    await slow.waitForClose('a client trickling headers')
    assertEnvelope(parseResponse(slow.received), 408, 'request_timeout', /did not arrive in time/)
    assert.equal(parseResponse(slow.received).headers.connection, 'close')
  })

  test('a connection that sends nothing at all is closed at the header timeout', async () => {
    const { port } = await listen(SHORT_TIMEOUTS)
    const idle = new RawClient(port)
    await idle.connected()
    await idle.waitForClose('an idle connection')
    assertEnvelope(parseResponse(idle.received), 408, 'request_timeout')
  })

  test('a client trickling its body is cut at the request timeout, and nothing is created', async () => {
    const { port, t } = await listen(SHORT_TIMEOUTS)
    const key = await enterpriseKey(t)
    const body = JSON.stringify({ name: 'Rex', categoryId: 1, padding: 'x'.repeat(200) })
    const slow = new RawClient(port)
    await slow.connected()
    slow.write(
      `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    )
    // One byte every 100 ms: the whole body would take more than 20 s.
    slow.trickleEvery(100, (i) => body.charAt(i))
    await slow.waitForClose('a client trickling its body')
    assertEnvelope(parseResponse(slow.received), 408, 'request_timeout')
    assert.equal(await countPets(t), 0)
  })

  test('dozens of slow connections held open do not keep normal clients from being served', async () => {
    // The process's own limits, unchanged: the slow clients are still within their 10 s.
    const { port, url, t } = await listen()
    const key = await enterpriseKey(t)
    const slow = Array.from({ length: 60 }, () => new RawClient(port))
    await Promise.all(slow.map((client) => client.connected()))
    slow.forEach((client, i) => {
      if (i % 3 === 0) return // a third send nothing at all
      client.write(i % 3 === 1 ? 'GET /v1/pets HTTP/1.1\r\nHost: localhost\r\n' : `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`)
      client.trickleEvery(500, () => (i % 3 === 1 ? 'X-Slow: 1\r\n' : ' '))
    })

    const statuses: number[] = []
    for (let round = 0; round < 6; round++) {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          i % 2
            ? send(url, { path: '/healthz' })
            : send(url, { method: 'POST', path: '/v1/pets', headers: { ...bearer(key), 'content-type': 'application/json' }, body: JSON.stringify({ name: `Pet ${round}-${i}`, categoryId: 1 }) }),
        ),
      )
      statuses.push(...answers.map((answer) => answer.status))
    }
    assert.deepEqual(statuses.filter((status) => status !== 200 && status !== 201), [], 'every normal request succeeded')
    assert.equal(statuses.length, 60)
    assert.equal(await countPets(t), 30, 'no slow body created anything')
  })
})

describe('oversized and overdeep requests over HTTP', () => {
  test(`a URL over ${MAX_URL_LENGTH} bytes is 414 uri_too_long; one over Node's 16 KiB header limit is 431 headers_too_large`, async () => {
    const { url, t } = await listen()
    const key = await enterpriseKey(t)
    const padded = (length: number, path = '/v1/pets?status=') => path + 'a'.repeat(length - path.length)

    const atLimit = await send(url, { path: padded(MAX_URL_LENGTH), headers: bearer(key) })
    assertEnvelope(atLimit, 400, 'invalid_request', /status/)
    for (const path of [padded(MAX_URL_LENGTH + 1), padded(12_000), padded(9_000, '/nowhere/'), padded(9_000, '/admin/v1/projects?')]) {
      const tooLong = await send(url, { path, headers: bearer(key) })
      assertEnvelope(tooLong, 414, 'uri_too_long', new RegExp(`^The URL is ${path.length} bytes long; at most ${MAX_URL_LENGTH} bytes`))
      assert.ok(tooLong.headers['x-request-id'], 'the request id is sent')
      assert.ok(!tooLong.body.includes('aaaaaaaa'), 'the URL is not echoed')
    }

    const huge = await send(url, { path: padded(20_000), headers: bearer(key) })
    assertEnvelope(huge, 431, 'headers_too_large', /larger than 16384 bytes: shorten the URL \(at most 8192 bytes\) or the headers/)
    assert.equal(huge.headers.connection, 'close')
    const bigHeader = await send(url, { path: '/healthz', headers: { 'x-padding': 'x'.repeat(17_000) } })
    assertEnvelope(bigHeader, 431, 'headers_too_large')

    // 414 is documented on every operation: the contract check of `t.request` accepts it.
    const injected = await t.request({ method: 'GET', url: padded(MAX_URL_LENGTH + 1), headers: bearer(key) })
    assert.equal(injected.statusCode, 414)
    assert.equal((await send(url, { path: '/healthz' })).status, 200, 'the server still serves')
  })

  test('bytes that are not HTTP/1.1 are 400 invalid_request in the envelope, and the connection is closed', async () => {
    const { port } = await listen()
    const client = new RawClient(port)
    await client.connected()
    client.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Bad: a\x01b\r\n\r\n')
    await client.waitForClose('a malformed request')
    assertEnvelope(parseResponse(client.received), 400, 'invalid_request', /^The request is not valid HTTP\/1\.1/)
  })

  test(`a JSON body nested more than ${MAX_JSON_DEPTH} levels deep is 400 before it is parsed; ${MAX_JSON_DEPTH} levels are parsed`, async () => {
    const { url, t } = await listen()
    const key = await enterpriseKey(t)
    const post = (body: string) => send(url, { method: 'POST', path: '/v1/pets', headers: { ...bearer(key), 'content-type': 'application/json' }, body })
    const nested = (depth: number) => `{"name":"Rex","categoryId":1,"extra":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`

    const deepest = await post(nested(MAX_JSON_DEPTH))
    assertEnvelope(deepest, 400, 'invalid_request', /Unknown field "extra"/)
    const tooDeep = await post(nested(MAX_JSON_DEPTH + 1))
    assertEnvelope(tooDeep, 400, 'invalid_request', /^The body cannot be parsed: it nests objects and arrays more than 32 levels deep\.$/)
    // Half a million levels, within the body limit: refused as fast, and the server carries on.
    const hostile = await post('['.repeat(500_000) + ']'.repeat(500_000))
    assertEnvelope(hostile, 400, 'invalid_request', /more than 32 levels deep/)
    const objects = await post('{"a":'.repeat(40) + '1' + '}'.repeat(40))
    assertEnvelope(objects, 400, 'invalid_request', /more than 32 levels deep/)

    // Brackets inside strings, escaped quotes included, are text, not nesting.
    const bracketed = await post(JSON.stringify({ name: `a"\\${'['.repeat(40)}`, categoryId: 1 }))
    assert.equal(bracketed.status, 201, bracketed.body)
    assert.equal(JSON.parse(bracketed.body).name, `a"\\${'['.repeat(40)}`)
  })

  test('a body over BODY_LIMIT is 413 payload_too_large, announced or chunked', async () => {
    const { url, t } = await listen()
    const key = await enterpriseKey(t)
    const limit = t.config.bodyLimit
    const headers = { ...bearer(key), 'content-type': 'application/json' }
    const oversized = `{"name":"${'x'.repeat(limit)}","categoryId":1}`

    const announced = await send(url, { method: 'POST', path: '/v1/pets', headers, body: oversized })
    assertEnvelope(announced, 413, 'payload_too_large', new RegExp(`larger than the limit of ${limit} bytes`))
    const chunked = await send(url, {
      method: 'POST',
      path: '/v1/pets',
      headers: { ...headers, 'transfer-encoding': 'chunked' },
      chunks: Array.from({ length: 20 }, () => Buffer.alloc(Math.ceil(limit / 16), 'x')),
    })
    assertEnvelope(chunked, 413, 'payload_too_large')
    assert.equal(await countPets(t), 0)
  })
})

describe('connections', () => {
  test(`a keep-alive connection ends after ${DEFAULT_CONNECTION_LIMITS.maxRequestsPerSocket} requests, its last answer saying Connection: close`, async () => {
    const { port } = await listen()
    const client = new RawClient(port)
    await client.connected()
    const limit = DEFAULT_CONNECTION_LIMITS.maxRequestsPerSocket
    let consumed = 0
    /** The next whole response on the connection (Content-Length delimited). */
    const next = async (): Promise<RawResponse> => {
      const deadline = Date.now() + DEADLINE_MS
      for (;;) {
        const text = client.received.slice(consumed)
        const end = text.indexOf('\r\n\r\n')
        if (end > 0) {
          const length = Number(/\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end))?.[1] ?? 0)
          if (text.length >= end + 4 + length) {
            consumed += end + 4 + length
            return parseResponse(text.slice(0, end + 4 + length))
          }
        }
        if (client.closed) assert.fail(`closed after ${consumed} bytes, mid-response`)
        if (Date.now() > deadline) assert.fail('no response within the deadline')
        await new Promise((resolve) => setImmediate(resolve))
      }
    }
    for (let i = 1; i <= limit; i++) {
      client.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n')
      const response = await next()
      assert.equal(response.status, 200, `request ${i}`)
      assert.equal(response.headers.connection, i < limit ? 'keep-alive' : 'close', `request ${i}`)
    }
    await client.waitForClose('the connection after its last request')
  })

  test('connections beyond the cap are closed as soon as they are accepted; service resumes when others end', async () => {
    // Long timeouts, so that the held connections stay held however slow the machine is.
    const { port, url, t } = await listen({ maxConnections: 20, headersTimeoutMs: 120_000, requestTimeoutMs: 120_000 })
    const held = Array.from({ length: 20 }, () => new RawClient(port))
    await Promise.all(held.map((client) => client.connected()))
    const count = () => new Promise<number>((resolve, reject) => t.app.server.getConnections((error, n) => (error ? reject(error) : resolve(n))))
    const deadline = Date.now() + DEADLINE_MS
    while ((await count()) < 20) {
      assert.ok(Date.now() < deadline, 'the held connections were not all accepted')
      await sleep(20)
    }

    const extra = new RawClient(port)
    extra.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n')
    await extra.waitForClose('a connection beyond the cap')
    assert.equal(extra.received, '', 'nothing was answered beyond the cap')

    for (const client of held.slice(0, 5)) client.socket.destroy()
    for (;;) {
      if ((await count()) <= 15) break
      assert.ok(Date.now() < deadline, 'the closed connections were not released')
      await sleep(20)
    }
    assert.equal((await send(url, { path: '/healthz' })).status, 200)
  })
})

describe('the built server', () => {
  after(cleanup)

  test('applies the limits of server.ts: 408 for an idle connection after the 10 s header timeout, 414 for a long URL', { timeout: 90_000 }, async () => {
    const server = await startServer()
    const url = server.url
    const tooLong = await send(url, { path: `/v1/pets?status=${'a'.repeat(MAX_URL_LENGTH)}` })
    assertEnvelope(tooLong, 414, 'uri_too_long')

    const idle = new RawClient(server.port)
    await idle.connected()
    await idle.waitForClose('an idle connection to the built server', 60_000)
    assertEnvelope(parseResponse(idle.received), 408, 'request_timeout')
    assert.equal((await send(url, { path: '/healthz' })).status, 200)
  })
})
