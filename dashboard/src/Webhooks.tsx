import { useEffect, useState } from 'preact/hooks'
import { api, messageOf, type NewWebhookEndpoint, type Project, type Query, type RequestBody, type WebhookAttempt, type WebhookDelivery, type WebhookEndpoint, WEBHOOK_EVENT_TYPES } from './api'
import { Badge, DateTime, ErrorMessage, Hidden, Loading, RowActions, RowButton, SecretBox, StackedTable, StatusMessage } from './components'
import { FormCard, useActions, useConfirm, useSubmit } from './dialogs'
import { EventTypeSelect, instantsOf, type LocalRange, TimeRangeInputs } from './event-filters'
import { useReadOnly } from './read-only'
import { WebhookEvents } from './WebhookEvents'

const ALL = '*'

/**
 * A project's webhook endpoints: add one (its secret shown once), test, rotate, enable or disable,
 * remove, and each one's delivery log; then the project's event list. Without
 * WEBHOOK_ENCRYPTION_KEY on the service, no endpoint can be added or rotated, and the page says so.
 */
export function Webhooks({
  slug,
  configured,
  project,
  onProject,
  operator,
  networksConfigured,
}: {
  slug: string
  configured: boolean
  project: Project
  onProject: (project: Project) => void
  operator: boolean
  networksConfigured: boolean
}) {
  const [endpoints, setEndpoints] = useState<WebhookEndpoint[] | null>(null)
  const { status, error, setStatus, setError, act } = useActions()
  const [secret, setSecret] = useState<{ endpoint: NewWebhookEndpoint; rotated: boolean } | null>(null)
  const { dialog, ask } = useConfirm()

  useEffect(() => {
    setEndpoints(null)
    setSecret(null)
    api.get('/projects/{slug}/webhooks', { path: { slug } }).then(setEndpoints, (caught: unknown) => setError(messageOf(caught)))
  }, [slug])

  const replace = (endpoint: WebhookEndpoint) => setEndpoints((list) => (list ?? []).map((e) => (e.id === endpoint.id ? endpoint : e)))

  const toggle = (endpoint: WebhookEndpoint) =>
    act(async () => {
      const changed = await api.patch('/projects/{slug}/webhooks/{endpointId}', { path: { slug, endpointId: endpoint.id }, body: { enabled: !endpoint.enabled } })
      replace(changed)
      return changed.enabled ? `${endpoint.url} is enabled: events are sent to it again.` : `${endpoint.url} is disabled: no event is sent to it.`
    })

  const rotate = (endpoint: WebhookEndpoint) =>
    ask(
      {
        title: 'Rotate the signing secret?',
        body: <p>A new secret is shown once. For the next 24 hours every event carries two signatures, one with each secret, so the receiver can switch without losing an event.</p>,
        confirmLabel: 'Rotate secret',
      },
      () =>
        void act(async () => {
          const rotated = await api.post('/projects/{slug}/webhooks/{endpointId}/rotate-secret', { path: { slug, endpointId: endpoint.id }, body: { overlapHours: 24 } })
          replace(rotated)
          setSecret({ endpoint: rotated, rotated: true })
          return ''
        }),
    )

  const remove = (endpoint: WebhookEndpoint) =>
    ask(
      {
        title: 'Remove this endpoint?',
        body: (
          <p>
            No event is sent to <code>{endpoint.url}</code> any more, and its delivery log is deleted.
          </p>
        ),
        confirmLabel: 'Remove endpoint',
        danger: true,
      },
      () =>
        void act(async () => {
          await api.delete('/projects/{slug}/webhooks/{endpointId}', { path: { slug, endpointId: endpoint.id } })
          setEndpoints((list) => (list ?? []).filter((e) => e.id !== endpoint.id))
          return `${endpoint.url} is removed.`
        }),
    )

  return (
    <>
      <h2 tabIndex={-1}>Webhooks</h2>
      <p class="help-text">
        Events of this project are POSTed to your endpoints as they happen, signed per{' '}
        <a href="https://www.standardwebhooks.com/" rel="noreferrer">
          Standard Webhooks
        </a>
        , and retried for about 3 days until your endpoint answers 2xx.
      </p>
      {!configured && (
        <aside class="banner" aria-label="Webhooks are not configured">
          <p>
            <strong>Webhooks are not configured on this service.</strong> Endpoints can be added once an operator sets <code>WEBHOOK_ENCRYPTION_KEY</code>, which
            seals their signing secrets at rest. See the deployment guide.
          </p>
        </aside>
      )}
      <PrivateNetworks slug={slug} project={project} onProject={onProject} operator={operator} networksConfigured={networksConfigured} />
      {configured && (
        <NewEndpointForm
          slug={slug}
          onCreated={(endpoint) => {
            setSecret({ endpoint, rotated: false })
            setStatus(null)
            setEndpoints((list) => [...(list ?? []), endpoint])
          }}
        />
      )}
      {secret && (
        <NewSecret
          endpoint={secret.endpoint}
          rotated={secret.rotated}
          onDone={() => setSecret(null)}
        />
      )}
      <StatusMessage text={status || null} />
      <ErrorMessage error={error} />
      {endpoints === null && !error && <Loading what="endpoints" />}
      {endpoints?.length === 0 && <p>This project has no webhook endpoints yet.</p>}
      {endpoints?.map((endpoint) => (
        <EndpointCard
          key={endpoint.id}
          slug={slug}
          endpoint={endpoint}
          onToggle={() => void toggle(endpoint)}
          onRotate={configured ? () => rotate(endpoint) : undefined}
          onRemove={() => remove(endpoint)}
        />
      ))}
      <WebhookEvents slug={slug} />
      {dialog}
    </>
  )
}

