/** `adoption-store users …`: the accounts that sign in to the dashboard. */
import { type Command, Option } from 'commander'
import { commandLineChange } from '../audit/audit.js'
import { AccountsService, MIN_PASSWORD_LENGTH } from '../accounts/accounts.service.js'
import { USER_ROLES } from '../db/schema.js'
import { generatePassword } from '../accounts/passwords.js'
import { systemClock } from '../clock.js'
import type { UserRole } from '../db/schema.js'
import { type CliContext, jsonOption, print, printList, succeeded, withService } from './common.js'

export function registerUserCommands(program: Command, cli: CliContext): void {
  const group = program.command('users').description('create and list the accounts that sign in to the dashboard')
  const run = (work: (accounts: AccountsService) => Promise<void>) => withService(cli, (db) => new AccountsService(db, systemClock), work)

  jsonOption(
    group
      .command('create')
      .description('create a user; prints a one-time password, shown only this once, unless --password-stdin')
      .requiredOption('--email <email>', 'the email they sign in with')
      .addOption(new Option('--role <role>', 'operator (every project) or owner (only their projects)').choices(USER_ROLES).makeOptionMandatory())
      .option('--project <slug>', 'a project the owner belongs to; repeat for several (owners need at least one)', (slug: string, slugs: string[] = []) => [...slugs, slug])
      .option('--password-stdin', `read the password from standard input (at least ${MIN_PASSWORD_LENGTH} characters) instead of generating one`),
  ).action(async (options: { email: string; role: UserRole; project?: string[]; passwordStdin?: boolean; json?: boolean }) => {
    const password = options.passwordStdin ? await readStdin() : generatePassword()
    await run(async (accounts) => {
      const { user } = succeeded(await accounts.createUser({ email: options.email, role: options.role, projects: options.project ?? [], password }, commandLineChange()))
      const { email, role, projects } = user
      const created = `Created ${role} ${email}${projects.length ? ` for ${projects.join(', ')}` : ''}.`
      // A password given on stdin is the operator's own: never echoed.
      if (options.passwordStdin) return print(options.json, { email, role, projects }, () => created)
      print(options.json, { email, role, projects, password }, () =>
        [created, 'Their one-time password is shown only this once; hand it over safely:', '', `  ${password}`].join('\n'),
      )
    })
  })

  jsonOption(group.command('list').description('list users with their roles and projects (never their passwords)')).action(async (options: { json?: boolean }) =>
    run(async (accounts) =>
      printList(options.json, await accounts.listUsers(), {
        EMAIL: (u) => u.email,
        ROLE: (u) => u.role,
        PROJECTS: (u) => (u.role === 'operator' ? '(all)' : u.projects.join(',')),
        CREATED: (u) => u.createdAt,
      }),
    ),
  )
}

/** All of standard input, without the one line break that `echo` or a file adds at the end. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '')
}
