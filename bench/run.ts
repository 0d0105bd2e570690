/**
 * `npm run bench`: how close the built service comes to the ceiling of its runtime.
 *
 * Starts the built server (embedded; and on PostgreSQL + Redis when configured), a bare
 * node:http baseline that answers the same bodies, and a Prism mock of openapi.json; prepares
 * data through the CLI and the API; then runs interleaved rounds of load (wrk, or autocannon, on loopback)
 * per scenario and reports requests/s, latency, status mix, the median service/baseline ratio,
 * peak RSS, and a CPU profile of the service under GET load. See bench/README.md.
 *
 * Environment: BENCH_SECONDS, BENCH_ROUNDS, BENCH_QUICK=1, BENCH_LOADGEN=wrk|autocannon, BENCH_CONNECTIONS,
 * BENCH_WRK_THREADS, BENCH_PRISM=0,
 * BENCH_PROFILE=0|1, BENCH_SEARCH=0|only, BENCH_PHOTOS=0|only, BENCH_DATABASE_URL / DATABASE_URL, BENCH_REDIS_URL / REDIS_URL.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { assertExpected, expectedList, type LoadOptions, type LoadResult, type RequestShape, runLoad, stopCurrentLoad } from './lib/load.js'
import { runFixedRate } from './lib/rate.js'
import { aborted, makeTempDir, memoryOf, runMain, sleep, waitForQuiet } from './lib/proc.js'
import { summariseProfile } from './lib/profile.js'
import { type Check, expectedText, median, NOISY_OTHER_CPU, type Report, type RunRecord, type ScenarioId, type ScenarioInfo, summarise, type TargetId, toMarkdown, toSvg, verdict } from './lib/report.js'
import {
  type BaselineBodies,
  freshDatabase,
  freshRedisPrefix,
  pathsUnder,
  prepareService,
  startBaseline,
  startPrism,
  startService,
  stopTarget,
  type Target,
} from './lib/targets.js'
import { findWrk, runWrk } from './lib/wrk.js'
import { photosMarkdown, photosSettings, runPhotosBench } from './photos.js'
import { runSearchBench, searchMarkdown, searchSettings } from './search.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const paths = pathsUnder(root)
// A full run's results are committed; a quick run's (a smoke test) go to the ignored tmp/.
const resultsDir = path.join(root, process.env.BENCH_QUICK === '1' ? 'bench/results/tmp' : 'bench/results')
const resultsShown = path.relative(root, resultsDir)

// ---- settings ----------------------------------------------------------------------------------

const env = process.env
const quick = env.BENCH_QUICK === '1'
const numberFrom = (name: string, fallback: number) => {
  const value = env[name]
  if (value === undefined || value === '') return fallback
  const n = Number(value)
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, not "${value}"`)
  return n
}
// The closed-loop load generator: wrk (a C program, its own process) when installed, else
// autocannon (in this process); see bench/README.md, "Load generator", for why.
const loadgenAsked = env.BENCH_LOADGEN || undefined
if (loadgenAsked !== undefined && loadgenAsked !== 'wrk' && loadgenAsked !== 'autocannon') {
  process.stderr.write(`bench: BENCH_LOADGEN must be wrk or autocannon, not "${loadgenAsked}".\n`)
  process.exit(1)
}
const wrkPath = findWrk()
if (loadgenAsked === 'wrk' && !wrkPath) {
  process.stderr.write('bench: BENCH_LOADGEN=wrk but wrk is not installed (Debian: apt-get install wrk).\n')
  process.exit(1)
}
const loadgen: 'wrk' | 'autocannon' = loadgenAsked ?? (wrkPath ? 'wrk' : 'autocannon')
const wrkMissing = !loadgenAsked && !wrkPath
const settings = {
  quick,
  loadgen,
  // Quick mode is a smoke test (under a minute): every phase runs, briefly.
  seconds: numberFrom('BENCH_SECONDS', quick ? 0.5 : 3),
  rounds: Math.round(numberFrom('BENCH_ROUNDS', quick ? 2 : 3)),
  warmupSeconds: quick ? 0.5 : 1,
  // wrk: 50 connections, as a new user would measure; autocannon, in this process, saturates
  // its one thread well before that, so it keeps its 10.
  connections: Math.round(numberFrom('BENCH_CONNECTIONS', loadgen === 'wrk' ? 50 : 10)),
  wrkThreads: Math.round(numberFrom('BENCH_WRK_THREADS', 1)),
  latencyRate: 2_000,
  latencyConnections: 4,
  latencySeconds: quick ? 0.5 : 3,
  profileSeconds: quick ? 1 : 5,
  profile: env.BENCH_PROFILE ? env.BENCH_PROFILE !== '0' : !quick,
  // Before each measured run, wait (at most 5 s, and this much in all) for other processes to
  // quieten down; 0 disables. See waitForQuiet.
  quietWaitSeconds: env.BENCH_QUIET_WAIT !== undefined && env.BENCH_QUIET_WAIT !== '' ? Math.max(0, Number(env.BENCH_QUIET_WAIT) || 0) : quick ? 0 : 30,
  prism: env.BENCH_PRISM !== '0',
  // The search at scale (bench/search.ts): after the throughput scenarios; `only` runs it alone, `0` skips it.
  search: env.BENCH_SEARCH === '0' ? ('skip' as const) : env.BENCH_SEARCH === 'only' ? ('only' as const) : ('run' as const),
  // Photos (bench/photos.ts): after the throughput scenarios, before the search; `only` runs it alone, `0` skips it.
  photos: env.BENCH_PHOTOS === '0' ? ('skip' as const) : env.BENCH_PHOTOS === 'only' ? ('only' as const) : ('run' as const),
}
const databaseUrl = env.BENCH_DATABASE_URL || env.DATABASE_URL || undefined
const redisUrl = env.BENCH_REDIS_URL || env.REDIS_URL || undefined
const secondLabel = databaseUrl ? (redisUrl ? 'PostgreSQL + Redis' : 'PostgreSQL') : redisUrl ? 'SQLite + Redis' : 'PostgreSQL + Redis'
const outputName = quick ? 'quick' : 'latest'

const log = (line: string) => process.stdout.write(`${line}\n`)

// ---- scenarios ---------------------------------------------------------------------------------

interface Scenario extends ScenarioInfo {
  targets: TargetId[]
  request(target: Target): RequestShape
}

const NEW_PET = JSON.stringify({ name: 'Bench Rex', categoryId: 3, status: 'pending' })
const auth = (key: string) => ({ authorization: `Bearer ${key}` })
const listRequest = (t: Target): RequestShape => ({ method: 'GET', path: `${t.prefix}/pets?limit=20&status=available`, headers: auth(t.key) })
const createRequest = (t: Target): RequestShape => ({ method: 'POST', path: `${t.prefix}/pets`, headers: { ...auth(t.key), 'content-type': 'application/json' }, body: NEW_PET })
/** One create in ten requests, the rest GET list: see requestAt in lib/load.ts. */
const MIX_EVERY = 10

