/**
 * The servers under test, and what each needs before it is measured: the built service
 * (embedded, and on PostgreSQL + Redis when configured), the bare node:http baseline, and Prism.
 */
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs, { writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { benchLocation, fullAnimal } from './animals.js'
import type { TargetId } from './report.js'
import { freePort, type Managed, onCleanup, startNode, stopProcess, waitUntil } from './proc.js'

const run = promisify(execFile)

export interface Paths {
  root: string
  cli: string
  openapi: string
  prismBin: string
  baselineScript: string
  /** The photo benchmark's uploads, sent from a process of their own. */
  uploaderScript: string
}

/** The files of the repository at `root` that the targets start from. */
export function pathsUnder(root: string): Paths {
  return {
    root,
    cli: path.join(root, 'dist/cli.js'),
    openapi: path.join(root, 'openapi.json'),
    prismBin: path.join(root, 'node_modules/@stoplight/prism-cli/dist/index.js'),
    baselineScript: path.join(root, 'bench/baseline-server.mjs'),
    uploaderScript: path.join(root, 'bench/uploader.mjs'),
  }
}

/** What the scenarios need to address one target. */
export interface Target {
  id: TargetId
  label: string
  baseUrl: string
  process: Managed
  /** '/v1' for the service and the baseline; '' for Prism, which serves the spec's paths without the server's base path. */
  prefix: string
  key: string
  exhaustedKey: string
  unknownKey: string
  /** The key of the project whose animals have every profile field filled. */
  fullKey: string
  /** That project's slug: its adoption site's listing is at `/sites/<slug>/`. */
  fullSlug: string
  petId: number
}

/** Every variable the service reads: children start from a clean slate so only ours apply. */
const SERVICE_VARIABLES = [
  'PORT', 'HOST', 'DATA_DIR', 'DATABASE_URL', 'DATABASE_POOL_SIZE', 'DATABASE_TIMEOUT_MS', 'ENVIRONMENT',
  'PUBLIC_BASE_URL', 'STAGING_BASE_URL', 'LOG_LEVEL', 'BODY_LIMIT', 'REDIS_URL', 'REDIS_KEY_PREFIX',
  'REDIS_TIMEOUT_MS', 'TRUST_PROXY', 'NODE_OPTIONS', 'RESPONSE_CACHE',
]

export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of SERVICE_VARIABLES) delete env[name]
  return { ...env, ...extra }
}

export interface ServiceOptions {
  name: string
  paths: Paths
  logDir: string
  dataDir: string
  databaseUrl?: string | undefined
  redisUrl?: string | undefined
  redisKeyPrefix?: string | undefined
  /** Extra node flags, e.g. --cpu-prof. */
  nodeFlags?: string[]
  /** Extra environment, e.g. RESPONSE_CACHE=off. */
  env?: Record<string, string>
}

export interface ServiceInstance {
  process: Managed
  baseUrl: string
  env: NodeJS.ProcessEnv
}

/** The Node.js flags the service runs with, as `npm start` gives them (package.json). */
export function startFlags(root: string): string[] {
  const { scripts } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }
  return scripts.start.split(/\s+/).filter((word) => word.startsWith('--'))
}

/** `node dist/cli.js serve` (with `npm start`'s flags) on a free loopback port, LOG_LEVEL at its default (info), stdout to /dev/null. */
export async function startService(options: ServiceOptions): Promise<ServiceInstance> {
  const port = await freePort()
  const env = cleanEnv({
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: options.dataDir,
    // Lets the 401 scenario vary the client address through X-Forwarded-For, so the per-address
    // limit (60 a minute) does not turn it into a 429 scenario. Costs one proxy-addr lookup a request.
    TRUST_PROXY: 'true',
    ...(options.databaseUrl && { DATABASE_URL: options.databaseUrl }),
    ...(options.redisUrl && { REDIS_URL: options.redisUrl }),
    ...(options.redisKeyPrefix && { REDIS_KEY_PREFIX: options.redisKeyPrefix }),
    ...options.env,
  })
  const managed = startNode(options.name, [...startFlags(options.paths.root), ...(options.nodeFlags ?? []), options.paths.cli, 'serve'], { env, cwd: options.paths.root, logDir: options.logDir })
  const baseUrl = `http://127.0.0.1:${port}`
  await waitUntil(managed, 'GET /healthz to answer 200', async () => (await fetch(`${baseUrl}/healthz`)).status === 200)
  return { process: managed, baseUrl, env }
}

/** Runs an operator command of the built CLI with the instance's environment; parses its --json output. */
export async function cli<T>(paths: Paths, env: NodeJS.ProcessEnv, args: string[]): Promise<T> {
  try {
    const { stdout } = await run(process.execPath, [paths.cli, ...args, '--json'], { env, cwd: paths.root })
    return JSON.parse(stdout) as T
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? ''
    throw new Error(`adoption-store ${args.join(' ')} failed: ${stderr.trim() || String(error)}`)
  }
}

