/**
 * Process-level tests: the BUILT service (`node dist/cli.js serve`) run as a user runs it, with real
 * processes, ports, signals and an SQLite file, and its commands (`runCli`: in this process, or as
 * processes where the test is about one). `npm test` builds first; these tests build nothing.
 * Its start-up, shutdown, configuration and migrations here; operator commands against a running
 * server in cli-operator.test.ts.
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { afterEach, before, describe, test } from 'node:test'
import SQLite from 'better-sqlite3'
import pg from 'pg'
import { api, type ApiResponse, assertCliError, bearer, DB_FILE, firstStartWelcome, KEY, liftLimits, listAllPets, type Pet, type Project, REQUEST_TIMEOUT_MS } from './helpers/cli.js'
import { postgresUrl } from './helpers/databases.js'
import { assertBuilt, cleanup, cliJson, databaseUrlOf, processDialect, freePort, makeDataDir, runCli, startServer } from './helpers/process.js'

before(() => assertBuilt())
afterEach(cleanup)

describe('first start', () => {
  test('prints a key and a working curl command once; a restart prints no new key', { timeout: 60_000 }, async () => {
    const dataDir = makeDataDir()
    const first = await startServer({ dataDir })
    const { key, url, header } = await firstStartWelcome(first)
    assert.deepEqual(first.stdout.match(KEY)?.filter((k) => k !== key), [], 'only one key is printed')

    // Perform exactly what the printed command does.
    const target = new URL(url)
    assert.equal(target.pathname, '/v1/pets')
    assert.equal(target.port, String(first.port), 'the curl URL points at the port the server listens on')
    const response = await fetch(url, { headers: { [header[0]]: header[1] }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
    assert.equal(response.status, 200)
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/)
    assert.deepEqual(await response.json(), [])
    assert.deepEqual(await first.stop(), { code: 0, signal: null }, first.describe())

    const second = await startServer({ dataDir })
    // The first key still works against the restarted server: it is the same store.
    const again = await api<Pet[]>(second, 'GET', '/v1/pets', key)
    assert.equal(again.status, 200)
    assert.deepEqual(again.body, [])
    // Stopped (and so flushed) before looking at everything it printed.
    assert.deepEqual(await second.stop(), { code: 0, signal: null }, second.describe())
    assert.doesNotMatch(second.stdout, /as_live_/, 'a second start prints no key')
    assert.doesNotMatch(second.stdout, /curl/)

    const projects = await cliJson<Project[]>(['projects', 'list', '--json'], { dataDir })
    assert.deepEqual(
      projects.map((p) => p.slug),
      ['default'],
      'the restart created no second project',
    )
  })
})

describe('first start on a busy port', () => {
  test('one line naming the port and PORT, no key created; the next start prints the key; an unused key is recalled', { timeout: 180_000 }, async () => {
    const dataDir = makeDataDir()
    const port = await freePort()
    const blocker = http.createServer()
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve))
    try {
      const refused = await startServer({ dataDir, port, healthy: false })
      // A bound on a hang, not on speed: building the app before it listens takes seconds of CPU,
      // and many more on a machine running other suites.
      const exit = await refused.waitForExit(60_000)
      assert.deepEqual(exit, { code: 1, signal: null }, refused.describe())
      const stderr = refused.stderr.trim()
      assert.ok(!stderr.includes('\n'), `one line on stderr, got:\n${refused.stderr}`)
      assert.match(stderr, new RegExp(`^adoption-store: port ${port} on 127\\.0\\.0\\.1 is already in use.*\\bPORT\\b`))
      assert.doesNotMatch(refused.stdout + refused.stderr, /as_live_|EADDRINUSE|\n\s+at /, 'no key, no stack trace')
    } finally {
      await new Promise((resolve) => blocker.close(resolve))
    }

    // Nothing was created, so the start that can listen is a first start: it prints the key.
    const second = await startServer({ dataDir, port })
    const { key } = await firstStartWelcome(second)
    assert.match(second.stdout, new RegExp(`API reference: http://127\\.0\\.0\\.1:${port}/docs`))
    assert.match(second.stdout, new RegExp(`Dashboard: +http://127\\.0\\.0\\.1:${port}/dashboard`))
    assert.deepEqual(await second.stop(), { code: 0, signal: null }, second.describe())

    // A restart before the key was ever used says how to make another, and prints no secret.
    const third = await startServer({ dataDir, port })
    assert.deepEqual(await third.stop(), { code: 0, signal: null }, third.describe())
    // The command as it must be typed elsewhere: with this DATA_DIR (not the default ./data), or a
    // reminder of DATABASE_URL, never its value (the whole hint is compared).
    const where = processDialect === 'sqlite' ? `DATA_DIR=${dataDir} ` : ''
    const also = processDialect === 'sqlite' ? '' : ", with the service's DATABASE_URL"
    assert.ok(
      third.stdout.includes(`No API key of project "default" has been used yet. If the key printed at the first start was not kept, create another:\n\n  ${where}npx adoption-store keys create --project default${also}\n`),
      third.stdout,
    )
    assert.doesNotMatch(third.stdout, /as_live_/)

    // Once the key has been used, starts are quiet again.
    const fourth = await startServer({ dataDir, port })
    assert.equal((await api(fourth, 'GET', '/v1/pets', key)).status, 200)
    assert.deepEqual(await fourth.stop(), { code: 0, signal: null }, fourth.describe())
    const fifth = await startServer({ dataDir, port })
    assert.deepEqual(await fifth.stop(), { code: 0, signal: null }, fifth.describe())
    assert.doesNotMatch(fifth.stdout, /No API key|keys create|as_live_/)
  })
})

describe('durability', () => {
  // durability.test.ts repeats this under concurrent load on both back ends; this one checks the file.
  const sqliteOnly = processDialect === 'sqlite' ? false : 'checks the SQLite file; durability.test.ts covers PostgreSQL'
  test('every acknowledged create survives kill -9; the file is intact and in WAL mode', { timeout: 60_000, skip: sqliteOnly }, async () => {
    const dataDir = makeDataDir()
    const server = await startServer({ dataDir })
    const { key } = await firstStartWelcome(server)
    await liftLimits(dataDir)

    const total = 50
    const acknowledged = new Map<number, string>()
    let nextIndex = 0
    const worker = async () => {
      while (nextIndex < total) {
        const name = `durable-${nextIndex++}`
        const response = await api<Pet>(server, 'POST', '/v1/pets', key, { name, categoryId: 1 })
        assert.equal(response.status, 201, JSON.stringify(response.body))
        assert.equal(response.body.name, name)
        acknowledged.set(response.body.id, name)
      }
    }
    await Promise.all(Array.from({ length: 5 }, worker))
    // Right after the last acknowledgement: no chance to flush or close anything.
    const killed = await server.kill()
    assert.equal(killed.signal, 'SIGKILL', `the server had already exited: ${server.describe()}`)
    assert.equal(acknowledged.size, total, 'every create got its own id')

    const restarted = await startServer({ dataDir })
    const pets = await listAllPets(restarted, key)
    const found = new Map(pets.map((p) => [p.id, p.name]))
    for (const [id, name] of acknowledged) assert.equal(found.get(id), name, `acknowledged pet ${id} (${name}) is missing`)
    assert.equal(pets.length, total)
    assert.deepEqual(await restarted.stop(), { code: 0, signal: null }, restarted.describe())

    const sqlite = new SQLite(path.join(dataDir, DB_FILE), { readonly: true, fileMustExist: true })
    try {
      assert.equal(sqlite.pragma('integrity_check', { simple: true }), 'ok')
      assert.equal(sqlite.pragma('journal_mode', { simple: true }), 'wal')
      assert.deepEqual(sqlite.prepare('select count(*) as n from pets').get(), { n: total })
    } finally {
      sqlite.close()
    }
  })
})

interface RawResponse {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
}

/**
 * A POST whose headers the server has provably accepted (it answered `100 Continue`, which Node
 * does just before handing the request to the application) while its body is held back.
 */