const SCENARIOS: Scenario[] = [
  {
    id: 'list',
    title: 'GET list, cache on',
    expectedStatus: 200,
    ratioTarget: 0.7,
    // 'nocache': the instance started with RESPONSE_CACHE=off, reported as its own row below.
    targets: ['service', 'baseline', 'pg', 'prism', 'nocache'],
    request: listRequest,
  },
  {
    id: 'listNoCache',
    title: 'GET list, cache off',
    expectedStatus: 200,
    ratioTarget: 0.3,
    // No runs of its own: the 'nocache' runs of the GET list rounds, against the same baseline runs.
    targets: [],
    measuredAs: { scenario: 'list', target: 'nocache' },
    request: listRequest,
  },
  {
    id: 'listFull',
    title: 'GET list, full profiles',
    expectedStatus: 200,
    ratioTarget: 0.45,
    // The same list of 20, each animal with every profile field filled (about 1.3 KB each).
    targets: ['service', 'baseline', 'pg'],
    request: (t) => ({ method: 'GET', path: `${t.prefix}/pets?limit=20`, headers: auth(t.fullKey) }),
  },
  {
    id: 'site',
    title: 'Site listing (HTML)',
    expectedStatus: 200,
    // Half of GET list's target: the listing must answer at ≥ 0.5 of GET list (its own check below).
    ratioTarget: 0.35,
    // The adoption site's first page of the full-profiles project (24 animals), as a browser asks for it.
    targets: ['service', 'baseline', 'pg'],
    request: (t) => ({ method: 'GET', path: `/sites/${t.fullSlug}/`, headers: { accept: 'text/html' } }),
  },
  {
    id: 'get',
    title: 'GET by id',
    expectedStatus: 200,
    ratioTarget: 0.7,
    targets: ['service', 'baseline', 'pg', 'prism'],
    request: (t) => ({ method: 'GET', path: `${t.prefix}/pets/${t.petId}`, headers: auth(t.key) }),
  },
  {
    id: 'mixed',
    title: 'Mixed, 10 % creates',
    // GET list answers 200, the create 201; anything else (and only these two) fails the run.
    expectedStatus: [200, 201],
    ratioTarget: 0.4,
    targets: ['service', 'baseline', 'pg'],
    request: (t) => ({ ...listRequest(t), mix: { every: MIX_EVERY, request: createRequest(t) } }),
  },
  {
    id: 'post',
    title: 'POST, durable',
    expectedStatus: 201,
    ratioTarget: 0.3,
    targets: ['service', 'baseline', 'pg'],
    request: createRequest,
  },
  {
    id: 'unauthorized',
    title: '401 unknown key',
    expectedStatus: 401,
    ratioTarget: 0.7,
    targets: ['service', 'baseline', 'pg'],
    // A new client address per request (X-Forwarded-For, TRUST_PROXY=true), so the per-address
    // limit of 60 unauthenticated requests a minute never turns these into 429s.
    request: (t) => ({ method: 'GET', path: `${t.prefix}/pets?limit=20&status=available`, headers: auth(t.unknownKey), rotateForwardedFor: true }),
  },
  {
    id: 'limited',
    title: '429 exhausted key',
    expectedStatus: 429,
    ratioTarget: 0.7,
    targets: ['service', 'baseline', 'pg'],
    request: (t) => ({ method: 'GET', path: `${t.prefix}/pets?limit=20&status=available`, headers: auth(t.exhaustedKey) }),
  },
]

/** The scenarios that run (the others are rows computed from their runs). */
const MEASURED = SCENARIOS.filter((s) => !s.measuredAs)

/** One closed-loop run with the chosen load generator. */
function closedLoop(baseUrl: string, shape: RequestShape, expected: Scenario['expectedStatus'], pid: number, options: LoadOptions): Promise<LoadResult> {
  return loadgen === 'wrk' ? runWrk(baseUrl, shape, expected, pid, { ...options, threads: settings.wrkThreads, ...(wrkPath && { wrk: wrkPath }) }) : runLoad(baseUrl, shape, expected, pid, options)
}

// ---- probing -----------------------------------------------------------------------------------

interface Probe {
  status: number
  body: unknown
  headerCount: number
}

