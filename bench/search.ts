/**
 * The search at scale: `GET /v1/pets` with filters, `q` and `near` over 1,000,000 animals in 100
 * projects, one of them holding 100,000, on each back end; the built service with its response
 * cache off, one request at a time. Also times `adoption-store pets import` of the 100,000 (SQLite)
 * and writes the query plans the figures rely on. Run by `npm run bench` after the throughput
 * scenarios (BENCH_SEARCH=0 skips it); see bench/README.md, "Search at scale".
 */
import { writeFileSync } from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { stringify } from 'csv-stringify/sync'
import type { Statement } from 'better-sqlite3'
import { CompiledQuery, type Kysely } from 'kysely'
import { benchLocation, fullAnimal } from './lib/animals.js'
import { sleep } from './lib/proc.js'
import { cli, freshDatabase, type Paths, startService, stopTarget } from './lib/targets.js'

export interface SearchSettings {
  /** Animals in all. */
  rows: number
  /** Animals of the big project (the rest are spread evenly over the others). */
  bigRows: number
  projects: number
  locationsPerProject: number
  /** Timed requests per query, after `warmup` untimed ones. */
  samples: number
  warmup: number
}

export function searchSettings(env: NodeJS.ProcessEnv, quick: boolean): SearchSettings {
  const number = (name: string, fallback: number) => (env[name] ? Math.max(1, Math.round(Number(env[name]))) : fallback)
  return {
    rows: number('BENCH_SEARCH_ROWS', quick ? 20_000 : 1_000_000),
    bigRows: number('BENCH_SEARCH_BIG', quick ? 5_000 : 100_000),
    projects: number('BENCH_SEARCH_PROJECTS', quick ? 10 : 100),
    locationsPerProject: 20,
    samples: number('BENCH_SEARCH_SAMPLES', quick ? 20 : 300),
    warmup: quick ? 3 : 30,
  }
}

/** The queries measured, as their query strings (a key of the project is added). */
export const SEARCH_QUERIES: { id: string; kind: 'plain' | 'combined' | 'count'; title: string; query: string }[] = [
  { id: 'status', kind: 'plain', title: "the spec's list: one status", query: 'limit=20&status=available' },
  { id: 'two-filters', kind: 'plain', title: 'category and sex', query: 'limit=20&categoryId=2&sex=female' },
  { id: 'newest', kind: 'plain', title: 'available, newest first', query: 'limit=20&status=available&sort=-createdAt' },
  { id: 'many-filters', kind: 'plain', title: 'two sizes, good with children, vaccinated, by name', query: 'limit=20&size=small,medium&goodWithChildren=yes&vaccinated=true&sort=name' },
  { id: 'breed', kind: 'plain', title: 'a breed (primary or secondary)', query: 'limit=20&breed=Beagle' },
  { id: 'combined', kind: 'combined', title: 'category, sex, age + q + near 100 km', query: 'limit=20&categoryId=1&sex=female&age=young,adult&q=friendly&near=52.5,-1.9&radius=100' },
  { id: 'combined-distance', kind: 'combined', title: 'the same, nearest first', query: 'limit=20&categoryId=1&sex=female&age=young,adult&q=friendly&near=52.5,-1.9&radius=100&sort=distance' },
  { id: 'combined-rare', kind: 'combined', title: 'status, size, cats + q (two words) + near 30 mi, newest', query: 'limit=20&status=available&size=medium&goodWithCats=yes&q=gentle%20agility&near=51.5,-0.1&radius=30&unit=mi&sort=-createdAt' },
  { id: 'combined-count', kind: 'count', title: 'the combined search with count=true (no target: a count reads every match)', query: 'limit=20&categoryId=1&sex=female&age=young,adult&q=friendly&near=52.5,-1.9&radius=100&count=true' },
]

/** The floor: `GET /healthz`, no key, no database, timed the same way. */
const FLOOR = 'healthz'

export interface QueryFigures {
  id: string
  project: 'big' | 'small'
  p50: number
  p95: number
  p99: number
  max: number
  /** Animals on the first page; and the total when the query asks for it. */
  returned: number
  total?: number
}

export interface BackendResult {
  backend: 'SQLite' | 'PostgreSQL'
  rows: number
  bigRows: number
  smallRows: number
  seedSeconds: number
  /** `adoption-store pets import` of the big project's CSV (SQLite only). */
  importSeconds?: number
  figures: QueryFigures[]
  plans: { id: string; sql: string; plan: string }[]
}

