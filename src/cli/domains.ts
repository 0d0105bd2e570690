import type { Command } from 'commander'
import { createDomains } from '../domains/domains.module.js'
import type { Domain, DomainSettings } from '../domains/domains.schemas.js'
import type { DomainResult, DomainsService } from '../domains/domains.service.js'
import { AnnouncedRoutingChanges } from '../domains/routing-changes.js'
import { type CliContext, CliError, jsonOption, succeeded, table, withFeatures } from './common.js'

/** The domain's DNS state as people read it. */
export function describeDnsState(domain: Domain): string {
  if (domain.status.state === 'pending') return 'pending DNS'
  if (domain.status.state === 'verified') return 'verified'
  return `failed: ${domain.status.reason ?? 'unknown reason'}`
}

export function describeCertificateState(domain: Domain): string {
  const { state, reason, notAfter } = domain.certificate
  if (state === 'failed') return `failed: ${reason ?? 'unknown reason'}`
  if (state === 'issued') return `issued${notAfter ? ` (valid until ${notAfter})` : ''}`
  return reason ? `${state}: ${reason}` : state
}

/** What a command prints of its result; `failure`: the command then ends with this error (exit 1). */
interface Output {
  data: unknown
  human: () => string
  failure?: string | undefined
}

/**
 * `adoption-store domains …`: the operator's custom-domain commands, through the service the
 * admin API uses. What they change is announced to running servers (Redis, when configured, and
 * the database's routing generation), so it applies on their next request.
 */
export function registerDomainCommands(program: Command, cli: CliContext): void {
  const group = program.command('domains').description("add, verify and remove a project's custom domains; set the primary domain and redirects")

  /** A command of one project's domains: `--project`, then `more` options, then `--json`. */
  const command = (spec: string, description: string, more: (command: Command) => Command = (c) => c) =>
    jsonOption(more(group.command(spec).description(description).requiredOption('--project <slug>', 'the project')))

  const run = <T>(json: boolean | undefined, work: (service: DomainsService) => Promise<DomainResult<T>>, output: (result: T) => Output) =>
    withFeatures(
      cli,
      // Without a subscription of its own, each change is announced on a connection of its own.
      async (deps) => (await createDomains({ ...deps, changes: new AnnouncedRoutingChanges(deps.db, deps.config) })).service,
      async (service) => {
        const { data, human, failure } = output(succeeded(await work(service)))
        cli.print(json, data, human)
        if (failure) throw new CliError(failure)
      },
    )

  /** The commands that answer one domain, and those that answer the project's settings. */
  const domainCommand = (spec: string, description: string, work: (service: DomainsService, project: string, name: string) => Promise<DomainResult<{ domain: Domain }>>, output: (domain: Domain, project: string) => Output) =>
    command(spec, description).action((name: string, options: { project: string; json?: boolean }) =>
      run(options.json, (service) => work(service, options.project, name), ({ domain }) => output(domain, options.project)),
    )
  const settingsOutput = (human: (settings: DomainSettings) => string) => ({ settings }: { settings: DomainSettings }): Output => ({ data: settings, human: () => human(settings) })

  domainCommand(
    'add <name>',
    'add a custom domain (plan pro or above) and show the DNS record to create',
    (service, project, name) => service.add(project, name, cli.change),
    (domain, project) => ({
      data: domain,
      human: () =>
        [
          `Added ${domain.name} to project ${project} (pending DNS verification).`,
          'Create this DNS record at your DNS provider:',
          '',
          ...recordLines(domain),
          '',
          `Then run: adoption-store domains verify ${domain.name} --project ${project}`,
        ].join('\n'),
    }),
  )

  command('list', "list a project's domains with their DNS and certificate states").action((options: { project: string; json?: boolean }) =>
    run(options.json, (service) => service.list(options.project), settingsOutput(listing)),
  )

  domainCommand(
    'verify <name>',
    'check DNS now (verify or re-verify); exits 1 when the domain does not verify',
    (service, project, name) => service.verify(project, name, cli.change),
    (domain) => ({
      data: domain,
      human: () =>
        domain.status.state === 'verified'
          ? `${domain.name} is verified; its certificate: ${describeCertificateState(domain)}.`
          : [`${domain.name}: ${describeDnsState(domain)}`, '', 'The record to create:', '', ...recordLines(domain)].join('\n'),
      failure: domain.status.state === 'verified' ? undefined : `${domain.name} does not verify: ${domain.status.reason ?? 'unknown reason'}`,
    }),
  )

  command('remove <name>', 'remove a domain: it stops being served on every instance from the next request').action((name: string, options: { project: string; json?: boolean }) =>
    run(
      options.json,
      (service) => service.remove(options.project, name, cli.change),
      ({ name: removed }) => ({ data: { name: removed, removed: true }, human: () => `Removed ${removed} from project ${options.project}` }),
    ),
  )

  command('set-primary [name]', "set the project's primary domain (domains.primary); --none clears it", (c) => c.option('--none', 'no primary domain')).action(
    (name: string | undefined, options: { project: string; none?: boolean; json?: boolean }) => {
      if ((name === undefined) === !options.none) throw new CliError('Give either a domain name or --none.')
      return run(
        options.json,
        (service) => service.setPrimary(options.project, name ?? null, cli.change),
        settingsOutput((settings) => `Primary domain of ${settings.project}: ${settings.primary ?? '(none)'}`),
      )
    },
  )

  command('add-redirect <from> <to>', 'answer every request to <from> with a 301 to the same path and query on <to> (domains.redirects)').action(
    (from: string, to: string, options: { project: string; json?: boolean }) =>
      run(
        options.json,
        (service) => service.addRedirect(options.project, from, to, cli.change),
        settingsOutput((settings) => `Redirects of ${settings.project}:\n${settings.redirects.map((r) => `  ${r.from} → ${r.to} (${r.status})`).join('\n')}`),
      ),
  )

  command('remove-redirect <from>', 'stop redirecting <from>; it serves the project again').action((from: string, options: { project: string; json?: boolean }) =>
    run(
      options.json,
      (service) => service.removeRedirect(options.project, from, cli.change),
      settingsOutput((settings) => `Removed the redirect of ${from} in project ${settings.project}`),
    ),
  )
}

function recordLines(domain: Domain): string[] {
  const { type, name, value, ttl, note } = domain.dnsRecord
  const record = table(['TYPE', 'NAME', 'VALUE', 'TTL'], [[type === 'ALIAS' ? 'ALIAS (or ANAME)' : type, name, value, String(ttl)]])
  return [...record.split('\n').map((line) => `  ${line}`), '', `  ${note}`]
}

function listing(settings: DomainSettings): string {
  return [
    `Project ${settings.project}${settings.platformHost ? `, published at ${settings.platformHost}` : ''}; primary domain: ${settings.primary ?? '(none)'}`,
    '',
    table(
      ['DOMAIN', 'DNS', 'CERTIFICATE', 'REDIRECT', 'CHECKED', 'NEXT CHECK'],
      settings.domains.map((d) => [
        `${d.name}${d.primary ? ' (primary)' : ''}`,
        describeDnsState(d),
        describeCertificateState(d),
        d.redirect ? `${d.redirect.status} → ${d.redirect.to}` : '',
        d.status.checkedAt ?? '',
        d.status.nextCheckAt ?? d.certificate.nextCheckAt ?? '',
      ]),
    ),
  ].join('\n')
}
