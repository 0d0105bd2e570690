/**
 * The `adoption-store` command line: global options, configuration, the command groups (each a
 * module of src/cli/), and what a failure prints. `runCommand` runs one command on a terminal and
 * answers its exit status; `src/cli.ts` runs it on the process's own.
 */
import { inspect } from 'node:util'
import { Command, CommanderError, Option } from 'commander'
import { type Config, ConfigError, type ConfigOverrides, configuredSecrets, loadConfig, redactedUrl } from '../config.js'
import { describeDatabaseFailure } from '../db/errors.js'
import { registerAuditCommands } from './audit.js'
import { registerCatalogCommands } from './catalog.js'
import { cliContext, CliError, type Terminal } from './common.js'
import { registerDataCommands } from './data.js'
import { registerDatabaseCommands } from './database.js'
import { registerDomainCommands } from './domains.js'
import { registerKeyCommands } from './keys.js'
import { registerPetFileCommands } from './pet-files.js'
import { registerPhotoCommands } from './photos.js'
import { registerProjectCommands } from './projects.js'
import { registerServeCommand } from './serve.js'
import { registerUserCommands } from './users.js'
import { registerWebhookCommands } from './webhooks.js'

/** Runs the command `argv` names (the arguments after the program's name) on `terminal`; answers its exit status. */
export async function runCommand(argv: readonly string[], terminal: Terminal): Promise<number> {
  const program = new Command('adoption-store')
    .description('Adoption Store: the Animal Adoption Store API service and its operator commands.')
    // Set before the commands are added, which inherit both: the terminal's streams, and a thrown
    // CommanderError where Commander would end the process (help, version, a usage error).
    .configureOutput({ writeOut: (text) => terminal.stdout.write(text), writeErr: (text) => terminal.stderr.write(text) })
    .exitOverride()
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

  /** The global flags given, each overriding its environment variable. */
  const overrides = (): ConfigOverrides => {
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
  let parsedConfig: Config | undefined
  const config = (): Config => (parsedConfig ??= loadConfig(overrides(), terminal.env))
  const withoutSecrets = (text: string) => configuredSecrets(overrides(), terminal.env).reduce((scrubbed, secret) => scrubbed.replaceAll(secret, '***'), text)

  const cli = cliContext(terminal, config)
  registerServeCommand(program, cli)
  registerDatabaseCommands(program, cli)
  registerProjectCommands(program, cli)
  registerKeyCommands(program, cli)
  registerUserCommands(program, cli)
  registerDataCommands(program, cli)
  registerPetFileCommands(program, cli)
  registerPhotoCommands(program, cli)
  registerCatalogCommands(program, cli)
  registerDomainCommands(program, cli)
  registerAuditCommands(program, cli)
  registerWebhookCommands(program, cli)

  try {
    await program.parseAsync(argv, { from: 'user' })
    return cli.exitCode
  } catch (error) {
    // Help, the version, or a usage error Commander has already printed.
    if (error instanceof CommanderError) return error.exitCode
    if (error instanceof CliError || error instanceof ConfigError) {
      cli.note(`adoption-store: ${error.message}`)
      return 1
    }
    const database = describeDatabaseFailure(error)
    if (database !== undefined) {
      const { databaseUrl, dataDir } = config()
      const where = databaseUrl ? `the PostgreSQL database of DATABASE_URL (${redactedUrl(databaseUrl)})` : `the SQLite database in DATA_DIR (${dataDir})`
      cli.note(`adoption-store: cannot use ${where}: ${withoutSecrets(database)}`)
      return 1
    }
    // An unexpected failure keeps its stack trace, for a bug report, without the configuration's secrets.
    cli.note(`adoption-store: ${withoutSecrets(inspect(error))}`)
    return 1
  }
}
