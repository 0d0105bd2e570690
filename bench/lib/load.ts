/**
 * One load run: autocannon against one target, in this process, with our own latency record.
 *
 * autocannon's own histogram keeps whole milliseconds, which is too coarse for a service that
 * answers in a fraction of one; so every response time (fractional ms, as autocannon measures
 * it) is also kept here and percentiles are computed exactly from them.
 */
import autocannon, { type RequestSpec, type Result } from 'autocannon'
import { cpuMsOf, machineBusyMs } from './proc.js'

export interface RequestShape {
  method: 'GET' | 'POST'
  path: string
  headers: Record<string, string>
  body?: string
  /** Give every request a different X-Forwarded-For (see `forwardedFor`). */
  rotateForwardedFor?: boolean
  /**
   * A mixed load: every `every`-th request (the 10th, 20th, … of the run, counted over all its
   * connections) is `request` instead of this shape. See `requestAt`.
   */
  mix?: { every: number; request: SingleRequest }
}

export type SingleRequest = Omit<RequestShape, 'mix'>

/** The status a scenario must answer, or the statuses (a mixed scenario: 200 for reads, 201 for creates). */
export type Expected = number | readonly number[]

export const expectedList = (expected: Expected): readonly number[] => (typeof expected === 'number' ? [expected] : expected)

/**
 * The `index`-th request (0-based, in the order requests are sent, over all connections) of a
 * run of `shape`: for a mixed shape, requests `every - 1`, `2 × every - 1`, … are the mixed-in
 * request, so exactly one in `every` is, spread evenly (never two in a row, never bunched at the
 * start or end). Every load generator (autocannon, the fixed-rate one, wrk's Lua) follows it.
 */
export function requestAt(shape: RequestShape, index: number): SingleRequest {
  const { mix, ...single } = shape
  return mix && index % mix.every === mix.every - 1 ? mix.request : single
}

/** Responses whose status is not one of the expected ones. */
export function countUnexpected(statuses: Record<string, number>, expected: Expected): number {
  const allowed = new Set(expectedList(expected).map(String))
  return Object.entries(statuses).reduce((sum, [status, n]) => sum + (allowed.has(status) ? 0 : n), 0)
}

export interface LoadOptions {
  seconds: number
  connections: number
  /** Fixed overall request rate (latency runs); absent means as fast as the target answers. */
  rate?: number
}

export interface Percentiles {
  p50: number
  p90: number
  p99: number
  p999: number
  max: number
}

export interface LoadResult {
  seconds: number
  responses: number
  rps: number
  statuses: Record<string, number>
  /** Responses whose status was not the scenario's expected one. */
  unexpected: number
  /** Connection errors and timeouts, as autocannon counts them. */
  errors: number
  timeouts: number
  /** Exact percentiles of every response's time, in milliseconds. */
  latencyMs: Percentiles
  /** Fixed-rate runs: p99 measured from each request's place in the schedule (see rate.ts). */
  scheduledP99Ms?: number | undefined
  bytesPerResponse: number
  /** CPU the server process used during the run, per response, in microseconds. */
  serverCpuUsPerResponse: number
  /** CPU this process (the load generator) used, as a share of one core. */
  loadgenCpuShare: number
  /** Cores' worth of CPU used by everything else on the machine during the run. */
  otherCpuCores: number
}

let current: { stop(): void } | undefined
/** Stops the run in progress (Ctrl-C), whichever load generator runs it. */
export function stopCurrentLoad(): void {
  current?.stop()
}
/** Registers the run in progress, for `stopCurrentLoad`; undefined when it ends. */
export function setCurrentLoad(run: { stop(): void } | undefined): void {
  current = run
}

/**
 * A different client address for each request: 65,536 addresses in 10.0.0.0/16, round robin.
 * Each sees far fewer than the service's 60 unauthenticated requests a minute at any rate this
 * machine reaches, and the service's per-address table stays bounded.
 */
let addressCounter = 0
export function forwardedFor(): string {
  const i = addressCounter++ & 0xffff
  return `10.0.${i >> 8}.${i & 0xff}`
}