type Log = (line: string) => void

/** Creation times: one animal a minute before this instant, in the order written. */
const EPOCH = Date.UTC(2025, 0, 1)

/** Runs the search benchmark on SQLite, and on PostgreSQL when `databaseUrl` is given. */
export async function runSearchBench(options: {
  paths: Paths
  tmp: string
  logDir: string
  databaseUrl: string | undefined
  settings: SearchSettings
  /** Without SQLite: PostgreSQL alone (`BENCH_SEARCH_BACKENDS=postgres`). */
  sqlite: boolean
  log: Log
}): Promise<BackendResult[]> {
  const results = options.sqlite ? [await measureBackend({ ...options, databaseUrl: undefined, backend: 'SQLite' })] : []
  if (options.databaseUrl) results.push(await measureBackend({ ...options, backend: 'PostgreSQL', databaseUrl: await freshDatabase(options.databaseUrl, options.log) }))
  return results
}

interface Seeded {
  bigId: number
  smallId: number
  bigKey: string
  smallKey: string
}

async function measureBackend(options: {
  paths: Paths
  tmp: string
  logDir: string
  databaseUrl?: string | undefined
  settings: SearchSettings
  log: Log
  backend: BackendResult['backend']
}): Promise<BackendResult> {
  const { paths, settings, log, backend } = options
  const dataDir = path.join(options.tmp, `search-${backend.toLowerCase()}`)
  const serviceOptions = {
    name: `search-${backend.toLowerCase()}`,
    paths,
    logDir: options.logDir,
    dataDir,
    databaseUrl: options.databaseUrl,
    env: { RESPONSE_CACHE: 'off', LOG_LEVEL: 'warn' },
  }
  log(`bench: search at scale on ${backend}: ${settings.rows.toLocaleString('en')} animals over ${settings.projects} projects, ${settings.bigRows.toLocaleString('en')} in one`)

  // The schema and the two measured projects, through the product.
  let instance = await startService(serviceOptions)
  const keys: Partial<Seeded> = {}
  for (const which of ['big', 'small'] as const) {
    await cli(paths, instance.env, ['projects', 'create', `search-${which}`, '--plan', 'enterprise', '--per-minute', '1000000000', '--per-day', '1000000000'])
    const { key } = await cli<{ key: string }>(paths, instance.env, ['keys', 'create', '--project', `search-${which}`, '--name', 'bench'])
    keys[which === 'big' ? 'bigKey' : 'smallKey'] = key
  }
  await stopTarget(instance)

  const started = Date.now()
  const store = backend === 'SQLite' ? await sqliteStore(path.join(dataDir, 'adoption-store.db')) : await postgresStore(options.databaseUrl!)
  const smallRows = Math.floor((settings.rows - settings.bigRows) / (settings.projects - 1))
  const seeded = await seed(paths, store, settings, smallRows, backend === 'PostgreSQL', log)
  await store.close()
  const seedSeconds = (Date.now() - started) / 1000
  log(`  ${backend}: wrote ${(settings.rows - (backend === 'SQLite' ? settings.bigRows : 0)).toLocaleString('en')} animals directly in ${seedSeconds.toFixed(0)} s`)

  let importSeconds: number | undefined
  if (backend === 'SQLite') {
    // The big project through `adoption-store pets import`: the figure the import target reads.
    const file = path.join(options.tmp, 'big.csv')
    await writeCsv(paths, file, settings.bigRows, seeded.bigLocations)
    const importStarted = Date.now()
    const report = await cli<{ created: number; problems: unknown[] }>(paths, instance.env, ['pets', 'import', '--project', 'search-big', '--file', file])
    importSeconds = (Date.now() - importStarted) / 1000
    if (report.created !== settings.bigRows) throw new Error(`pets import created ${report.created} animals, not ${settings.bigRows}: ${JSON.stringify(report).slice(0, 300)}`)
    log(`  ${backend}: adoption-store pets import of ${settings.bigRows.toLocaleString('en')} CSV rows: ${importSeconds.toFixed(1)} s`)
  }

  instance = await startService(serviceOptions)
  const figures: QueryFigures[] = []
  try {
    for (const project of ['big', 'small'] as const) {
      const key = project === 'big' ? keys.bigKey! : keys.smallKey!
      figures.push(...(await measureQueries(instance.baseUrl, key, project, settings, log, backend)))
    }
  } finally {
    await stopTarget(instance)
  }
  const plans = await queryPlans(paths, dataDir, options.databaseUrl, seeded.bigId)
  return { backend, rows: settings.rows, bigRows: settings.bigRows, smallRows, seedSeconds, ...(importSeconds !== undefined && { importSeconds }), figures, plans }
}

