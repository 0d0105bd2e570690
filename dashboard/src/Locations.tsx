import { useState } from 'preact/hooks'
import { api, page, type ProjectLocation } from './api'
import { useFieldSubmit } from './changes'
import { ErrorMessage, Loading, RowActions, RowButton, StackedTable, StatusMessage } from './components'
import { useReadOnly } from './read-only'
import { FormCard, FormDialog, useConfirm } from './dialogs'
import { replacing, useEditDialog } from './edit-dialog'
import { addressLine, LocationFields, locationChangesOf, locationDraftOf, newLocationOf } from './location-fields'
import { MoreButton, removeFromList, usePagedList } from './paged-list'
import { Link, projectPath } from './router'

const PAGE_SIZE = 50

/**
 * A project's locations, the places where its animals can be met (an animal's location): add,
 * edit (a merge patch of what changed), remove. A location with animals cannot be removed; the
 * page says so, with a link to those animals.
 */
export function Locations({ slug }: { slug: string }) {
  const readOnly = useReadOnly()
  const [status, setStatus] = useState<string | null>(null)
  const { dialog, ask } = useConfirm()
  const list = usePagedList(slug, (next) => page('/projects/{slug}/locations', { path: { slug }, query: { limit: PAGE_SIZE } }, next))
  const editor = useEditDialog<ProjectLocation>((changed) => {
    list.update(replacing(changed))
    setStatus(`${changed.name} is saved.`)
  })
  const locations = list.items

  const remove = (location: ProjectLocation) =>
    ask({ title: `Remove ${location.name}?`, body: <p>Animals can no longer be placed at {location.name}. A location where animals are cannot be removed.</p>, confirmLabel: 'Remove location', danger: true }, () =>
      removeFromList(list, location, () => api.delete('/projects/{slug}/locations/{locationId}', { path: { slug, locationId: location.id } }), setStatus, {
        code: 'location_in_use',
        explanation: (
          <>
            {location.name} still has animals, so it cannot be removed: move them to another location (or none) first. See{' '}
            <Link to={projectPath(slug, 'animals', { locationId: String(location.id) })}>the animals at {location.name}</Link>.
          </>
        ),
      }),
    )

  return (
    <>
      <h2 tabIndex={-1}>Locations</h2>
      <p>The places where adopters can meet the animals: shelter sites, foster areas. An animal's profile names one; with coordinates, a location is found by distance searches.</p>
      {!readOnly && (
        <NewLocationForm
          slug={slug}
          onAdded={(location) => {
            setStatus(`${location.name} is added (id ${location.id}).`)
            if (list.next === null) list.update((items) => [...items, location])
          }}
        />
      )}
      <StatusMessage text={status} />
      <ErrorMessage error={list.error} />
      {locations === null && !list.error && <Loading what="locations" />}
      {locations?.length === 0 && <p>This project has no locations yet: add the first one above.</p>}
      {locations && locations.length > 0 && (
        <StackedTable kind="locations" caption={`Locations of ${slug}`} columns={['Name', 'Id', 'Address', 'Coordinates', 'Actions']}>
          {locations.map((location) => (
            <tr key={location.id}>
              <th scope="row">{location.name}</th>
              <td data-label="Id">{location.id}</td>
              <td data-label="Address">{addressLine(location) || <span class="muted">None</span>}</td>
              <td data-label="Coordinates">{location.coordinates ? `${location.coordinates.latitude}, ${location.coordinates.longitude}` : <span class="muted">None</span>}</td>
              <RowActions>
                <RowButton label="Edit" what={location.name} onClick={() => editor.edit(location)} />
                <RowButton label="Remove" what={location.name} danger onClick={() => remove(location)} />
              </RowActions>
            </tr>
          ))}
        </StackedTable>
      )}
      <MoreButton list={list} pageSize={PAGE_SIZE} label="More locations" none="No more locations." />
      {editor.editing && <EditLocationDialog slug={slug} location={editor.editing} onDone={editor.done} />}
      {dialog}
    </>
  )
}

function NewLocationForm({ slug, onAdded }: { slug: string; onAdded: (location: ProjectLocation) => void }) {
  const [draft, setDraft] = useState(locationDraftOf())
  const { form, problem } = useFieldSubmit(async () => {
    const location = await api.post('/projects/{slug}/locations', { path: { slug }, body: newLocationOf(draft) })
    setDraft(locationDraftOf())
    onAdded(location)
    document.getElementById('new-location-name')?.focus()
  })
  return (
    <FormCard id="new-location" title="Add a location" submitLabel="Add location" form={form}>
      <LocationFields id="new-location" draft={draft} onChange={setDraft} problem={problem} />
    </FormCard>
  )
}

/** A location's fields in a modal form; `onDone` with the location as saved, or nothing when cancelled or unchanged. */
function EditLocationDialog({ slug, location, onDone }: { slug: string; location: ProjectLocation; onDone: (changed?: ProjectLocation) => void }) {
  const [draft, setDraft] = useState(locationDraftOf(location))
  const { form, problem } = useFieldSubmit(async () => {
    const changes = locationChangesOf(location, draft)
    onDone(Object.keys(changes).length === 0 ? undefined : await api.patch('/projects/{slug}/locations/{locationId}', { path: { slug, locationId: location.id }, body: changes }))
  })
  return (
    <FormDialog title={`Edit ${location.name}`} submitLabel="Save" form={form} onCancel={() => onDone()}>
      <LocationFields id="edit-location" draft={draft} onChange={setDraft} problem={problem} />
    </FormDialog>
  )
}
