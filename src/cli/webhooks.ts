/** `adoption-store webhooks …`: a project's webhook endpoints, their secrets and delivery logs. */
import { type Command, InvalidArgumentError, Option } from 'commander'
import { ALL_EVENTS, TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES } from '../webhooks/events.js'
import { DELIVERY_STATES, type DeliveryState } from '../db/schema.js'
import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookEvent } from '../webhooks/webhooks.schemas.js'
import { DEFAULT_OVERLAP_HOURS, type WebhooksService } from '../webhooks/webhooks.service.js'
import { type CliContext, CliError, jsonOption, succeeded, wholeNumber, withFeatures } from './common.js'

const TYPES = [...WEBHOOK_EVENT_TYPES, ALL_EVENTS] as readonly string[]

export function registerWebhookCommands(program: Command, cli: CliContext): void {
  const group = program.command('webhooks').description("manage a project's webhook endpoints: add, list, update, remove, rotate-secret, deliveries, attempts, redeliver, recover, replay, test; list a project's events; reseal the secrets after a key's rotation")
  // Events and due deliveries are sent by the running servers, which look every WEBHOOK_WORKER_INTERVAL_MS.
  const run = (work: (webhooks: WebhooksService) => Promise<void>) => withFeatures(cli, ({ webhooks }) => webhooks.service, work)
  const project = (command: Command) => command.requiredOption('--project <slug>', 'the project')

  jsonOption(
    project(group.command('add').description('add an endpoint; its signing secret is shown only this once'))
      .requiredOption('--url <url>', 'https URL the events are POSTed to')
      .requiredOption('--types <types>', `comma-separated event types, or * for all: ${TYPES.join(', ')}`, eventTypes)
      .option('--description <text>', 'what the endpoint is for')
      .option('--disabled', 'add it disabled'),
  ).action(async (options: { project: string; url: string; types: string[]; description?: string; disabled?: boolean; json?: boolean }) =>
    run(async (webhooks) => {
      const { endpoint, secret } = succeeded(
        await webhooks.create(options.project, { url: options.url, types: options.types, description: options.description, enabled: !options.disabled }, cli.change),
      )
      cli.print(options.json, { ...endpoint, secret }, () =>
        [`Added webhook endpoint ${endpoint.id} (${endpoint.url}) for ${endpoint.types.join(', ')}.`, 'Its signing secret is shown only this once:', '', `  ${secret}`].join('\n'),
      )
    }),
  )

  jsonOption(project(group.command('list').description("list a project's endpoints (never their secrets)"))).action(async (options: { project: string; json?: boolean }) =>
    run(async (webhooks) => cli.printList(options.json, succeeded(await webhooks.list(options.project)).endpoints, ENDPOINT_COLUMNS)),
  )

  jsonOption(
    project(group.command('update <id>').description("change an endpoint's URL, event types or description, or enable or disable it"))
      .option('--url <url>', 'new https URL')
      .option('--types <types>', 'the new comma-separated event types (the whole list)', eventTypes)
      .option('--description <text>', 'new description ("" clears it)')
      .addOption(new Option('--enable', 'enable it (clears the reason it was disabled)').conflicts('disable'))
      .option('--disable', 'disable it'),
  ).action(async (id: string, options: { project: string; url?: string; types?: string[]; description?: string; enable?: boolean; disable?: boolean; json?: boolean }) =>
    run(async (webhooks) => {
      const enabled = options.enable ? true : options.disable ? false : undefined
      const description = options.description === undefined ? undefined : options.description.trim() === '' ? null : options.description
      if (options.url === undefined && options.types === undefined && description === undefined && enabled === undefined) {
        throw new CliError('Nothing to change: give --url, --types, --description, --enable or --disable.')
      }
      const { endpoint } = succeeded(await webhooks.update(options.project, id, { url: options.url, types: options.types, description, enabled }, cli.change))
      cli.print(options.json, endpoint, () => `Updated webhook endpoint ${endpoint.id}: ${describe(endpoint)}`)
    }),
  )

  jsonOption(project(group.command('remove <id>').description('remove an endpoint and its delivery log'))).action(async (id: string, options: { project: string; json?: boolean }) =>
    run(async (webhooks) => {
      succeeded(await webhooks.remove(options.project, id, cli.change))
      cli.print(options.json, { id, removed: true }, () => `Removed webhook endpoint ${id}`)
    }),
  )

  jsonOption(
    project(group.command('rotate-secret <id>').description('a new signing secret, shown only this once; the previous one signs too during the overlap')).option(
      '--overlap-hours <hours>',
      `how long the previous secret keeps signing too (0..168; 0 ends it at once)`,
      wholeNumber(0),
      DEFAULT_OVERLAP_HOURS,
    ),
  ).action(async (id: string, options: { project: string; overlapHours: number; json?: boolean }) =>
    run(async (webhooks) => {
      if (options.overlapHours > 168) throw new CliError('--overlap-hours is at most 168 (7 days).')
      const { endpoint, secret } = succeeded(await webhooks.rotateSecret(options.project, id, options.overlapHours, cli.change))
      cli.print(options.json, { ...endpoint, secret }, () =>
        [
          `Rotated the signing secret of ${endpoint.id}.`,
          endpoint.previousSecretExpiresAt ? `The previous secret also signs until ${endpoint.previousSecretExpiresAt}.` : 'The previous secret no longer signs.',
          'The new secret is shown only this once:',
          '',
          `  ${secret}`,
        ].join('\n'),
      )
    }),
  )

  jsonOption(
    project(group.command('deliveries <id>').description("an endpoint's delivery log, newest first"))
      .option('--before <deliveryId>', 'only deliveries with a smaller id (the next page)', wholeNumber(1))
      .option('--limit <n>', 'at most this many (1..100)', wholeNumber(1), 20)
      .addOption(new Option('--state <state>', 'only deliveries in this state').choices(DELIVERY_STATES))
      .addOption(new Option('--type <type>', 'only deliveries of events of this type').choices([...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE]))
      .option('--webhook-id <msgId>', "only the deliveries of this event: the webhook-id the receiver got (msg_…)")
      .option('--since <time>', 'only deliveries created at or after this time (ISO 8601)')
      .option('--until <time>', 'only deliveries created before this time (ISO 8601)'),
  ).action(
    async (
      id: string,
      options: { project: string; before?: number; limit: number; state?: DeliveryState; type?: string; webhookId?: string; since?: string; until?: string; json?: boolean },
    ) =>
      run(async (webhooks) => {
        if (options.limit > 100) throw new CliError('--limit is at most 100.')
        const { before, limit, state, type: eventType, webhookId, since, until } = options
        const { page } = succeeded(await webhooks.deliveries(options.project, id, { before, limit, state, eventType, webhookId, since, until }))
        cli.printList(options.json, page.items, DELIVERY_COLUMNS)
      }),
  )

  jsonOption(project(group.command('attempts <id> <deliveryId>').description("a delivery's attempts, oldest first: the request sent and what came back"))).action(
    async (id: string, deliveryId: string, options: { project: string; json?: boolean }) =>
      run(async (webhooks) => {
        const { attempts } = succeeded(await webhooks.attempts(options.project, id, wholeNumber(1)(deliveryId)))
        cli.print(options.json, attempts, () => (attempts.length === 0 ? `Delivery ${deliveryId} has no attempt yet.` : attempts.map(describeAttempt).join('\n\n')))
      }),
  )

  jsonOption(project(group.command('redeliver <id> <deliveryId>').description("send a delivery's event again, once (the same webhook-id)"))).action(
    async (id: string, deliveryId: string, options: { project: string; json?: boolean }) =>
      run(async (webhooks) => {
        const { delivery } = succeeded(await webhooks.redeliver(options.project, id, wholeNumber(1)(deliveryId), cli.change))
        cli.print(options.json, delivery, () => `Delivery ${delivery.id} of event ${delivery.eventId} (${delivery.eventType}) is due now; the servers send it.`)
      }),
  )

  jsonOption(
    group
      .command('reseal')
      .description('seal every endpoint\'s signing secrets again with WEBHOOK_ENCRYPTION_KEY, once WEBHOOK_PREVIOUS_ENCRYPTION_KEYS opens those sealed with an older key; exit 1 if some open with none'),
  ).action(async (options: { json?: boolean }) =>
    withFeatures(
      cli,
      ({ webhooks }) => webhooks.sealedSecrets,
      async (sealedSecrets) => {
        if (!sealedSecrets) throw new CliError('Webhooks are not configured: set WEBHOOK_ENCRYPTION_KEY (the new key) and WEBHOOK_PREVIOUS_ENCRYPTION_KEYS (the keys it replaces).')
        const report = await sealedSecrets.reseal()
        cli.print(options.json, report, () =>
          [
            `Re-sealed the secrets of ${report.resealed} endpoint${report.resealed === 1 ? '' : 's'} with the current key; ${report.current} already were.`,
            ...report.unopenable.map(({ projectId, endpointId }) => `not opened: ${endpointId} (project ${projectId}): sealed with a key that is in neither WEBHOOK_ENCRYPTION_KEY nor WEBHOOK_PREVIOUS_ENCRYPTION_KEYS`),
            report.unopenable.length > 0 ? 'Add the keys these were sealed with to WEBHOOK_PREVIOUS_ENCRYPTION_KEYS and run this again, or rotate their secrets with no overlap.' : '',
          ]
            .filter(Boolean)
            .join('\n'),
        )
        if (report.unopenable.length > 0) cli.exitCode = 1
      },
    ),
  )

  jsonOption(
    project(group.command('recover <id>').description("queue again every event whose delivery to the endpoint failed since a time (the same webhook-id, a full schedule of attempts)"))
      .requiredOption('--since <time>', 'deliveries created at or after this time (ISO 8601), within the retention period (WEBHOOK_RETENTION_DAYS)')
      .option('--until <time>', 'and before this time (ISO 8601; default: now)'),
  ).action(async (id: string, options: { project: string; since: string; until?: string; json?: boolean }) =>
    run(async (webhooks) => {
      const result = succeeded(await webhooks.recover(options.project, id, { since: options.since, until: options.until }, cli.change))
      cli.print(options.json, { queued: result.queued }, () => `${result.queued} failed ${result.queued === 1 ? 'event is' : 'events are'} due again for endpoint ${id}; the servers send them.`)
    }),
  )

  jsonOption(
    project(group.command('replay <id>').description("send the endpoint the project's events of its types since a time, each at most once (the same webhook-id)"))
      .requiredOption('--since <time>', 'events that happened at or after this time (ISO 8601), within the retention period (WEBHOOK_RETENTION_DAYS)')
      .option('--until <time>', 'and before this time (ISO 8601; default: now)'),
  ).action(async (id: string, options: { project: string; since: string; until?: string; json?: boolean }) =>
    run(async (webhooks) => {
      const result = succeeded(await webhooks.replay(options.project, id, { since: options.since, until: options.until }, cli.change))
      cli.print(options.json, { queued: result.queued }, () => `${result.queued} ${result.queued === 1 ? 'event is' : 'events are'} due for endpoint ${id}; the servers send them.`)
    }),
  )

  jsonOption(
    project(group.command('events').description("a project's events, newest first, kept for WEBHOOK_RETENTION_DAYS"))
      .option('--before <eventId>', 'only events older than this one (the next page)')
      .option('--limit <n>', 'at most this many (1..100)', wholeNumber(1), 20)
      .addOption(new Option('--type <type>', 'only events of this type').choices([...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE]))
      .option('--since <time>', 'only events that happened at or after this time (ISO 8601)')
      .option('--until <time>', 'only events that happened before this time (ISO 8601)'),
  ).action(async (options: { project: string; before?: string; limit: number; type?: string; since?: string; until?: string; json?: boolean }) =>
    run(async (webhooks) => {
      if (options.limit > 100) throw new CliError('--limit is at most 100.')
      const { before, limit, type, since, until } = options
      const { events } = succeeded(await webhooks.events(options.project, { before, limit, type, since, until }))
      cli.printList(options.json, events, EVENT_COLUMNS)
    }),
  )

  jsonOption(project(group.command('test <id>').description(`send a ${TEST_EVENT_TYPE} event to the endpoint, once`))).action(async (id: string, options: { project: string; json?: boolean }) =>
    run(async (webhooks) => {
      const { delivery } = succeeded(await webhooks.sendTest(options.project, id, cli.change))
      cli.print(options.json, delivery, () => `Test event ${delivery.eventId} is due now as delivery ${delivery.id}; the servers send it.`)
    }),
  )
}

