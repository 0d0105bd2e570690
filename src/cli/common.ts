/**
 * What every command group shares: the configuration, the features built on the database by
 * their factories, output (a human text or `--json`), and the one expected-failure type.
 */
import { type Command, InvalidArgumentError } from 'commander'
import type { FastifyBaseLogger } from 'fastify'
import type { LogFn } from 'pino'
import { type Change, commandLineChange } from '../audit/audit.js'
import { announceAuthChange, type AuthChangeListener } from '../cache/generations.js'
import { type Clock, systemClock } from '../clock.js'
import { type Config, redactedUrl } from '../config.js'
import { type DatabaseHandle, type Db, migrateToLatest, openDatabase, openExistingStore, SQLITE_FILE } from '../db/database.js'
import type { FailureLog } from '../db/outage.js'
import { describeValidation, type Failure } from '../errors.js'
import { validatorCompiler } from '../http/validation.js'
import type { Outbox } from '../webhooks/outbox.js'
import { createWebhooks, type Webhooks } from '../webhooks/webhooks.module.js'

/** An expected failure: printed as one line to stderr, exit status 1. */
export class CliError extends Error {}

/**
 * Where a command reads and writes: the process's own streams and environment (`src/cli.ts`), or
 * a caller's that runs commands in its own process and keeps what they print.
 */
export interface Terminal {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean }
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean }
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean }
  readonly env: NodeJS.ProcessEnv
}

/** What the entry lends every command group, for one command. */
export interface CliContext {
  /** The configuration: the terminal's environment variables, overridden by the global flags; read once. */
  config(): Config
  readonly terminal: Terminal
  /** The exit status once the command's work is done: 1 when it finished but reports problems. */
  exitCode: number
  /** What the command changes is recorded as: the system user who ran it, one request id for the whole command. */
  readonly change: Change
  /** Data as is with `--json`, else the human text. */
  print(json: boolean | undefined, data: unknown, human: () => string): void
  /** A list: as is with `--json`, else a table with a column per entry of `columns` (header → cell). */
  printList<T>(json: boolean | undefined, items: readonly T[], columns: Record<string, (item: T) => string>): void
  /** A warning or a note for the operator, on stderr. */
  note(line: string): void
}

/** The context of one command on `terminal`, its configuration read by `config`. */
export function cliContext(terminal: Terminal, config: () => Config): CliContext {
  const print = (json: boolean | undefined, data: unknown, human: () => string) => {
    terminal.stdout.write(`${json ? JSON.stringify(data, null, 2) : human()}\n`)
  }
  return {
    config,
    terminal,
    exitCode: 0,
    change: commandLineChange(),
    print,
    printList: (json, items, columns) => {
      const cells = Object.values(columns)
      print(json, items, () => table(Object.keys(columns), items.map((item) => cells.map((cell) => cell(item)))))
    },
    note: (line) => terminal.stderr.write(`${line}\n`),
  }
}

/** The `--json` flag of every command that prints data. */
export function jsonOption(command: Command): Command {
  return command.option('--json', 'print JSON')
}

export function table(header: string[], rows: string[][]): string {
  if (rows.length === 0) return '(none)'
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  return [header, ...rows].map((r) => r.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd()).join('\n')
}

type Failed = Pick<Failure<string>, 'ok' | 'message'>

/** A service's result; its expected failure ends the command with its message. */
export function succeeded<R extends { ok: true } | Failed>(result: R): Exclude<R, Failed> {
  if (!result.ok) throw new CliError((result as Failed).message)
  return result as Exclude<R, Failed>
}

/**
 * What a command builds the features on: it calls the factories the server's composition calls
 * (src/app.ts), with what a command has where the server has running parts. The migrated
 * database, the configuration and the system clock, as the server; a log of warnings on stderr;
 * changes of keys and plans announced to the running servers through Redis (when they share cache
 * generations there); the webhooks feature, whose outbox the changes write their events to. A
 * command starts no background part: the servers send the events and do the work it makes due.
 */
export interface CommandDeps {
  config: Config
  db: Db
  dialect: DatabaseHandle['dialect']
  clock: Clock
  log: FastifyBaseLogger
  failures: FailureLog
  /** Tells running servers of a revocation, a plan change or an endpoint change. */
  authChanged: AuthChangeListener
  webhooks: Webhooks
  outbox: Outbox
}

