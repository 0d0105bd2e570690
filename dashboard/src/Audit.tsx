import { useEffect, useState } from 'preact/hooks'
import { auditEntryActionValues, auditEntryActorKindValues } from './admin-schema'
import { api, type AuditEntry, messageOf, type Session } from './api'
import { ColumnHeads, DateTime, ErrorMessage, Loading, TableWrap } from './components'
import { SelectField } from './form-fields'
import { navigate, queryString } from './router'

const PAGE_SIZE = 50

/** The filters of the page, kept in its address so that a filtered view can be shared. */
interface Filters {
  project: string
  action: AuditAction | ''
  actor: string
  actorKind: ActorKind | ''
  key: string
}

type AuditAction = AuditEntry['action']
type ActorKind = AuditEntry['actor']['kind']

/** The kinds of actor, as the filter offers them. */
const ACTOR_KIND_TEXT: Record<ActorKind, string> = {
  user: 'Signed-in users',
  admin_token: 'ADMIN_TOKEN',
  cli: 'Command line',
  system: 'The service itself',
  api_key: 'API keys (/v1 writes)',
  anonymous: 'Anonymous (site enquiries, failed sign-ins)',
}

function filtersOf(search: string): Filters {
  const params = new URLSearchParams(search)
  const action = params.get('action') ?? ''
  const actorKind = params.get('actorKind') ?? ''
  return {
    project: params.get('project') ?? '',
    action: auditEntryActionValues.includes(action as AuditAction) ? (action as AuditAction) : '',
    actor: params.get('actor') ?? '',
    actorKind: auditEntryActorKindValues.includes(actorKind as ActorKind) ? (actorKind as ActorKind) : '',
    key: params.get('key') ?? '',
  }
}

/** What changed, in a line: each detail as `name: value`. */
function describeDetails(details: AuditEntry['details']): string {
  return Object.entries(details)
    .map(([name, value]) => `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(', ')
}

/**
 * The audit log: every change made through the admin API, this dashboard, the CLI or /v1 (with
 * its API key), the service's own and failed sign-ins, newest first. Operators see every entry; owners, their projects' and their own changes.
 */
export function Audit({ session, search }: { session: Session; search: string }) {
  const filters = filtersOf(search)
  const [draft, setDraft] = useState<Filters>(filters)
  const [entries, setEntries] = useState<AuditEntry[] | null>(null)
  const [more, setMore] = useState(false)
  const [loadingMore, setLoadingMore] = useState(false)
  const [error, setError] = useState<string | null>(null)

  const load = async (before?: number) => {
    const { project, actor, key } = filters
    const query = { project: project || undefined, actor: actor || undefined, key: key || undefined, action: filters.action || undefined, actorKind: filters.actorKind || undefined }
    const page = await api.get('/audit', { query: { ...query, limit: PAGE_SIZE, before } })
    // A full page may have a next one; an empty next page then says there is no more.
    setMore(page.length === PAGE_SIZE)
    return page
  }

  useEffect(() => {
    setDraft(filters)
    setEntries(null)
    setError(null)
    load().then(setEntries, (caught: unknown) => setError(messageOf(caught)))
  }, [search])

  const older = async () => {
    const last = entries?.[entries.length - 1]
    if (!last) return
    setLoadingMore(true)
    setError(null)
    try {
      const page = await load(last.id)
      setEntries((list) => [...(list ?? []), ...page])
    } catch (caught) {
      setError(messageOf(caught))
    } finally {
      setLoadingMore(false)
    }
  }

  const filtered = Boolean(filters.project || filters.action || filters.actor || filters.actorKind || filters.key)
  return (
    <>
      <h1 tabIndex={-1}>Audit log</h1>
      <p>
        Every change made through this dashboard, the admin API, the command line or the API's keys, the service's own (bans, disabled webhooks, domain checks) and failed
        sign-ins: who, what, when and in which request.{' '}
        {session.user.role === 'operator' ? 'You see every entry.' : "You see your projects' entries and your own changes."}
      </p>
      <form
        class="form inline-form filters"
        aria-label="Filter the audit log"
        onSubmit={(event) => {
          event.preventDefault()
          navigate(`/audit${queryString({ ...draft, actor: draft.actor.trim(), key: draft.key.trim() })}`)
        }}
      >
        <SelectField
          id="audit-project"
          label="Project"
          value={draft.project}
          options={[{ value: '', text: 'All projects' }, ...session.user.projects.map((slug) => ({ value: slug, text: slug }))]}
          onChange={(project) => setDraft({ ...draft, project })}
        />
        <SelectField
          id="audit-action"
          label="Action"
          value={draft.action}
          options={[{ value: '', text: 'All actions' }, ...auditEntryActionValues.map((action) => ({ value: action, text: action }))]}
          onChange={(action) => setDraft({ ...draft, action })}
        />
        <div class="field">
          <label for="audit-actor">Actor</label>
          <input id="audit-actor" type="search" value={draft.actor} placeholder="email, ADMIN_TOKEN, cli:…" onInput={(e) => setDraft({ ...draft, actor: e.currentTarget.value })} />
        </div>
        <SelectField
          id="audit-actor-kind"
          label="Actor kind"
          value={draft.actorKind}
          options={[{ value: '', text: 'All kinds' }, ...auditEntryActorKindValues.map((kind) => ({ value: kind, text: ACTOR_KIND_TEXT[kind] }))]}
          onChange={(actorKind) => setDraft({ ...draft, actorKind })}
        />
        <div class="field">
          <label for="audit-key">API key</label>
          <input id="audit-key" type="search" value={draft.key} placeholder="key_…" onInput={(e) => setDraft({ ...draft, key: e.currentTarget.value })} />
        </div>
        <button type="submit" class="button-primary">
          Show
        </button>
      </form>
      <ErrorMessage error={error} />
      {entries === null && !error && <Loading what="the audit log" />}
      {entries?.length === 0 && <p>{filtered ? 'No entries match these filters.' : 'No changes recorded yet.'}</p>}
      {entries && entries.length > 0 && (
        <TableWrap label="Audit entries" focusable>
          <table class="audit stacked">
            <caption>Audit entries, newest first</caption>
            <ColumnHeads names={['When', 'Actor', 'Action', 'Target', 'Project', 'Details', 'Request']} />
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.id}>
                  <th scope="row">
                    <DateTime value={entry.at} />
                  </th>
                  <td data-label="Actor">{entry.actor.name}</td>
                  <td data-label="Action">
                    <code>{entry.action}</code>
                  </td>
                  <td data-label="Target">
                    <span>
                      {entry.target.type} <code>{entry.target.id}</code>
                    </span>
                  </td>
                  <td data-label="Project">{entry.project ?? <span class="muted">—</span>}</td>
                  <td data-label="Details" class="details">
                    {describeDetails(entry.details) || <span class="muted">—</span>}
                  </td>
                  <td data-label="Request">
                    <code class="request-id">{entry.requestId ?? '—'}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {entries && entries.length > 0 && more && (
        <button type="button" onClick={() => void older()} disabled={loadingMore}>
          {loadingMore ? 'Loading…' : 'Older entries'}
        </button>
      )}
      {entries && entries.length > 0 && !more && <p class="muted">No older entries.</p>}
    </>
  )
}