/**
 * The operator's grant of WEBHOOK_ALLOWED_NETWORKS to the project: operators grant or withdraw it
 * (a grant is confirmed first); owners and viewers see whether the project has it.
 */
function PrivateNetworks({ slug, project, onProject, operator, networksConfigured }: { slug: string; project: Project; onProject: (project: Project) => void; operator: boolean; networksConfigured: boolean }) {
  const { status, error, act } = useActions()
  const { dialog, ask } = useConfirm()
  const granted = project.webhookPrivateNetworks
  const change = (allowed: boolean) =>
    act(async () => {
      const changed = await api.put('/projects/{slug}/webhook-private-networks', { path: { slug }, body: { allowed } })
      onProject(changed)
      return changed.webhookPrivateNetworks
        ? `${slug} may now reach the private networks from its webhook endpoints.`
        : `${slug} may no longer reach the private networks: its endpoints there fail from their next attempt.`
    })
  const grant = () =>
    ask(
      {
        title: 'Grant the private networks?',
        body: (
          <p>
            The endpoints of <strong>{slug}</strong> may then point at the internal networks of <code>WEBHOOK_ALLOWED_NETWORKS</code> (plain http allowed there), and
            their answers are no longer shown to the project's owners. Grant it only to a project you trust with those networks.
          </p>
        ),
        confirmLabel: 'Grant private networks',
        danger: true,
      },
      () => void change(true),
    )
  return (
    <section class="card" aria-labelledby="private-networks">
      <div class="card-heading">
        <h3 id="private-networks">Private networks</h3>
        {granted ? <Badge tone="wait">Granted</Badge> : <Badge tone="neutral">Not granted</Badge>}
      </div>
      <p>
        {granted
          ? "This project's endpoints may reach the private networks of WEBHOOK_ALLOWED_NETWORKS."
          : "This project's endpoints may reach public addresses only."}
      </p>
      {operator && (
        <>
          <p class="help-text">
            {networksConfigured ? (
              <>
                <code>WEBHOOK_ALLOWED_NETWORKS</code> is set on this service.
              </>
            ) : (
              <>
                <code>WEBHOOK_ALLOWED_NETWORKS</code> is not set on this service: a grant opens no network until it is.
              </>
            )}
          </p>
          <div class="actions">
            {granted ? (
              <button type="button" class="button-small" onClick={() => void change(false)}>
                Withdraw private networks
              </button>
            ) : (
              <button type="button" class="button-small button-danger" onClick={grant}>
                Grant private networks…
              </button>
            )}
          </div>
        </>
      )}
      <StatusMessage text={status || null} />
      <ErrorMessage error={error} />
      {dialog}
    </section>
  )
}

function EndpointState({ endpoint }: { endpoint: WebhookEndpoint }) {
  if (!endpoint.enabled) return <Badge tone="neutral">Disabled</Badge>
  if (endpoint.failingSince) {
    return (
      <Badge tone="bad">
        Failing since <DateTime value={endpoint.failingSince} />
      </Badge>
    )
  }
  return <Badge tone="good">Enabled</Badge>
}

