import type { Compilable } from 'kysely'
import type { Db } from './schema.js'
import { isDatabaseUnavailable } from './errors.js'
import { monotonicMs } from '../clock.js'

/**
 * Queries compiled once and run many times, for the paths every request takes (the key lookup,
 * the animal reads). Building and compiling a query with Kysely costs more than SQLite takes to
 * run it; a prepared query is written with the same builder, compiled on first use with
 * placeholders for its arguments, and then only its parameters change.
 *
 *     const findPet = prepare((db, projectId: number, id: number) =>
 *       db.selectFrom('pets').selectAll().where('project_id', '=', projectId).where('id', '=', id))
 *     const rows = await findPet(db, 1, 42)
 *
 * Arguments must be used as plain values (comparisons, `limit`, inserted values): the builder
 * sees placeholder objects in their place when it compiles.
 *
 * On the database's root instance a prepared query takes the handle's fast path (see
 * `registerFastPath`); on a transaction it runs like any other query on that transaction.
 */
export interface PreparedQuery<A extends unknown[], R> {
  (db: Db, ...args: A): Promise<R[]>
  /**
   * Group commit, for writes that need nothing but to be durable before they are acknowledged:
   * the calls made while the process is busy (in one turn of the event loop) run together in
   * one transaction, so one commit (one `fsync` on SQLite) serves them all. Each call resolves
   * only once that commit is done. If the batch fails, each call is retried on its own, so one
   * bad write fails only its own caller. On a transaction, the same as a plain call.
   */
  batched(db: Db, ...args: A): Promise<R[]>
  /** The statement with these arguments, for `batchedTogether`; undefined where `db` has no batching fast path. */
  statement(db: Db, ...args: A): Statement | undefined
}

/** One statement of a batch. */
export interface Statement {
  template: CompiledTemplate
  parameters: unknown[]
}

/** How a database runs a compiled query without Kysely's per-query work. */
export interface FastPath {
  readonly dialect: 'sqlite' | 'postgres'
  run<R>(query: CompiledTemplate, parameters: unknown[]): Promise<R[]>
  /**
   * Runs every statement in one transaction; the rows of each, in order. Absent where batching
   * does not pay: PostgreSQL flushes concurrent commits together itself, and its pool runs the
   * statements side by side, where a batch would queue them on one connection.
   */
  runAll?(statements: Statement[], since?: number): Promise<unknown[][]>
}

/** A compiled query whose parameters are either an argument's position or a constant. */
export interface CompiledTemplate {
  readonly sql: string
  /** A stable name, unique per SQL text: PostgreSQL keeps it as a server-side prepared statement. */
  readonly name: string
  /** For each SQL parameter: `{ arg }` the index of the argument, or `{ value }` a constant. */
  readonly slots: readonly ({ arg: number } | { value: unknown })[]
}

const fastPaths = new WeakMap<Db, FastPath>()

/** Called by whoever opens a database: prepared queries on `db` itself then use `path`. */
export function registerFastPath(db: Db, path: FastPath): void {
  fastPaths.set(db, path)
}

class Placeholder {
  constructor(readonly arg: number) {}
}

let names = 0

