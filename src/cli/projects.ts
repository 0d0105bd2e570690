/** `adoption-store projects …`: create and list projects, change their plan. */
import { createWriteStream } from 'node:fs'
import { rename, rm } from 'node:fs/promises'
import { pipeline } from 'node:stream/promises'
import { announceDataChange } from '../cache/generations.js'
import { type Command, Option } from 'commander'
import type { Plan } from '../db/schema.js'
import { PLANS } from '../db/schema.js'
import { bumpGeneration } from '../domains/domains.repository.js'
import { AnnouncedRoutingChanges } from '../domains/routing-changes.js'
import { createProjects } from '../projects/projects.module.js'
import type { ProjectExporter } from '../projects/projects-export.service.js'
import type { Project, ProjectDeletion, ProjectsService } from '../projects/projects.service.js'
import { createObjectStore } from '../storage/backend.js'
import { type CliContext, CliError, type CommandDeps, DATA_LAG, jsonOption, redisNotTold, type Terminal, succeeded, wholeNumber, withFeatures } from './common.js'

/**
 * The projects feature as a command has it: a deletion's changes announced to the running servers
 * through Redis (when they share generations there), its photos' files deleted from the object
 * store the configuration names. `close` closes that store.
 */
export function commandProjects(deps: CommandDeps): { service: ProjectsService; exporter: ProjectExporter; close: () => Promise<void> } {
  const store = createObjectStore(deps.config)
  const routing = new AnnouncedRoutingChanges(deps.db, deps.config)
  const dataChanged = (id: number) =>
    announceDataChange(deps.config, [id]).catch((error: unknown) => {
      deps.log.warn(redisNotTold(error, DATA_LAG))
    })
  const removal = { dialect: deps.dialect, store, log: deps.log, dataChanged, bumpRouting: bumpGeneration, routingChanged: (generation: number) => routing.announce(generation) }
  const { service, exporter } = createProjects({ ...deps, removal, files: store })
  return { service, exporter, close: () => store.close() }
}

export function registerProjectCommands(program: Command, cli: CliContext): void {
  const group = program.command('projects').description('create, list and delete projects, change their plan, grant their webhooks the private networks')
  const run = (work: (projects: ProjectsService, exporter: ProjectExporter) => Promise<void>, options?: { makesStore: boolean }) =>
    withFeatures(cli, commandProjects, async ({ service, exporter, close }) => {
      try {
        await work(service, exporter)
      } finally {
        await close()
      }
    }, options)

  planLimitOptions(jsonOption(group.command('create <slug>').description('create a project').addOption(new Option('--plan <plan>', 'the plan').choices(PLANS).default('free')))).action(
    async (slug: string, options: { plan: Plan; perMinute?: number; perDay?: number; json?: boolean }) =>
      run(async (projects) => {
        const { project } = succeeded(await projects.create(slug, { plan: options.plan, perMinute: options.perMinute, perDay: options.perDay }, cli.change))
        cli.print(options.json, project, () => `Created project ${describeProject(project)}`)
      }, { makesStore: true }),
  )

  jsonOption(group.command('list').description('list projects with their plans and limits')).action(async (options: { json?: boolean }) =>
    run(async (projects) =>
      cli.printList(options.json, await projects.list(), {
        SLUG: (p) => p.slug,
        PLAN: (p) => p.plan,
        'PER MINUTE': (p) => String(p.limits.perMinute),
        'PER DAY': (p) => String(p.limits.perDay),
        CREATED: (p) => p.createdAt,
      }),
    ),
  )

  planLimitOptions(jsonOption(group.command('set-plan <slug> <plan>').description("change a project's plan; applies to its next request"))).action(
    async (slug: string, plan: string, options: { perMinute?: number; perDay?: number; json?: boolean }) =>
      run(async (projects) => {
        if (!(PLANS as readonly string[]).includes(plan)) throw new CliError(`Unknown plan "${plan}": use one of ${PLANS.join(', ')}.`)
        const { project } = succeeded(await projects.setPlan(slug, { plan: plan as Plan, perMinute: options.perMinute, perDay: options.perDay }, cli.change))
        cli.print(options.json, project, () => `Project ${describeProject(project)}`)
      }),
  )

  jsonOption(
    group
      .command('set-webhook-private-networks <slug> <allowed>')
      .description("on: the project's webhook endpoints may reach the networks of WEBHOOK_ALLOWED_NETWORKS (its owners no longer see those answers); off: they may not"),
  ).action(async (slug: string, allowed: string, options: { json?: boolean }) =>
    run(async (projects) => {
      if (allowed !== 'on' && allowed !== 'off') throw new CliError(`Use on or off, not "${allowed}".`)
      const { project } = succeeded(await projects.setWebhookPrivateNetworks(slug, allowed === 'on', cli.change))
      cli.print(options.json, project, () =>
        project.webhookPrivateNetworks
          ? `Project ${project.slug}: its webhook endpoints may reach the networks of WEBHOOK_ALLOWED_NETWORKS; its owners no longer see their answers.`
          : `Project ${project.slug}: its webhook endpoints may not reach private networks, from their next attempt.`,
      )
    }),
  )

  group
    .command('export <slug>')
    .description("write a project's whole data (animals, photos' files, orders, webhooks, domains, members, audit log, …; no secret) as one gzip-compressed tar archive")
    .option('--out <file>', 'where to write the archive; - for stdout (needed when stdout is a terminal)')
    .action(async (slug: string, options: { out?: string }) =>
      run(async (_projects, exporter) => {
        const name = await writeExport(cli, exporter, slug, options.out)
        if (options.out !== undefined && options.out !== '-') cli.note(`Exported project ${slug} to ${options.out} (${name}).`)
      }),
    )

  jsonOption(
    group
      .command('delete <slug>')
      .description('delete a project with everything it holds (keys, animals, photos, orders, webhooks, domains, …); cannot be undone')
      .option('--yes', 'delete without asking (needed when stdin is not a terminal)'),
  ).action(async (slug: string, options: { yes?: boolean; json?: boolean }) =>
    run(async (projects) => {
      if (!options.yes) await confirmDeletion(cli.terminal, slug)
      const { deletion } = succeeded(await projects.delete(slug, cli.change))
      cli.print(options.json, deletion, () => describeDeletion(deletion))
    }),
  )
}