function EndpointCard({ slug, endpoint, onToggle, onRotate, onRemove }: { slug: string; endpoint: WebhookEndpoint; onToggle: () => void; onRotate: (() => void) | undefined; onRemove: () => void }) {
  const readOnly = useReadOnly()
  const [showLog, setShowLog] = useState(false)
  const [reload, setReload] = useState(0)
  const [status, setStatus] = useState<string | null>(null)
  const test = useSubmit(async () => {
    setStatus(null)
    const delivery = await api.post('/projects/{slug}/webhooks/{endpointId}/test', { path: { slug, endpointId: endpoint.id } })
    setStatus(`Test event ${delivery.eventId} is on its way.`)
    setShowLog(true)
    setReload((n) => n + 1)
  })
  const headingId = `endpoint-${endpoint.id}`
  return (
    <section class="card endpoint" aria-labelledby={headingId}>
      <div class="card-heading">
        <h3 id={headingId}>
          <code class="endpoint-url">{endpoint.url}</code>
        </h3>
        <EndpointState endpoint={endpoint} />
      </div>
      {endpoint.description && <p>{endpoint.description}</p>}
      {endpoint.disabledReason && <p class="message message-warning">{endpoint.disabledReason}</p>}
      <p class="endpoint-types">
        Events:{' '}
        {endpoint.types.includes(ALL) ? (
          <strong>all</strong>
        ) : (
          endpoint.types.map((type, i) => (
            <span key={type}>
              {i > 0 && ', '}
              <code>{type}</code>
            </span>
          ))
        )}
      </p>
      {endpoint.previousSecretExpiresAt && (
        <p class="help">
          The previous secret also signs until <DateTime value={endpoint.previousSecretExpiresAt} />.
        </p>
      )}
      <div class="actions">
        {!readOnly && (
          <button type="button" class="button-small" disabled={test.busy} onClick={() => void test.run()}>
            Send test event<Hidden> to {endpoint.url}</Hidden>
          </button>
        )}
        <button type="button" class="button-small" aria-expanded={showLog} onClick={() => setShowLog(!showLog)}>
          {showLog ? 'Hide deliveries' : 'Deliveries'}
          <Hidden> of {endpoint.url}</Hidden>
        </button>
        {!readOnly && (
          <>
            <button type="button" class="button-small" onClick={onToggle}>
              {endpoint.enabled ? 'Disable' : 'Enable'}
              <Hidden> {endpoint.url}</Hidden>
            </button>
            {onRotate && (
              <button type="button" class="button-small" onClick={onRotate}>
                Rotate secret<Hidden> of {endpoint.url}</Hidden>
              </button>
            )}
            <button type="button" class="button-small button-danger" onClick={onRemove}>
              Remove<Hidden> {endpoint.url}</Hidden>
            </button>
          </>
        )}
      </div>
      {!readOnly && endpoint.enabled && (
        <ResendForm
          slug={slug}
          endpoint={endpoint}
          onQueued={(message) => {
            setStatus(message)
            setReload((n) => n + 1)
          }}
        />
      )}
      <StatusMessage text={status} />
      <ErrorMessage error={test.error} />
      {showLog && <DeliveryLog slug={slug} endpoint={endpoint} reload={reload} />}
    </section>
  )
}

function DeliveryState({ delivery }: { delivery: WebhookDelivery }) {
  if (delivery.state === 'succeeded') return <Badge tone="good">Delivered</Badge>
  if (delivery.state === 'failed') return <Badge tone="bad">Failed</Badge>
  return <Badge tone="wait">{delivery.attempts === 0 ? 'Due' : 'Retrying'}</Badge>
}

type DeliveryFilters = Pick<Query<'listWebhookDeliveries'>, 'state' | 'eventType' | 'webhookId' | 'since' | 'until'>

