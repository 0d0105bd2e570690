import { useEffect, useState } from 'preact/hooks'
import { api, type ApiKey, messageOf, type NewApiKey, type RequestBody } from './api'
import { Badge, ColumnHeads, DateTime, ErrorMessage, Loading, RowActions, RowButton, SecretBox, StatusMessage, TableWrap } from './components'
import { useReadOnly } from './read-only'
import { FormCard, useConfirm, useSubmit } from './dialogs'

function keyLabel(key: ApiKey): string {
  return key.name ?? `${key.prefix}…`
}

function isBanned(key: ApiKey, now: number): boolean {
  return key.revokedAt === null && key.bannedUntil !== null && Date.parse(key.bannedUntil) > now
}

function KeyStatus({ apiKey, now }: { apiKey: ApiKey; now: number }) {
  if (apiKey.revokedAt) {
    return (
      <Badge tone="neutral">
        Revoked <DateTime value={apiKey.revokedAt} />
      </Badge>
    )
  }
  if (apiKey.expiresAt && Date.parse(apiKey.expiresAt) <= now) return <Badge tone="neutral">Expired</Badge>
  if (isBanned(apiKey, now)) {
    return (
      <Badge tone="bad">
        Banned until <DateTime value={apiKey.bannedUntil} />
      </Badge>
    )
  }
  return <Badge tone="good">Active</Badge>
}

export function Keys({ slug }: { slug: string }) {
  const readOnly = useReadOnly()
  const [keys, setKeys] = useState<ApiKey[] | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [status, setStatus] = useState<string | null>(null)
  const [created, setCreated] = useState<NewApiKey | null>(null)
  const { dialog, ask } = useConfirm()
  const now = Date.now()
  const active = (keys ?? []).filter((key) => !key.revokedAt)
  const revoked = (keys ?? []).filter((key) => key.revokedAt)

  const load = () => api.get('/projects/{slug}/keys', { path: { slug } }).then(setKeys, (caught: unknown) => setError(messageOf(caught)))
  useEffect(() => {
    setKeys(null)
    setCreated(null)
    void load()
  }, [slug])

  const revoke = (key: ApiKey) =>
    ask(
      {
        title: `Revoke the key ${keyLabel(key)}?`,
        body: (
          <p>
            Requests with the key <code>{key.prefix}…</code> are refused (401) from the next one, everywhere. This cannot be undone: clients need a new key.
          </p>
        ),
        confirmLabel: 'Revoke key',
        danger: true,
      },
      async () => {
        setError(null)
        setStatus(null)
        try {
          const revoked = await api.delete('/projects/{slug}/keys/{id}', { path: { slug, id: key.id } })
          setKeys((list) => (list ?? []).map((k) => (k.id === key.id ? revoked : k)))
          setStatus(`The key ${keyLabel(key)} is revoked.`)
        } catch (caught) {
          setError(messageOf(caught))
        }
      },
    )

  const liftBan = async (key: ApiKey) => {
    setError(null)
    setStatus(null)
    try {
      await api.delete('/projects/{slug}/keys/{id}/ban', { path: { slug, id: key.id } })
      setKeys((list) => (list ?? []).map((k) => (k.id === key.id ? { ...k, bannedUntil: null } : k)))
      setStatus(`The ban of the key ${keyLabel(key)} is lifted.`)
    } catch (caught) {
      setError(messageOf(caught))
    }
  }

  return (
    <>
      <h2 tabIndex={-1}>API keys</h2>
      {!readOnly && (
        <NewKeyForm
          slug={slug}
          onCreated={(key) => {
            setCreated(key)
            setStatus(null)
            setKeys((list) => [...(list ?? []).filter((k) => k.id !== key.id), key])
          }}
        />
      )}
      {created && <NewSecret apiKey={created} onDone={() => setCreated(null)} />}
      <StatusMessage text={status} />
      <ErrorMessage error={error} />
      {keys === null && !error && <Loading what="keys" />}
      {keys?.length === 0 && <p>This project has no keys yet.</p>}
      {keys && keys.length > 0 && active.length === 0 && <p>This project has no active keys: create one above.</p>}
      {active.length > 0 && (
        <KeyTable caption={`Keys of ${slug}`} keys={active} now={now} onLiftBan={(key) => void liftBan(key)} onRevoke={revoke} />
      )}
      {revoked.length > 0 && (
        // Revoked keys only pile up: out of the way until asked for.
        <details class="revoked-keys">
          <summary>Revoked keys ({revoked.length})</summary>
          <KeyTable caption={`Revoked keys of ${slug}`} keys={revoked} now={now} />
        </details>
      )}
      {dialog}
    </>
  )
}

