import path from 'node:path'
import type * as WorkerThreads from 'node:worker_threads'
import type { Worker } from 'node:worker_threads'
import { lazy } from '../lazy.js'
import { type Answer, type Failure, type Message, type Open, type Request, SqliteWrites } from './sqlite-writes.js'

// Loaded with the first thread: a command writes on its own thread and starts none.
const threads = lazy<typeof WorkerThreads>('node:worker_threads')

// A thread holds statements and rows in flight, nothing more: a small heap is its own V8
// instance's whole cost in memory.
const THREAD_OPTIONS = { resourceLimits: { maxYoungGenerationSizeMb: 4 } }

/** Where the writer's code comes from, when not from the compiled module beside this one. */
let writerScript: { source: () => string; text?: string } | undefined

/**
 * Runs writer threads from a script (CommonJS, evaluated in each thread), asked for once, when
 * the first thread starts, instead of the compiled `sqlite-writer.js` beside this module. For a
 * process that runs the TypeScript sources (the tests, scripts under tsx): a thread does not
 * inherit the process's TypeScript loader (see scripts/thread-scripts.ts).
 */
export function useWriterScript(source: () => string): void {
  writerScript = { source }
}

function startWriter(): Worker {
  if (writerScript) return new (threads().Worker)((writerScript.text ??= writerScript.source()), { ...THREAD_OPTIONS, eval: true })
  if (import.meta.url.endsWith('.ts')) {
    throw new Error('The SQLite writer thread runs JavaScript: from the TypeScript sources, give it its script first (useWriterScript; see scripts/thread-scripts.ts).')
  }
  return new (threads().Worker)(new URL('./sqlite-writer.js', import.meta.url), THREAD_OPTIONS)
}

/**
 * Writer threads whose database was closed, each ready for the next database this process opens.
 * A thread's start costs about 35 ms of CPU and opening a file on it almost nothing, so a program
 * that opens databases in turn (an embedding program, the test suite's app per test) starts one
 * thread, not one per database. Idle threads are unreferenced: none keeps the process alive.
 */
const idleWriters: Worker[] = []
const IDLE_WRITERS = 2

function takeWriter(): Worker {
  for (let worker = idleWriters.pop(); worker; worker = idleWriters.pop()) {
    // -1 once the thread has exited (it could only have crashed while idle).
    if (worker.threadId !== -1) return worker
  }
  return startWriter()
}

async function returnWriter(worker: Worker): Promise<void> {
  if (idleWriters.length < IDLE_WRITERS) idleWriters.push(worker)
  else await worker.terminate()
}

/**
 * The answers of every writer on one file in this process, counted together: each may follow a
 * change of the file, and a process may open a file more than once (an embedding program, a test
 * with two instances on one store). Kept while a writer on the file is open.
 */
interface FileAnswers {
  answers: number
  writers: number
}
const answersByFile = new Map<string, FileAnswers>()

function answersOf(file: string): FileAnswers {
  let tally = answersByFile.get(file)
  if (!tally) answersByFile.set(file, (tally = { answers: 0, writers: 0 }))
  tally.writers++
  return tally
}

/**
 * The store's writing connection (sqlite-writes.ts), as requests that resolve with its answers: on
 * a writer thread; or, `inline`, on this thread, for a command that serves nobody while it waits
 * (the CLI's), which then starts no thread (about 45 ms of a command's CPU).
 */
export class SqliteWriter {
  /** The thread; none when the writes run inline. */
  readonly #worker: Worker | undefined
  /** Hands a request to the connection; its answer comes back through #answered. */
  readonly #deliver: (request: Request) => void
  readonly #waiting = new Map<number, { resolve(result: unknown): void; reject(error: unknown): void }>()
  readonly #file: string
  readonly #tally: FileAnswers
  #ids = 0
  /** Settles when the last holder of the writer releases it. */
  #tail: Promise<void> = Promise.resolve()
  /** Why requests fail: the thread stopped, or the database was closed. */
  #stopped: Error | undefined
  #closed: Promise<void> | undefined

  constructor(file: string, { inline = false }: { inline?: boolean } = {}) {
    this.#file = path.resolve(file)
    this.#tally = answersOf(this.#file)
    if (inline) {
      const writes = new SqliteWrites()
      writes.open(file)
      this.#deliver = (request) => this.#answered(writes.answer(request))
      return
    }
    const worker = (this.#worker = takeWriter())
    // Idle, the thread does not keep the process alive; `send` holds it while an answer is due.
    worker.unref()
    worker.on('message', this.#answered)
    worker.on('error', this.#stop)
    worker.on('exit', this.#exited)
    worker.postMessage({ op: 'open', file } satisfies Open)
    this.#deliver = (request) => worker.postMessage(request)
  }

  readonly #answered = ({ id, ...answer }: Answer): void => {
    const waiting = this.#waiting.get(id)
    this.#waiting.delete(id)
    this.#tally.answers++
    if (this.#waiting.size === 0) this.#worker?.unref()
    if ('failure' in answer) waiting?.reject(revive(answer.failure))
    else waiting?.resolve(answer.result)
  }

  /** Answers received so far by every writer on this file in this process (see FileAnswers). */
  get answers(): number {
    return this.#tally.answers
  }

  readonly #exited = (code: number): void => this.#stop(new Error(`the SQLite writer thread exited with code ${code}`))

  send(message: Message): Promise<unknown> {
    if (this.#stopped) return Promise.reject(this.#stopped)
    const id = ++this.#ids
    return new Promise((resolve, reject) => {
      if (this.#waiting.size === 0) this.#worker?.ref()
      this.#waiting.set(id, { resolve, reject })
      this.#deliver({ ...message, id })
    })
  }

  /**
   * Waits for the writer to be free and takes it: a transaction holds it from begin to end, so no
   * other statement lands inside it. Resolves with the function that frees it.
   */
  lock(): Promise<() => void> {
    const previous = this.#tail
    let release!: () => void
    this.#tail = new Promise((resolve) => (release = resolve))
    return previous.then(() => release)
  }

  async alone<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.lock()
    try {
      return await work()
    } finally {
      release()
    }
  }

  assertRunning(): void {
    if (this.#stopped) throw this.#stopped
  }

  /**
   * Once the connection has finished the work it was given and closed, its thread is free for the
   * next database this process opens; this one's requests fail from then on.
   */
  close(): Promise<void> {
    this.#closed ??= this.#close()
    return this.#closed
  }

  async #close(): Promise<void> {
    if (--this.#tally.writers === 0) answersByFile.delete(this.#file)
    if (this.#stopped) return
    const failure = await this.alone(() => this.send({ op: 'close' })).then(
      () => undefined,
      (error: unknown) => error ?? new Error('the SQLite writer thread did not close the database'),
    )
    this.#stop(new Error('the SQLite database is closed'))
    const worker = this.#worker
    if (!worker) {
      if (failure !== undefined) throw failure
      return
    }
    worker.off('message', this.#answered).off('error', this.#stop).off('exit', this.#exited)
    worker.unref()
    if (failure === undefined) return returnWriter(worker)
    // A thread whose connection did not close cleanly is not handed on.
    await worker.terminate()
    throw failure
  }

  readonly #stop = (error: Error): void => {
    this.#stopped ??= error
    for (const { reject } of this.#waiting.values()) reject(this.#stopped)
    this.#waiting.clear()
  }
}

/** The error thrown on the writer, with the `code` that classifies it (see errors.ts). */
function revive({ message, code }: Failure): Error {
  return Object.assign(new Error(message), { name: 'SqliteError', code })
}
