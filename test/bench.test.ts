/**
 * The benchmark's own code: its load generators count what servers answer, and a run that got
 * anything but the expected status stops the benchmark instead of becoming a figure.
 */
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { assertExpected, percentiles, type RequestShape, runLoad } from '../bench/lib/load.js'
import { runFixedRate } from '../bench/lib/rate.js'

/** A server answering `status` to every request, counting them and the forwarded addresses. */
function answering(status: number) {
  const seen = { requests: 0, addresses: new Set<string>() }
  const server = http.createServer((request, response) => {
    seen.requests++
    seen.addresses.add(String(request.headers['x-forwarded-for']))
    request.resume()
    request.on('end', () => response.writeHead(status, { 'content-type': 'application/json' }).end('{"ok":true}'))
  })
  return {
    seen,
    async start() {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

const shape: RequestShape = { method: 'GET', path: '/v1/pets', headers: { authorization: 'Bearer k' } }
const quick = { seconds: 0.3, connections: 2 }

describe('benchmark load runs', () => {
  const ok = answering(200)
  const failing = answering(500)
  let okUrl = ''
  let failingUrl = ''
  before(async () => {
    okUrl = await ok.start()
    failingUrl = await failing.start()
  })
  after(async () => {
    await ok.stop()
    await failing.stop()
  })

  test('a run against a server answering as expected counts every response and passes the check', async () => {
    const before = ok.seen.requests
    const result = await runLoad(okUrl, shape, 200, process.pid, quick)
    assert.ok(result.responses > 0)
    assert.deepEqual(result.statuses, { 200: result.responses })
    assert.equal(result.unexpected, 0)
    assert.equal(result.errors + result.timeouts, 0)
    // Every response the server sent was counted (autocannon may stop with a few in flight).
    assert.ok(ok.seen.requests - before >= result.responses)
    assert.doesNotThrow(() => assertExpected(result, 200, 'GET list'))
  })

  test('a run whose server answers 500 where 200 is expected fails loudly, naming what it got', async () => {
    const result = await runLoad(failingUrl, shape, 200, process.pid, quick)
    assert.ok(result.responses > 0)
    assert.equal(result.unexpected, result.responses)
    assert.throws(() => assertExpected(result, 200, 'GET list on the service (round 1)'), (error: Error) => {
      assert.match(error.message, /^GET list on the service \(round 1\): expected every response to be 200/)
      assert.match(error.message, new RegExp(`500×${result.responses}`))
      return true
    })
  })

  test('the fixed-rate run counts statuses the same way, and rotates client addresses when asked', async () => {
    const addressesBefore = ok.seen.addresses.size
    const good = await runFixedRate(okUrl, { ...shape, rotateForwardedFor: true }, 200, process.pid, { seconds: 0.2, connections: 2, rate: 200 })
    assert.equal(good.responses, 40)
    assert.equal(good.unexpected, 0)
    assert.ok(ok.seen.addresses.size - addressesBefore >= 40, 'each request came from its own address')
    assertExpected(good, 200, 'latency')

    const bad = await runFixedRate(failingUrl, shape, 200, process.pid, { seconds: 0.2, connections: 2, rate: 200 })
    assert.equal(bad.unexpected, bad.responses)
    assert.throws(() => assertExpected(bad, 200, 'latency'), /500×40/)
  })

  test('connection failures fail the check even when every answer had the expected status', async () => {
    const result = await runLoad(okUrl, shape, 200, process.pid, quick)
    assert.throws(() => assertExpected({ ...result, errors: 1 }, 200, 'GET list'), /1 connection errors or timeouts/)
    assert.throws(() => assertExpected({ ...result, responses: 0, statuses: {} }, 200, 'GET list'), /got 0 responses \(none\)/)
  })
})

test('percentiles are exact ranks of the recorded times', () => {
  const values = Array.from({ length: 1000 }, (_, i) => 1000 - i) // 1000 … 1, unsorted input
  assert.deepEqual(percentiles(values), { p50: 500, p90: 900, p99: 990, p999: 999, max: 1000 })
  assert.ok(Number.isNaN(percentiles([]).p50))
})
