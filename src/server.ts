import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { pino } from 'pino'
import { buildApp } from './app.js'
import { bootstrapEmptyStore, DEFAULT_PROJECT, firstKeyUnused } from './bootstrap.js'
import type { Config } from './config.js'
import { migrateToLatest, openDatabase } from './db/database.js'
import { listenHttps } from './domains/https.listener.js'
import { applyConnectionLimits, connectionLimits } from './http/connection-limits.js'
import { BatchedLines } from './http/logging.js'

/** How long in-flight requests get to finish after SIGTERM before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 10_000

/** Runs the service until SIGTERM or SIGINT: the process owns listening, timeouts and shutdown. */
export async function serve(config: Config): Promise<void> {
  const database = openDatabase(config)
  await migrateToLatest(database.db)
  // Log lines are written asynchronously, off the request path: the lines of 5 ms go out
  // together, and batches that arrive while a write is in flight go out together in the next
  // one. Flushed at exit: by `exit` below, and on any other exit (a crash) the batch is handed
  // to pino's destination first, which then writes it synchronously.
  const destination = new BatchedLines(pino.destination({ dest: 1, sync: false }))
  process.prependListener('exit', destination.handOn)
  const logger = pino({ level: config.logLevel, redact: ['req.headers.authorization'] }, destination)
  const exit = (code: number) => {
    destination.flushSync()
    process.exit(code)
  }
  const app = await buildApp({ config, database, logger })

  // Slow or idle clients must not hold sockets forever; the HTTPS listener takes the same limits.
  applyConnectionLimits(app.server, connectionLimits(config))

  let closing = false
  // A first start's project and key, made once the service listens: a shutdown waits for them,
  // so that the database is not closed under them (a SIGTERM right after the start).
  let bootstrapping: Promise<unknown> = Promise.resolve()
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) return
    closing = true
    app.log.info({ signal }, 'shutting down: finishing in-flight requests')
    setTimeout(() => {
      app.log.error('in-flight requests did not finish in time; exiting')
      exit(1)
    }, SHUTDOWN_GRACE_MS).unref()
    bootstrapping
      .catch(() => undefined)
      .then(() => app.close())
      .then(
        () => exit(0),
        (err: unknown) => {
          app.log.error({ err }, 'error while shutting down')
          exit(1)
        },
      )
  }
  process.once('SIGTERM', shutdown)
  process.once('SIGINT', shutdown)

  try {
    await app.listen({ port: config.port, host: config.host })
    // Custom domains over HTTPS, certificates picked by SNI; closes with the app.
    if (config.httpsPort !== undefined) await listenHttps(app, { port: config.httpsPort, host: config.host })
  } catch (error) {
    const refusal = describeListenFailure(error, config)
    if (!refusal) throw error
    // One line, and nothing created: the first key is made only once the service listens.
    await app.close()
    process.stderr.write(`adoption-store: ${refusal}\n`)
    return exit(1)
  }
  // The port actually bound: with PORT=0 the system chose it, and this line is where it is told.
  const { port } = app.server.address() as AddressInfo
  const base = `http://${displayHost(config.host)}:${port}`
  app.log.info(
    { database: database.location, environment: config.environment, url: base, docs: `${base}/docs`, dashboard: `${base}/dashboard` },
    `adoption store ready at ${base}: API ${base}/v1, reference ${base}/docs, dashboard ${base}/dashboard`,
  )
  const bootstrap = bootstrapEmptyStore(database.db, app.services)
  bootstrapping = bootstrap
  const firstKey = await bootstrap
  // The ready line before the welcome, as when each line was handed on at once.
  destination.handOn()
  if (firstKey) printWelcome(firstKey, base, config)
  else if (await firstKeyUnused(database.db)) printLostKeyHint(config)
}

/** What the operator can do about an address the listener cannot take; undefined for anything else. */
function describeListenFailure(error: unknown, config: Config): string | undefined {
  const { code, port, address } = (error ?? {}) as { code?: string; port?: number; address?: string }
  const which = port === config.httpsPort && port !== config.port ? 'HTTPS_PORT' : 'PORT'
  switch (code) {
    case 'EADDRINUSE':
      return `port ${port ?? config.port} on ${address ?? config.host} is already in use by another process: stop that process, or choose another port with ${which} (e.g. ${which}=8081) or --port.`
    case 'EACCES':
      return `port ${port ?? config.port} on ${address ?? config.host} needs privileges this process does not have: choose a port above 1023 with ${which}, or grant the privilege.`
    case 'EADDRNOTAVAIL':
      return `${address ?? config.host} is not an address of this machine: set HOST (or --host) to one of its addresses, or 0.0.0.0 for all of them.`
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
      return `HOST (${config.host}) is neither an address of this machine nor a name it can resolve: set HOST (or --host) to one of its addresses (e.g. 127.0.0.1), or 0.0.0.0 for all of them.`
  }
  return undefined
}

/** Where a person on this machine reaches the service: a wildcard address is reached at loopback. */
function displayHost(host: string): string {
  if (['0.0.0.0', '::'].includes(host)) return '127.0.0.1'
  return host.includes(':') ? `[${host}]` : host
}

/**
 * A command as the operator types it to reach this service's store: with its DATA_DIR when that
 * is not the default (a command run elsewhere would otherwise look in its own ./data), and a
 * reminder of DATABASE_URL, whose value is never printed (it may hold a password).
 */
function command(config: Config, args: string): string {
  if (config.databaseUrl) return `npx adoption-store ${args}, with the service's DATABASE_URL`
  const dir = config.dataDir === path.resolve('data') ? '' : `DATA_DIR=${/^[\w./-]+$/.test(config.dataDir) ? config.dataDir : `'${config.dataDir.replaceAll("'", "'\\''")}'`} `
  return `${dir}npx adoption-store ${args}`
}

function printWelcome(key: string, base: string, config: Config): void {
  process.stdout.write(
    [
      '',
      `First start: created project "${DEFAULT_PROJECT}" (free plan) and an API key.`,
      'The key is shown only this once; keep it somewhere safe:',
      '',
      `  ${key}`,
      '',
      'Try it:',
      '',
      `  curl -H "Authorization: Bearer ${key}" ${base}/v1/pets`,
      '',
      `API reference: ${base}/docs`,
      `Dashboard:     ${base}/dashboard (accounts: ${command(config, 'users create --email you@example.com --role operator')})`,
      '',
      '',
    ].join('\n'),
  )
}

function printLostKeyHint(config: Config): void {
  process.stdout.write(
    [
      '',
      `No API key of project "${DEFAULT_PROJECT}" has been used yet. If the key printed at the first start was not kept, create another:`,
      '',
      `  ${command(config, `keys create --project ${DEFAULT_PROJECT}`)}`,
      '',
      '',
    ].join('\n'),
  )
}
