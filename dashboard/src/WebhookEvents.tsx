import { useState } from 'preact/hooks'
import { page, type Query, type WebhookEvent } from './api'
import { DateTime, ErrorMessage, Hidden, Loading, RowActions, RowButton, StackedTable } from './components'
import { EventTypeSelect, instantsOf, type LocalRange, TimeRangeInputs } from './event-filters'
import { MoreButton, usePagedList } from './paged-list'

const PAGE_SIZE = 20

type EventFilters = Pick<Query<'listWebhookEvents'>, 'type' | 'since' | 'until'>

/**
 * The project's event list, newest first: every event of the retention period, whether or not an
 * endpoint subscribed to it, each with its `webhook-id` and the `data` it carries (shown on
 * demand). Narrowed by type and time; older events page by page, as the API links them.
 */
export function WebhookEvents({ slug }: { slug: string }) {
  const [filters, setFilters] = useState<EventFilters>({})
  const [shown, setShown] = useState<string | null>(null)
  const [reload, setReload] = useState(0)
  const list = usePagedList(JSON.stringify([slug, filters, reload]), (next) => page('/projects/{slug}/events', { path: { slug }, query: { limit: PAGE_SIZE, ...filters } }, next))
  const filtered = Object.keys(filters).length > 0
  return (
    <section class="card" aria-labelledby="webhook-events">
      <div class="card-heading">
        <h3 id="webhook-events">Events</h3>
        <button type="button" class="button-small" onClick={() => setReload((n) => n + 1)}>
          Refresh<Hidden> the events</Hidden>
        </button>
      </div>
      <p class="help-text">
        Every event of this project, newest first, kept for the service's retention period (<code>WEBHOOK_RETENTION_DAYS</code>, 30 days by default) whether or not an
        endpoint receives it. An endpoint added later can be sent them with "Replay events since…".
      </p>
      <EventFilterForm
        onFilter={(chosen) => {
          setShown(null)
          setFilters(chosen)
        }}
      />
      <ErrorMessage error={list.error} />
      {list.items === null && !list.error && <Loading what="events" />}
      {list.items?.length === 0 && <p>{filtered ? 'No event matches these filters.' : 'This project has no event in the retention period.'}</p>}
      {list.items && list.items.length > 0 && (
        <StackedTable kind="webhook-events" caption="Events of the project, newest first" hideCaption columns={['When', 'Type', 'webhook-id', 'Data']}>
          {list.items.map((event) => (
            <EventRow key={event.id} event={event} open={shown === event.id} onToggle={() => setShown(shown === event.id ? null : event.id)} />
          ))}
        </StackedTable>
      )}
      <MoreButton list={list} pageSize={PAGE_SIZE} label="Older events" none="No older events." />
    </section>
  )
}

function EventRow({ event, open, onToggle }: { event: WebhookEvent; open: boolean; onToggle: () => void }) {
  return (
    <tr>
      <th scope="row">
        <DateTime value={event.createdAt} />
      </th>
      <td data-label="Type">
        <code>{event.type}</code>
      </td>
      <td data-label="webhook-id">
        <code class="event-id">{event.id}</code>
      </td>
      {open ? (
        <td data-label="Data">
          <pre class="attempt-text" aria-label={`Data of ${event.type} ${event.id}`}>
            {JSON.stringify(event.data, null, 2)}
          </pre>
          <button type="button" class="button-small" onClick={onToggle}>
            Hide data<Hidden> of {event.type} {event.id}</Hidden>
          </button>
        </td>
      ) : (
        <RowActions>
          <RowButton label="Data" shows what={`of ${event.type} ${event.id}`} onClick={onToggle} />
        </RowActions>
      )}
    </tr>
  )
}

/** The list's filters: an event type, and when the events happened (since, before), in the browser's local time. */
function EventFilterForm({ onFilter }: { onFilter: (filters: EventFilters) => void }) {
  const [type, setType] = useState('')
  const [range, setRange] = useState<LocalRange>({ since: '', until: '' })
  return (
    <form
      class="delivery-filters"
      aria-label="Filter the events"
      onSubmit={(event) => {
        event.preventDefault()
        onFilter({ ...(type && { type: type as EventFilters['type'] }), ...instantsOf(range) })
      }}
    >
      <EventTypeSelect id="events-type" value={type} onChange={setType} />
      <TimeRangeInputs id={(name) => `events-${name}`} labels={['Happened since', 'Happened before']} range={range} onChange={setRange} />
      <button type="submit" class="button-small">
        Filter<Hidden> the events</Hidden>
      </button>
    </form>
  )
}