/**
 * Runs `work` with what `build` makes of the features (the same factories, so the same services,
 * the HTTP API uses), on the migrated database, then closes the database.
 */
export async function withFeatures<S>(
  cli: CliContext,
  build: (deps: CommandDeps) => S | Promise<S>,
  work: (services: S) => Promise<void>,
  { makesStore = false }: { makesStore?: boolean } = {},
): Promise<void> {
  const config = cli.config()
  // Only a command that makes something from nothing (a project, a user) may make the store: any
  // other, run from the wrong directory, would answer from a new empty store in ./data.
  // A command serves nobody while it waits for the disk: its writes need no thread of their own.
  const database = makesStore ? openDatabase(config, { inlineWrites: true }) : await openExistingStore(config, { inlineWrites: true })
  if (database === undefined) throw new CliError(noStore(config))
  // Changes of keys and plans reach servers that share cache generations in Redis.
  // The change is committed either way; without Redis, servers notice it within a second.
  const authChanged = () =>
    announceAuthChange(config).catch((error: unknown) => {
      cli.note(`warning: ${redisNotTold(error, 'servers apply it within 1 s')}`)
    })
  try {
    await migrateToLatest(database.db)
    const log = commandLog(cli)
    const failures: FailureLog = { failed: (err, message) => log.warn({ err }, message) }
    const base = { config, db: database.db, dialect: database.dialect, clock: systemClock, log, failures, authChanged }
    const webhooks = createWebhooks(base)
    await work(await build({ ...base, webhooks, outbox: webhooks.outbox }))
  } finally {
    await database.close()
  }
}

/**
 * The warning of a change committed but not announced through Redis to the servers that share
 * cache generations there (the announcement failed): what failed, and when the servers see it.
 */
export function redisNotTold(error: unknown, consequence: string): string {
  return `Redis not told of the change (${error instanceof Error ? error.message : String(error)}); ${consequence}`
}

/** When servers see a change of animals, categories or locations that Redis was not told of. */
export const DATA_LAG = "servers' cached reads may lag until their next change"

/** Where the store was looked for, and how to point a command at the right one. */
function noStore(config: Config): string {
  if (config.databaseUrl) {
    return `no Adoption Store in the PostgreSQL database of DATABASE_URL (${redactedUrl(config.databaseUrl)}): it has no schema_migrations table. Set DATABASE_URL (or --database-url) to the service's database, or make the store with "adoption-store migrate".`
  }
  return `no Adoption Store in DATA_DIR (${config.dataDir}): there is no ${SQLITE_FILE} there. Run the command with the service's DATA_DIR (DATA_DIR=/path/to/data adoption-store …, or --data-dir), or make a new store with "adoption-store migrate" or by starting the service.`
}

/** A command's log: warnings and errors on stderr, a line each (the message, without its fields); nothing below. */
function commandLog(cli: CliContext): FastifyBaseLogger {
  const line =
    (label: string): LogFn =>
    (first: unknown, second?: unknown) => {
      cli.note(`${label}: ${typeof first === 'string' ? first : String(second ?? '')}`)
    }
  const quiet: LogFn = () => undefined
  const log: FastifyBaseLogger = { level: 'warn', fatal: line('error'), error: line('error'), warn: line('warning'), info: quiet, debug: quiet, trace: quiet, silent: quiet, child: () => log }
  return log
}

/** An option's parser: a whole number of at least `min`. */
export function wholeNumber(min: number): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) < min) {
      throw new InvalidArgumentError(`a whole number of at least ${min} is needed.`)
    }
    return Number(value)
  }
}

type Validate = ((data: unknown) => boolean) & { errors?: Parameters<typeof describeValidation>[0] | null }

/**
 * The API's own check of a value against a request schema, for commands that call services
 * directly: undefined when it passes, else the sentence the API would answer, naming the field.
 */
export function schemaCheck(schema: object): (value: unknown) => string | undefined {
  const validate = validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '/' }) as unknown as Validate
  return (value) => (validate(structuredClone(value)) ? undefined : describeValidation(validate.errors ?? [], 'body').replace(/^Body field /, 'Field ').replace(/^The body /, 'The input '))
}

/** Ends the command with the API's message when `value` does not pass `check`. */
export function checked<T>(check: (value: unknown) => string | undefined, value: T): T {
  const problem = check(value)
  if (problem) throw new CliError(problem)
  return value
}
