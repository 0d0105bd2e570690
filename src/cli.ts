#!/usr/bin/env node
import { Command, InvalidArgumentError, Option } from 'commander'
import { createUser, getUsers, MIN_PASSWORD_LENGTH } from './accounts/accounts.service.js'
import { generatePassword } from './accounts/passwords.js'
import { registerDataCommands } from './cli/data-commands.js'
import { systemClock } from './clock.js'
import { type Config, ConfigError, type ConfigOverrides, loadConfig } from './config.js'
import { type DatabaseHandle, migrateToLatest, openDatabase } from './db/database.js'
import { describeDatabaseFailure } from './db/errors.js'
import { type Plan, PLANS, USER_ROLES, type UserRole } from './db/schema.js'
import { registerDomainCommands } from './domains/domains.cli.js'
import { announceAuthChange, onAuthChange } from './cache/generations.js'
import { createApiKey, getApiKeys, MAX_KEY_LIFETIME_DAYS, revokeKey } from './keys/keys.service.js'
import { liftBan } from './limits/limits.service.js'
import { createProject, getProjects, type Project, setProjectPlan } from './projects/projects.service.js'

/** An expected failure: printed as one line to stderr, exit status 1. */
class CliError extends Error {}

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

program
  .command('serve', { isDefault: true })
  .description('run the HTTP service (the default command)')
  .action(async () => {
    // Loaded only here: the other commands start faster without the HTTP stack.
    const { serve } = await import('./server.js')
    await serve(config())
  })

program
  .command('migrate')
  .description('bring the database schema up to date (also done at every start)')
  .option('--json', 'print JSON')
  .action(async (options: { json?: boolean }) => {
    const database = openDatabase(config())
    try {
      const result = await migrateToLatest(database.db)
      const applied = (result.results ?? []).map((r) => r.migrationName)
      print(options.json, { database: database.location, applied }, () =>
        applied.length ? `Applied ${applied.join(', ')} to ${database.location}` : `${database.location} is up to date`,
      )
    } finally {
      await database.close()
    }
  })

const projects = program.command('projects').description('create and list projects, change their plan')

const planLimitOptions = (command: Command) =>
  command
    .option('--per-minute <n>', 'requests per minute (enterprise only)', positiveInteger)
    .option('--per-day <n>', 'requests per day (enterprise only)', positiveInteger)

planLimitOptions(
  projects
    .command('create <slug>')
    .description('create a project')
    .addOption(new Option('--plan <plan>', 'the plan').choices(PLANS).default('free'))
    .option('--json', 'print JSON'),
).action(async (slug: string, options: { plan: Plan; perMinute?: number; perDay?: number; json?: boolean }) =>
  withDatabase(async ({ db }) => {
    const result = await createProject(db, systemClock, slug, { plan: options.plan, perMinute: options.perMinute, perDay: options.perDay })
    if (!result.ok) throw new CliError(result.message)
    print(options.json, result.project, () => `Created project ${describeProject(result.project)}`)
  }),
)

projects
  .command('list')
  .description('list projects with their plans and limits')
  .option('--json', 'print JSON')
  .action(async (options: { json?: boolean }) =>
    withDatabase(async ({ db }) => {
      const all = await getProjects(db)
      print(options.json, all, () =>
        table(
          ['SLUG', 'PLAN', 'PER MINUTE', 'PER DAY', 'CREATED'],
          all.map((p) => [p.slug, p.plan, String(p.limits.perMinute), String(p.limits.perDay), p.createdAt]),
        ),
      )
    }),
  )

planLimitOptions(
  projects
    .command('set-plan <slug> <plan>')
    .description("change a project's plan; applies to its next request")
    .option('--json', 'print JSON'),
).action(async (slug: string, plan: string, options: { perMinute?: number; perDay?: number; json?: boolean }) =>
  withDatabase(async ({ db }) => {
    if (!(PLANS as readonly string[]).includes(plan)) throw new CliError(`Unknown plan "${plan}": use one of ${PLANS.join(', ')}.`)
    const result = await setProjectPlan(db, slug, { plan: plan as Plan, perMinute: options.perMinute, perDay: options.perDay })
    if (!result.ok) throw new CliError(result.message)
    print(options.json, result.project, () => `Project ${describeProject(result.project)}`)
  }),
)

const keys = program.command('keys').description('create, list, revoke and unban API keys')