/** One request of a scenario, to check what a target answers before loading it. */
async function probe(target: Target, scenario: Scenario, which: 'main' | 'mixed' = 'main'): Promise<Probe> {
  const full = scenario.request(target)
  const shape = which === 'mixed' && full.mix ? full.mix.request : full
  const headers = { ...shape.headers, ...(shape.rotateForwardedFor && { 'x-forwarded-for': '10.255.255.254' }) }
  const response = await fetch(target.baseUrl + shape.path, { method: shape.method, headers, ...(shape.body !== undefined && { body: shape.body }) })
  const text = await response.text()
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {
    // Not JSON: kept as text.
  }
  return { status: response.status, body, headerCount: [...response.headers.keys()].length }
}

const codeOf = (body: unknown) => (body && typeof body === 'object' && 'code' in body ? String((body as { code: unknown }).code) : undefined)

// ---- main --------------------------------------------------------------------------------------

async function main(): Promise<void> {
  if (!existsSync(paths.cli)) throw new Error('dist/cli.js is missing: run `npm run build` first (the benchmark measures the built server).')
  // A section asked for `only` runs alone (with the other one asked for `only`, if any).
  const only = settings.search === 'only' || settings.photos === 'only'
  if (!only) await throughput()
  if (settings.photos === 'only' || (!only && settings.photos === 'run')) await photos()
  if (settings.search === 'only' || (!only && settings.search === 'run')) await searchAtScale()
}

/** Photos: an upload's cost, serving a variant, and GET list while uploads are processed: bench/photos.ts. */
async function photos(): Promise<void> {
  const started = Date.now()
  const tmp = makeTempDir('adoption-bench-photos-')
  const logDir = path.join(tmp, 'logs')
  mkdirSync(logDir)
  const photoSettings = photosSettings(env, quick, settings.seconds, settings.rounds)
  const loadStart = loadavg()
  log(`bench: photos (${photoSettings.uploads} uploads, ${photoSettings.rounds} rounds)`)
  if (os.loadavg()[0]! > 0.5) log(`bench: warning: the machine is not idle (load average ${loadStart}); results will be noisier.`)
  const results = await runPhotosBench({ paths, tmp, logDir, settings: photoSettings, closedLoop, quietWaitSeconds: settings.quietWaitSeconds, log })
  const loadgenText = loadgen === 'wrk' ? `wrk (${settings.wrkThreads} thread)` : 'autocannon (not comparable with wrk figures)'
  const notes = [
    `Load average ${loadStart} at the start, ${loadavg()} at the end (${os.cpus().length} cores). The server, the load generators and the image processing share these cores: upload times and latency depend on what else runs.`,
    'The embedded service (SQLite, files under DATA_DIR/media), response cache on (the default).',
  ]
  const others = [...results.serve.rounds.flatMap((r) => [r.service, r.baseline]), ...results.list.rounds.flatMap((r) => [r.idle, r.busy])].map((r) => r.otherCpuCores)
  const busiest = Math.max(...others)
  if (busiest >= NOISY_OTHER_CPU) {
    notes.unshift(
      `⚠ Other processes used up to ${busiest.toFixed(2)} cores of ${os.cpus().length} during the measured runs (median ${median(others).toFixed(2)}): these figures are those of a loaded machine, not of the service alone. Measure on an idle machine before drawing conclusions.`,
    )
  }
  const markdown = `# Adoption Store benchmark: photos${quick ? ' (quick)' : ''}\n\n${new Date(started).toISOString()}, Node ${process.version}.\n\n${photosMarkdown(results, photoSettings, loadgenText, notes)}`
  mkdirSync(resultsDir, { recursive: true })
  const name = quick ? 'photos.quick' : 'photos'
  writeFileSync(path.join(resultsDir, `${name}.md`), markdown)
  writeFileSync(path.join(resultsDir, `${name}.json`), JSON.stringify({ startedAt: new Date(started).toISOString(), loadgen, settings: photoSettings, loadAverage: { start: loadStart, end: loadavg() }, results }, null, 2) + '\n')
  log(`bench: wrote ${resultsShown}/${name}.md and ${name}.json in ${((Date.now() - started) / 1000).toFixed(0)} s`)
}

/** The search at scale, on SQLite and (when configured) PostgreSQL: bench/search.ts. */
async function searchAtScale(): Promise<void> {
  const started = Date.now()
  const tmp = makeTempDir('adoption-bench-search-')
  const logDir = path.join(tmp, 'logs')
  mkdirSync(logDir)
  const search = searchSettings(env, quick)
  const loadStart = loadavg()
  const backends = (env.BENCH_SEARCH_BACKENDS ?? 'sqlite,postgres').split(',').map((name) => name.trim())
  const sqlite = backends.includes('sqlite')
  if (!sqlite && !(databaseUrl && backends.includes('postgres'))) throw new Error(`bench: BENCH_SEARCH_BACKENDS=${env.BENCH_SEARCH_BACKENDS} names no back end to measure (sqlite, postgres with BENCH_DATABASE_URL)`)
  const results = await runSearchBench({ paths, tmp, logDir, databaseUrl: backends.includes('postgres') ? databaseUrl : undefined, settings: search, sqlite, log })
  const notes = [
    `Load average ${loadStart} at the start, ${loadavg()} at the end (${os.cpus().length} cores). Sequential requests: the figures are each request's own time, from sending to the parsed body, on loopback.`,
    ...(databaseUrl ? [] : ['PostgreSQL not measured: set BENCH_DATABASE_URL (or DATABASE_URL) to include it.']),
  ]
  const markdown = `# Adoption Store benchmark: search at scale${quick ? ' (quick)' : ''}\n\n${new Date(started).toISOString()}, Node ${process.version}.\n\n${searchMarkdown(results, search, notes)}`
  mkdirSync(resultsDir, { recursive: true })
  // One back end alone is its own report, beside the report of both.
  const name = `search${backends.length === 1 ? `-${results[0]!.backend.toLowerCase()}` : ''}${quick ? '.quick' : ''}`
  writeFileSync(path.join(resultsDir, `${name}.md`), markdown)
  writeFileSync(path.join(resultsDir, `${name}.json`), JSON.stringify({ startedAt: new Date(started).toISOString(), settings: search, results }, null, 2) + '\n')
  log(`bench: wrote ${resultsShown}/${name}.md and ${name}.json in ${((Date.now() - started) / 1000).toFixed(0)} s`)
}

