/**
 * `npm run soak`: the built service under ten minutes of mixed traffic, to show it holds up.
 *
 * Starts the service like the benchmark does (embedded SQLite; and a second instance on
 * PostgreSQL and/or Redis when BENCH_DATABASE_URL / BENCH_REDIS_URL or DATABASE_URL / REDIS_URL
 * are set), prepares the same data, then runs five streams side by side against each instance,
 * in chunks of 30 s: GET list, GET by id, POST, a 401 (unknown key, a new client address each
 * time) and a key that keeps hitting its plan's limit (429s, bans, and its allowance again
 * whenever a ban ends). Between chunks it samples the service's RSS.
 *
 * Passes when: every response is one its stream intends (200, 201, 401; 200 or 429 for the
 * limited key), with no connection error; RSS grows by less than 50 MB from the end of the first
 * chunk (the warm-up) to the end; and, with Redis, every key the service left there has a TTL.
 * Writes bench/results/soak.md and soak.json; exits 1 when a check fails.
 *
 * Environment: SOAK_MINUTES (default 10), BENCH_CONNECTIONS (per stream, default 2).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Redis } from 'ioredis'
import { type LoadResult, type RequestShape, runLoad, stopCurrentLoad } from './lib/load.js'
import { makeTempDir, memoryOf, runMain } from './lib/proc.js'
import { freshDatabase, freshRedisPrefix, pathsUnder, prepareService, startService, type Target } from './lib/targets.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const paths = pathsUnder(root)
const env = process.env
const minutes = Number(env.SOAK_MINUTES || 10)
const connections = Math.max(1, Math.round(Number(env.BENCH_CONNECTIONS || 2)))
if (!(minutes > 0)) throw new Error(`SOAK_MINUTES must be a positive number, not "${env.SOAK_MINUTES}"`)
const databaseUrl = env.BENCH_DATABASE_URL || env.DATABASE_URL || undefined
const redisUrl = env.BENCH_REDIS_URL || env.REDIS_URL || undefined
const CHUNK_SECONDS = Math.min(30, minutes * 60)
const RSS_GROWTH_LIMIT_MIB = 50
const log = (line: string) => process.stdout.write(`${line}\n`)

interface Stream {
  title: string
  intended: number[]
  request(target: Target): RequestShape
}

const auth = (key: string) => ({ authorization: `Bearer ${key}` })
const STREAMS: Stream[] = [
  { title: 'GET list', intended: [200], request: (t) => ({ method: 'GET', path: '/v1/pets?limit=20&status=available', headers: auth(t.key) }) },
  { title: 'GET by id', intended: [200], request: (t) => ({ method: 'GET', path: `/v1/pets/${t.petId}`, headers: auth(t.key) }) },
  {
    title: 'POST',
    intended: [201],
    request: (t) => ({
      method: 'POST',
      path: '/v1/pets',
      headers: { ...auth(t.key), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Soak Rex', categoryId: 2, status: 'sold' }),
    }),
  },
  { title: '401 unknown key', intended: [401], request: (t) => ({ method: 'GET', path: '/v1/pets', headers: auth(t.unknownKey), rotateForwardedFor: true }) },
  // Banned most of the time; each time a ban ends the key has its minute's allowance again.
  { title: 'limited key', intended: [200, 429], request: (t) => ({ method: 'GET', path: '/v1/pets?limit=1', headers: auth(t.exhaustedKey) }) },
]

interface Totals {
  responses: number
  statuses: Record<string, number>
  unintended: number
  errors: number
}

interface InstanceReport {
  label: string
  streams: Record<string, Totals>
  /** RSS in MiB at the end of each chunk. */
  rssMiB: number[]
  growthMiB: number
  peakMiB: number
  redis?: { keys: number; withoutTtl: string[] } | undefined
  failures: string[]
}