function heldPost(url: string, key: string, body: string, agent: http.Agent) {
  const request = http.request(url, {
    method: 'POST',
    agent,
    headers: { ...bearer(key), 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' },
  })
  const timer = setTimeout(() => request.destroy(new Error('held request timed out')), 20_000)
  const accepted = new Promise<void>((resolve, reject) => {
    request.once('continue', () => resolve())
    request.once('error', reject)
  })
  const response = new Promise<RawResponse>((resolve, reject) => {
    request.once('error', reject)
    request.once('response', (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.once('error', reject)
      res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
    })
  })
  response.then(
    () => clearTimeout(timer),
    () => clearTimeout(timer),
  )
  accepted.catch(() => undefined)
  request.flushHeaders()
  return { accepted, response, send: () => request.end(body) }
}

function describeFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause
  return cause?.code ?? cause?.message ?? String(error)
}

function count<T>(values: T[]): Map<T, number> {
  const counts = new Map<T, number>()
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1)
  return counts
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

describe('graceful shutdown', () => {
  test('SIGTERM finishes accepted requests, exits 0 within 10 s and loses no acknowledged create', { timeout: 60_000 }, async (t) => {
    const dataDir = makeDataDir()
    const server = await startServer({ dataDir })
    const { key } = await firstStartWelcome(server)
    await liftLimits(dataDir)

    // Requests certainly in flight at SIGTERM, on keep-alive connections a client keeps open.
    const agent = new http.Agent({ keepAlive: true })
    try {
      const held = Array.from({ length: 3 }, (_, i) =>
        heldPost(`${server.url}/v1/pets`, key, JSON.stringify({ name: `held-${i}`, categoryId: 2 }), agent),
      )
      await withTimeout(Promise.all(held.map((h) => h.accepted)), 10_000, 'the server accepting the held requests')

      // ~40 concurrent requests; SIGTERM as soon as the first is answered, while the rest are in flight.
      type Outcome = { name?: string; response?: ApiResponse<unknown>; error?: unknown }
      const burst: Promise<Outcome>[] = Array.from({ length: 40 }, (_, i) => {
        const name = i % 2 === 0 ? `burst-${i}` : undefined
        const call = name ? api(server, 'POST', '/v1/pets', key, { name, categoryId: 1 }) : api(server, 'GET', '/v1/pets?limit=100', key)
        return call.then(
          (response) => ({ name, response }),
          (error: unknown) => ({ name, error }),
        )
      })
      await withTimeout(Promise.race(burst), 10_000, 'a first answer to the burst')
      const signalledAt = Date.now()
      server.signal('SIGTERM')
      // Only once the shutdown has begun do the held requests send their bodies and get answered.
      await server.waitUntilRefusing()
      for (const h of held) h.send()

      const heldResponses = await Promise.all(held.map((h) => h.response))
      const outcomes = await Promise.all(burst)
      const exit = await server.waitForExit(15_000)
      const exitedAfterMs = Date.now() - signalledAt

      assert.deepEqual(exit, { code: 0, signal: null }, `exit after SIGTERM\n${server.describe()}`)
      assert.ok(exitedAfterMs < 10_000, `exited ${exitedAfterMs} ms after SIGTERM`)

      const acknowledged = new Map<number, string>()
      heldResponses.forEach((response, i) => {
        assert.equal(response.status, 201, `a request accepted before SIGTERM must complete: ${response.body}`)
        const pet = JSON.parse(response.body) as Pet
        assert.equal(pet.name, `held-${i}`)
        acknowledged.set(pet.id, pet.name)
      })

      const unanswered = new Set<string>()
      for (const { name, response, error } of outcomes) {
        if (!response) {
          // A request the server never took (refused connection, or reset before it was read) may
          // fail; whether it was taken shows in the store, checked below for the creates.
          assert.ok(error instanceof Error, String(error))
          if (name) unanswered.add(name)
          continue
        }
        if (response.status === 503) {
          const envelope = response.body as Record<string, unknown>
          assert.deepEqual(Object.keys(envelope).sort(), ['code', 'message', 'status'], JSON.stringify(envelope))
          assert.equal(envelope.code, 'service_unavailable')
          assert.equal(envelope.status, 503)
          assert.ok(typeof envelope.message === 'string' && envelope.message.length > 0, JSON.stringify(envelope))
          assert.match(response.headers.get('content-type') ?? '', /^application\/json/)
          if (name) unanswered.add(name)
          continue
        }
        assert.ok(response.status >= 200 && response.status < 300, `unexpected ${response.status}: ${JSON.stringify(response.body)}`)
        if (name) {
          assert.equal(response.status, 201)
          const pet = response.body as Pet
          assert.equal(pet.name, name)
          acknowledged.set(pet.id, pet.name)
        } else {
          assert.ok(Array.isArray(response.body))
        }
      }
      assert.ok(outcomes.some((o) => o.response), 'at least one burst request was answered')
      const statuses = outcomes.map((o) => o.response?.status ?? `failed (${describeFailure(o.error)})`)
      t.diagnostic(`burst outcomes: ${JSON.stringify(Object.fromEntries(count(statuses)))}; exited ${exitedAfterMs} ms after SIGTERM`)

      const restarted = await startServer({ dataDir })
      const stored = await listAllPets(restarted, key)
      for (const [id, name] of acknowledged) {
        assert.equal(
          stored.find((p) => p.id === id)?.name,
          name,
          `acknowledged pet ${id} (${name}) is missing`,
        )
      }
      // Nothing was stored for a request whose client got no 201: no accepted create lost its answer.
      const orphans = stored.filter((p) => !acknowledged.has(p.id))
      assert.deepEqual(orphans, [], `stored without a 201 (unanswered: ${[...unanswered].join(', ')})`)
      assert.deepEqual(await restarted.stop(), { code: 0, signal: null }, restarted.describe())
    } finally {
      agent.destroy()
    }
  })
})