async function throughput(): Promise<void> {
  const started = new Date()
  const notes: string[] = []
  const staleSource = newestSourceAfter(statSync(paths.cli).mtimeMs)
  if (staleSource) {
    log(`bench: warning: ${staleSource} is newer than dist/cli.js; the build may be stale (run \`npm run build\`).`)
    notes.push(`Warning: ${staleSource} was newer than dist/cli.js: the measured build may not match the source.`)
  }
  const loadStart = loadavg()
  if (os.loadavg()[0]! > 0.5) log(`bench: warning: the machine is not idle (load average ${loadStart}); results will be noisier.`)
  const tmp = makeTempDir('adoption-bench-')
  const logDir = path.join(tmp, 'logs')
  mkdirSync(logDir)
  if (wrkMissing) log('bench: warning: wrk is not installed (Debian: apt-get install wrk); falling back to autocannon in this process, 10 connections. Figures are not comparable with runs made with wrk.')
  log(
    `bench: ${quick ? 'QUICK (smoke test) ' : ''}${settings.rounds} rounds × ${settings.seconds} s, ${settings.connections} connections, ${loadgen === 'wrk' ? `wrk (${settings.wrkThreads} thread${settings.wrkThreads === 1 ? '' : 's'}; whole seconds, at least 1 s)` : 'autocannon'}; temporary files in ${tmp}`,
  )

  // -- servers
  log('bench: starting the built service (embedded SQLite, LOG_LEVEL default "info", stdout → /dev/null)')
  const embedded = await startService({ name: 'service', paths, logDir, dataDir: path.join(tmp, 'data') })
  const service = await prepareService('service', 'service (embedded)', paths, embedded, log)

  // GET list, cache off: a second embedded instance with the response cache switched off, on
  // its own data dir, prepared (and seeded) the same way, so both instances hold the same data.
  log('bench: starting a second embedded instance with RESPONSE_CACHE=off')
  const noCacheInstance = await startService({ name: 'service-nocache', paths, logDir, dataDir: path.join(tmp, 'data-nocache'), env: { RESPONSE_CACHE: 'off' } })
  const nocache = await prepareService('nocache', 'service (embedded, RESPONSE_CACHE=off)', paths, noCacheInstance, log)

  let pg: Target | undefined
  if (databaseUrl || redisUrl) {
    log(`bench: starting a second service instance on ${secondLabel}`)
    const instance = await startService({
      name: 'service-pg',
      paths,
      logDir,
      dataDir: path.join(tmp, 'data-pg'),
      databaseUrl: databaseUrl && (await freshDatabase(databaseUrl, log)),
      redisUrl,
      redisKeyPrefix: redisUrl && freshRedisPrefix(redisUrl, log),
    })
    pg = await prepareService('pg', `service (${secondLabel})`, paths, instance, log)
  } else {
    notes.push('PostgreSQL + Redis mode not measured: set BENCH_DATABASE_URL (or DATABASE_URL) and BENCH_REDIS_URL (or REDIS_URL) to include it.')
  }

  // -- what the service answers, captured for the baseline and checked
  const serviceProbes = new Map<ScenarioId, Probe>()
  const expects = (scenario: Scenario, status: number) => expectedList(scenario.expectedStatus).includes(status)
  for (const scenario of MEASURED) {
    for (const which of scenario.id === 'mixed' ? (['main', 'mixed'] as const) : (['main'] as const)) {
      const answer = await probe(service, scenario, which)
      if (which === 'main') serviceProbes.set(scenario.id, answer)
      const code = codeOf(answer.body)
      log(`  probe ${scenario.title}${which === 'mixed' ? ' (create)' : ''}: ${answer.status}${code ? ` ${code}` : ''}, ${answer.headerCount} response headers`)
      if (!expects(scenario, answer.status)) {
        notes.push(`Probe before the run: ${scenario.title} answered ${answer.status}${code ? ` (${code})` : ''}, not ${expectedText(scenario.expectedStatus)}.`)
      }
    }
  }
  const listBody = serviceProbes.get('list')?.body
  if (!Array.isArray(listBody) || listBody.length !== 20) throw new Error(`GET list should answer 20 animals; it answered ${JSON.stringify(listBody)?.slice(0, 200)}`)
  const fullBody = serviceProbes.get('listFull')?.body
  if (!Array.isArray(fullBody) || fullBody.length !== 20 || !fullBody.every((pet: Record<string, unknown>) => pet.description && pet.breeds && pet.locationId)) {
    throw new Error(`GET list, full profiles should answer 20 animals with full profiles; it answered ${JSON.stringify(fullBody)?.slice(0, 200)}`)
  }
  const siteProbe = serviceProbes.get('site')
  const siteBody = typeof siteProbe?.body === 'string' ? siteProbe.body : ''
  if (siteProbe?.status !== 200 || siteBody.match(/<li class="card">/g)?.length !== 24) {
    throw new Error(`the site's listing should answer 200 with 24 animals; it answered ${siteProbe?.status} ${siteBody.slice(0, 200)}`)
  }
  const noCacheList = await probe(nocache, SCENARIOS[0]!)
  if (noCacheList.status !== 200 || !Array.isArray(noCacheList.body) || noCacheList.body.length !== 20) {
    throw new Error(`GET list with RESPONSE_CACHE=off should answer 200 and 20 animals; it answered ${noCacheList.status} ${JSON.stringify(noCacheList.body)?.slice(0, 200)}`)
  }
  if (pg) {
    for (const scenario of MEASURED) {
      const answer = await probe(pg, scenario)
      if (!expects(scenario, answer.status)) notes.push(`Probe before the run (${secondLabel}): ${scenario.title} answered ${answer.status}, not ${expectedText(scenario.expectedStatus)}.`)
    }
  }
  const limitedCode = codeOf(serviceProbes.get('limited')?.body)
  notes.push(
    `429 scenario: the free project's key was driven past its 60 requests a minute and then 30 more while refused, so the service had banned it (10 minutes) before measuring (setup saw ${service.exhaustion}): it answers 429 \`${limitedCode ?? '?'}\`. The ban check runs after the key lookup, before the plan's counters.`,
  )

  const bodies: BaselineBodies = {
    list: listBody,
    listFull: serviceProbes.get('listFull')?.body,
    pet: serviceProbes.get('get')?.body,
    created: serviceProbes.get('post')?.body,
    unauthorized: serviceProbes.get('unauthorized')?.body,
    limited: serviceProbes.get('limited')?.body,
    site: siteBody,
  }
  log('bench: starting the baseline (bare node:http, same bodies, JSON.stringify per request)')
  const baseline = await startBaseline(paths, logDir, service, bodies)
  for (const scenario of MEASURED) {
    const answer = await probe(baseline, scenario)
    const expected = serviceProbes.get(scenario.id)
    const same = scenario.id === 'post' ? answer.status === 201 : JSON.stringify(answer.body) === JSON.stringify(expected?.body)
    if (answer.status !== expected?.status || !same) throw new Error(`baseline answers ${scenario.title} differently from the service (${answer.status})`)
    if (scenario.id === 'mixed' && (await probe(baseline, scenario, 'mixed')).status !== 201) throw new Error(`baseline does not answer the create of ${scenario.title} with 201`)
  }
  notes.push(
    `The service sends ${serviceProbes.get('list')?.headerCount} response headers on GET list (request id, rate-limit headers, …); the baseline sends ${(await probe(baseline, SCENARIOS[0]!)).headerCount}. Bodies are byte-identical (for POST the baseline repeats one id; the service assigns a new one each time).`,
  )

  let prism: Target | undefined
  if (settings.prism && existsSync(paths.prismBin)) {
    log('bench: starting Prism (prism mock openapi.json)')
    prism = await startPrism(paths, logDir, service.key)
    const listAnswer = await probe(prism, SCENARIOS[0]!)
    notes.push(
      `Prism answers the GET scenarios from the document's schemas (static mode): its list body is ${Array.isArray(listAnswer.body) ? listAnswer.body.length : '?'} animal(s), not 20, so it has less to serialise; it logs every request at its default level (to /dev/null here).`,
    )
  } else {
    notes.push(settings.prism ? 'Prism not measured: @stoplight/prism-cli is not installed (npm install).' : 'Prism not measured (BENCH_PRISM=0).')
  }

  const targets: Partial<Record<TargetId, Target>> = { service, baseline, nocache, ...(pg && { pg }), ...(prism && { prism }) }
  const rssBefore = memoryOf(service.process.pid)

  // -- load
  const runs: RunRecord[] = []
  let quietBudgetMs = settings.quietWaitSeconds * 1000
  let waitedMs = 0
  const measure = async (phase: RunRecord['phase'], round: number, scenario: Scenario, target: Target, options: { seconds: number; connections: number; rate?: number }) => {
    if (aborted()) throw new Error('aborted')
    if (phase !== 'warmup' && quietBudgetMs > 0) {
      // Doubles as the pause between runs (at least one 300 ms sample).
      const { waitedMs: waited } = await waitForQuiet(Math.min(5_000, quietBudgetMs))
      quietBudgetMs -= waited
      waitedMs += waited
    } else {
      // Let sockets close and the servers settle between runs.
      await sleep(quick ? 50 : 250)
    }
    const result =
      options.rate === undefined
        ? await closedLoop(target.baseUrl, scenario.request(target), scenario.expectedStatus, target.process.pid, options)
        : await runFixedRate(target.baseUrl, scenario.request(target), scenario.expectedStatus, target.process.pid, { ...options, rate: options.rate })
    if (aborted()) throw new Error('aborted')
    if (target.process.hasExited()) throw new Error(`${target.label} exited during ${scenario.title}`)
    runs.push({ phase, round, scenario: scenario.id, target: target.id, result })
    const statuses = Object.entries(result.statuses).map(([s, n]) => `${s}×${n}`).join(' ')
    log(
      `  ${phase.padEnd(7)} ${String(round).padStart(2)}  ${scenario.title.padEnd(19)} ${target.label.padEnd(30)} ${Math.round(result.rps).toString().padStart(6)} req/s` +
        `  p50 ${result.latencyMs.p50.toFixed(2)} p99 ${result.latencyMs.p99.toFixed(2)} ms  [${statuses}${result.errors + result.timeouts ? ` errors×${result.errors + result.timeouts}` : ''}]` +
        `  cpu ${Math.round(result.serverCpuUsPerResponse)} µs/req, other ${result.otherCpuCores.toFixed(2)} cores`,
    )
    assertExpected(result, scenario.expectedStatus, `${scenario.title} on ${target.label} (${phase}${phase === 'warmup' ? '' : ` ${round}`})`)
  }
  const targetsOf = (scenario: Scenario) => scenario.targets.flatMap((id) => (targets[id] ? [targets[id]] : []))
  /** The order of targets rotates every round, so no target always runs first (or right after another). */
  const rotated = <T>(list: T[], by: number) => list.map((_, i) => list[(i + by) % list.length]!)

  log(`bench: warm-up (${settings.warmupSeconds} s per scenario and target)`)
  for (const scenario of MEASURED) for (const target of targetsOf(scenario)) await measure('warmup', 0, scenario, target, { seconds: settings.warmupSeconds, connections: settings.connections })

  for (let round = 1; round <= settings.rounds; round++) {
    log(`bench: round ${round}/${settings.rounds}`)
    for (const scenario of MEASURED) {
      for (const target of rotated(targetsOf(scenario), round - 1)) await measure('round', round, scenario, target, { seconds: settings.seconds, connections: settings.connections })
    }
  }

  log(`bench: latency at a fixed ${settings.latencyRate} req/s with ${settings.latencyConnections} connections`)
  // The fixed-rate generator is a different code path from autocannon: warm it (and each
  // target's connections) first, or its own JIT warm-up shows up as the first run's p99.
  for (const target of [baseline, service, ...(pg ? [pg] : [])]) {
    await measure('warmup', 0, SCENARIOS[0]!, target, { seconds: settings.warmupSeconds, connections: settings.latencyConnections, rate: settings.latencyRate })
  }
  // GET list, the figure with a target, is measured once per round (interleaved, rotated); the
  // other scenarios once, to bound the run's length.
  for (let round = 1; round <= settings.rounds; round++) {
    for (const scenario of round === 1 ? MEASURED : MEASURED.slice(0, 1)) {
      for (const target of rotated(targetsOf(scenario).filter((t) => t.id !== 'prism' && t.id !== 'nocache'), round - 1)) {
        await measure('latency', round, scenario, target, { seconds: settings.latencySeconds, connections: settings.latencyConnections, rate: settings.latencyRate })
      }
    }
  }

  // -- memory: VmHWM is the process's own high-water mark, so one read at the end is the peak.
  const memory: Report['memory'] = {}
  for (const [id, target] of Object.entries(targets)) {
    const m = memoryOf(target.process.pid)
    if (m) memory[id as TargetId] = m
  }
  for (const target of Object.values(targets)) await stopTarget(target)

  // -- profile: a separate run of the service under --cpu-prof (slower; its numbers are not reported as throughput)
  let profileFile: string | undefined
  if (settings.profile) profileFile = await profileGet(tmp, logDir, service)

  // -- report
  const summaries = summarise(SCENARIOS, runs)
  const byId = (id: ScenarioId) => summaries.find((s) => s.scenario.id === id)
  const checks: Check[] = []
  for (const s of summaries) {
    const r = s.vsBaseline?.median
    checks.push({
      name: `${s.scenario.title}: service ÷ baseline req/s`,
      measured: r === undefined ? '–' : r.toFixed(2),
      target: `≥ ${s.scenario.ratioTarget.toFixed(2)}`,
      verdict: verdict(r === undefined ? undefined : r >= s.scenario.ratioTarget),
    })
  }
  const p99 = byId('list')?.latency.service?.latencyMs.p99
  checks.push({
    name: `GET list p99 at ${settings.latencyRate} req/s, ${settings.latencyConnections} connections (median of ${byId('list')?.latency.service?.runs ?? 0} runs)`,
    measured: p99 === undefined ? '–' : `${p99.toFixed(2)} ms`,
    target: '≤ 5 ms',
    verdict: verdict(p99 === undefined ? undefined : p99 <= 5),
  })
  const worstP99 = Math.max(...summaries.map((s) => s.latency.service?.latencyMs.p99 ?? 0))
  checks.push({ name: 'Worst service p99 over all scenarios at the fixed rate', measured: `${worstP99.toFixed(2)} ms`, target: '≤ 5 ms', verdict: verdict(worstP99 <= 5) })
  const rssRatio = memory.service && memory.baseline ? memory.service.peakKiB / memory.baseline.peakKiB : undefined
  checks.push({
    name: 'Peak RSS: service ÷ baseline',
    measured: rssRatio === undefined ? '–' : `${rssRatio.toFixed(2)}× (${(memory.service!.peakKiB / 1024).toFixed(0)} vs ${(memory.baseline!.peakKiB / 1024).toFixed(0)} MiB)`,
    target: '≤ 2.0×',
    verdict: verdict(rssRatio === undefined ? undefined : rssRatio <= 2),
  })
  const siteRps = byId('site')?.targets.service?.medianRps
  const listRps = byId('list')?.targets.service?.medianRps
  const siteRatio = siteRps !== undefined && listRps !== undefined ? siteRps / listRps : undefined
  checks.push({
    name: "Site listing ÷ GET list, cache on (the service's median req/s of each)",
    measured: siteRatio === undefined ? '–' : siteRatio.toFixed(2),
    target: '≥ 0.50',
    verdict: verdict(siteRatio === undefined ? undefined : siteRatio >= 0.5),
  })
  const pgRatio = byId('list')?.pgVsService?.median
  checks.push({
    name: `${secondLabel} GET list ÷ embedded GET list`,
    measured: pgRatio === undefined ? 'not measured' : pgRatio.toFixed(2),
    target: '≥ 0.50',
    verdict: verdict(pgRatio === undefined ? undefined : pgRatio >= 0.5),
  })
  for (const id of ['list', 'get'] as const) {
    const m = byId(id)?.serviceVsPrism?.median
    checks.push({
      name: `${byId(id)?.scenario.title}: service ÷ Prism req/s`,
      measured: m === undefined ? 'not measured' : `${m.toFixed(1)}×`,
      target: '≥ 10×',
      verdict: verdict(m === undefined ? undefined : m >= 10),
    })
  }

  // Is the load generator, not the server, the limit? Then the baseline's figure understates the ceiling.
  const baselineLoadgen = median(runs.filter((r) => r.phase === 'round' && r.target === 'baseline').map((r) => r.result.loadgenCpuShare))
  const serviceLoadgen = median(runs.filter((r) => r.phase === 'round' && r.target === 'service').map((r) => r.result.loadgenCpuShare))
  if (wrkMissing) notes.push('wrk is not installed: the throughput runs used autocannon (in the harness process, 10 connections) instead; figures are not comparable with runs made with wrk.')
  const loadgenText =
    loadgen === 'wrk'
      ? `wrk, ${settings.wrkThreads} thread${settings.wrkThreads === 1 ? '' : 's'}, its own process`
      : 'autocannon, one Node.js thread, in the harness process'
  notes.push(
    `Mixed scenario: every ${MIX_EVERY}th request of a run (counted over all its connections) is POST /v1/pets, the others GET list, over the same connections; the service answers 200 and 201, and so does the baseline (the same list body, the created animal after parsing the posted JSON). Each create adds an animal (status "pending"), so the first page of available animals stays the same.`,
  )
  notes.push(
    `Load generator (${loadgenText}) used a median ${(baselineLoadgen * 100).toFixed(0)} % of a core during baseline runs and ${(serviceLoadgen * 100).toFixed(0)} % during service runs, on ${os.cpus().length} cores shared with the servers.` +
      (baselineLoadgen > 0.85
        ? ' Near a full core for the baseline: the baseline is partly bound by the load generator, so its req/s understates the runtime\'s ceiling and the service/baseline ratios are optimistic. Server CPU µs per request (service vs baseline) does not depend on the load generator and tells the same story more directly.'
        : ''),
  )
  const others = runs.filter((r) => r.phase !== 'warmup' && r.target !== 'pg').map((r) => r.result.otherCpuCores)
  const busyRuns = others.filter((c) => c > NOISY_OTHER_CPU).length
  notes.push(
    `Other activity on the machine during the measured runs (PostgreSQL + Redis runs left out): a median ${median(others).toFixed(2)} cores of CPU outside the server and the load generator` +
      (busyRuns
        ? `; ${busyRuns} of ${others.length} runs saw more than ${NOISY_OTHER_CPU} cores (⚠ in the last table), so something else was competing for the machine: absolute figures and latency suffer most, ratios less, CPU µs per request least.`
        : '.') +
      ` The harness waited ${(waitedMs / 1000).toFixed(0)} s in all for quieter moments (budget ${settings.quietWaitSeconds} s). Load average: ${loadStart} at the start, ${loadavg()} at the end.`,
  )
  notes.push(
    'Logging: the service runs with LOG_LEVEL at its default (info) and its stdout sent to /dev/null; it still builds and writes one JSON line per request (pino), which is part of the measured cost. Prism also logs at its default level to /dev/null.',
  )
  notes.push(
    'TRUST_PROXY=true for every service instance (so the 401 scenario can give each request its own X-Forwarded-For address from 10.0.0.0/16); the other scenarios send no X-Forwarded-For. Without it, the 401 scenario would measure mostly 429s after 60 requests a minute.',
  )
  if (rssBefore) notes.push(`Service RSS after setup, before load: ${(rssBefore.rssKiB / 1024).toFixed(1)} MiB.`)
  if (pg) notes.push(`${secondLabel}: server CPU µs per request counts only the Node.js process, not PostgreSQL's or Redis's.`)
  if (profileFile) notes.push(`CPU profile of the service under GET list load: ${resultsShown}/${path.basename(profileFile)}.`)

  const report: Report = {
    title: `Adoption Store benchmark${quick ? ' (quick)' : ''}`,
    startedAt: started.toISOString(),
    finishedAt: new Date().toISOString(),
    environment: environmentInfo(),
    settings: {
      seconds: settings.seconds,
      rounds: settings.rounds,
      warmupSeconds: settings.warmupSeconds,
      connections: settings.connections,
      latencyRate: settings.latencyRate,
      latencyConnections: settings.latencyConnections,
      latencySeconds: settings.latencySeconds,
      quietWaitSeconds: settings.quietWaitSeconds,
      loadgen,
      ...(loadgen === 'wrk' && { wrkThreads: settings.wrkThreads }),
      quick,
    },
    labels: { service: 'service (embedded)', baseline: 'baseline (node:http)', pg: `service (${secondLabel})`, prism: 'Prism mock', nocache: 'service (embedded, RESPONSE_CACHE=off)' },
    scenarios: summaries,
    memory,
    checks,
    notes,
    runs,
  }
  mkdirSync(resultsDir, { recursive: true })
  const markdown = toMarkdown(report)
  writeFileSync(path.join(resultsDir, `${outputName}.md`), markdown)
  writeFileSync(path.join(resultsDir, `${outputName}.json`), JSON.stringify(report, null, 2) + '\n')
  writeFileSync(path.join(resultsDir, `${outputName}.svg`), toSvg(report))

  log('')
  log(markdown.split('\n## Latency')[0] ?? '')
  log(`bench: wrote ${resultsShown}/${outputName}.md, ${outputName}.json, ${outputName}.svg${profileFile ? ` and ${path.basename(profileFile)}` : ''} in ${((Date.now() - started.getTime()) / 1000).toFixed(0)} s`)
}