keys
  .command('create')
  .description('create an API key; its secret is shown only this once')
  .requiredOption('--project <slug>', 'the project the key acts for')
  .option('--name <text>', 'a name to recognise the key by')
  .option('--expires-in <duration>', `lifetime, e.g. 90d, 12h, 30m, 2w; at most ${MAX_KEY_LIFETIME_DAYS}d`, keyLifetime)
  .option('--json', 'print JSON')
  .action(async (options: { project: string; name?: string; expiresIn?: number; json?: boolean }) =>
    withDatabase(async ({ db }) => {
      const result = await createApiKey(db, systemClock, config().environment, {
        project: options.project,
        name: options.name,
        expiresInMs: options.expiresIn,
      })
      if (!result.ok) throw new CliError(result.message)
      const { key, secret } = result
      print(options.json, { ...key, key: secret }, () =>
        [
          `Created key ${key.id} for project ${key.project}${key.expiresAt ? `, expires ${key.expiresAt}` : ''}.`,
          'The secret is shown only this once:',
          '',
          `  ${secret}`,
        ].join('\n'),
      )
    }),
  )

keys
  .command('list')
  .description("list a project's keys (never their secrets)")
  .requiredOption('--project <slug>', 'the project')
  .option('--json', 'print JSON')
  .action(async (options: { project: string; json?: boolean }) =>
    withDatabase(async ({ db }) => {
      const result = await getApiKeys(db, systemClock, options.project)
      if (!result.ok) throw new CliError(result.message)
      print(options.json, result.keys, () =>
        table(
          ['ID', 'PREFIX', 'NAME', 'CREATED', 'LAST USED', 'EXPIRES', 'REVOKED', 'BANNED UNTIL'],
          result.keys.map((k) => [
            k.id,
            `${k.prefix}…`,
            k.name ?? '',
            k.createdAt,
            k.lastUsedAt ?? '',
            k.expiresAt ?? '',
            k.revokedAt ?? '',
            k.bannedUntil ?? '',
          ]),
        ),
      )
    }),
  )

keys
  .command('revoke <id>')
  .description('revoke a key; refused from the next request on')
  .option('--json', 'print JSON')
  .action(async (id: string, options: { json?: boolean }) =>
    withDatabase(async ({ db }) => {
      const result = await revokeKey(db, systemClock, id)
      if (!result.ok) throw new CliError(result.message)
      print(options.json, result.key, () => `Revoked key ${result.key.id} of project ${result.key.project} at ${result.key.revokedAt}`)
    }),
  )

keys
  .command('unban <id>')
  .description("lift a key's temporary ban (and its escalation) on every instance")
  .option('--json', 'print JSON')
  .action(async (id: string, options: { json?: boolean }) =>
    withDatabase(async ({ db }) => {
      const result = await liftBan(db, config(), id)
      if (!result.ok) throw new CliError(result.message)
      print(options.json, { id, wasBanned: result.wasBanned }, () => (result.wasBanned ? `Lifted the ban of key ${id}` : `Key ${id} was not banned`))
    }),
  )

const users = program.command('users').description('create and list the accounts that sign in to the dashboard')

users
  .command('create')
  .description('create a user; prints a one-time password, shown only this once, unless --password-stdin')
  .requiredOption('--email <email>', 'the email they sign in with')
  .addOption(new Option('--role <role>', 'operator (every project) or owner (only their projects)').choices(USER_ROLES).makeOptionMandatory())
  .option('--project <slug>', 'a project the owner belongs to; repeat for several (owners need at least one)', (slug: string, slugs: string[] = []) => [...slugs, slug])
  .option('--password-stdin', `read the password from standard input (at least ${MIN_PASSWORD_LENGTH} characters) instead of generating one`)
  .option('--json', 'print JSON')
  .action(async (options: { email: string; role: UserRole; project?: string[]; passwordStdin?: boolean; json?: boolean }) => {
    const password = options.passwordStdin ? await readStdin() : generatePassword()
    await withDatabase(async ({ db }) => {
      const result = await createUser(db, systemClock, { email: options.email, role: options.role, projects: options.project ?? [], password })
      if (!result.ok) throw new CliError(result.message)
      const { email, role, projects } = result.user
      const created = `Created ${role} ${email}${projects.length ? ` for ${projects.join(', ')}` : ''}.`
      // A password given on stdin is the operator's own: never echoed.
      if (options.passwordStdin) return print(options.json, { email, role, projects }, () => created)
      print(options.json, { email, role, projects, password }, () =>
        [created, 'Their one-time password is shown only this once; hand it over safely:', '', `  ${password}`].join('\n'),
      )
    })
  })

