/**
 * The PostgreSQL databases of the test apps: migrated copies of the template (databases.ts),
 * emptied after each app and handed to the next, left on the server for the next process when
 * this one ends.
 */
import pg from 'pg'
import { databaseNamed, freeDatabaseName, freePrefix, freshPostgresDatabase, postgresUrl, testDatabaseName } from './databases.js'

/**
 * A migrated PostgreSQL database for a test app, without waiting for the server to make it. A
 * closed test app's database is emptied back to the template's rows (`reset`, a few
 * milliseconds) and is the next call's answer: creating and deleting a database per test cost
 * the server far more (each `DROP DATABASE` forces a checkpoint that writes every dirty buffer of
 * the server). Otherwise each call answers a spare made in the background since an earlier call
 * and starts the next; when a spare is still being made as it is wanted, more are made at once,
 * up to MAX_SPARES. A spare is an emptied database another process left (`claimFreeDatabase`)
 * when there is one, else a new copy of the template. Whatever is left when the process has
 * nothing else to do (spares, emptied databases) is left on the server for the next process,
 * renamed free (`release`): a test process made and deleted two databases for itself before,
 * about 1.6 s of the server's CPU, each copy of the template writing the whole database to the
 * server's log and each deletion forcing a checkpoint.
 */
export function testAppPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const emptied = recycled.pop()
  if (emptied) return Promise.resolve(emptied)
  const next = spares.shift()
  if (next && !next.ready && wantedSpares < MAX_SPARES) wantedSpares++
  while (spares.length < wantedSpares) spares.push(spare())
  return next?.database ?? migratedDatabase()
}

const recycled: TestAppDatabase[] = []
const MAX_SPARES = 3
let wantedSpares = 1
const spares: Spare[] = []

interface Spare {
  database: ReturnType<typeof migratedDatabase>
  ready: boolean
}

function spare(): Spare {
  const made: Spare = { database: migratedDatabase(), ready: false }
  // An unused spare that failed is reported by the call that takes it.
  made.database.then(
    () => (made.ready = true),
    () => (made.ready = true),
  )
  return made
}

/**
 * How many deletions run at once. `DROP DATABASE` mostly waits for the server's disk (over a
 * second each on a busy machine) and several overlap well; one at a time, a file that made a few
 * hundred databases kept waiting for them for minutes after its last test.
 */
const DELETIONS_AT_ONCE = 8
const deletionQueue: (() => Promise<void>)[] = []
let deleting = 0

function startDeletions(): void {
  while (deleting < DELETIONS_AT_ONCE && deletionQueue.length > 0) {
    const drop = deletionQueue.shift()!
    deleting++
    void drop().finally(() => {
      deleting--
      startDeletions()
    })
  }
}

/** A test app's database: `drop` empties it for the next test app, `remove` deletes it. */
interface TestAppDatabase {
  url: string
  drop(): Promise<void>
  remove(): Promise<void>
}

async function migratedDatabase(): Promise<TestAppDatabase> {
  watchExit()
  const database = (await claimFreeDatabase()) ?? (await freshPostgresDatabase(postgresUrl, { migrated: true }))
  return handOut(database, await (templateState ??= stateOf(database.url)))
}

/** `work` on the test server's maintenance database, on a connection of its own. */
async function onServer<T>(work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: postgresUrl })
  await admin.connect()
  try {
    return await work(admin)
  } finally {
    await admin.end()
  }
}

/**
 * A database another process left free (emptied back to the template's rows by `reset`, with
 * this schema's digest in its name), renamed to one of this process's names; undefined when there
 * is none. Renaming is the claim: of two processes renaming one, the second finds it gone and
 * tries the next.
 */
async function claimFreeDatabase(): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  if (!postgresUrl) return undefined
  const adminUrl = postgresUrl
  return onServer(async (admin) => {
    const free = await admin.query<{ datname: string }>("SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY random()", [freePrefix()])
    for (const { datname } of free.rows) {
      const name = testDatabaseName()
      try {
        await admin.query(`ALTER DATABASE ${datname} RENAME TO ${name}`)
      } catch {
        continue
      }
      return databaseNamed(adminUrl, name)
    }
    return undefined
  })
}

/** Leaves `database` (emptied, nothing connected) to a later process, renamed free; deleted if that fails. */
async function release(database: TestAppDatabase): Promise<void> {
  const name = new URL(database.url).pathname.slice(1)
  try {
    await onServer((admin) => admin.query(`ALTER DATABASE ${name} RENAME TO ${freeDatabaseName()}`))
  } catch {
    await database.remove()
  }
}

/** `database` for one test app: a new handle each time, so that a second `drop` of an old one is nothing. */
function handOut(database: { url: string; drop(): Promise<void> }, template: TemplateState): TestAppDatabase {
  let dropped = false
  return {
    url: database.url,
    remove: database.drop,
    async drop() {
      if (dropped) return
      dropped = true
      try {
        // A test that changed the schema (dropped a table to make the service fail) leaves a
        // database that is no copy of the template any more: it is deleted.
        if (await reset(database.url, template)) {
          recycled.push(handOut(database, template))
          return
        }
      } catch (error) {
        process.stderr.write(`# could not empty the test database ${database.url} for reuse: ${String(error)}\n`)
      }
      dropInBackground(database)
    },
  }
}