// ---- writing the animals -------------------------------------------------------------------------

interface Store {
  /** Inserts rows of `columns`; returns the ids given, in order. */
  insert(table: string, columns: string[], rows: unknown[][]): Promise<number[]>
  query<T>(text: string, parameters?: unknown[]): Promise<T[]>
  close(): Promise<void>
}

async function sqliteStore(file: string): Promise<Store> {
  const { default: Database } = await import('better-sqlite3')
  const db = new Database(file)
  // Setting up, not measuring: the file is fsynced once at the end (WAL checkpoint on close).
  db.pragma('synchronous = OFF')
  const statements = new Map<string, Statement>()
  return {
    async insert(table, columns, rows) {
      const text = `insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')}) returning id`
      let statement = statements.get(text)
      if (!statement) statements.set(text, (statement = db.prepare(text)))
      const run = db.transaction(() => rows.map((row) => Number((statement.get(...row) as { id: number }).id)))
      return run()
    },
    async query<T>(text: string, parameters: unknown[] = []) {
      return db.prepare(text).all(...parameters) as T[]
    },
    async close() {
      db.pragma('wal_checkpoint(TRUNCATE)')
      db.close()
    },
  }
}

async function postgresStore(url: string): Promise<Store> {
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  await client.query('set synchronous_commit = off')
  return {
    async insert(table, columns, rows) {
      const ids: number[] = []
      // At most 65,535 parameters a statement.
      const per = Math.floor(60_000 / columns.length)
      for (let from = 0; from < rows.length; from += per) {
        const chunk = rows.slice(from, from + per)
        const values = chunk.map((_, r) => `(${columns.map((__, c) => `$${r * columns.length + c + 1}`).join(', ')})`).join(', ')
        const result = await client.query<{ id: string }>(`insert into ${table} (${columns.join(', ')}) values ${values} returning id`, chunk.flat())
        ids.push(...result.rows.map((row) => Number(row.id)))
      }
      return ids
    },
    async query<T>(text: string, parameters: unknown[] = []) {
      let n = 0
      return (await client.query(text.replace(/\?/g, () => `$${++n}`), parameters)).rows as T[]
    },
    async close() {
      await client.end()
    },
  }
}

const PET_COLUMNS = [
  'project_id', 'name', 'name_folded', 'category_id', 'status', 'created_at', 'updated_at', 'profile', 'external_id', 'sex', 'age_group', 'size', 'coat',
  'good_with_children', 'good_with_dogs', 'good_with_cats', 'spayed_neutered', 'house_trained', 'vaccinated', 'microchipped', 'special_needs',
  'breed_primary_key', 'breed_secondary_key', 'location_id', 'tags_key', 'search_text',
]