export async function runLoad(baseUrl: string, shape: RequestShape, expected: Expected, serverPid: number, options: LoadOptions): Promise<LoadResult> {
  const times: number[] = []
  const statuses: Record<string, number> = {}
  // A mixed shape is rebuilt for every request from one counter shared by all connections, so
  // the mix holds over the whole run (not per connection, which would bunch the creates).
  let sent = 0
  const requests: RequestSpec[] | undefined = shape.mix
    ? [
        {
          method: shape.method,
          path: shape.path,
          setupRequest: () => {
            const next = requestAt(shape, sent++)
            const headers = { ...next.headers, ...(next.rotateForwardedFor && { 'x-forwarded-for': forwardedFor() }) }
            return { method: next.method, path: next.path, headers, body: next.body }
          },
        },
      ]
    : shape.rotateForwardedFor
      ? [
          {
            method: shape.method,
            path: shape.path,
            setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'x-forwarded-for': forwardedFor() } }),
          },
        ]
      : undefined

  const cpuBefore = cpuMsOf(serverPid)
  const busyBefore = machineBusyMs()
  const ownBefore = process.cpuUsage()
  const wallBefore = process.hrtime.bigint()
  const result = await new Promise<Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: baseUrl + shape.path,
        method: shape.method,
        headers: shape.headers,
        ...(shape.body !== undefined && !shape.mix && { body: shape.body }),
        ...(requests && { requests }),
        connections: options.connections,
        duration: options.seconds,
        timeout: 10,
        // autocannon only notices the end of a run at its sampling tick (default 1 s, which would
        // round every run up to whole seconds); a 100 ms tick keeps durations as asked.
        sampleInt: 100,
        ...(options.rate !== undefined && { overallRate: options.rate }),
      },
      (error, res) => (error ? reject(error) : resolve(res)),
    )
    setCurrentLoad(instance)
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      times.push(responseTime)
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1
    })
  }).finally(() => {
    setCurrentLoad(undefined)
  })
  const wallMs = Number(process.hrtime.bigint() - wallBefore) / 1e6
  const own = process.cpuUsage(ownBefore)
  const cpuAfter = cpuMsOf(serverPid)
  const busyAfter = machineBusyMs()

  const responses = times.length
  return {
    seconds: result.duration,
    responses,
    rps: responses / result.duration,
    statuses,
    unexpected: countUnexpected(statuses, expected),
    errors: result.errors,
    timeouts: result.timeouts,
    latencyMs: percentiles(times),
    bytesPerResponse: responses ? result.throughput.total / responses : 0,
    serverCpuUsPerResponse: responses ? ((cpuAfter - cpuBefore) * 1000) / responses : NaN,
    loadgenCpuShare: (own.user + own.system) / 1000 / wallMs,
    otherCpuCores: (busyAfter - busyBefore - (cpuAfter - cpuBefore) - (own.user + own.system) / 1000) / wallMs,
  }
}

/**
 * Throws unless every response of a run had one of the expected statuses (for a mixed
 * scenario: 200 or 201, and nothing else) and no connection failed: a run that measured errors
 * measured the wrong thing, so the benchmark stops there, loudly. The count of unexpected
 * responses is recomputed from the statuses, whatever the load generator said.
 */
export function assertExpected(result: LoadResult, expected: Expected, what: string): void {
  const failures = result.errors + result.timeouts
  const unexpected = Math.max(result.unexpected, countUnexpected(result.statuses, expected))
  const counted = Object.values(result.statuses).reduce((sum, n) => sum + n, 0)
  if (result.responses > 0 && counted === result.responses && unexpected === 0 && failures === 0) return
  const statuses = Object.entries(result.statuses).map(([status, n]) => `${status}×${n}`).join(', ') || 'none'
  throw new Error(
    `${what}: expected every response to be ${expectedList(expected).join(' or ')}; got ${result.responses} responses (${statuses}${counted === result.responses ? '' : `, ${result.responses - counted} without a counted status`}), ` +
      `${unexpected} unexpected, ${failures} connection errors or timeouts`,
  )
}

export function percentiles(values: number[]): Percentiles {
  if (values.length === 0) return { p50: NaN, p90: NaN, p99: NaN, p999: NaN, max: NaN }
  const sorted = Float64Array.from(values).sort()
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), p999: at(0.999), max: sorted[sorted.length - 1] ?? NaN }
}
