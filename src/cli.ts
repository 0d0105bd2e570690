#!/usr/bin/env node
/**
 * The `adoption-store` command: global options, configuration, the command groups (each a module
 * of src/cli/), and what a failure prints and exits with.
 */
import { inspect } from 'node:util'
import { Command, Option } from 'commander'
import { registerAuditCommands } from './cli/audit.js'
import { CliError } from './cli/common.js'
import { registerDataCommands } from './cli/data.js'
import { registerDatabaseCommands } from './cli/database.js'
import { registerDomainCommands } from './cli/domains.js'
import { registerKeyCommands } from './cli/keys.js'
import { registerPetFileCommands } from './cli/pet-files.js'
import { registerPhotoCommands } from './cli/photos.js'
import { registerCatalogCommands } from './cli/catalog.js'
import { registerProjectCommands } from './cli/projects.js'
import { registerServeCommand } from './cli/serve.js'
import { registerUserCommands } from './cli/users.js'
import { registerWebhookCommands } from './cli/webhooks.js'
import { type Config, ConfigError, type ConfigOverrides, configuredSecrets, loadConfig, redactedUrl } from './config.js'
import { describeDatabaseFailure } from './db/errors.js'

const program = new Command('adoption-store')
  .description('Adoption Store: the Animal Adoption Store API service and its operator commands.')
  .version('1.0.0')
  .option('--port <port>', 'HTTP port (env PORT, default 8080)')
  .option('--host <host>', 'address to listen on (env HOST, default 127.0.0.1)')
  .option('--data-dir <dir>', 'where the SQLite file lives (env DATA_DIR, default ./data)')
  .option('--database-url <url>', 'PostgreSQL URL; absent means SQLite (env DATABASE_URL)')
  .addOption(new Option('--environment <name>', 'production or staging (env ENVIRONMENT)').choices(['production', 'staging']))
  .option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent (env LOG_LEVEL)')
  .option('--body-limit <bytes>', 'largest accepted request body in bytes (env BODY_LIMIT, default 1048576)')
  .option('--redis-url <url>', 'Redis for shared rate limits and bans; absent means in process (env REDIS_URL)')
  .showHelpAfterError()

let parsedConfig: Config | undefined
/** The configuration: environment variables, overridden by the global flags. */
function config(): Config {
  parsedConfig ??= loadConfig(overrides())
  return parsedConfig
}

/** The global flags given, each overriding its environment variable. */
function overrides(): ConfigOverrides {
  const flags = program.opts<Record<string, string | undefined>>()
  const given: ConfigOverrides = {
    PORT: flags.port,
    HOST: flags.host,
    DATA_DIR: flags.dataDir,
    DATABASE_URL: flags.databaseUrl,
    ENVIRONMENT: flags.environment,
    LOG_LEVEL: flags.logLevel,
    BODY_LIMIT: flags.bodyLimit,
    REDIS_URL: flags.redisUrl,
  }
  for (const key of Object.keys(given) as (keyof ConfigOverrides)[]) if (given[key] === undefined) delete given[key]
  return given
}

const cli = { config }
registerServeCommand(program, cli)
registerDatabaseCommands(program, cli)
registerProjectCommands(program, cli)
registerKeyCommands(program, cli)
registerUserCommands(program, cli)
registerDataCommands(program)
registerPetFileCommands(program, cli)
registerPhotoCommands(program, cli)
registerCatalogCommands(program, cli)
registerDomainCommands(program, cli)
registerAuditCommands(program, cli)
registerWebhookCommands(program, cli)


try {
  await program.parseAsync(process.argv)
} catch (error) {
  if (error instanceof CliError || error instanceof ConfigError) {
    process.stderr.write(`adoption-store: ${error.message}\n`)
    process.exit(1)
  }
  const database = describeDatabaseFailure(error)
  if (database !== undefined) {
    const { databaseUrl } = config()
    const where = databaseUrl ? `the PostgreSQL database of DATABASE_URL (${redactedUrl(databaseUrl)})` : `the SQLite database in DATA_DIR (${config().dataDir})`
    process.stderr.write(`adoption-store: cannot use ${where}: ${withoutSecrets(database)}\n`)
    process.exit(1)
  }
  // An unexpected failure keeps its stack trace, for a bug report, without the configuration's secrets.
  process.stderr.write(`adoption-store: ${withoutSecrets(inspect(error))}\n`)
  process.exit(1)
}

function withoutSecrets(text: string): string {
  return configuredSecrets(overrides()).reduce((scrubbed, secret) => scrubbed.replaceAll(secret, '***'), text)
}
