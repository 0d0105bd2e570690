/**
 * The fixed-rate latency run: an open-loop generator on node:http.
 *
 * Why not autocannon here: its `overallRate` gives each connection a budget per second and
 * sends that budget back-to-back at the start of every second, then idles; so "2,000 req/s on 4
 * connections" is really 4 closed-loop connections saturating the server in a burst each second,
 * and its p99 is a saturation figure. This generator spreads requests evenly instead (checked
 * every millisecond), over at most `connections` keep-alive sockets, and never waits for an
 * answer before sending the next request: when the server falls behind, requests queue for a
 * free connection and that wait is counted in their latency (no coordinated omission).
 */
import http from 'node:http'
import { performance } from 'node:perf_hooks'
import { countUnexpected, type Expected, forwardedFor, type LoadOptions, type LoadResult, percentiles, type RequestShape, requestAt } from './load.js'
import { cpuMsOf, machineBusyMs } from './proc.js'

export async function runFixedRate(
  baseUrl: string,
  shape: RequestShape,
  expected: Expected,
  serverPid: number,
  options: Required<LoadOptions>,
): Promise<LoadResult> {
  const url = new URL(baseUrl)
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections })
  const total = Math.round(options.seconds * options.rate)
  const latencies: number[] = []
  const fromSchedule: number[] = []
  const statuses: Record<string, number> = {}
  let errors = 0
  let bytes = 0
  let outstanding = 0
  let sent = 0

  const cpuBefore = cpuMsOf(serverPid)
  const busyBefore = machineBusyMs()
  const ownBefore = process.cpuUsage()
  const start = performance.now()
  let lastResponse = start

  await new Promise<void>((resolve) => {
    const finishIfDone = () => {
      if (sent >= total && outstanding === 0) resolve()
    }
    const fire = (index: number, scheduledAt: number) => {
      const next = requestAt(shape, index)
      const dispatchedAt = performance.now()
      outstanding++
      const done = () => {
        const now = performance.now()
        lastResponse = now
        latencies.push(now - dispatchedAt)
        fromSchedule.push(now - scheduledAt)
        outstanding--
        finishIfDone()
      }
      const headers = { ...next.headers, ...(next.rotateForwardedFor && { 'x-forwarded-for': forwardedFor() }) }
      const request = http.request(
        { host: url.hostname, port: url.port, path: next.path, method: next.method, headers, agent, timeout: 10_000 },
        (response) => {
          const status = response.statusCode ?? 0
          statuses[status] = (statuses[status] ?? 0) + 1
          response.on('data', (chunk: Buffer) => (bytes += chunk.length))
          response.on('end', done)
        },
      )
      request.on('timeout', () => request.destroy(new Error('timeout')))
      request.on('error', () => {
        errors++
        outstanding--
        finishIfDone()
      })
      request.end(next.body)
    }
    const timer = setInterval(() => {
      // Every request due by now (the schedule is start + i / rate), so the average rate holds
      // even when a timer tick comes late.
      const due = Math.min(total, Math.floor(((performance.now() - start) * options.rate) / 1000) + 1)
      while (sent < due) {
        fire(sent, start + (sent * 1000) / options.rate)
        sent++
      }
      if (sent >= total) {
        clearInterval(timer)
        finishIfDone()
      }
    }, 1)
  })
  agent.destroy()
  const wallMs = lastResponse - start
  const own = process.cpuUsage(ownBefore)
  const cpuAfter = cpuMsOf(serverPid)
  const busyAfter = machineBusyMs()
  const responses = latencies.length
  const fromSchedulePercentiles = percentiles(fromSchedule)
  return {
    seconds: wallMs / 1000,
    responses,
    rps: responses / (wallMs / 1000),
    statuses,
    unexpected: countUnexpected(statuses, expected),
    errors,
    timeouts: 0,
    latencyMs: percentiles(latencies),
    scheduledP99Ms: fromSchedulePercentiles.p99,
    bytesPerResponse: responses ? bytes / responses : 0,
    serverCpuUsPerResponse: responses ? ((cpuAfter - cpuBefore) * 1000) / responses : NaN,
    loadgenCpuShare: (own.user + own.system) / 1000 / wallMs,
    otherCpuCores: (busyAfter - busyBefore - (cpuAfter - cpuBefore) - (own.user + own.system) / 1000) / wallMs,
  }
}