describe('configuration', () => {
  for (const [name, value] of [
    ['PORT', 'abc'],
    ['ENVIRONMENT', 'dev'],
    ['LOG_LEVEL', 'loud'],
  ] as const) {
    test(`${name}=${value} stops start-up with a message naming ${name}`, { timeout: 30_000 }, async () => {
      const dataDir = makeDataDir()
      const port = String(await freePort())
      const result = await runCli(['serve'], { dataDir, env: { PORT: port, [name]: value }, timeoutMs: 10_000 })
      assert.equal(result.timedOut, false, `serve with ${name}=${value} did not exit; it started:\n${result.stdout}`)
      assert.ok(result.code !== null && result.code !== 0, `exit code ${result.code}`)
      assert.match(result.stderr, new RegExp(`\\b${name}\\b`))
      assert.equal(fs.existsSync(path.join(dataDir, DB_FILE)), false, 'nothing was opened')
    })
  }

  test('an unusable setting is one line naming its variable and what would do, never a hang or a stack trace', { timeout: 120_000 }, async () => {
    const file = path.join(makeDataDir(), 'a-file')
    fs.writeFileSync(file, '')
    const port = String(await freePort())
    const sqlite = processDialect === 'sqlite'
    const cases: [Record<string, string>, RegExp][] = [
      // The embedded database's directory: Node's recursive mkdir retried /proc/nope for ever at 100 % CPU.
      ...(sqlite
        ? ([
            [{ DATA_DIR: '/proc/nope' }, /^adoption-store: DATA_DIR \(\/proc\/nope\) cannot be made: \/proc does not take new directories: set DATA_DIR \(or --data-dir\) to a directory/],
            [{ DATA_DIR: file }, /^adoption-store: DATA_DIR \(\S+a-file\) is a file, not a directory: set DATA_DIR/],
            [{ DATA_DIR: path.join(file, 'data') }, /^adoption-store: DATA_DIR \(\S+a-file\/data\) is inside a file \(\S+a-file\): set DATA_DIR/],
          ] satisfies [Record<string, string>, RegExp][])
        : []),
      // It blamed the SQLite database in DATA_DIR.
      [{ HOST: 'not-a-host.invalid' }, /^adoption-store: HOST \(not-a-host\.invalid\) is neither an address of this machine nor a name it can resolve: set HOST/],
      // It said to change PORT.
      [{ HTTPS_PORT: port }, new RegExp(`^adoption-store: Invalid configuration: HTTPS_PORT is ${port}, the port of PORT too`)],
      // A stack trace of 17 lines from node:dns.
      [{ DNS_RESOLVERS: 'bad' }, /^adoption-store: Invalid configuration: DNS_RESOLVERS must be comma-separated IP addresses, each with an optional :port .*"bad" is not one$/],
    ]
    for (const [env, expected] of cases) {
      const dataDir = makeDataDir()
      const result = await runCli(['serve'], { dataDir, env: { PORT: port, ...env }, timeoutMs: 15_000 })
      const what = JSON.stringify(env)
      assert.equal(result.timedOut, false, `${what}: serve did not exit:\n${result.stdout}${result.stderr}`)
      assert.equal(result.code, 1, `${what}: ${result.stderr}`)
      assert.equal(result.stderr.trim().split('\n').length, 1, `${what}: one line, got:\n${result.stderr}`)
      assert.match(result.stderr.trim(), expected, what)
      assert.doesNotMatch(result.stdout, /as_live_/, `${what}: no key was made`)
    }
  })

  test('a CLI flag overrides the environment: PORT=abc --port <free> serve starts', { timeout: 30_000 }, async () => {
    const port = await freePort()
    const server = await startServer({ port, env: { PORT: 'abc' }, args: ['--port', String(port), 'serve'] })
    const health = await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
    assert.equal(health.status, 200)
    assert.deepEqual(await health.json(), { status: 'ok' })
    assert.deepEqual(await server.stop(), { code: 0, signal: null }, server.describe())
  })
})

