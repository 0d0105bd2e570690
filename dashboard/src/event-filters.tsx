import { WEBHOOK_EVENT_TYPES } from './api'

/** The event types a filter offers: every type an endpoint can receive, and the test event. */
const FILTER_TYPES = [...WEBHOOK_EVENT_TYPES, 'webhook.test']

/** "Event type": any, or one of the catalogue's (and the test event), as a labelled select. */
export function EventTypeSelect({ id, value, onChange }: { id: string; value: string; onChange: (type: string) => void }) {
  return (
    <>
      <label for={id}>Event type</label>
      <select id={id} value={value} onChange={(event) => onChange(event.currentTarget.value)}>
        <option value="">Any</option>
        {FILTER_TYPES.map((type) => (
          <option key={type} value={type}>
            {type}
          </option>
        ))}
      </select>
    </>
  )
}

/** A time range as the inputs hold it: local times to the second; empty means open on that side. */
export interface LocalRange {
  since: string
  until: string
}

/** The range as two labelled `datetime-local` inputs, since (inclusive) and before (exclusive). */
export function TimeRangeInputs({ id, labels, range, onChange }: { id: (name: 'since' | 'until') => string; labels: [since: string, until: string]; range: LocalRange; onChange: (range: LocalRange) => void }) {
  return (
    <>
      <label for={id('since')}>{labels[0]}</label>
      <input id={id('since')} type="datetime-local" step={1} value={range.since} onInput={(event) => onChange({ ...range, since: event.currentTarget.value })} />
      <label for={id('until')}>{labels[1]}</label>
      <input id={id('until')} type="datetime-local" step={1} value={range.until} onInput={(event) => onChange({ ...range, until: event.currentTarget.value })} />
    </>
  )
}

/** The range as the API's `since` and `until`: the inputs show local time, the API takes instants. */
export function instantsOf(range: LocalRange): { since?: string; until?: string } {
  return {
    ...(range.since && { since: new Date(range.since).toISOString() }),
    ...(range.until && { until: new Date(range.until).toISOString() }),
  }
}
