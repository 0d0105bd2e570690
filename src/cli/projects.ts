/** `adoption-store projects …`: create and list projects, change their plan. */
import { commandLineChange } from '../audit/audit.js'
import { type Command, Option } from 'commander'
import type { Plan } from '../db/schema.js'
import { PLANS } from '../db/schema.js'
import { createProjects } from '../projects/projects.module.js'
import type { Project, ProjectsService } from '../projects/projects.service.js'
import { type CliContext, CliError, jsonOption, print, printList, succeeded, wholeNumber, withFeatures } from './common.js'

export function registerProjectCommands(program: Command, cli: CliContext): void {
  const group = program.command('projects').description('create and list projects, change their plan, grant their webhooks the private networks')
  const run = (work: (projects: ProjectsService) => Promise<void>, options?: { makesStore: boolean }) =>
    withFeatures(cli, (deps) => createProjects(deps).service, work, options)

  planLimitOptions(jsonOption(group.command('create <slug>').description('create a project').addOption(new Option('--plan <plan>', 'the plan').choices(PLANS).default('free')))).action(
    async (slug: string, options: { plan: Plan; perMinute?: number; perDay?: number; json?: boolean }) =>
      run(async (projects) => {
        const { project } = succeeded(await projects.create(slug, { plan: options.plan, perMinute: options.perMinute, perDay: options.perDay }, commandLineChange()))
        print(options.json, project, () => `Created project ${describeProject(project)}`)
      }, { makesStore: true }),
  )

  jsonOption(group.command('list').description('list projects with their plans and limits')).action(async (options: { json?: boolean }) =>
    run(async (projects) =>
      printList(options.json, await projects.list(), {
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
        const { project } = succeeded(await projects.setPlan(slug, { plan: plan as Plan, perMinute: options.perMinute, perDay: options.perDay }, commandLineChange()))
        print(options.json, project, () => `Project ${describeProject(project)}`)
      }),
  )

  jsonOption(
    group
      .command('set-webhook-private-networks <slug> <allowed>')
      .description("on: the project's webhook endpoints may reach the networks of WEBHOOK_ALLOWED_NETWORKS (its owners no longer see those answers); off: they may not"),
  ).action(async (slug: string, allowed: string, options: { json?: boolean }) =>
    run(async (projects) => {
      if (allowed !== 'on' && allowed !== 'off') throw new CliError(`Use on or off, not "${allowed}".`)
      const { project } = succeeded(await projects.setWebhookPrivateNetworks(slug, allowed === 'on', commandLineChange()))
      print(options.json, project, () =>
        project.webhookPrivateNetworks
          ? `Project ${project.slug}: its webhook endpoints may reach the networks of WEBHOOK_ALLOWED_NETWORKS; its owners no longer see their answers.`
          : `Project ${project.slug}: its webhook endpoints may not reach private networks, from their next attempt.`,
      )
    }),
  )
}

function planLimitOptions(command: Command): Command {
  return command
    .option('--per-minute <n>', 'requests per minute (enterprise only)', wholeNumber(1))
    .option('--per-day <n>', 'requests per day (enterprise only)', wholeNumber(1))
}

function describeProject(p: Project): string {
  return `${p.slug}: plan ${p.plan}, ${p.limits.perMinute} requests per minute, ${p.limits.perDay} per day`
}