const ENDPOINT_COLUMNS: Record<string, (endpoint: WebhookEndpoint) => string> = {
  ID: (e) => e.id,
  URL: (e) => e.url,
  TYPES: (e) => e.types.join(','),
  ENABLED: (e) => (e.enabled ? 'yes' : `no${e.disabledReason ? ` (${e.disabledReason})` : ''}`),
  'FAILING SINCE': (e) => e.failingSince ?? '',
  CREATED: (e) => e.createdAt,
}

const DELIVERY_COLUMNS: Record<string, (delivery: WebhookDelivery) => string> = {
  ID: (d) => String(d.id),
  EVENT: (d) => `${d.eventType} ${d.eventId}`,
  STATE: (d) => d.state,
  ATTEMPTS: (d) => String(d.attempts),
  STATUS: (d) => (d.lastStatus === null ? '' : String(d.lastStatus)),
  'LATENCY MS': (d) => (d.latencyMs === null ? '' : String(d.latencyMs)),
  'NEXT ATTEMPT': (d) => d.nextAttemptAt ?? '',
  ERROR: (d) => d.lastError ?? '',
}

const EVENT_COLUMNS: Record<string, (event: WebhookEvent) => string> = {
  ID: (e) => e.id,
  TYPE: (e) => e.type,
  CREATED: (e) => e.createdAt,
}