async function seed(paths: Paths, store: Store, settings: SearchSettings, smallRows: number, bigToo: boolean, log: Log): Promise<Seeded & { bigLocations: number[] }> {
  const { profileOf, profileColumns } = (await import(pathToFileURL(path.join(paths.root, 'dist/pets/profile.js')).href)) as {
    profileOf(fields: object): object
    profileColumns(name: string, profile: object): Record<string, string | number | null>
  }
  const now = new Date().toISOString()
  const projectOf = async (slug: string) => Number((await store.query<{ id: number }>('select id from projects where slug = ?', [slug]))[0]!.id)
  const bigId = await projectOf('search-big')
  const smallId = await projectOf('search-small')
  const fillers = await store.insert(
    'projects',
    ['slug', 'plan', 'created_at'],
    Array.from({ length: settings.projects - 2 }, (_, i) => [`search-fill-${i + 1}`, 'enterprise', now]),
  )
  const projects = [bigId, smallId, ...fillers]
  const locations = new Map<number, number[]>()
  for (const project of projects) {
    const rows = Array.from({ length: settings.locationsPerProject }, (_, j) => {
      const place = benchLocation(j)
      return [project, place.name, JSON.stringify(place.address), place.coordinates.latitude, place.coordinates.longitude, now, now]
    })
    locations.set(project, await store.insert('locations', ['project_id', 'name', 'address', 'latitude', 'longitude', 'created_at', 'updated_at'], rows))
  }

  // Every project but the big one gets `smallRows`, written round robin over the projects so
  // that each project's animals are spread over the table, as when shelters add them day by day.
  const writers = bigToo ? [bigId, smallId, ...fillers] : [smallId, ...fillers]
  const quota = new Map(writers.map((project) => [project, project === bigId ? settings.bigRows : smallRows]))
  const total = [...quota.values()].reduce((a, b) => a + b, 0)
  const counters = new Map(writers.map((project) => [project, 0]))
  let batch: unknown[][] = []
  let written = 0
  let lastLog = Date.now()
  for (let n = 0; written + batch.length < total; n++) {
    // The big project takes its share of every round (bigRows / total of the rows).
    const project = writers[n % writers.length]!
    const count = counters.get(project)!
    if (count >= quota.get(project)!) continue
    counters.set(project, count + 1)
    const i = project * 10_000_000 + count
    const { name, categoryId, status, ...fields } = fullAnimal(i, locations.get(project)!)
    const profile = profileOf(fields)
    const columns = profileColumns(name, profile)
    const created = new Date(EPOCH + (written + batch.length) * 60_000 * (1_000_000 / total)).toISOString()
    batch.push([
      project, name, name.trim().toLowerCase(), categoryId, status, created, created, columns.profile, columns.external_id, columns.sex, columns.age_group, columns.size,
      columns.coat, columns.good_with_children, columns.good_with_dogs, columns.good_with_cats, columns.spayed_neutered, columns.house_trained, columns.vaccinated,
      columns.microchipped, columns.special_needs, columns.breed_primary_key, columns.breed_secondary_key, columns.location_id, columns.tags_key, columns.search_text,
    ])
    if (batch.length === 10_000) {
      await store.insert('pets', PET_COLUMNS, batch)
      written += batch.length
      batch = []
      if (Date.now() - lastLog > 15_000) {
        log(`    ${written.toLocaleString('en')} of ${total.toLocaleString('en')} written`)
        lastLog = Date.now()
      }
    }
  }
  if (batch.length) await store.insert('pets', PET_COLUMNS, batch)
  // What PostgreSQL's autovacuum does by itself after such a load (a table that grew by more
  // than a fifth is vacuumed and analyzed), done before measuring rather than during it; SQLite's
  // planner is left as the service leaves it (no ANALYZE: the service never runs one).
  if (bigToo) await store.query('vacuum analyze')
  return { bigId, smallId, bigKey: '', smallKey: '', bigLocations: locations.get(bigId)! }
}

/** The big project's animals as a CSV export would hold them (without ids: new animals). */
async function writeCsv(paths: Paths, file: string, rows: number, locationIds: number[]): Promise<void> {
  const { CSV_COLUMNS, petRow } = (await import(pathToFileURL(path.join(paths.root, 'dist/pets/pets.csv.js')).href)) as {
    CSV_COLUMNS: readonly string[]
    petRow(pet: object): (string | number)[]
  }
  const lines: unknown[][] = [[...CSV_COLUMNS]]
  for (let i = 0; i < rows; i++) {
    const row = petRow({ id: 0, ...fullAnimal(i, locationIds) })
    row[0] = ''
    lines.push(row)
  }
  writeFileSync(file, stringify(lines))
}

// ---- measuring -----------------------------------------------------------------------------------