describe('commands and the store', () => {
  test('a command that reads or changes what exists makes no store where there is none, and says where it looked; creating a project makes one', { timeout: 60_000 }, async () => {
    const dataDir = makeDataDir({ emptyDatabase: true })
    const sqlite = processDialect === 'sqlite'
    const expected = sqlite
      ? new RegExp(`^adoption-store: no Adoption Store in DATA_DIR \\(${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\): there is no adoption-store\\.db there\\. Run the command with the service's DATA_DIR`)
      : /^adoption-store: no Adoption Store in the PostgreSQL database of DATABASE_URL \(postgres(ql)?:\/\/[^)]+\): it has no schema_migrations table\. Set DATABASE_URL/
    for (const args of [['projects', 'list'], ['keys', 'list', '--project', 'default'], ['users', 'list', '--json'], ['audit', 'list'], ['projects', 'set-plan', 'default', 'pro']]) {
      const result = await runCli(args, { dataDir })
      assert.equal(result.code, 1, `${args.join(' ')}: ${result.stdout}${result.stderr}`)
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr)
      assert.match(result.stderr.trim(), expected, args.join(' '))
    }
    // Nothing was made: no file, no tables.
    if (sqlite) assert.deepEqual(fs.readdirSync(dataDir), [])
    else assert.deepEqual(await recordedMigrations(dataDir).catch((error: Error) => error.message), 'relation "schema_migrations" does not exist')

    const created = await cliJson<Project>(['projects', 'create', 'first', '--json'], { dataDir })
    assert.equal(created.slug, 'first')
    assert.deepEqual((await cliJson<Project[]>(['projects', 'list', '--json'], { dataDir })).map((p) => p.slug), ['first'])
  })
})