export const SEED_ANIMALS = 1_000
const STATUSES = ['available', 'available', 'available', 'pending', 'sold'] as const

/**
 * Prepares a running service: an enterprise project whose limits never bind and its key, a free
 * project whose key is exhausted (banned, in fact: see `exhaust`), 1,000 animals posted through
 * the API (60 % available, so `status=available&limit=20` is always a full page), and a second
 * enterprise project of 1,000 animals with every profile field filled, at one location.
 */
export async function prepareService(
  id: 'service' | 'pg' | 'nocache',
  label: string,
  paths: Paths,
  instance: ServiceInstance,
  log: (line: string) => void,
): Promise<Target & { exhaustion: string }> {
  const suffix = randomBytes(3).toString('hex')
  await cli(paths, instance.env, ['projects', 'create', `bench-${suffix}`, '--plan', 'enterprise', '--per-minute', '1000000000', '--per-day', '1000000000'])
  const { key } = await cli<{ key: string }>(paths, instance.env, ['keys', 'create', '--project', `bench-${suffix}`, '--name', 'bench'])
  await cli(paths, instance.env, ['projects', 'create', `bench-free-${suffix}`, '--plan', 'free'])
  const { key: exhaustedKey } = await cli<{ key: string }>(paths, instance.env, ['keys', 'create', '--project', `bench-free-${suffix}`, '--name', 'exhausted'])

  const started = Date.now()
  const ids = await seed(instance.baseUrl, key)
  log(`  ${label}: seeded ${ids.length} animals through POST /v1/pets in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  await cli(paths, instance.env, ['projects', 'create', `bench-full-${suffix}`, '--plan', 'enterprise', '--per-minute', '1000000000', '--per-day', '1000000000'])
  const { key: fullKey } = await cli<{ key: string }>(paths, instance.env, ['keys', 'create', '--project', `bench-full-${suffix}`, '--name', 'full'])
  const place = benchLocation(0)
  const { id: locationId } = await cli<{ id: number }>(paths, instance.env, [
    'locations', 'add', place.name, '--project', `bench-full-${suffix}`, '--address', place.address.line1!, '--city', place.address.city!, '--country', place.address.country!,
    '--latitude', String(place.coordinates.latitude), '--longitude', String(place.coordinates.longitude),
  ])
  const fullStarted = Date.now()
  await seed(instance.baseUrl, fullKey, (i) => fullAnimal(i, [locationId]))
  log(`  ${label}: seeded ${SEED_ANIMALS} animals with full profiles in ${((Date.now() - fullStarted) / 1000).toFixed(1)} s`)
  const exhaustion = await exhaust(instance.baseUrl, exhaustedKey)
  log(`  ${label}: free key exhausted: ${exhaustion}`)
  return {
    id,
    label,
    baseUrl: instance.baseUrl,
    process: instance.process,
    prefix: '/v1',
    key,
    exhaustedKey,
    unknownKey: await unknownKey(paths),
    fullKey,
    fullSlug: `bench-full-${suffix}`,
    // The first animal: always "available", so GET by id answers a full animal.
    petId: ids[0] ?? 1,
    exhaustion,
  }
}

const bareAnimal = (i: number) => ({ name: `Animal ${String(i + 1).padStart(4, '0')}`, categoryId: (i % 7) + 1, status: STATUSES[i % STATUSES.length] })

async function seed(baseUrl: string, key: string, animal: (i: number) => object = bareAnimal): Promise<number[]> {
  const ids: number[] = new Array<number>(SEED_ANIMALS)
  let next = 0
  const worker = async () => {
    while (next < SEED_ANIMALS) {
      const i = next++
      const response = await fetch(`${baseUrl}/v1/pets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(animal(i)),
      })
      if (response.status !== 201) throw new Error(`seeding: POST /v1/pets answered ${response.status}: ${await response.text()}`)
      ids[i] = ((await response.json()) as { id: number }).id
    }
  }
  await Promise.all(Array.from({ length: 10 }, worker))
  return ids
}

/**
 * Spends the free key's 60 requests of this minute, then keeps sending while refused until the
 * service bans the key (after 30 refused requests, for 10 minutes): from then on every request
 * with it is the 429 `api_key_banned`, whatever minute the measurement falls in.
 */