users
  .command('list')
  .description('list users with their roles and projects (never their passwords)')
  .option('--json', 'print JSON')
  .action(async (options: { json?: boolean }) =>
    withDatabase(async ({ db }) => {
      const all = await getUsers(db)
      print(options.json, all, () =>
        table(
          ['EMAIL', 'ROLE', 'PROJECTS', 'CREATED'],
          all.map((u) => [u.email, u.role, u.role === 'operator' ? '(all)' : u.projects.join(','), u.createdAt]),
        ),
      )
    }),
  )

registerDataCommands(program)
registerDomainCommands(program, { config, withDatabase, print, table, fail: (message) => new CliError(message) })

let parsedConfig: Config | undefined
/** The configuration: environment variables, overridden by the global flags. */
function config(): Config {
  const flags = program.opts<Record<string, string | undefined>>()
  const overrides: ConfigOverrides = {
    PORT: flags.port,
    HOST: flags.host,
    DATA_DIR: flags.dataDir,
    DATABASE_URL: flags.databaseUrl,
    ENVIRONMENT: flags.environment,
    LOG_LEVEL: flags.logLevel,
    BODY_LIMIT: flags.bodyLimit,
    REDIS_URL: flags.redisUrl,
  }
  for (const key of Object.keys(overrides) as (keyof ConfigOverrides)[]) if (overrides[key] === undefined) delete overrides[key]
  parsedConfig ??= loadConfig(overrides)
  return parsedConfig
}

async function withDatabase(work: (database: DatabaseHandle) => Promise<void>): Promise<void> {
  const database = openDatabase(config())
  // Changes of keys and plans reach servers that share cache generations in Redis.
  // The change is committed either way; without Redis, servers notice it within a second.
  onAuthChange(database.db, () =>
    announceAuthChange(config()).catch((error: unknown) => {
      process.stderr.write(`warning: Redis not told of the change (${error instanceof Error ? error.message : String(error)}); servers apply it within 1 s\n`)
    }),
  )
  try {
    await migrateToLatest(database.db)
    await work(database)
  } finally {
    await database.close()
  }
}

function print(json: boolean | undefined, data: unknown, human: () => string): void {
  process.stdout.write(`${json ? JSON.stringify(data, null, 2) : human()}\n`)
}

/** All of standard input, without the one line break that `echo` or a file adds at the end. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '')
}

/** A URL as an operator may see it in a message: without its password. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password) parsed.password = '***'
    return parsed.toString()
  } catch {
    return '(unparseable URL)'
  }
}

function describeProject(p: Project): string {
  return `${p.slug}: plan ${p.plan}, ${p.limits.perMinute} requests per minute, ${p.limits.perDay} per day`
}

function table(header: string[], rows: string[][]): string {
  if (rows.length === 0) return '(none)'
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  return [header, ...rows].map((r) => r.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd()).join('\n')
}

function positiveInteger(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    throw new InvalidArgumentError('a whole number of at least 1 is needed.')
  }
  return Number(value)
}

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

function keyLifetime(value: string): number {
  const match = /^(\d+)([smhdw])$/.exec(value)
  const ms = match ? Number(match[1]) * (UNITS[match[2]!] ?? 0) : 0
  if (!match || ms < 1_000 || !Number.isSafeInteger(ms)) {
    throw new InvalidArgumentError('use a number and a unit: s, m, h, d or w (e.g. 90d, 12h).')
  }
  if (ms > MAX_KEY_LIFETIME_DAYS * UNITS.d!) throw new InvalidArgumentError(`a key lives at most ${MAX_KEY_LIFETIME_DAYS} days (${MAX_KEY_LIFETIME_DAYS}d); leave --expires-in out for a key that does not expire.`)
  return ms
}

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
    const where = databaseUrl ? `the PostgreSQL database of DATABASE_URL (${redactUrl(databaseUrl)})` : `the SQLite database in DATA_DIR (${config().dataDir})`
    process.stderr.write(`adoption-store: cannot use ${where}: ${database}\n`)
    process.exit(1)
  }
  throw error
}
