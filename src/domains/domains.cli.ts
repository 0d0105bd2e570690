import type { Command } from 'commander'
import { systemClock } from '../clock.js'
import type { Config } from '../config.js'
import type { DatabaseHandle } from '../db/database.js'
import { NodeDnsLookup } from './dns.js'
import type { Domain, DomainSettings } from './domains.schemas.js'
import { type DomainFailure, DomainsService } from './domains.service.js'
import { announceOnce } from './routing-changes.js'

/** What the CLI lends its command groups: configuration, the database, output and its error type. */
export interface CliContext {
  config(): Config
  withDatabase(work: (database: DatabaseHandle) => Promise<void>): Promise<void>
  print(json: boolean | undefined, data: unknown, human: () => string): void
  table(header: string[], rows: string[][]): string
  fail(message: string): Error
}

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

/**
 * `adoption-store domains …`: the operator's custom-domain commands, on the database directly
 * (like `projects` and `keys`). What they change is announced to running servers (Redis, when
 * configured, and the database's routing generation), so it applies on their next request.
 */
export function registerDomainCommands(program: Command, cli: CliContext): void {
  const recordLines = (domain: Domain): string[] => {
    const { type, name, value, ttl, note } = domain.dnsRecord
    const record = cli.table(['TYPE', 'NAME', 'VALUE', 'TTL'], [[type === 'ALIAS' ? 'ALIAS (or ANAME)' : type, name, value, String(ttl)]])
    return [...record.split('\n').map((line) => `  ${line}`), '', `  ${note}`]
  }

  const domains = program.command('domains').description("add, verify and remove a project's custom domains; set the primary domain and redirects")

  const run = <T>(json: boolean | undefined, work: (service: DomainsService) => Promise<({ ok: true } & T) | DomainFailure>, output: (result: T) => { data: unknown; human: () => string; failure?: string }) =>
    cli.withDatabase(async ({ db }) => {
      const config = cli.config()
      const service = new DomainsService(db, systemClock, config, new NodeDnsLookup(config.dnsResolvers), (generation) => announceOnce(config, generation))
      const result = await work(service)
      if (!result.ok) throw cli.fail(result.message)
      const { data, human, failure } = output(result)
      cli.print(json, data, human)
      if (failure) throw cli.fail(failure)
    })

  const listing = (settings: DomainSettings) =>
    [
      `Project ${settings.project}${settings.platformHost ? `, published at ${settings.platformHost}` : ''}; primary domain: ${settings.primary ?? '(none)'}`,
      '',
      cli.table(
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

  domains
    .command('add <name>')
    .description('add a custom domain (plan pro or above) and show the DNS record to create')
    .requiredOption('--project <slug>', 'the project')
    .option('--json', 'print JSON')
    .action((name: string, options: { project: string; json?: boolean }) =>
      run(
        options.json,
        (service) => service.add(options.project, name),
        ({ domain }: { domain: Domain }) => ({
          data: domain,
          human: () =>
            [
              `Added ${domain.name} to project ${options.project} (pending DNS verification).`,
              'Create this DNS record at your DNS provider:',
              '',
              ...recordLines(domain),
              '',
              `Then run: adoption-store domains verify ${domain.name} --project ${options.project}`,
            ].join('\n'),
        }),
      ),
    )

  domains
    .command('list')
    .description("list a project's domains with their DNS and certificate states")
    .requiredOption('--project <slug>', 'the project')
    .option('--json', 'print JSON')
    .action((options: { project: string; json?: boolean }) =>
      run(options.json, (service) => service.list(options.project), ({ settings }: { settings: DomainSettings }) => ({ data: settings, human: () => listing(settings) })),
    )

  domains
    .command('verify <name>')
    .description('check DNS now (verify or re-verify); exits 1 when the domain does not verify')
    .requiredOption('--project <slug>', 'the project')
    .option('--json', 'print JSON')
    .action((name: string, options: { project: string; json?: boolean }) =>
      run(
        options.json,
        (service) => service.verify(options.project, name),
        ({ domain }: { domain: Domain }) => ({
          data: domain,
          human: () =>
            domain.status.state === 'verified'
              ? `${domain.name} is verified; its certificate: ${describeCertificateState(domain)}.`
              : [`${domain.name}: ${describeDnsState(domain)}`, '', 'The record to create:', '', ...recordLines(domain)].join('\n'),
          ...(domain.status.state !== 'verified' && { failure: `${domain.name} does not verify: ${domain.status.reason ?? 'unknown reason'}` }),
        }),
      ),
    )

  domains
    .command('remove <name>')
    .description('remove a domain: it stops being served on every instance from the next request')
    .requiredOption('--project <slug>', 'the project')
    .option('--json', 'print JSON')
    .action((name: string, options: { project: string; json?: boolean }) =>
      run(
        options.json,
        (service) => service.remove(options.project, name),
        ({ name: removed }: { name: string }) => ({ data: { name: removed, removed: true }, human: () => `Removed ${removed} from project ${options.project}` }),
      ),
    )

  domains
    .command('set-primary [name]')
    .description("set the project's primary domain (domains.primary); --none clears it")
    .requiredOption('--project <slug>', 'the project')
    .option('--none', 'no primary domain')
    .option('--json', 'print JSON')
    .action((name: string | undefined, options: { project: string; none?: boolean; json?: boolean }) => {
      if ((name === undefined) === !options.none) throw cli.fail('Give either a domain name or --none.')
      return run(options.json, (service) => service.setPrimary(options.project, name ?? null), ({ settings }: { settings: DomainSettings }) => ({
        data: settings,
        human: () => `Primary domain of ${settings.project}: ${settings.primary ?? '(none)'}`,
      }))
    })

  domains
    .command('add-redirect <from> <to>')
    .description('answer every request to <from> with a 301 to the same path and query on <to> (domains.redirects)')
    .requiredOption('--project <slug>', 'the project')
    .option('--json', 'print JSON')
    .action((from: string, to: string, options: { project: string; json?: boolean }) =>
      run(options.json, (service) => service.addRedirect(options.project, from, to), ({ settings }: { settings: DomainSettings }) => ({
        data: settings,
        human: () => `Redirects of ${settings.project}:\n${settings.redirects.map((r) => `  ${r.from} → ${r.to} (${r.status})`).join('\n')}`,
      })),
    )

  domains
    .command('remove-redirect <from>')
    .description('stop redirecting <from>; it serves the project again')
    .requiredOption('--project <slug>', 'the project')
    .option('--json', 'print JSON')
    .action((from: string, options: { project: string; json?: boolean }) =>
      run(options.json, (service) => service.removeRedirect(options.project, from), ({ settings }: { settings: DomainSettings }) => ({
        data: settings,
        human: () => `Removed the redirect of ${from} in project ${settings.project}`,
      })),
    )
}