async function exhaust(baseUrl: string, key: string): Promise<string> {
  const codes = new Map<string, number>()
  for (let i = 0; i < 500; i++) {
    const response = await fetch(`${baseUrl}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${key}` } })
    const body = (await response.json()) as { code?: string }
    const label = `${response.status}${body.code ? ` ${body.code}` : ''}`
    codes.set(label, (codes.get(label) ?? 0) + 1)
    if (body.code === 'api_key_banned') break
  }
  return [...codes].map(([label, n]) => `${n} × ${label}`).join(', ')
}

/** A well-formed key with a valid checksum that no database holds: the 401 "unknown" path, which does a lookup. */
async function unknownKey(paths: Paths): Promise<string> {
  const module = (await import(pathToFileURL(path.join(paths.root, 'dist/auth/api-key.js')).href)) as {
    generateApiKey(environment: 'production'): { secret: string }
  }
  return module.generateApiKey('production').secret
}

// ---- PostgreSQL and Redis --------------------------------------------------------------------

/** Creates a fresh database on the server of `adminUrl` and drops it at cleanup. */
export async function freshDatabase(adminUrl: string, log: (line: string) => void): Promise<string> {
  const { default: pg } = await import('pg')
  const name = `adoption_bench_${Date.now()}_${randomBytes(3).toString('hex')}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE "${name}"`)
  } finally {
    await admin.end()
  }
  onCleanup(async () => {
    const client = new pg.Client({ connectionString: adminUrl })
    await client.connect()
    try {
      // WITH (FORCE) (PostgreSQL 13+) also ends sessions a killed server may have left behind.
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
      log(`dropped database ${name}`)
    } finally {
      await client.end()
    }
  })
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.toString()
}

/** A unique REDIS_KEY_PREFIX; its keys are deleted at cleanup. */
export function freshRedisPrefix(redisUrl: string, log: (line: string) => void): string {
  const prefix = `adoption-bench-${Date.now()}-${randomBytes(3).toString('hex')}:`
  onCleanup(async () => {
    const { Redis } = await import('ioredis')
    const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 })
    await redis.connect()
    try {
      let cursor = '0'
      let deleted = 0
      do {
        const [nextCursor, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)
        cursor = nextCursor
        if (keys.length) deleted += await redis.del(...keys)
      } while (cursor !== '0')
      log(`deleted ${deleted} Redis keys under ${prefix}`)
    } finally {
      redis.disconnect()
    }
  })
  return prefix
}

// ---- baseline and Prism -----------------------------------------------------------------------

export interface BaselineBodies {
  list: unknown
  listFull: unknown
  pet: unknown
  created: unknown
  unauthorized: unknown
  limited: unknown
  /** The adoption site's listing page (HTML). */
  site: string
}

/**
 * The bare node:http server, in its own process, answering the service's own bodies (captured
 * from it), re-serialised with JSON.stringify on every request. It tells the scenarios apart by
 * the Authorization header, as the service does, and by method and path.
 */
export async function startBaseline(paths: Paths, logDir: string, service: Target, bodies: BaselineBodies): Promise<Target> {
  const port = await freePort()
  const configPath = path.join(logDir, 'baseline.json')
  writeFileSync(
    configPath,
    JSON.stringify({
      port,
      unauthorizedAuth: `Bearer ${service.unknownKey}`,
      limitedAuth: `Bearer ${service.exhaustedKey}`,
      fullAuth: `Bearer ${service.fullKey}`,
      bodies,
    }),
  )
  const managed = startNode('baseline', [paths.baselineScript, configPath], { env: cleanEnv({}), cwd: paths.root, logDir })
  const baseUrl = `http://127.0.0.1:${port}`
  await waitUntil(managed, 'an HTTP answer', async () => (await fetch(`${baseUrl}/`)).status > 0)
  return { ...service, id: 'baseline', label: 'baseline (node:http)', baseUrl, process: managed }
}

/** `prism mock openapi.json` (static examples, its default log level), for the two GET scenarios. */
export async function startPrism(paths: Paths, logDir: string, key: string): Promise<Target> {
  const port = await freePort()
  const managed = startNode('prism', [paths.prismBin, 'mock', paths.openapi, '--port', String(port), '--host', '127.0.0.1'], {
    env: cleanEnv({}),
    cwd: paths.root,
    logDir,
  })
  const baseUrl = `http://127.0.0.1:${port}`
  // (With `limit`, as the scenarios send it: older documents marked it required.)
  const ready = async () => (await fetch(`${baseUrl}/pets?limit=20`, { headers: { authorization: `Bearer ${key}` } })).status === 200
  await waitUntil(managed, 'GET /pets?limit=20 to answer 200', ready, 60_000)
  return { id: 'prism', label: 'Prism mock', baseUrl, process: managed, prefix: '', key, exhaustedKey: key, unknownKey: key, fullKey: key, fullSlug: '', petId: 1 }
}

export async function stopTarget(target: { process: Managed }): Promise<void> {
  await stopProcess(target.process)
}
