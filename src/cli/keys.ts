/** `adoption-store keys …`: create, list, revoke and unban API keys. */
import { type Command, InvalidArgumentError } from 'commander'
import { createKeys, type Keys } from '../keys/keys.module.js'
import { API_SCOPES } from '../auth/scopes.js'
import { type ApiKey, MAX_KEY_LIFETIME_DAYS } from '../keys/keys.service.js'
import { commandStore } from '../limits/backend.js'
import { type CliContext, jsonOption, succeeded, withFeatures } from './common.js'

export function registerKeyCommands(program: Command, cli: CliContext): void {
  const group = program.command('keys').description('create, list, revoke and unban API keys')
  // Without a running limiter, a ban is lifted at its record (which in-process stores re-read
  // within a second) and in Redis when configured.
  const run = (work: (keys: Keys) => Promise<void>) => withFeatures(cli, (deps) => createKeys({ ...deps, store: commandStore(deps.config) }), work)

  jsonOption(
    group
      .command('create')
      .description('create an API key; its secret is shown only this once')
      .requiredOption('--project <slug>', 'the project the key acts for')
      .option('--name <text>', 'a name to recognise the key by')
      .option('--expires-in <duration>', `lifetime, e.g. 90d, 12h, 30m, 2w; at most ${MAX_KEY_LIFETIME_DAYS}d`, keyLifetime)
      .option('--scope <scope>', `what the key may call, repeatable: ${API_SCOPES.join(', ')}; without it, everything`, collect, [])
      .option('--publishable', 'a read-only key (pets:read) for web pages, answered with CORS headers for its --origin values')
      .option('--origin <origin>', "a publishable key's allowed origin, repeatable: https://host[:port], or http://localhost[:port]", collect, []),
  ).action(async (options: { project: string; name?: string; expiresIn?: number; scope: string[]; publishable?: boolean; origin: string[]; json?: boolean }) =>
    run(async ({ service: keys }) => {
      const request = {
        project: options.project,
        name: options.name,
        expiresInMs: options.expiresIn,
        scopes: options.scope.length > 0 ? options.scope : undefined,
        publishable: options.publishable,
        allowedOrigins: options.origin.length > 0 ? options.origin : undefined,
      }
      const { key, secret } = succeeded(await keys.create(request, cli.change))
      cli.print(options.json, { ...key, key: secret }, () =>
        [
          `Created ${key.publishable ? 'publishable ' : ''}key ${key.id} for project ${key.project}${key.expiresAt ? `, expires ${key.expiresAt}` : ''}.`,
          `Scopes: ${describeScopes(key)}${key.publishable ? `; allowed origins: ${key.allowedOrigins.join(', ')}` : ''}.`,
          'The secret is shown only this once:',
          '',
          `  ${secret}`,
        ].join('\n'),
      )
    }),
  )

  jsonOption(group.command('list').description("list a project's keys (never their secrets)").requiredOption('--project <slug>', 'the project')).action(
    async (options: { project: string; json?: boolean }) =>
      run(async ({ service: keys }) =>
        cli.printList(options.json, succeeded(await keys.list(options.project)).keys, {
          ID: (k) => k.id,
          PREFIX: (k) => `${k.prefix}…`,
          NAME: (k) => k.name ?? '',
          CREATED: (k) => k.createdAt,
          'LAST USED': (k) => k.lastUsedAt ?? '',
          EXPIRES: (k) => k.expiresAt ?? '',
          REVOKED: (k) => k.revokedAt ?? '',
          'BANNED UNTIL': (k) => k.bannedUntil ?? '',
          SCOPES: (k) => describeScopes(k),
          ORIGINS: (k) => k.allowedOrigins.join(' '),
        }),
      ),
  )

  jsonOption(group.command('revoke <id>').description('revoke a key; refused from the next request on')).action(async (id: string, options: { json?: boolean }) =>
    run(async ({ service: keys }) => {
      const { key } = succeeded(await keys.revoke(id, cli.change))
      cli.print(options.json, key, () => `Revoked key ${key.id} of project ${key.project} at ${key.revokedAt}`)
    }),
  )

  jsonOption(group.command('unban <id>').description("lift a key's temporary ban (and its escalation) on every instance")).action(
    async (id: string, options: { json?: boolean }) =>
      run(async ({ bans }) => {
        const { wasBanned } = succeeded(await bans.liftById(id, cli.change))
        cli.print(options.json, { id, wasBanned }, () => (wasBanned ? `Lifted the ban of key ${id}` : `Key ${id} was not banned`))
      }),
  )
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value]
}

function describeScopes(key: ApiKey): string {
  const scopes = key.scopes === null ? 'all' : key.scopes.join(' ')
  return key.publishable ? `${scopes} (publishable)` : scopes
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