/**
 * Keys as a table; on a phone each row becomes a block of labelled lines (each cell's
 * `data-label`), so nothing needs a sideways scroll. Without handlers: no Actions column. A key's
 * name and prefix share its first column (the prefix under the name), so that with Scopes the
 * table fits a laptop's width: the dates, the status and the buttons each keep to one line.
 */
function KeyTable({ caption, keys, now, onLiftBan, onRevoke }: { caption: string; keys: ApiKey[]; now: number; onLiftBan?: (key: ApiKey) => void; onRevoke?: (key: ApiKey) => void }) {
  const actions = onLiftBan !== undefined || onRevoke !== undefined
  return (
    <TableWrap label={caption}>
      <table class="keys stacked">
        <caption>{caption}</caption>
        <ColumnHeads names={['Key', 'Scopes', 'Created', 'Expires', 'Last used', 'Status', ...(actions ? ['Actions'] : [])]} />
        <tbody>
          {keys.map((key) => (
            <tr key={key.id}>
              <th scope="row">
                {key.name ?? <span class="muted">(no name)</span>}
                <br />
                <code class="prefix">{key.prefix}…</code>
              </th>
              <td data-label="Scopes">
                <KeyScopes apiKey={key} />
              </td>
              <td data-label="Created">
                <DateTime value={key.createdAt} />
              </td>
              <td data-label="Expires">
                <DateTime value={key.expiresAt} empty="never" />
              </td>
              <td data-label="Last used">
                <DateTime value={key.lastUsedAt} empty="never" />
              </td>
              <td data-label="Status">
                <KeyStatus apiKey={key} now={now} />
              </td>
              {actions && (
                <RowActions>
                  {onLiftBan && isBanned(key, now) && <RowButton label="Lift ban" what={`of ${keyLabel(key)}`} onClick={() => onLiftBan(key)} />}
                  {onRevoke && !key.revokedAt && <RowButton label="Revoke" what={keyLabel(key)} danger onClick={() => onRevoke(key)} />}
                </RowActions>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  )
}

/**
 * A key's scopes: "all" for a key made without them; a publishable key's badge and origins after,
 * one origin per line (an origin too long for the column breaks anywhere rather than widen it).
 * One element: on a phone the cell is a grid of its label and its content.
 */
function KeyScopes({ apiKey }: { apiKey: ApiKey }) {
  return (
    <div>
      {apiKey.scopes === null ? 'all' : apiKey.scopes.join(', ')}
      {apiKey.publishable && (
        <>
          {' '}
          <Badge tone="neutral">Publishable</Badge>
          <ul class="origins" aria-label={`Allowed origins of ${keyLabel(apiKey)}`}>
            {apiKey.allowedOrigins.map((origin) => (
              <li key={origin}>{origin}</li>
            ))}
          </ul>
        </>
      )}
    </div>
  )
}

type Scope = NonNullable<RequestBody<'createApiKey'>['scopes']>[number]
const SCOPES: { scope: Scope; help: string }[] = [
  { scope: 'pets:read', help: 'read animals, photos, changes, categories, breeds, locations' },
  { scope: 'pets:write', help: 'add, change and remove animals and photos' },
  { scope: 'orders:read', help: 'read adoption orders' },
  { scope: 'orders:write', help: 'place, approve, deliver and cancel orders' },
]

function NewKeyForm({ slug, onCreated }: { slug: string; onCreated: (key: NewApiKey) => void }) {
  const [name, setName] = useState('')
  const [days, setDays] = useState('')
  const [scopes, setScopes] = useState<Scope[]>([])
  const [publishable, setPublishable] = useState(false)
  const [origins, setOrigins] = useState('')
  const form = useSubmit(async () => {
    const body: RequestBody<'createApiKey'> = {}
    if (name.trim()) body.name = name.trim()
    if (days.trim()) body.expiresInDays = Number(days)
    // No scope ticked: a key of full access (a publishable key: pets:read).
    if (scopes.length > 0) body.scopes = scopes
    if (publishable) {
      body.publishable = true
      body.allowedOrigins = origins.split(/\s+/).filter(Boolean)
    }
    const key = await api.post('/projects/{slug}/keys', { path: { slug }, body })
    setName('')
    setDays('')
    setScopes([])
    setPublishable(false)
    setOrigins('')
    onCreated(key)
  })
  const toggle = (scope: Scope, on: boolean) => setScopes((list) => (on ? [...list, scope] : list.filter((s) => s !== scope)))

  return (
    <FormCard id="new-key" title="Create a key" submitLabel="Create key" form={form}>
      <div class="field">
        <label for="new-key-name">Name</label>
        <input id="new-key-name" maxLength={100} aria-describedby="new-key-name-help" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <p id="new-key-name-help" class="help">
          Optional: where the key is used, e.g. "website".
        </p>
      </div>
      <div class="field">
        <label for="new-key-days">Expires in (days)</label>
        <input
          id="new-key-days"
          type="number"
          min={1}
          max={3650}
          step={1}
          inputMode="numeric"
          aria-describedby="new-key-days-help"
          value={days}
          onInput={(e) => setDays(e.currentTarget.value)}
        />
        <p id="new-key-days-help" class="help">
          Optional: empty for a key that does not expire.
        </p>
      </div>
      <fieldset class="event-types key-scopes">
        <legend>Scopes</legend>
        {SCOPES.map(({ scope, help }) => (
          <label class="checkbox" key={scope}>
            <input type="checkbox" name="scopes" value={scope} checked={scopes.includes(scope)} disabled={publishable && scope !== 'pets:read'} onChange={(e) => toggle(scope, e.currentTarget.checked)} />{' '}
            <span>
              <code>{scope}</code> <span class="muted">{help}</span>
            </span>
          </label>
        ))}
        <p class="help">None ticked: the key may call everything.</p>
      </fieldset>
      <div class="field field-wide">
        <label class="checkbox wraps">
          <input
            id="new-key-publishable"
            type="checkbox"
            checked={publishable}
            onChange={(e) => {
              const on = e.currentTarget.checked
              setPublishable(on)
              if (on) setScopes((list) => list.filter((s) => s === 'pets:read'))
            }}
          />{' '}
          Publishable: for web pages, read-only (pets:read)
        </label>
      </div>
      {publishable && (
        <div class="field">
          <label for="new-key-origins">Allowed origins</label>
          <textarea id="new-key-origins" rows={2} aria-describedby="new-key-origins-help" value={origins} onInput={(e) => setOrigins(e.currentTarget.value)} />
          <p id="new-key-origins-help" class="help">
            One per line, as browsers send them: https://shelter.example or https://shelter.example:8443; http://localhost for development.
          </p>
        </div>
      )}
    </FormCard>
  )
}

/** The secret, this once: highlighted, with a copy button, until dismissed. */
function NewSecret({ apiKey, onDone }: { apiKey: NewApiKey; onDone: () => void }) {
  return (
    <SecretBox
      title={`New key ${apiKey.name ? `"${apiKey.name}"` : ''} created`}
      secret={apiKey.key}
      what="key"
      testId="new-key-secret"
      refocus="new-key-name"
      onDone={onDone}
    >
      <strong>Copy this key now: it will not be shown again.</strong> Only its prefix is kept; if it is lost, create another key and revoke this one.
    </SecretBox>
  )
}
