/**
 * Crash durability of the BUILT server on each back end (SQLite always, PostgreSQL when
 * configured): under a concurrent write load the server is killed with SIGKILL at a random moment
 * while creates are in flight, restarted on the same data, and so on for several cycles. At the
 * end every create that was acknowledged with 201 is stored with its name, nothing is stored twice
 * or out of nowhere, and the store passes its integrity check.
 */
import assert from 'node:assert/strict'
import { randomInt } from 'node:crypto'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, before, describe, test } from 'node:test'
import SQLite from 'better-sqlite3'
import pg from 'pg'
import { freshPostgresDatabase, legSkip, postgresUrl } from './helpers/databases.js'
import {
  assertBuilt,
  cleanup,
  cliJson,
  type CliOptions,
  type EnvOverrides,
  type JsonAnswer,
  makeDataDir,
  requestJson,
  type ServerProcess,
  startServer,
} from './helpers/process.js'

const CYCLES = 6
const WORKERS = 8
/** Creates acknowledged in a cycle before its kill may come, and the longest wait for them. */
const MIN_ACKS_PER_CYCLE = 10
const LOAD_TIMEOUT_MS = 15_000
/** The kill comes at a random moment within this long after the cycle's first acknowledgements. */
const KILL_WINDOW_MS = 800

interface Pet {
  id: number
  name: string
  categoryId: number
  status: string
}

interface BackEnd {
  name: string
  skip: string | false
  /** The environment for the server and the CLI, and how to check and remove the store afterwards. */
  open(): Promise<{ env: EnvOverrides; dataDir: string; verify(projectId: number, listed: number): Promise<void>; remove(): Promise<void> }>
}

/**
 * `npm test` runs every file once per dialect (TEST_DIALECT=sqlite, then postgres): each back end
 * is tested in its own leg. Run directly (no TEST_DIALECT), the file tests both.
 */

const backEnds: BackEnd[] = [
  {
    name: 'SQLite',
    skip: legSkip.sqlite,
    async open() {
      const dataDir = makeDataDir()
      return {
        env: {},
        dataDir,
        // Run after a clean stop: the file alone must be whole.
        async verify(projectId, listed) {
          const sqlite = new SQLite(path.join(dataDir, 'adoption-store.db'), { readonly: true, fileMustExist: true })
          try {
            assert.equal(sqlite.pragma('integrity_check', { simple: true }), 'ok')
            assert.deepEqual(sqlite.pragma('foreign_key_check'), [])
            assert.equal(sqlite.pragma('journal_mode', { simple: true }), 'wal')
            const counts = sqlite.prepare('select count(*) as n, count(distinct id) as ids from pets where project_id = ?').get(projectId)
            assert.deepEqual(counts, { n: listed, ids: listed }, 'rows in the file = animals listed')
          } finally {
            sqlite.close()
          }
        },
        remove: async () => undefined,
      }
    },
  },
  {
    name: 'PostgreSQL',
    skip: legSkip.postgres,
    async open() {
      const database = await freshPostgresDatabase(postgresUrl)
      return {
        env: { DATABASE_URL: database.url },
        dataDir: makeDataDir(),
        async verify(projectId, listed) {
          const client = new pg.Client({ connectionString: database.url, connectionTimeoutMillis: 5_000 })
          await client.connect()
          try {
            const all = await client.query<{ n: string }>('select count(*) as n from pets')
            assert.ok(Number(all.rows[0]?.n) >= listed)
            const mine = await client.query<{ n: string; ids: string }>('select count(*) as n, count(distinct id) as ids from pets where project_id = $1', [projectId])
            assert.deepEqual(
              { n: Number(mine.rows[0]?.n), ids: Number(mine.rows[0]?.ids) },
              { n: listed, ids: listed },
              'rows in the table = animals listed',
            )
          } finally {
            await client.end()
          }
        },
        remove: () => database.drop(),
      }
    },
  },
]

/** Every animal of the key's project, following `Link: <...>; rel="next"`. */
async function listAll(server: ServerProcess, key: string): Promise<Pet[]> {
  const pets: Pet[] = []
  let next: string | undefined = '/v1/pets?limit=100'
  for (let pages = 0; next !== undefined; pages++) {
    assert.ok(pages < 1_000, 'the Link chain does not end')
    const page: JsonAnswer = await requestJson(server, 'GET', next, key)
    assert.equal(page.status, 200, JSON.stringify(page.body))
    pets.push(...(page.body as Pet[]))
    next = /^<([^>]+)>;\s*rel="next"$/.exec(page.headers.get('link') ?? '')?.[1]
  }
  return pets
}