async function measureQueries(baseUrl: string, key: string, project: 'big' | 'small', settings: SearchSettings, log: Log, backend: string): Promise<QueryFigures[]> {
  const headers = { authorization: `Bearer ${key}` }
  // One keep-alive connection, no Accept-Encoding: each request is timed from sending it to the
  // last byte of its answer, the body parsed and checked after the clock stops.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const get = (url: string) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string; ms: number }>((resolve, reject) => {
      const started = process.hrtime.bigint()
      http
        .get(url, { agent, headers }, (response) => {
          const chunks: Buffer[] = []
          response.on('data', (chunk: Buffer) => chunks.push(chunk))
          response.on('end', () => {
            const ms = Number(process.hrtime.bigint() - started) / 1e6
            resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8'), ms })
          })
          response.on('error', reject)
        })
        .on('error', reject)
    })
  const once = async (query: string) => {
    const { status, headers: answered, text, ms } = await get(query === FLOOR ? `${baseUrl}/healthz` : `${baseUrl}/v1/pets?${query}`)
    if (query === FLOOR) return { ms, returned: 0 }
    const body = JSON.parse(text) as unknown
    if (status !== 200 || !Array.isArray(body)) throw new Error(`search bench: GET /v1/pets?${query} answered ${status}: ${text.slice(0, 300)}`)
    const total = answered['x-total-count']
    return { ms, returned: body.length, ...(typeof total === 'string' && { total: Number(total) }) }
  }
  const queries = [{ id: 'floor', query: FLOOR }, ...SEARCH_QUERIES]
  for (const { query } of queries) for (let i = 0; i < settings.warmup; i++) await once(query)
  // Sequential and interleaved: each sample asks every query once, in turn.
  const times = new Map(queries.map((q) => [q.id, [] as number[]]))
  const answers = new Map<string, { returned: number; total?: number }>()
  for (let sample = 0; sample < settings.samples; sample++) {
    for (const { id, query } of queries) {
      const { ms, ...answer } = await once(query)
      times.get(id)!.push(ms)
      answers.set(id, answer)
    }
    if (sample % 50 === 49) await sleep(20)
  }
  agent.destroy()
  return queries.map(({ id }) => {
    const sorted = times.get(id)!.sort((a, b) => a - b)
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!
    const figures: QueryFigures = { id, project, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: sorted[sorted.length - 1]!, ...answers.get(id)! }
    log(`  ${backend} ${project.padEnd(5)} ${id.padEnd(18)} p50 ${figures.p50.toFixed(2)}  p99 ${figures.p99.toFixed(2)} ms  (${figures.returned} returned${figures.total !== undefined ? ` of ${figures.total}` : ''})`)
    return figures
  })
}

/**
 * The statements the service runs for each query, captured from its own search code on the same
 * database (a Kysely plugin compiles each query it sees), and the engine's plan for each.
 */