/**
 * Writes the archive to `out` (`-`: stdout), or refuses to write it to a terminal. A file is written
 * beside its final name and renamed once whole, so a failure leaves no half archive under that name.
 */
async function writeExport(cli: CliContext, exporter: ProjectExporter, slug: string, out: string | undefined): Promise<string> {
  if (out === undefined && cli.terminal.stdout.isTTY) {
    throw new CliError(`The archive is binary: name a file with --out FILE (or --out - to write it to stdout through a pipe).`)
  }
  const target = out ?? '-'
  const { archive } = succeeded(await exporter.start(slug, { operator: true }, cli.change))
  if (target === '-') {
    await pipeline(archive.body, cli.terminal.stdout, { end: false })
    return archive.filename
  }
  const partial = `${target}.partial-${process.pid}`
  try {
    await pipeline(archive.body, createWriteStream(partial, { flags: 'wx' }))
    await rename(partial, target)
  } catch (error) {
    await rm(partial, { force: true })
    throw error
  }
  return archive.filename
}

/** Without --yes: asks on the terminal for the slug; without a terminal, refuses. */
async function confirmDeletion(terminal: Terminal, slug: string): Promise<void> {
  if (!terminal.stdin.isTTY) {
    throw new CliError(`Deleting project "${slug}" cannot be undone: run "adoption-store projects delete ${slug} --yes" to confirm (stdin is not a terminal, so nothing was asked).`)
  }
  const { createInterface } = await import('node:readline/promises')
  const prompt = createInterface({ input: terminal.stdin, output: terminal.stderr })
  try {
    const answer = await prompt.question(`Delete project "${slug}" and everything it holds? This cannot be undone. Type its slug to confirm: `)
    if (answer.trim() !== slug) throw new CliError(`Not deleted: "${answer.trim()}" is not "${slug}".`)
  } finally {
    prompt.close()
  }
}

function describeDeletion(deletion: ProjectDeletion): string {
  const rows = Object.entries(deletion.rows)
    .filter(([, count]) => count > 0)
    .map(([table, count]) => `${table} ${count}`)
  return `Deleted project ${deletion.slug}: ${rows.length > 0 ? rows.join(', ') : 'no rows but its own'}; ${deletion.photoFiles} photo file${deletion.photoFiles === 1 ? '' : 's'}.`
}

function planLimitOptions(command: Command): Command {
  return command
    .option('--per-minute <n>', 'requests per minute (enterprise only)', wholeNumber(1))
    .option('--per-day <n>', 'requests per day (enterprise only)', wholeNumber(1))
}

function describeProject(p: Project): string {
  return `${p.slug}: plan ${p.plan}, ${p.limits.perMinute} requests per minute, ${p.limits.perDay} per day`
}