/** The names in `schema_migrations` of the database a data directory stands for, in order. */
async function recordedMigrations(dataDir: string): Promise<string[]> {
  const postgres = await databaseUrlOf(dataDir)
  if (postgres) {
    const client = new pg.Client({ connectionString: postgres })
    await client.connect()
    try {
      return (await client.query<{ name: string }>('select name from schema_migrations order by name')).rows.map((row) => row.name)
    } finally {
      await client.end()
    }
  }
  const sqlite = new SQLite(path.join(dataDir, DB_FILE), { readonly: true, fileMustExist: true })
  try {
    return sqlite.prepare<[], string>('select name from schema_migrations order by name').pluck().all()
  } finally {
    sqlite.close()
  }
}

describe('migrate', () => {
  test('applies the migrations to a fresh database, then reports nothing to apply', { timeout: 30_000 }, async () => {
    const dataDir = makeDataDir({ emptyDatabase: true })
    const postgres = await databaseUrlOf(dataDir)
    const first = await cliJson<{ database: string; applied: string[] }>(['migrate', '--json'], { dataDir })
    assert.ok(first.applied.length > 0, 'a fresh database gets at least one migration')
    if (postgres) {
      const url = new URL(postgres)
      assert.equal(first.database, `postgresql://${url.host}${url.pathname}`, 'the location, without credentials')
    } else {
      assert.equal(first.database, path.join(dataDir, DB_FILE))
    }
    // What it reports is what it recorded in the database, in order.
    assert.deepEqual(first.applied, await recordedMigrations(dataDir))
    const second = await cliJson<{ database: string; applied: string[] }>(['migrate', '--json'], { dataDir })
    assert.deepEqual(second, { database: first.database, applied: [] })
  })

  test('processes started at once on a fresh database: all succeed, and each migration is applied by one of them', { timeout: 60_000 }, async () => {
    const dataDir = makeDataDir({ emptyDatabase: true })
    const results = await Promise.all(Array.from({ length: 4 }, () => runCli(['migrate', '--json'], { dataDir, process: true })))
    for (const result of results) assert.equal(result.code, 0, result.stderr)
    const applied = results.flatMap((result) => (JSON.parse(result.stdout) as { applied: string[] }).applied)
    const recorded = await recordedMigrations(dataDir)
    assert.ok(recorded.length > 0)
    assert.deepEqual(applied.sort(), recorded, 'every migration applied once, by one process')
  })

  test('a database it cannot use is one line naming where it looked, without the password or a stack trace', { timeout: 30_000 }, async () => {
    const refusedUrl = `postgres://postgres:secret@127.0.0.1:${await freePort()}/adoption`
    const refused = await runCli(['migrate'], { env: { DATABASE_URL: refusedUrl } })
    assertCliError(refused, /^adoption-store: cannot use the PostgreSQL database of DATABASE_URL \(postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/adoption\): connect ECONNREFUSED/, 'no server')
    assert.doesNotMatch(refused.stderr, /secret/)

    if (postgresUrl) {
      const missing = new URL(postgresUrl)
      missing.pathname = '/adoption_store_no_such_database'
      const result = await runCli(['migrate'], { env: { DATABASE_URL: missing.toString() } })
      assertCliError(result, /cannot use the PostgreSQL database of DATABASE_URL .*: database "adoption_store_no_such_database" does not exist$/, 'no such database')
    }

    const dataDir = makeDataDir()
    fs.writeFileSync(path.join(dataDir, DB_FILE), 'not a database, but a file with enough bytes in it to be read as one')
    const garbage = await runCli(['migrate'], { dataDir, env: { DATABASE_URL: undefined } })
    assertCliError(garbage, /^adoption-store: cannot use the SQLite database in DATA_DIR \(.+\): file is not a database$/, 'not an SQLite file')
  })
})