before(() => assertBuilt())
afterEach(cleanup)

describe('durability under kill -9', () => {
  for (const backEnd of backEnds) {
    test(`${backEnd.name}: every acknowledged create survives ${CYCLES} kills at random moments under load`, { skip: backEnd.skip, timeout: 120_000 }, async (t) => {
      const store = await backEnd.open()
      try {
        const cli: CliOptions = { dataDir: store.dataDir, env: store.env }
        const limits = ['--per-minute', '1000000', '--per-day', '1000000']
        const project = await cliJson<{ id: number }>(['projects', 'create', 'durable', '--plan', 'enterprise', ...limits, '--json'], cli)
        const { key } = await cliJson<{ key: string }>(['keys', 'create', '--project', 'durable', '--json'], cli)

        /** id -> name of every create answered 201. */
        const acknowledged = new Map<number, string>()
        /** Names of creates sent whose outcome is unknown (the connection died): stored or not. */
        const unanswered = new Set<string>()
        const unexpected: string[] = []
        const report: string[] = []

        for (let cycle = 0; cycle < CYCLES; cycle++) {
          const server = await startServer({ dataDir: store.dataDir, env: store.env })
          let killed = false
          let inFlight = 0
          let acksThisCycle = 0
          const worker = async (w: number) => {
            for (let seq = 0; !killed; seq++) {
              const name = `c${cycle}-w${w}-${seq}`
              inFlight++
              try {
                const answer = await requestJson(server, 'POST', '/v1/pets', key, { name, categoryId: 1 + (seq % 7) })
                if (answer.status !== 201) {
                  unexpected.push(`${name}: ${answer.status} ${JSON.stringify(answer.body)}`)
                  return
                }
                const pet = answer.body as Pet
                if (pet.name !== name || acknowledged.has(pet.id)) unexpected.push(`${name}: answered ${JSON.stringify(pet)}`)
                acknowledged.set(pet.id, name)
                acksThisCycle++
              } catch {
                // The server died under this request: it may or may not have been stored.
                unanswered.add(name)
                return
              } finally {
                inFlight--
              }
            }
          }
          const workers = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)))

          const deadline = Date.now() + LOAD_TIMEOUT_MS
          while (acksThisCycle < MIN_ACKS_PER_CYCLE && unexpected.length === 0) {
            assert.ok(Date.now() < deadline, `only ${acksThisCycle} creates acknowledged in ${LOAD_TIMEOUT_MS} ms\n${server.describe()}`)
            await sleep(5)
          }
          assert.deepEqual(unexpected, [], 'every create before the kill is answered 201')
          await sleep(randomInt(KILL_WINDOW_MS))
          const inFlightAtKill = inFlight
          const exit = await server.kill()
          killed = true
          assert.equal(exit.signal, 'SIGKILL', `the server was not running when killed\n${server.describe()}`)
          assert.ok(inFlightAtKill > 0, 'creates were in flight at the kill')
          await workers
          assert.deepEqual(unexpected, [], 'every create answered is answered 201')
          report.push(`${acksThisCycle} acked, ${inFlightAtKill} in flight`)
        }
        t.diagnostic(`cycles: ${report.join('; ')}; ${acknowledged.size} acknowledged, ${unanswered.size} unanswered in all`)

        const server = await startServer({ dataDir: store.dataDir, env: store.env })
        const pets = await listAll(server, key)
        for (let i = 1; i < pets.length; i++) assert.ok(pets[i]!.id > pets[i - 1]!.id, `ids ascend without repeats: ${pets[i - 1]!.id} then ${pets[i]!.id}`)
        const stored = new Map(pets.map((p) => [p.id, p.name]))
        const missing = [...acknowledged].filter(([id, name]) => stored.get(id) !== name)
        assert.deepEqual(missing, [], `acknowledged creates missing or changed after the kills (of ${acknowledged.size})`)
        // Whatever else is stored is a create that was in flight at a kill, stored once.
        const names = pets.map((p) => p.name)
        assert.equal(new Set(names).size, names.length, 'no create is stored twice')
        const extra = pets.filter((p) => !acknowledged.has(p.id))
        assert.deepEqual(
          extra.filter((p) => !unanswered.has(p.name)),
          [],
          'stored without an acknowledgement, yet not in flight at a kill',
        )
        t.diagnostic(`${pets.length} stored: ${acknowledged.size} acknowledged + ${extra.length} of the ${unanswered.size} in flight at a kill`)
        assert.deepEqual(await server.stop(), { code: 0, signal: null }, server.describe())

        await store.verify(project.id, pets.length)
      } finally {
        await cleanup()
        await store.remove()
      }
    })
  }
})