/** An endpoint's deliveries, newest first, 20 at a time; older ones on demand; narrowed by the filters; each one's attempts on demand. */
function DeliveryLog({ slug, endpoint, reload }: { slug: string; endpoint: WebhookEndpoint; reload: number }) {
  const [deliveries, setDeliveries] = useState<WebhookDelivery[] | null>(null)
  const [more, setMore] = useState(false)
  const [filters, setFilters] = useState<DeliveryFilters>({})
  const [shown, setShown] = useState<WebhookDelivery | null>(null)
  const { status, error, setError, act } = useActions()
  const page = async (before?: number) => {
    const query = { limit: 20, before, ...filters }
    const items = await api.get('/projects/{slug}/webhooks/{endpointId}/deliveries', { path: { slug, endpointId: endpoint.id }, query })
    setMore(items.length === 20)
    return items
  }
  const load = () =>
    page().then(
      (items) => setDeliveries(items),
      (caught: unknown) => setError(messageOf(caught)),
    )
  useEffect(() => {
    void load()
  }, [endpoint.id, reload, filters])

  const redeliver = (delivery: WebhookDelivery) =>
    act(async () => {
      const again = await api.post('/projects/{slug}/webhooks/{endpointId}/deliveries/{deliveryId}/redeliver', { path: { slug, endpointId: endpoint.id, deliveryId: delivery.id } })
      setDeliveries((list) => [again, ...(list ?? [])])
      return `Event ${delivery.eventId} is sent again.`
    })

  const caption = `Deliveries to ${endpoint.url}`
  return (
    <div class="delivery-log">
      <div class="card-heading">
        <h4>Deliveries</h4>
        <button type="button" class="button-small" onClick={() => void load()}>
          Refresh<Hidden> the deliveries of {endpoint.url}</Hidden>
        </button>
      </div>
      <DeliveryFilterForm endpoint={endpoint} onFilter={(chosen) => {
        setShown(null)
        setFilters(chosen)
      }} />
      <StatusMessage text={status} />
      <ErrorMessage error={error} />
      {deliveries === null && !error && <Loading what="deliveries" />}
      {deliveries?.length === 0 && <p>{Object.keys(filters).length > 0 ? 'No delivery matches these filters.' : 'No event was sent to this endpoint yet.'}</p>}
      {deliveries && deliveries.length > 0 && (
        <StackedTable kind="deliveries" caption={caption} hideCaption columns={['Event', 'State', 'Attempts', 'Last answer', 'Latency', 'Next retry', 'Actions']}>
          {deliveries.map((delivery) => (
            <tr key={delivery.id}>
              <th scope="row">
                <code>{delivery.eventType}</code>
                <span class="muted event-id">{delivery.eventId}</span>
                <DateTime value={delivery.eventCreatedAt} />
              </th>
              <td data-label="State">
                <DeliveryState delivery={delivery} />
              </td>
              <td data-label="Attempts">{delivery.attempts}</td>
              <td data-label="Last answer">
                {delivery.lastStatus !== null ? <code>HTTP {delivery.lastStatus}</code> : delivery.lastError ? '' : '—'}
                {delivery.lastError && delivery.lastStatus === null && <span class="delivery-error">{delivery.lastError}</span>}
                {delivery.responseExcerpt && <span class="excerpt" title={delivery.responseExcerpt}>{delivery.responseExcerpt.slice(0, 120)}</span>}
              </td>
              <td data-label="Latency">{delivery.latencyMs === null ? '—' : `${delivery.latencyMs} ms`}</td>
              <td data-label="Next retry">
                <DateTime value={delivery.nextAttemptAt} />
              </td>
              <RowActions>
                <RowButton label="Attempts" shows what={`of ${delivery.eventType} ${delivery.eventId}`} onClick={() => setShown(shown?.id === delivery.id ? null : delivery)} />
                <RowButton label="Redeliver" what={`${delivery.eventType} ${delivery.eventId}`} onClick={() => void redeliver(delivery)} />
              </RowActions>
            </tr>
          ))}
        </StackedTable>
      )}
      {more && deliveries && (
        <button
          type="button"
          class="button-small"
          onClick={() => {
            const last = deliveries[deliveries.length - 1]
            if (last) void page(last.id).then((items) => setDeliveries((list) => [...(list ?? []), ...items]), (caught: unknown) => setError(messageOf(caught)))
          }}
        >
          Older deliveries
        </button>
      )}
      {shown && <DeliveryAttempts slug={slug} endpoint={endpoint} delivery={shown} />}
    </div>
  )
}