describe('the built command as a process', () => {
  // The other tests run most commands through runCommand in the test process (helpers/process.ts,
  // `runCli`): here the same commands go through dist/cli.js, which must give their status and
  // their output to the process.
  test('its version, a usage error, an expected failure and a success: the status and the streams runCommand answers', { timeout: 30_000 }, async () => {
    const dataDir = makeDataDir()
    const asProcess = { dataDir, process: true }
    const version = await runCli(['--version'], asProcess)
    assert.deepEqual([version.code, version.stdout, version.stderr], [0, '1.0.0\n', ''])
    const usage = await runCli(['projects', 'create'], asProcess)
    assert.equal(usage.code, 1)
    assert.equal(usage.stdout, '')
    assert.match(usage.stderr, /^error: missing required argument 'slug'/)

    const created = await runCli(['projects', 'create', 'shelter', '--json'], asProcess)
    assert.equal(created.code, 0, created.stderr)
    assert.equal((JSON.parse(created.stdout) as Project).slug, 'shelter')
    assertCliError(await runCli(['projects', 'create', 'shelter'], asProcess), /^adoption-store: .*shelter/, 'a slug taken')

    // The same command in this process answers the same.
    const here = await runCli(['projects', 'list', '--json'], { dataDir })
    const there = await runCli(['projects', 'list', '--json'], asProcess)
    assert.deepEqual([here.code, JSON.parse(here.stdout), here.stderr], [there.code, JSON.parse(there.stdout), there.stderr])
  })
})