async function main(): Promise<void> {
  const started = new Date()
  const tmp = makeTempDir('adoption-soak-')
  const logDir = path.join(tmp, 'logs')
  mkdirSync(logDir)
  log(`soak: ${minutes} min of mixed traffic, ${STREAMS.length} streams × ${connections} connections per instance; temporary files in ${tmp}`)

  const targets: Target[] = []
  const embedded = await startService({ name: 'service', paths, logDir, dataDir: path.join(tmp, 'data') })
  targets.push(await prepareService('service', 'embedded (SQLite)', paths, embedded, log))
  let redisPrefix: string | undefined
  if (databaseUrl || redisUrl) {
    redisPrefix = redisUrl ? freshRedisPrefix(redisUrl, log) : undefined
    const label = [databaseUrl ? 'PostgreSQL' : 'SQLite', redisUrl && 'Redis'].filter(Boolean).join(' + ')
    const scaled = await startService({
      name: 'service-scaled',
      paths,
      logDir,
      dataDir: path.join(tmp, 'data-scaled'),
      databaseUrl: databaseUrl && (await freshDatabase(databaseUrl, log)),
      redisUrl,
      redisKeyPrefix: redisPrefix,
    })
    targets.push(await prepareService('pg', label, paths, scaled, log))
  }

  const reports: InstanceReport[] = targets.map((t) => ({
    label: t.label,
    streams: Object.fromEntries(STREAMS.map((s) => [s.title, { responses: 0, statuses: {}, unintended: 0, errors: 0 }])),
    rssMiB: [],
    growthMiB: 0,
    peakMiB: 0,
    failures: [],
  }))

  const chunks = Math.max(1, Math.round((minutes * 60) / CHUNK_SECONDS))
  for (let chunk = 1; chunk <= chunks; chunk++) {
    const runs = targets.flatMap((target, i) =>
      STREAMS.map(async (stream) => {
        const result = await runLoad(target.baseUrl, stream.request(target), stream.intended[0]!, target.process.pid, { seconds: CHUNK_SECONDS, connections })
        add(reports[i]!.streams[stream.title]!, result, stream.intended)
      }),
    )
    await Promise.all(runs)
    for (const [i, target] of targets.entries()) {
      if (target.process.hasExited()) throw new Error(`${target.label} exited during the soak`)
      reports[i]!.rssMiB.push(Math.round((memoryOf(target.process.pid)?.rssKiB ?? NaN) / 1024))
    }
    const line = reports
      .map((r) => `${r.label}: ${Object.values(r.streams).reduce((n, s) => n + s.responses, 0).toLocaleString('en')} responses, RSS ${r.rssMiB.at(-1)} MiB`)
      .join('; ')
    log(`  ${String(chunk).padStart(3)}/${chunks}  ${line}`)
  }

  for (const [i, target] of targets.entries()) {
    const report = reports[i]!
    const memory = memoryOf(target.process.pid)
    report.peakMiB = Math.round((memory?.peakKiB ?? NaN) / 1024)
    // From the end of the first chunk (warmed up: code compiled, caches full) to the end.
    report.growthMiB = (report.rssMiB.at(-1) ?? 0) - (report.rssMiB[0] ?? 0)
    if (report.growthMiB >= RSS_GROWTH_LIMIT_MIB) report.failures.push(`RSS grew by ${report.growthMiB} MiB (limit ${RSS_GROWTH_LIMIT_MIB})`)
    for (const [title, totals] of Object.entries(report.streams)) {
      if (totals.unintended || totals.errors) report.failures.push(`${title}: ${totals.unintended} unintended responses, ${totals.errors} connection errors (${JSON.stringify(totals.statuses)})`)
      if (totals.responses === 0) report.failures.push(`${title}: no responses`)
    }
    if (target.id === 'pg' && redisUrl && redisPrefix) {
      report.redis = await keysWithoutTtl(redisUrl, redisPrefix)
      if (report.redis.withoutTtl.length) report.failures.push(`Redis keys without a TTL: ${report.redis.withoutTtl.slice(0, 10).join(', ')}`)
    }
  }

  const finished = new Date()
  const resultsDir = path.join(root, minutes >= 10 ? 'bench/results' : 'bench/results/tmp')
  mkdirSync(resultsDir, { recursive: true })
  const summary = { title: 'Soak', startedAt: started.toISOString(), finishedAt: finished.toISOString(), minutes, connections, node: process.version, cpus: os.cpus().length, reports }
  writeFileSync(path.join(resultsDir, 'soak.json'), `${JSON.stringify(summary, null, 2)}\n`)
  writeFileSync(path.join(resultsDir, 'soak.md'), toMarkdown(summary))
  log(`soak: wrote ${path.relative(root, resultsDir)}/soak.md and soak.json`)
  const failures = reports.flatMap((r) => r.failures.map((f) => `${r.label}: ${f}`))
  for (const failure of failures) log(`soak: FAIL ${failure}`)
  if (failures.length) process.exitCode = 1
  else log('soak: PASS')
}