function describeAttempt(attempt: WebhookAttempt, index: number): string {
  const outcome = attempt.error ?? `HTTP ${attempt.status}`
  const lines = [`Attempt ${index + 1} at ${attempt.attemptedAt}: ${outcome}, ${attempt.durationMs} ms`]
  if (attempt.request) {
    for (const [name, value] of Object.entries(attempt.request.headers)) lines.push(`  > ${name}: ${value}`)
    lines.push(`  > ${attempt.request.body}`)
  } else lines.push('  (nothing was sent)')
  if (attempt.responseExcerpt !== null) lines.push(`  < ${attempt.responseExcerpt}`)
  return lines.join('\n')
}

function describe(endpoint: WebhookEndpoint): string {
  return `${endpoint.url} for ${endpoint.types.join(', ')}, ${endpoint.enabled ? 'enabled' : 'disabled'}`
}

function eventTypes(value: string): string[] {
  const types = value.split(',').map((type) => type.trim()).filter(Boolean)
  const unknown = types.filter((type) => !TYPES.includes(type))
  if (types.length === 0 || unknown.length > 0) throw new InvalidArgumentError(`use event types from: ${TYPES.join(', ')}${unknown.length > 0 ? ` (not: ${unknown.join(', ')})` : ''}.`)
  return types
}