/** A fresh copy of the template: its rows (the migrations' own, as routing_state's) by table, and a digest of its schema. */
interface TemplateState {
  rows: Map<string, unknown[]>
  schema: string
  /** Its tables (but the migrations'), quoted, and its sequences' restarts: a database with the same schema digest has the same. */
  tables: string[]
  restarts: string[]
}
let templateState: Promise<TemplateState> | undefined

/** What a test may have changed: every table but the migrations' bookkeeping. */
const CHANGEABLE_TABLES = "SELECT format('%I', tablename) AS name FROM pg_tables WHERE schemaname = 'public' AND tablename NOT LIKE 'schema\\_migrations%'"

/**
 * Each sequence's restart, as `ALTER SEQUENCE … RESTART` would (its start, not called yet), with
 * `setval`: ALTER SEQUENCE gives the sequence a new file at every reset, for the server to create
 * and later delete.
 */
const SEQUENCE_RESTARTS = "SELECT format('SELECT setval(%L, %s, false)', format('%I', sequencename), start_value) AS name FROM pg_sequences WHERE schemaname = 'public'"

/**
 * The schema's definitions: tables and columns, constraints, indexes, triggers, functions,
 * sequences. Read from the system catalogs: information_schema's views cost several times as much,
 * at every reset.
 */
const SCHEMA_DIGEST = `SELECT md5(string_agg(definition, E'\\n' ORDER BY definition)) AS digest FROM (
  SELECT format('column %s.%s %s %s %s', attrelid::regclass, attname, format_type(atttypid, atttypmod), attnotnull, pg_get_expr(adbin, adrelid))
    FROM pg_attribute JOIN pg_class ON pg_class.oid = attrelid LEFT JOIN pg_attrdef ON adrelid = attrelid AND adnum = attnum
    WHERE relnamespace = 'public'::regnamespace AND attnum > 0 AND NOT attisdropped
  UNION ALL SELECT format('constraint %s %s', conrelid::regclass, pg_get_constraintdef(oid)) FROM pg_constraint WHERE connamespace = 'public'::regnamespace
  UNION ALL SELECT format('index %s', indexdef) FROM pg_indexes WHERE schemaname = 'public'
  UNION ALL SELECT format('trigger %s', pg_get_triggerdef(oid)) FROM pg_trigger WHERE NOT tgisinternal
  UNION ALL SELECT format('function %s %s', oid::regprocedure, md5(prosrc)) FROM pg_proc WHERE pronamespace = 'public'::regnamespace
  UNION ALL SELECT format('sequence %s', sequencename) FROM pg_sequences WHERE schemaname = 'public'
) AS definitions (definition)`

async function stateOf(url: string): Promise<TemplateState> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const tables = (await client.query<{ name: string }>(CHANGEABLE_TABLES)).rows.map((row) => row.name)
    const restarts = (await client.query<{ name: string }>(SEQUENCE_RESTARTS)).rows.map((row) => row.name)
    const rows = new Map<string, unknown[]>()
    for (const table of tables) rows.set(table, (await client.query(`SELECT * FROM ${table}`)).rows)
    return { rows, schema: (await client.query<{ digest: string }>(SCHEMA_DIGEST)).rows[0]!.digest, tables, restarts }
  } finally {
    await client.end()
  }
}

/**
 * Empties a test database back to the template's rows, as a fresh copy of it: every other
 * connection to it ended (as `DROP DATABASE ... WITH (FORCE)` would), every table's rows deleted (triggers
 * and foreign keys off meanwhile), its sequences restarted, the template's rows put back.
 * Answers false, changing nothing, when its schema is not the template's.
 */
async function reset(url: string, template: TemplateState): Promise<boolean> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()')
    if ((await client.query<{ digest: string }>(SCHEMA_DIGEST)).rows[0]!.digest !== template.schema) return false
    await client.query(
      [
        'BEGIN',
        "SET LOCAL lock_timeout = '10s'",
        'SET LOCAL session_replication_role = replica',
        ...template.tables.map((table) => `DELETE FROM ${table}`),
        ...template.restarts,
        ...[...template.rows].filter(([, kept]) => kept.length > 0).map(([table, kept]) => `INSERT INTO ${table} SELECT * FROM json_populate_recordset(NULL::${table}, ${client.escapeLiteral(JSON.stringify(kept))})`),
        'COMMIT',
      ].join(';\n'),
    )
    return true
  } finally {
    await client.end()
  }
}

/**
 * Deletes a test database in the background, a few at a time (see DELETIONS_AT_ONCE): no test
 * waits for it, and the process stays alive until it is done.
 */
export function dropInBackground(database: { url: string; drop(): Promise<void> }): void {
  inBackground(`delete the test database ${database.url}`, database.drop)
}

/** Runs `work` in the background, a few at a time with the deletions; a failure is reported on stderr. */
function inBackground(what: string, work: () => Promise<void>): void {
  deletionQueue.push(() =>
    work().catch((error: unknown) => {
      process.stderr.write(`# could not ${what}: ${String(error)}\n`)
    }),
  )
  startDeletions()
}

let watching = false
function watchExit(): void {
  if (watching) return
  watching = true
  // Fired whenever the event loop runs dry; the queued renames' connections keep the process
  // alive until they are done, and the next time round there is nothing left to do.
  process.on('beforeExit', () => {
    const leave = (left: TestAppDatabase) => inBackground(`leave the test database ${left.url} to the next process`, () => release(left))
    for (const left of spares.splice(0)) void left.database.then(leave, () => undefined)
    for (const left of recycled.splice(0)) leave(left)
  })
}