function add(totals: Totals, result: LoadResult, intended: number[]): void {
  totals.responses += result.responses
  totals.errors += result.errors + result.timeouts
  for (const [status, n] of Object.entries(result.statuses)) {
    totals.statuses[status] = (totals.statuses[status] ?? 0) + n
    if (!intended.includes(Number(status))) totals.unintended += n
  }
}

/** Every key under the instance's prefix, and those without a TTL (TTL -1). */
async function keysWithoutTtl(url: string, prefix: string): Promise<{ keys: number; withoutTtl: string[] }> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 })
  await redis.connect()
  try {
    const keys: string[] = []
    let cursor = '0'
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)
      cursor = next
      keys.push(...batch)
    } while (cursor !== '0')
    const withoutTtl: string[] = []
    for (const key of keys) if ((await redis.ttl(key)) === -1) withoutTtl.push(key)
    return { keys: keys.length, withoutTtl }
  } finally {
    redis.disconnect()
  }
}

function toMarkdown(summary: { startedAt: string; finishedAt: string; minutes: number; connections: number; node: string; cpus: number; reports: InstanceReport[] }): string {
  const out = [
    '# Soak',
    '',
    `${summary.minutes} minutes of mixed traffic, ${STREAMS.length} streams × ${summary.connections} connections per instance, ${summary.startedAt} → ${summary.finishedAt}, Node ${summary.node}, ${summary.cpus} CPUs. Produced by \`npm run soak\`.`,
    '',
  ]
  for (const r of summary.reports) {
    out.push(`## ${r.label}`, '', `**${r.failures.length ? 'FAIL' : 'PASS'}**${r.failures.length ? `: ${r.failures.join('; ')}` : ''}`, '')
    out.push(
      `RSS after the first ${CHUNK_SECONDS} s: ${r.rssMiB[0]} MiB; at the end: ${r.rssMiB.at(-1)} MiB; growth ${r.growthMiB} MiB (limit ${RSS_GROWTH_LIMIT_MIB}); peak ${r.peakMiB} MiB.`,
      `RSS every ${CHUNK_SECONDS} s (MiB): ${r.rssMiB.join(', ')}.`,
      '',
    )
    if (r.redis) out.push(`Redis: ${r.redis.keys} keys under the instance's prefix at the end, ${r.redis.withoutTtl.length} without a TTL.`, '')
    out.push('| Stream | Responses | Statuses | Unintended | Connection errors |', '|---|---:|---|---:|---:|')
    for (const [title, t] of Object.entries(r.streams)) {
      const statuses = Object.entries(t.statuses).map(([s, n]) => `${s}: ${n.toLocaleString('en')}`).join(', ')
      out.push(`| ${title} | ${t.responses.toLocaleString('en')} | ${statuses} | ${t.unintended} | ${t.errors} |`)
    }
    out.push('')
  }
  return `${out.join('\n')}\n`
}

await runMain('soak', main, stopCurrentLoad)