async function queryPlans(paths: Paths, dataDir: string, databaseUrl: string | undefined, projectId: number): Promise<BackendResult['plans']> {
  // The built modules, typed only as far as used here.
  const load = async <T>(file: string) => (await import(pathToFileURL(path.join(paths.root, 'dist', file)).href)) as T
  const { openDatabase } = await load<{ openDatabase(config: unknown): { db: Kysely<unknown>; dialect: 'sqlite' | 'postgres'; close(): Promise<void> } }>('db/database.js')
  const { defineConfig } = await load<{ defineConfig(values: object): unknown }>('config.js')
  type Search = { search(projectId: number, query: object): Promise<{ ok: true } | { ok: false; message: string }> }
  const { PetsService } = await load<{ PetsService: new (deps: object) => Search }>('pets/pets.service.js')
  const { LocationsService } = await load<{ LocationsService: new (deps: object) => object }>('locations/locations.service.js')
  const handle = openDatabase(defineConfig({ dataDir, ...(databaseUrl && { databaseUrl }) }))
  const captured: { sql: string; parameters: readonly unknown[] }[] = []
  const db = handle.db.withPlugin({
    transformQuery: ({ node, queryId }) => {
      captured.push(handle.db.getExecutor().compileQuery(node, queryId))
      return node
    },
    transformResult: async ({ result }) => result,
  })
  const clock = { now: () => Date.now() }
  const generations = { dataChanged: async () => {} }
  const locations = new LocationsService({ db, clock, generations })
  const pets = new PetsService({ db, dialect: handle.dialect, clock, generations, locations })
  const plans: BackendResult['plans'] = []
  try {
    for (const { id, query } of SEARCH_QUERIES) {
      if (id === 'status') continue // a prepared statement: `where project_id = ? and status = ? and id > ? order by id`
      captured.length = 0
      const parameters = Object.fromEntries(new URLSearchParams(query))
      const outcome = await pets.search(projectId, { ...parameters, limit: Number(parameters.limit) })
      if (!outcome.ok) throw new Error(`search bench: ${id}: ${outcome.message}`)
      const search = captured.find((statement) => /from "pets"/.test(statement.sql) && !/count\(/.test(statement.sql))
      if (!search) continue
      const explain = handle.dialect === 'postgres' ? 'explain (analyze, buffers, costs off, summary off) ' : 'explain query plan '
      const { rows } = await handle.db.executeQuery(CompiledQuery.raw(explain + search.sql, [...search.parameters]))
      const plan = (rows as Record<string, unknown>[])
        .map((row) => (handle.dialect === 'postgres' ? String(row['QUERY PLAN']) : `${'  '.repeat(depthOf(rows as never, row as never))}${String(row.detail)}`))
        .join('\n')
      plans.push({ id, sql: search.sql, plan })
    }
  } finally {
    await handle.close()
  }
  return plans
}

/** SQLite's EXPLAIN QUERY PLAN rows form a tree by `parent`. */
function depthOf(rows: { id: number; parent: number }[], row: { id: number; parent: number }): number {
  let depth = 0
  for (let parent = row.parent; parent !== 0; depth++) parent = rows.find((r) => r.id === parent)?.parent ?? 0
  return depth
}

// ---- report --------------------------------------------------------------------------------------

const fmt = (ms: number) => ms.toFixed(2)

export function searchMarkdown(results: BackendResult[], settings: SearchSettings, notes: string[]): string {
  const lines: string[] = ['## Search at scale (response cache off, one request at a time)', '']
  lines.push(
    `${settings.rows.toLocaleString('en')} animals with every profile field filled, over ${settings.projects} projects of ${settings.locationsPerProject} locations each: the "big" project holds ${settings.bigRows.toLocaleString('en')}, each other one ${results[0]?.smallRows.toLocaleString('en')}. ` +
      `Each query ran ${settings.samples} times per project after ${settings.warmup} warm-up runs, interleaved with the others, through HTTP (one keep-alive connection, no compression asked; from sending to the last byte of the answer) against the built service with RESPONSE_CACHE=off. Targets: p99 ≤ 25 ms for the combined searches (three filters, \`q\` and \`near\`), ≤ 10 ms for plain filtered lists.`,
    '',
  )
  lines.push('| Query | Kind | Back end | Project | p50 ms | p95 ms | p99 ms | max ms | Returned (of) | Target |', '|---|---|---|---|---:|---:|---:|---:|---:|---|')
  for (const result of results) {
    for (const f of result.figures) {
      const query = SEARCH_QUERIES.find((q) => q.id === f.id)
      if (!query) {
        if (f.project === 'big') lines.push(`| floor: \`GET /healthz\` (no key, no database) | – | ${result.backend} | – | ${fmt(f.p50)} | ${fmt(f.p95)} | ${fmt(f.p99)} | ${fmt(f.max)} | – | – |`)
        continue
      }
      const limit = query.kind === 'combined' ? 25 : query.kind === 'plain' ? 10 : undefined
      const target = limit === undefined ? '–' : `≤ ${limit} ${f.p99 <= limit ? 'PASS' : 'FAIL'}`
      lines.push(
        `| ${query.title} | ${query.kind} | ${result.backend} | ${f.project} (${(f.project === 'big' ? result.bigRows : result.smallRows).toLocaleString('en')}) | ${fmt(f.p50)} | ${fmt(f.p95)} | **${fmt(f.p99)}** | ${fmt(f.max)} | ${f.returned}${f.total !== undefined ? ` (${f.total.toLocaleString('en')})` : ''} | ${target} |`,
      )
    }
  }
  lines.push('', '| Query | Query string |', '|---|---|')
  for (const q of SEARCH_QUERIES) lines.push(`| ${q.title} | \`${decodeURIComponent(q.query)}\` |`)
  lines.push('')
  for (const result of results) {
    lines.push(`Writing the data on ${result.backend}: ${result.seedSeconds.toFixed(0)} s for the animals written directly (the product's own profile code computes every column).`)
    if (result.importSeconds !== undefined) {
      const rate = result.bigRows / result.importSeconds
      lines.push(
        `\`adoption-store pets import\` of the big project's ${result.bigRows.toLocaleString('en')} CSV rows on ${result.backend} (a table already holding ${(result.rows - result.bigRows).toLocaleString('en')} animals): **${result.importSeconds.toFixed(1)} s** (${Math.round(rate).toLocaleString('en')} rows/s; target for 100,000 rows: < 60 s ${result.bigRows >= 100_000 ? (result.importSeconds < 60 ? 'PASS' : 'FAIL') : 'n/a at this size'}).`,
      )
    }
    lines.push('')
  }
  for (const note of notes) lines.push(`- ${note}`)
  lines.push('', '### Query plans (big project)', '')
  for (const result of results) {
    for (const plan of result.plans) {
      lines.push(`**${result.backend}: ${SEARCH_QUERIES.find((q) => q.id === plan.id)!.title}**`, '', '```sql', plan.sql, '```', '', '```', plan.plan, '```', '')
    }
  }
  return lines.join('\n')
}