/** The local time of `ms` as a datetime-local input shows it (minutes). */
function localInputValue(ms: number): string {
  const date = new Date(ms)
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`
}

/**
 * "Recover failed since…" (every failed delivery of the endpoint since then, queued again) and
 * "Replay events since…" (the project's events of its types since then, each at most once), from
 * one time, by default a day ago.
 */
function ResendForm({ slug, endpoint, onQueued }: { slug: string; endpoint: WebhookEndpoint; onQueued: (message: string) => void }) {
  const [since, setSince] = useState(() => localInputValue(Date.now() - 24 * 3_600_000))
  const id = `resend-since-${endpoint.id}`
  const sinceIso = () => new Date(since).toISOString()
  const recover = useSubmit(async () => {
    const { queued } = await api.post('/projects/{slug}/webhooks/{endpointId}/recover', { path: { slug, endpointId: endpoint.id }, body: { since: sinceIso() } })
    onQueued(queued === 0 ? 'No failed delivery to send again since then.' : `${queued} failed ${queued === 1 ? 'event is' : 'events are'} on their way again.`)
  })
  const replay = useSubmit(async () => {
    const { queued } = await api.post('/projects/{slug}/webhooks/{endpointId}/replay', { path: { slug, endpointId: endpoint.id }, body: { since: sinceIso() } })
    onQueued(queued === 0 ? 'No event to replay since then: the endpoint has them all.' : `${queued} ${queued === 1 ? 'event is' : 'events are'} on their way.`)
  })
  const busy = recover.busy || replay.busy
  return (
    <form class="delivery-filters" aria-label={`Send events again to ${endpoint.url}`} onSubmit={(event) => event.preventDefault()}>
      <label for={id}>Since</label>
      <input id={id} type="datetime-local" required value={since} onInput={(event) => setSince(event.currentTarget.value)} />
      <button type="button" class="button-small" disabled={busy || !since} onClick={() => void recover.run()}>
        Recover failed since…<Hidden> for {endpoint.url}</Hidden>
      </button>
      <button type="button" class="button-small" disabled={busy || !since} onClick={() => void replay.run()}>
        Replay events since…<Hidden> to {endpoint.url}</Hidden>
      </button>
      <ErrorMessage error={recover.error ?? replay.error} />
    </form>
  )
}

/** The log's filters: a state, an event type, one event by the `webhook-id` a receiver got, and when the deliveries were created (since, before). */
function DeliveryFilterForm({ endpoint, onFilter }: { endpoint: WebhookEndpoint; onFilter: (filters: DeliveryFilters) => void }) {
  const [state, setState] = useState('')
  const [eventType, setEventType] = useState('')
  const [webhookId, setWebhookId] = useState('')
  const [range, setRange] = useState<LocalRange>({ since: '', until: '' })
  const id = (name: string) => `delivery-${name}-${endpoint.id}`
  return (
    <form
      class="delivery-filters"
      aria-label={`Filter the deliveries of ${endpoint.url}`}
      onSubmit={(event) => {
        event.preventDefault()
        onFilter({
          ...(state && { state: state as WebhookDelivery['state'] }),
          ...(eventType && { eventType: eventType as DeliveryFilters['eventType'] }),
          ...(webhookId.trim() && { webhookId: webhookId.trim() }),
          ...instantsOf(range),
        })
      }}
    >
      <label for={id('state')}>State</label>
      <select id={id('state')} value={state} onChange={(event) => setState(event.currentTarget.value)}>
        <option value="">Any</option>
        <option value="pending">Due or retrying</option>
        <option value="succeeded">Delivered</option>
        <option value="failed">Failed</option>
      </select>
      <EventTypeSelect id={id('type')} value={eventType} onChange={setEventType} />
      <label for={id('webhook-id')}>webhook-id</label>
      <input id={id('webhook-id')} type="search" placeholder="msg_…" value={webhookId} onInput={(event) => setWebhookId(event.currentTarget.value)} />
      <TimeRangeInputs id={id} labels={['Created since', 'Created before']} range={range} onChange={setRange} />
      <button type="submit" class="button-small">
        Filter<Hidden> the deliveries of {endpoint.url}</Hidden>
      </button>
    </form>
  )
}

/** Every attempt of a delivery, oldest first: when, the answer, how long, why it failed, and the request sent. */
function DeliveryAttempts({ slug, endpoint, delivery }: { slug: string; endpoint: WebhookEndpoint; delivery: WebhookDelivery }) {
  const [attempts, setAttempts] = useState<WebhookAttempt[] | null>(null)
  const [error, setError] = useState<string | null>(null)
  useEffect(() => {
    setAttempts(null)
    api.get('/projects/{slug}/webhooks/{endpointId}/deliveries/{deliveryId}/attempts', { path: { slug, endpointId: endpoint.id, deliveryId: delivery.id } }).then(setAttempts, (caught: unknown) =>
      setError(messageOf(caught)),
    )
  }, [delivery.id])
  const heading = `Attempts of ${delivery.eventType} ${delivery.eventId}`
  return (
    <section class="delivery-attempts" aria-label={heading}>
      <h5>{heading}</h5>
      <ErrorMessage error={error} />
      {attempts === null && !error && <Loading what="attempts" />}
      {attempts?.length === 0 && <p>No attempt was made yet.</p>}
      {attempts && attempts.length > 0 && (
        <ol>
          {attempts.map((attempt, index) => (
            <li key={index}>
              <p>
                <DateTime value={attempt.attemptedAt} /> · {attempt.status === null ? 'no answer' : <code>HTTP {attempt.status}</code>} · {attempt.durationMs} ms
                {/* An error that only repeats the status says nothing more. */}
                {attempt.error && attempt.error !== `HTTP ${attempt.status}` && <span class="delivery-error"> · {attempt.error}</span>}
              </p>
              {attempt.responseExcerpt && (
                <>
                  <p class="muted">Answer (first KiB)</p>
                  <pre class="attempt-text">{attempt.responseExcerpt}</pre>
                </>
              )}
              {attempt.request ? (
                <>
                  <p class="muted">Request sent</p>
                  <pre class="attempt-text">
                    {Object.entries(attempt.request.headers)
                      .map(([name, value]) => `${name}: ${value}`)
                      .join('\n')}
                    {'\n\n'}
                    {attempt.request.body}
                  </pre>
                </>
              ) : (
                <p class="muted">Nothing was sent.</p>
              )}
            </li>
          ))}
        </ol>
      )}
    </section>
  )
}

function NewEndpointForm({ slug, onCreated }: { slug: string; onCreated: (endpoint: NewWebhookEndpoint) => void }) {
  const [url, setUrl] = useState('')
  const [description, setDescription] = useState('')
  const [types, setTypes] = useState<string[]>([ALL])
  const form = useSubmit(async () => {
    const body = { url: url.trim(), types, ...(description.trim() && { description: description.trim() }) } as RequestBody<'createWebhookEndpoint'>
    const endpoint = await api.post('/projects/{slug}/webhooks', { path: { slug }, body })
    setUrl('')
    setDescription('')
    setTypes([ALL])
    onCreated(endpoint)
  })
  const all = types.includes(ALL)
  const flip = (type: string, on: boolean) => setTypes((list) => (on ? [...list.filter((t) => t !== ALL), type] : list.filter((t) => t !== type)))

  return (
    <FormCard id="new-webhook" title="Add an endpoint" submitLabel="Add endpoint" form={form}>
      <div class="field field-wide">
        <label for="new-webhook-url">URL</label>
        <input id="new-webhook-url" type="url" required maxLength={2048} placeholder="https://example.com/webhooks" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="new-webhook-description">Description</label>
        <input id="new-webhook-description" maxLength={200} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </div>
      <fieldset class="event-types">
        <legend>Events</legend>
        <label class="checkbox">
          <input type="checkbox" checked={all} onChange={(e) => setTypes(e.currentTarget.checked ? [ALL] : [])} /> All events
        </label>
        {WEBHOOK_EVENT_TYPES.map((type) => (
          <label class="checkbox" key={type}>
            <input type="checkbox" disabled={all} checked={all || types.includes(type)} onChange={(e) => flip(type, e.currentTarget.checked)} /> <code>{type}</code>
          </label>
        ))}
      </fieldset>
    </FormCard>
  )
}

/** The signing secret, this once. */
function NewSecret({ endpoint, rotated, onDone }: { endpoint: NewWebhookEndpoint; rotated: boolean; onDone: () => void }) {
  return (
    <SecretBox title={rotated ? 'New signing secret' : 'Endpoint added'} secret={endpoint.secret} what="secret" testId="new-webhook-secret" refocus="new-webhook-url" onDone={onDone}>
      <strong>Copy the signing secret now: it will not be shown again.</strong> Verify every event with it (see the webhooks guide); if it is lost, rotate it.
    </SecretBox>
  )
}
