/** `adoption-store users …`: the accounts that sign in to the dashboard. */
import { type Command, Option } from 'commander'
import { createAccounts } from '../accounts/accounts.module.js'
import { MIN_PASSWORD_LENGTH, type User, type UsersService } from '../accounts/users.service.js'
import { USER_ROLES } from '../db/schema.js'
import type { UserRole } from '../db/schema.js'
import { type CliContext, jsonOption, type Terminal, succeeded, withFeatures } from './common.js'

/** `--project <slug>`, repeatable. */
const collectSlugs = (slug: string, slugs: string[] = []) => [...slugs, slug]

export function registerUserCommands(program: Command, cli: CliContext): void {
  const group = program.command('users').description('manage the accounts that sign in to the dashboard')
  const run = (work: (accounts: UsersService) => Promise<void>, options?: { makesStore: boolean }) =>
    withFeatures(cli, (deps) => createAccounts(deps).users, work, options)

  jsonOption(
    group
      .command('create')
      .description('create a user; prints a one-time password, shown only this once, unless --password-stdin')
      .requiredOption('--email <email>', 'the email they sign in with')
      .addOption(new Option('--role <role>', 'operator (every project), owner (only their projects) or viewer (sees only their projects, changes nothing)').choices(USER_ROLES).makeOptionMandatory())
      .option('--project <slug>', 'a project the owner or viewer belongs to; repeat for several (they need at least one)', collectSlugs)
      .option('--password-stdin', `read their password from standard input (at least ${MIN_PASSWORD_LENGTH} characters) instead of generating a one-time password`),
  ).action(async (options: { email: string; role: UserRole; project?: string[]; passwordStdin?: boolean; json?: boolean }) => {
    const password = options.passwordStdin ? await readStdin(cli.terminal) : undefined
    await run(async (accounts) => {
      const { user, oneTimePassword } = succeeded(await accounts.createUser({ email: options.email, role: options.role, projects: options.project ?? [], password }, cli.change))
      const created = `Created ${user.role} ${user.email}${user.projects.length ? ` for ${user.projects.join(', ')}` : ''}.`
      // A password given on stdin is the operator's own: never echoed.
      if (oneTimePassword === undefined) return cli.print(options.json, user, () => created)
      printOneTimePassword(cli, options.json, user, oneTimePassword, created)
    }, { makesStore: true })
  })

  jsonOption(group.command('list').description('list users with their roles, projects, states and last sign-ins (never their passwords)')).action(async (options: { json?: boolean }) =>
    run(async (accounts) =>
      cli.printList(options.json, await accounts.listUsers(), {
        EMAIL: (u) => u.email,
        ROLE: (u) => u.role,
        PROJECTS: (u) => (u.role === 'operator' ? '(all)' : u.projects.join(',')),
        STATE: (u) => (u.state === 'enabled' && u.oneTimePasswordExpiresAt ? `enabled, one-time password until ${u.oneTimePasswordExpiresAt}` : u.state),
        CREATED: (u) => u.createdAt,
        'LAST SIGN-IN': (u) => u.lastSignedInAt ?? 'never',
      }),
    ),
  )

  jsonOption(group.command('disable <email>').description('disable a user: they cannot sign in, and their sessions end at once')).action(async (email: string, options: { json?: boolean }) =>
    run(async (accounts) => {
      const { user } = succeeded(await accounts.disableUser({ email }, cli.change))
      cli.print(options.json, user, () => `Disabled ${user.email} at ${user.disabledAt ?? ''}; they cannot sign in, and their sessions have ended.`)
    }),
  )

  jsonOption(group.command('enable <email>').description('enable a disabled user again, with the password they had')).action(async (email: string, options: { json?: boolean }) =>
    run(async (accounts) => {
      const { user } = succeeded(await accounts.enableUser({ email }, cli.change))
      cli.print(options.json, user, () => `Enabled ${user.email}: they can sign in again.`)
    }),
  )

  jsonOption(group.command('delete <email>').description('delete a user and end their sessions (the audit log keeps their email)')).action(async (email: string, options: { json?: boolean }) =>
    run(async (accounts) => {
      const { user } = succeeded(await accounts.deleteUser({ email }, cli.change))
      cli.print(options.json, user, () => `Deleted ${user.email}.`)
    }),
  )

  jsonOption(
    group.command('reset-password <email>').description("replace a user's password with a one-time password, shown only this once, and end their sessions"),
  ).action(async (email: string, options: { json?: boolean }) =>
    run(async (accounts) => {
      const { user, oneTimePassword } = succeeded(await accounts.resetPassword({ email }, cli.change))
      printOneTimePassword(cli, options.json, user, oneTimePassword, `Reset the password of ${user.email}; their sessions have ended.`)
    }),
  )

  jsonOption(
    group
      .command('set-projects <email>')
      .description("replace an owner's or a viewer's projects")
      .requiredOption('--project <slug>', 'a project the user belongs to from now on; repeat for several', collectSlugs),
  ).action(async (email: string, options: { project: string[]; json?: boolean }) =>
    run(async (accounts) => {
      const { user } = succeeded(await accounts.setProjects({ email }, options.project, cli.change))
      cli.print(options.json, user, () => `${user.email} now belongs to ${user.projects.join(', ')}.`)
    }),
  )
}

/** A user and their new one-time password: `--json` as the admin API answers it (`password`), else said once. */
function printOneTimePassword(cli: CliContext, json: boolean | undefined, user: User, password: string, done: string): void {
  cli.print(json, { ...user, password }, () =>
    [
      done,
      `Their one-time password is shown only this once; hand it over safely. At their first sign-in they choose their own; it stops working at ${user.oneTimePasswordExpiresAt ?? ''}.`,
      '',
      `  ${password}`,
    ].join('\n'),
  )
}

/** All of standard input, without the one line break that `echo` or a file adds at the end. */
async function readStdin(terminal: Terminal): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of terminal.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '')
}
