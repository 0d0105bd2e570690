/**
 * The benchmark's own code: its load generators count what servers answer, and a run that got
 * anything but the expected status stops the benchmark instead of becoming a figure.
 */
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { assertExpected, countUnexpected, type LoadResult, percentiles, type RequestShape, requestAt, runLoad } from '../bench/lib/load.js'
import { runFixedRate } from '../bench/lib/rate.js'
import { type RunRecord, type ScenarioInfo, summarise } from '../bench/lib/report.js'
import { findWrk, luaString, parseWrkOutput, runWrk, wrkResult } from '../bench/lib/wrk.js'
import type { TestPlan } from '../scripts/test-plan.js'

// Opens no database (the load generators' own code): once. Its load runs are short and what it
// asserts is counted (responses, statuses, creates, addresses), never timed: with the other files.
export const testPlan: TestPlan = { legs: 'sqlite' }

/**
 * A server answering `status` to every request (or, given a function, the status for its
 * method), counting requests, creates (POSTs with the expected body) and the forwarded addresses.
 */
function answering(status: number | ((method: string) => number)) {
  const seen = { requests: 0, posts: 0, postBodies: new Set<string>(), addresses: new Set<string>() }
  const server = http.createServer((request, response) => {
    seen.requests++
    seen.addresses.add(String(request.headers['x-forwarded-for']))
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      if (request.method === 'POST') {
        seen.posts++
        seen.postBodies.add(`${request.headers['content-type']} ${Buffer.concat(chunks).toString('utf8')}`)
      }
      const answer = typeof status === 'number' ? status : status(request.method ?? '')
      response.writeHead(answer, { 'content-type': 'application/json' }).end('{"ok":true}')
    })
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
const create = { method: 'POST' as const, path: '/v1/pets', headers: { authorization: 'Bearer k', 'content-type': 'application/json' }, body: '{"name":"Bench Rex"}' }
/** The mixed scenario's shape: GET list, every 10th request a create. */
const mixed: RequestShape = { ...shape, mix: { every: 10, request: create } }
const MIXED = [200, 201] as const
const quick = { seconds: 0.3, connections: 2 }
const creates = (result: LoadResult) => result.statuses[201] ?? 0

describe('the mixed pattern', () => {
  test('exactly one request in ten is the create, the 10th, 20th, …: spread evenly, never two in a row', () => {
    const sequence = Array.from({ length: 1000 }, (_, i) => requestAt(mixed, i).method)
    assert.equal(sequence.filter((m) => m === 'POST').length, 100)
    sequence.forEach((method, i) => assert.equal(method, i % 10 === 9 ? 'POST' : 'GET', `request ${i}`))
    // Any 10 consecutive requests hold exactly one create.
    for (let start = 0; start + 10 <= sequence.length; start++) assert.equal(sequence.slice(start, start + 10).filter((m) => m === 'POST').length, 1)
    assert.deepEqual(requestAt(mixed, 9), create)
    assert.deepEqual(requestAt(mixed, 0), shape)
  })

  test('a shape that is not mixed is the same request every time', () => {
    for (const i of [0, 9, 19, 1000]) assert.deepEqual(requestAt(shape, i), shape)
  })
})

describe('the status check', () => {
  const result = (statuses: Record<string, number>, extra: Partial<LoadResult> = {}): LoadResult => {
    const responses = Object.values(statuses).reduce((a, b) => a + b, 0)
    return {
      seconds: 1,
      responses,
      rps: responses,
      statuses,
      unexpected: 0, // as a generator that did not know the mix would say; the check recounts
      errors: 0,
      timeouts: 0,
      latencyMs: percentiles([1]),
      bytesPerResponse: 0,
      serverCpuUsPerResponse: 0,
      loadgenCpuShare: 0,
      otherCpuCores: 0,
      ...extra,
    }
  }

  test('the mixed scenario accepts exactly 200 and 201', () => {
    assert.doesNotThrow(() => assertExpected(result({ 200: 90, 201: 10 }), MIXED, 'mixed'))
    assert.doesNotThrow(() => assertExpected(result({ 200: 10 }), MIXED, 'mixed'))
    assert.equal(countUnexpected({ 200: 90, 201: 10 }, MIXED), 0)
  })

  test('the mixed scenario fails on any other status, naming both expected ones', () => {
    for (const other of [204, 400, 401, 429, 500]) {
      assert.throws(() => assertExpected(result({ 200: 90, 201: 9, [other]: 1 }), MIXED, 'Mixed on the service (round 2)'), (error: Error) => {
        assert.match(error.message, /^Mixed on the service \(round 2\): expected every response to be 200 or 201; got 100 responses/)
        assert.match(error.message, new RegExp(`${other}×1`))
        assert.match(error.message, /1 unexpected/)
        return true
      })
    }
  })

  test('a single-status scenario still rejects the other status of the mix', () => {
    assert.throws(() => assertExpected(result({ 201: 5, 200: 1 }), 201, 'POST'), /expected every response to be 201; .*1 unexpected/)
    assert.throws(() => assertExpected(result({ 200: 5, 201: 1 }), 200, 'GET list'), /1 unexpected/)
  })

  test('responses the generator counted but whose status it did not see fail the check', () => {
    assert.throws(() => assertExpected(result({ 200: 5 }, { responses: 6 }), 200, 'GET list'), /1 without a counted status/)
  })
})

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

  test('autocannon sends the mixed pattern over the whole run: one create in ten, the body posted', async () => {
    const server = answering((method) => (method === 'POST' ? 201 : 200))
    const url = await server.start()
    try {
      const result = await runLoad(url, mixed, MIXED, process.pid, { seconds: 0.3, connections: 4 })
      assertExpected(result, MIXED, 'mixed')
      assert.ok(result.responses >= 100)
      // One counter over all connections: off by at most the requests in flight at the end.
      assert.ok(Math.abs(creates(result) - result.responses / 10) <= 4, `${creates(result)} creates in ${result.responses}`)
      assert.deepEqual([...server.seen.postBodies], [`application/json ${create.body}`])
      // The same run against a server answering 200 to everything fails: a create must be 201 …
      const wrong = await runLoad(okUrl, mixed, 201, process.pid, quick)
      assert.throws(() => assertExpected(wrong, 201, 'POST'), /200×/)
    } finally {
      await server.stop()
    }
  })

  test('the fixed-rate run sends the mixed pattern exactly', async () => {
    const server = answering((method) => (method === 'POST' ? 201 : 200))
    const url = await server.start()
    try {
      const result = await runFixedRate(url, mixed, MIXED, process.pid, { seconds: 0.2, connections: 2, rate: 200 })
      assert.deepEqual(result.statuses, { 200: 36, 201: 4 })
      assert.equal(result.unexpected, 0)
      assertExpected(result, MIXED, 'mixed at a fixed rate')
      // Against a server answering 500 to the creates, the same run fails.
      const failingCreates = answering((method) => (method === 'POST' ? 500 : 200))
      const failingUrl = await failingCreates.start()
      const bad = await runFixedRate(failingUrl, mixed, MIXED, process.pid, { seconds: 0.2, connections: 2, rate: 200 })
      await failingCreates.stop()
      assert.deepEqual(bad.statuses, { 200: 36, 500: 4 })
      assert.throws(() => assertExpected(bad, MIXED, 'mixed'), /expected every response to be 200 or 201; got 40 responses \(200×36, 500×4\)/)
    } finally {
      await server.stop()
    }
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

describe('wrk', () => {
  const sample = [
    'Running 1s test @ http://127.0.0.1:1/v1/pets',
    '  1 threads and 50 connections',
    'WRK_RESULT {"requests":100,"durationUs":1000000,"bytes":14300,"statuses":{"200":90,"201":10},"errors":{"connect":0,"read":1,"write":0,"timeout":2},"latencyUs":{"p50":1500,"p90":2000,"p99":4000,"p999":5000,"max":6000}}',
    '',
  ].join('\n')

  test('its result line is parsed into the same figures as the other generators', () => {
    const result = wrkResult(parseWrkOutput(sample), MIXED, { serverCpuUsPerResponse: 50, loadgenCpuShare: 0.3, otherCpuCores: 0 })
    assert.equal(result.responses, 100)
    assert.equal(result.rps, 100)
    assert.deepEqual(result.statuses, { 200: 90, 201: 10 })
    assert.equal(result.unexpected, 0)
    assert.equal(result.errors, 1)
    assert.equal(result.timeouts, 2)
    assert.deepEqual(result.latencyMs, { p50: 1.5, p90: 2, p99: 4, p999: 5, max: 6 })
    assert.equal(result.bytesPerResponse, 143)
    assert.equal(wrkResult(parseWrkOutput(sample), 200, { serverCpuUsPerResponse: 0, loadgenCpuShare: 0, otherCpuCores: 0 }).unexpected, 10)
  })

  test('output without the result line, or whose statuses do not add up, is an error', () => {
    assert.throws(() => parseWrkOutput('Running 1s test\nRequests/sec: 1000\n'), /no WRK_RESULT line/)
    assert.throws(() => parseWrkOutput(sample.replace('"201":10', '"201":9')), /counted 100 responses but the script counted 99 statuses/)
  })

  test('strings reach the Lua script byte for byte', () => {
    assert.equal(luaString('a"b\\c\né'), '"a\\34b\\92c\\10\\195\\169"')
  })

  test('without wrk on the PATH, a run fails with a clear message', async () => {
    assert.equal(findWrk('/nonexistent'), undefined)
    const saved = process.env.PATH
    process.env.PATH = '/nonexistent'
    try {
      await assert.rejects(runWrk('http://127.0.0.1:1', shape, 200, process.pid, quick), /wrk is not installed \(Debian: apt-get install wrk\); set BENCH_LOADGEN=autocannon/)
    } finally {
      process.env.PATH = saved
    }
  })

  describe('against servers', { skip: findWrk() ? false : 'wrk is not installed' }, () => {
    const ok = answering(200)
    const failing = answering(500)
    const mixedServer = answering((method) => (method === 'POST' ? 201 : 200))
    const urls: string[] = []
    before(async () => {
      for (const server of [ok, failing, mixedServer]) urls.push(await server.start())
    })
    after(async () => {
      for (const server of [ok, failing, mixedServer]) await server.stop()
    })
    const run = { seconds: 1, connections: 2 }

    test('the Lua script counts every status: all 200s pass, all 500s fail naming them', async () => {
      const good = await runWrk(urls[0]!, shape, 200, process.pid, run)
      assert.ok(good.responses > 0)
      assert.deepEqual(good.statuses, { 200: good.responses })
      assertExpected(good, 200, 'GET list')
      // The server saw every counted response (and perhaps a couple still in flight at the end).
      assert.ok(ok.seen.requests >= good.responses)

      const bad = await runWrk(urls[1]!, shape, 200, process.pid, run)
      assert.deepEqual(bad.statuses, { 500: bad.responses })
      assert.throws(() => assertExpected(bad, 200, 'GET list'), new RegExp(`500×${bad.responses}`))
    })

    test('the mixed pattern: one create in ten over the same connections, the body posted, 200 + 201 accepted', async () => {
      const result = await runWrk(urls[2]!, mixed, MIXED, process.pid, run)
      assertExpected(result, MIXED, 'mixed')
      // Counted per thread (one here) in sending order: off by at most the requests in flight.
      assert.ok(Math.abs(creates(result) - result.responses / 10) <= 2, `${creates(result)} creates in ${result.responses}`)
      assert.ok(creates(result) > 0)
      assert.deepEqual([...mixedServer.seen.postBodies], [`application/json ${create.body}`])
      assert.throws(() => assertExpected(result, 200, 'GET list'), /unexpected/)
    })

    test('a rotating X-Forwarded-For gives every request its own address', async () => {
      const before = ok.seen.addresses.size
      const result = await runWrk(urls[0]!, { ...shape, rotateForwardedFor: true }, 200, process.pid, run)
      assert.ok(ok.seen.addresses.size - before >= Math.min(result.responses, 65_536) - 1)
    })
  })
})

test('the cache-off row is the RESPONSE_CACHE=off runs of the GET list rounds, against the same rounds\' baseline', () => {
  const run = (round: number, target: RunRecord['target'], rps: number): RunRecord => ({
    phase: 'round',
    round,
    scenario: 'list',
    target,
    result: { seconds: 1, responses: rps, rps, statuses: { 200: rps }, unexpected: 0, errors: 0, timeouts: 0, latencyMs: percentiles([1]), bytesPerResponse: 1, serverCpuUsPerResponse: 1e6 / rps, loadgenCpuShare: 0, otherCpuCores: 0 },
  })
  const runs = [run(1, 'service', 800), run(1, 'baseline', 1000), run(1, 'nocache', 400), run(2, 'service', 700), run(2, 'baseline', 500), run(2, 'nocache', 100)]
  const scenarios: ScenarioInfo[] = [
    { id: 'list', title: 'GET list, cache on', expectedStatus: 200, ratioTarget: 0.7 },
    { id: 'listNoCache', title: 'GET list, cache off', expectedStatus: 200, ratioTarget: 0.3, measuredAs: { scenario: 'list', target: 'nocache' } },
  ]
  const [on, off] = summarise(scenarios, runs)
  assert.deepEqual(on!.vsBaseline?.perRound, [0.8, 1.4])
  assert.deepEqual(off!.vsBaseline?.perRound, [0.4, 0.2])
  assert.equal(off!.targets.service?.medianRps, 250)
  assert.equal(off!.targets.baseline?.medianRps, 750)
  assert.equal(off!.pgVsService, undefined)
})