export function prepare<A extends unknown[], R>(build: (db: Db, ...args: A) => Compilable<R>): PreparedQuery<A, R> {
  const arity = build.length - 1
  const templates: Partial<Record<FastPath['dialect'], CompiledTemplate>> = {}
  const name = `adoption_store_${++names}`

  const compile = (db: Db, dialect: FastPath['dialect']): CompiledTemplate => {
    const placeholders = Array.from({ length: arity }, (_, arg) => new Placeholder(arg)) as A
    const compiled = build(db, ...placeholders).compile()
    const slots = compiled.parameters.map((value) => (value instanceof Placeholder ? { arg: value.arg } : { value }))
    const template = { sql: compiled.sql, name: `${name}_${dialect}`, slots }
    templates[dialect] = template
    return template
  }

  const statement = (db: Db, path: FastPath, args: A): Statement => {
    const template = templates[path.dialect] ?? compile(db, path.dialect)
    return { template, parameters: template.slots.map((slot) => ('arg' in slot ? args[slot.arg] : slot.value)) }
  }
  const onItsOwn = async (db: Db, args: A): Promise<R[]> => {
    const { rows } = await db.executeQuery(build(db, ...args).compile())
    return rows as R[]
  }

  const query = async (db: Db, ...args: A): Promise<R[]> => {
    const path = fastPaths.get(db)
    if (!path) return onItsOwn(db, args)
    const { template, parameters } = statement(db, path, args)
    return path.run<R>(template, parameters)
  }
  query.batched = async (db: Db, ...args: A): Promise<R[]> => {
    const path = fastPaths.get(db)
    if (!path) return onItsOwn(db, args)
    const { template, parameters } = statement(db, path, args)
    const { run, runAll } = path
    if (!runAll) return run<R>(template, parameters)
    return (await enqueue(db, { runAll }, [{ template, parameters }]))[0] as R[]
  }
  query.statement = (db: Db, ...args: A): Statement | undefined => {
    const path = fastPaths.get(db)
    return path?.runAll ? statement(db, path, args) : undefined
  }
  return query
}

/** Whether `db` commits batched writes together (SQLite's root instance), so `batchedTogether` may be used. */
export function canBatch(db: Db): boolean {
  return fastPaths.get(db)?.runAll !== undefined
}

/**
 * Group commit of statements that belong together (a change and the event that reports it): they
 * run in order, in the same transaction as the other calls of the batch, and commit or fail
 * together. The rows of each, in order. Only where `canBatch(db)`.
 */
export async function batchedTogether(db: Db, statements: Statement[]): Promise<unknown[][]> {
  const path = fastPaths.get(db)
  if (!path?.runAll) throw new Error('batchedTogether needs a database that batches (see canBatch)')
  return enqueue(db, { runAll: path.runAll }, statements)
}

type Batcher = Required<Pick<FastPath, 'runAll'>>

/** One caller's statements (usually one), answered with the rows of each. */
interface Queued {
  statements: Statement[]
  /** When the call was made (monotonicMs): the batch's wait for a lock is bounded from its earliest call. */
  since: number
  resolve(rows: unknown[][]): void
  reject(error: unknown): void
}

/** The creates waiting for the next commit, and whether a commit is under way. */
interface Batches {
  waiting: Queued[]
  busy: boolean
}

const batches = new WeakMap<Db, Batches>()

function enqueue(db: Db, path: Batcher, statements: Statement[]): Promise<unknown[][]> {
  return new Promise((resolve, reject) => {
    let state = batches.get(db)
    if (!state) {
      state = { waiting: [], busy: false }
      batches.set(db, state)
    }
    state.waiting.push({ statements, since: monotonicMs(), resolve, reject })
    if (state.busy) return
    state.busy = true
    // After the I/O of this turn: every request that arrived with it joins the batch.
    setImmediate(() => void drain(path, state))
  })
}

/**
 * Commits batch after batch until none waits. While one commits (its `fsync` on the writer
 * thread), the writes that arrive meanwhile wait together for the next: one commit for all of
 * them, however long the disk takes.
 */
async function drain(path: Batcher, state: Batches): Promise<void> {
  while (state.waiting.length > 0) {
    const batch = state.waiting
    state.waiting = []
    await commit(path, batch)
  }
  state.busy = false
}

async function commit(path: Batcher, queue: Queued[]): Promise<void> {
  if (queue.length > 1) {
    try {
      const results = await path.runAll(
        queue.flatMap((item) => item.statements),
        Math.min(...queue.map((item) => item.since)),
      )
      let next = 0
      for (const item of queue) {
        item.resolve(item.statements.map(() => results[next++] ?? []))
      }
      return
    } catch (error) {
      // The database is away or locked: each statement alone would only wait as long again.
      if (isDatabaseUnavailable(error)) return queue.forEach((item) => item.reject(error))
      // One statement was refused and took the batch with it: let each succeed or fail alone.
    }
  }
  for (const item of queue) {
    try {
      item.resolve(await path.runAll(item.statements, item.since))
    } catch (error) {
      item.reject(error)
    }
  }
}