/** Runs the service under `--cpu-prof` on the already-seeded data, loads GET list, and summarises the profile. */
async function profileGet(tmp: string, logDir: string, prepared: Target): Promise<string | undefined> {
  log(`bench: profiling the service under GET list load (${settings.profileSeconds} s, --cpu-prof)`)
  const profileDir = path.join(tmp, 'profile')
  mkdirSync(profileDir)
  const instance = await startService({
    name: 'service-profile',
    paths,
    logDir,
    dataDir: path.join(tmp, 'data'),
    nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`],
  })
  const target: Target = { ...prepared, baseUrl: instance.baseUrl, process: instance.process }
  const warmup = await closedLoop(target.baseUrl, SCENARIOS[0]!.request(target), 200, target.process.pid, { seconds: 1, connections: settings.connections })
  assertExpected(warmup, 200, `${SCENARIOS[0]!.title} warming up the profiler`)
  const fromUs = Number(process.hrtime.bigint() / 1000n)
  const result = await closedLoop(target.baseUrl, SCENARIOS[0]!.request(target), 200, target.process.pid, { seconds: settings.profileSeconds, connections: settings.connections })
  assertExpected(result, 200, `${SCENARIOS[0]!.title} under the profiler`)
  const toUs = Number(process.hrtime.bigint() / 1000n)
  log(`  under the profiler: ${Math.round(result.rps)} req/s (not comparable: profiling costs time)`)
  // The profile is written when the process exits; the service exits cleanly on SIGTERM.
  await stopTarget(target)
  const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'))
  if (!file) {
    log('bench: warning: the service wrote no CPU profile')
    return undefined
  }
  const name = quick ? 'profile-get.quick.txt' : 'profile-get.txt'
  const title = [
    `CPU profile of the built service (embedded SQLite, LOG_LEVEL info → /dev/null) under GET /v1/pets?limit=20&status=available,`,
    `${settings.connections} connections, ${settings.profileSeconds} s (after 1 s of warm-up), ${new Date().toISOString()}, Node ${process.version}.`,
    `Throughput under the profiler: ${Math.round(result.rps)} req/s. Self time = time in the function itself, not in what it calls.`,
  ].join('\n')
  mkdirSync(resultsDir, { recursive: true })
  writeFileSync(path.join(resultsDir, name), summariseProfile(path.join(profileDir, file), root, title, { fromUs, toUs }))
  // The raw profile, for Chrome DevTools / speedscope; bench/results/tmp/ is not committed.
  const rawDir = path.join(root, 'bench/results/tmp')
  mkdirSync(rawDir, { recursive: true })
  writeFileSync(path.join(rawDir, `${name.replace(/\.txt$/, '')}.cpuprofile`), readFileSync(path.join(profileDir, file)))
  return name
}

const loadavg = () => os.loadavg().map((n) => n.toFixed(2)).join(' / ')

function newestSourceAfter(mtimeMs: number): string | undefined {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []))
  const newer = walk(path.join(root, 'src')).filter((f) => statSync(f).mtimeMs > mtimeMs)
  return newer.length ? path.relative(root, newer[0]!) : undefined
}

function environmentInfo(): Record<string, string> {
  const version = (pkg: string) => {
    try {
      return (JSON.parse(readFileSync(path.join(root, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version
    } catch {
      return 'not installed'
    }
  }
  const cpus = os.cpus()
  let head = 'unknown'
  try {
    // Read, not run: the commit the work tree was checked out at (uncommitted changes not shown).
    // In a linked work tree, .git is a file naming its own git dir; branch refs live in the common one.
    let gitDir = path.join(root, '.git')
    if (statSync(gitDir).isFile()) gitDir = path.resolve(root, readFileSync(gitDir, 'utf8').trim().replace(/^gitdir: /, ''))
    const commonDir = existsSync(path.join(gitDir, 'commondir')) ? path.resolve(gitDir, readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim()) : gitDir
    const ref = readFileSync(path.join(gitDir, 'HEAD'), 'utf8').trim()
    const refFile = [gitDir, commonDir].map((dir) => path.join(dir, ref.slice(5))).find((file) => existsSync(file))
    head = ref.startsWith('ref: ') ? (refFile ? readFileSync(refFile, 'utf8').trim().slice(0, 12) : ref.slice(5)) : ref.slice(0, 12)
  } catch {
    // Not a checkout.
  }
  return {
    Node: process.version,
    Machine: `${cpus.length} × ${cpus[0]?.model ?? 'CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Linux ${os.release()}`,
    'Service build': `dist/cli.js built ${statSync(paths.cli).mtime.toISOString()}, HEAD ${head}`,
    'Load generator':
      loadgen === 'wrk'
        ? `wrk (${wrkPath}, ${settings.wrkThreads} thread${settings.wrkThreads === 1 ? '' : 's'}, Lua script counting statuses) for throughput; bench/lib/rate.ts for fixed-rate latency`
        : `autocannon ${version('autocannon')} (in the harness process) for throughput; bench/lib/rate.ts for fixed-rate latency`,
    Prism: `@stoplight/prism-cli ${version('@stoplight/prism-cli')}`,
    Network: 'loopback (127.0.0.1)',
  }
}

// ---- process lifetime ----------------------------------------------------------------------------

await runMain('bench', main, stopCurrentLoad)
