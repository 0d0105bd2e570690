/** `adoption-store audit …`: who changed what, from the audit log. */
import { type Command, InvalidArgumentError, Option } from 'commander'
import { AUDIT_ACTIONS } from '../audit/audit.js'
import { createAudit } from '../audit/audit.module.js'
import type { AuditService } from '../audit/audit.service.js'
import { parseInstant } from '../clock.js'
import { ACTOR_KINDS, type ActorKind, type ProjectRow } from '../db/schema.js'
import { findProjectBySlug } from '../projects/projects.repository.js'
import { type CliContext, CliError, jsonOption, wholeNumber, withFeatures } from './common.js'

export function registerAuditCommands(program: Command, cli: CliContext): void {
  const group = program.command('audit').description('read the audit log: every change made through the admin API, the dashboard, the CLI or /v1, and the service\'s own')
  const run = (work: (services: { audit: AuditService; projects: { find(slug: string): Promise<ProjectRow | undefined> } }) => Promise<void>) =>
    withFeatures(
      cli,
      (deps) => {
        const projects = { find: (slug: string) => findProjectBySlug(deps.db, slug) }
        return { audit: createAudit({ ...deps, findProject: projects.find }).service, projects }
      },
      work,
    )

  jsonOption(
    group
      .command('list')
      .description('list entries, newest first')
      .option('--project <slug>', "only this project's entries")
      .addOption(new Option('--action <action>', 'only this action').choices(Object.keys(AUDIT_ACTIONS)))
      .option('--actor <name>', "only changes by this actor: a user's email, ADMIN_TOKEN, cli:<system user>, system, key:<key id> or anonymous")
      .addOption(new Option('--actor-kind <kind>', 'only changes by this kind of actor (api_key: writes through /v1; anonymous: site enquiries, failed sign-ins)').choices(ACTOR_KINDS))
      .option('--key <id>', 'only writes made with this API key (its id)')
      .option('--target-type <type>', 'only entries about this kind of thing (project, key, domain, pet, order, user)')
      .option('--target-id <id>', 'only entries about the thing with this id')
      .option('--since <instant>', 'only entries at or after this instant (RFC 3339, e.g. 2026-11-25T00:00:00Z)', instant)
      .option('--until <instant>', 'only entries before this instant (RFC 3339)', instant)
      .option('--before <id>', 'only entries with a smaller id (the next page of a previous listing)', wholeNumber(1))
      .option('--limit <n>', 'at most this many entries (1..1000)', wholeNumber(1), 50),
  ).action(
    async (options: {
      project?: string
      action?: string
      actor?: string
      actorKind?: ActorKind
      key?: string
      targetType?: string
      targetId?: string
      since?: string
      until?: string
      before?: number
      limit: number
      json?: boolean
    }) =>
      run(async ({ audit, projects }) => {
        if (options.limit > 1000) throw new CliError('--limit is at most 1000.')
        let projectId: number | undefined
        if (options.project !== undefined) {
          const project = await projects.find(options.project)
          if (!project) throw new CliError(`No project with slug "${options.project}".`)
          projectId = project.id
        }
        const page = await audit.list({
          projectId,
          action: options.action,
          actorName: options.actor,
          actorKind: options.actorKind,
          keyId: options.key,
          targetType: options.targetType,
          targetId: options.targetId,
          since: options.since,
          until: options.until,
          before: options.before,
          limit: options.limit,
        })
        cli.printList(options.json, page.items, {
          ID: (e) => String(e.id),
          AT: (e) => e.at,
          ACTOR: (e) => e.actor.name,
          ACTION: (e) => e.action,
          TARGET: (e) => `${e.target.type} ${e.target.id}`,
          PROJECT: (e) => e.project ?? '',
          REQUEST: (e) => e.requestId ?? '',
        })
        if (!options.json && page.nextAfter !== undefined) cli.note(`More entries: add --before ${page.nextAfter}`)
      }),
  )
}

/** An RFC 3339 instant, stored form (ISO-8601 UTC) so it compares with the entries' times. */
function instant(value: string): string {
  const time = parseInstant(value)
  if (time === undefined) throw new InvalidArgumentError('use an RFC 3339 instant, e.g. 2026-11-25T00:00:00Z.')
  return new Date(time).toISOString()
}
