import { pino } from 'pino'
import { buildApp } from './app.js'
import { bootstrapEmptyStore } from './bootstrap.js'
import { systemClock } from './clock.js'
import type { Config } from './config.js'
import { migrateToLatest, openDatabase } from './db/database.js'
import { listenHttps } from './domains/https.js'
import { applyConnectionLimits, connectionLimits } from './http/connection-limits.js'

/** How long in-flight requests get to finish after SIGTERM before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 10_000

/** Runs the service until SIGTERM or SIGINT: the process owns listening, timeouts and shutdown. */
export async function serve(config: Config): Promise<void> {
  const database = openDatabase(config)
  await migrateToLatest(database.db)
  const firstKey = await bootstrapEmptyStore(database.db, systemClock, config.environment)
  // Log lines are written asynchronously, off the request path: under load, lines that arrive
  // while a write is in flight go out together in the next one. Flushed at exit.
  const destination = pino.destination({ dest: 1, sync: false })
  const logger = pino({ level: config.logLevel, redact: ['req.headers.authorization'] }, destination)
  const exit = (code: number) => {
    destination.flushSync()
    process.exit(code)
  }
  const app = await buildApp({ config, database, logger })

  // Slow or idle clients must not hold sockets forever; the HTTPS listener takes the same limits.
  applyConnectionLimits(app.server, connectionLimits(config))

  let closing = false
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) return
    closing = true
    app.log.info({ signal }, 'shutting down: finishing in-flight requests')
    setTimeout(() => {
      app.log.error('in-flight requests did not finish in time; exiting')
      exit(1)
    }, SHUTDOWN_GRACE_MS).unref()
    app.close().then(
      () => exit(0),
      (err: unknown) => {
        app.log.error({ err }, 'error while shutting down')
        exit(1)
      },
    )
  }
  process.once('SIGTERM', shutdown)
  process.once('SIGINT', shutdown)

  await app.listen({ port: config.port, host: config.host })
  // Custom domains over HTTPS, certificates picked by SNI; closes with the app.
  if (config.httpsPort !== undefined) await listenHttps(app, { port: config.httpsPort, host: config.host })
  app.log.info({ database: database.location, environment: config.environment }, 'adoption store ready')
  if (firstKey) printWelcome(firstKey, config)
}

function printWelcome(key: string, config: Config): void {
  const host = ['0.0.0.0', '::'].includes(config.host) ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host
  process.stdout.write(
    [
      '',
      'First start: created project "default" (free plan) and an API key.',
      'The key is shown only this once; keep it somewhere safe:',
      '',
      `  ${key}`,
      '',
      'Try it:',
      '',
      `  curl -H "Authorization: Bearer ${key}" http://${host}:${config.port}/v1/pets`,
      '',
      '',
    ].join('\n'),
  )
}
