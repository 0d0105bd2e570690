import { useEffect, useState } from 'preact/hooks'
import { AnimalFilters, filtersOf, isFiltered, queryOf, showsAtEnd, SORTS } from './animal-list/filters'
import { api, page, PET_STATUSES, type Pet, type PetStatus, type ProjectCategory, type RequestBody } from './api'
import { Badge, type BadgeTone, ColumnHeads, ErrorMessage, Hidden, Loading, RowActions, RowButton, StatusMessage, TableWrap } from './components'
import { useReadOnly } from './read-only'
import { FormCard, FormDialog, useConfirm, useSubmit } from './dialogs'
import { replacing, useEditDialog } from './edit-dialog'
import { SelectField } from './form-fields'
import { MoreButton, removeFromList, usePagedList } from './paged-list'
import { categoryName, useCategories, useLocations } from './project-choices'
import { animalPath, Link, navigate, projectPath } from './router'

const PAGE_SIZE = 25

const STATUS_TONE: Record<PetStatus, BadgeTone> = { available: 'good', pending: 'wait', sold: 'neutral' }

export function PetStatusBadge({ status }: { status: PetStatus }) {
  return <Badge tone={STATUS_TONE[status]}>{status}</Badge>
}

/**
 * A project's animals: a table paged by the API's cursor ("More animals"), with the API's filters
 * and search (in the address); add one by name and category (or with a whole profile, in the
 * editor), change its name and category, open its profile, remove it. An animal's status is not
 * edited here: its adoption orders move it (the Orders tab).
 */
export function Animals({ slug, search }: { slug: string; search: string }) {
  const filters = filtersOf(search)
  const [draft, setDraft] = useState(filters)
  const [status, setStatus] = useState<string | null>(null)
  const readOnly = useReadOnly()
  const editor = useEditDialog<Pet>((changed) => {
    list.update(replacing(changed))
    setStatus(`${changed.name} is saved.`)
  })
  const { dialog, ask } = useConfirm()
  const categories = useCategories(slug)
  const locations = useLocations(slug)
  const query = { ...queryOf(filters), limit: PAGE_SIZE, sort: filters.sort }
  const list = usePagedList(search, (next) => page('/projects/{slug}/animals', { path: { slug }, query }, next))
  const animals = list.items
  useEffect(() => setDraft(filters), [search])

  const remove = (pet: Pet) =>
    ask(
      {
        title: `Remove ${pet.name}?`,
        body: (
          <>
            <p>
              {pet.name} (id {pet.id}) is removed from the listings and from the API. This cannot be undone.
            </p>
            <p>Its delivered and cancelled adoption orders are kept, with its name. An animal with an open order (placed or approved) cannot be removed.</p>
          </>
        ),
        confirmLabel: 'Remove animal',
        danger: true,
      },
      () =>
        removeFromList(list, pet, () => api.delete('/projects/{slug}/animals/{petId}', { path: { slug, petId: pet.id } }), setStatus, {
          code: 'pet_has_open_order',
          explanation: (
            <>
              {pet.name} has an open adoption order (placed or approved), so it cannot be removed yet. Deliver or cancel the order on the{' '}
              <Link to={projectPath(slug, 'orders')}>Orders tab</Link>, then remove the animal.
            </>
          ),
        }),
    )

  const filtered = isFiltered(filters)
  const order = SORTS.find((sort) => sort.value === filters.sort)?.value
  return (
    <>
      <h2 tabIndex={-1}>Animals</h2>
      {!readOnly && (
        <>
          <p>
            Add an animal by its name and category here, or <Link to={animalPath(slug, 'new')}>add one with its whole profile</Link>.
          </p>
          <NewAnimalForm
            slug={slug}
            categories={categories.items}
            onAdded={(pet) => {
              setStatus(`${pet.name} is added (id ${pet.id}).`)
              // In id order, a new animal comes last: shown once the list's end is loaded.
              if (list.next === null && showsAtEnd(pet, filters)) list.update((items) => [...items, pet])
            }}
          />
        </>
      )}
      {/* Filters once there is something to filter. */}
      {(filtered || Boolean(animals?.length)) && (
        <AnimalFilters draft={draft} setDraft={setDraft} categories={categories.items} locations={locations.items} onApply={() => navigate(projectPath(slug, 'animals', queryOf(draft)))} />
      )}
      <StatusMessage text={status} />
      <ErrorMessage error={list.error} />
      {animals === null && !list.error && <Loading what="animals" />}
      {animals?.length === 0 && <p>{filtered ? 'No animals match these filters.' : 'This project has no animals yet: add the first one above.'}</p>}
      {animals && animals.length > 0 && (
        <TableWrap label={`Animals of ${slug}`}>
          <table class="animals stacked">
            <caption>
              Animals of {slug}
              {filtered ? ' (filtered)' : ''}, {order === '-createdAt' ? 'newest first' : order === 'name' ? 'by name' : 'in the order they were added'}
            </caption>
            <ColumnHeads names={['Name', 'Id', 'Category', 'Status', 'Actions']} />
            <tbody>
              {animals.map((pet) => (
                <tr key={pet.id}>
                  <th scope="row" class="animal-name">
                    {pet.name}
                  </th>
                  <td data-label="Id">{pet.id}</td>
                  <td data-label="Category">
                    <CategoryName categories={categories.items} id={pet.categoryId} />
                  </td>
                  <td data-label="Status">
                    <PetStatusBadge status={pet.status} />
                  </td>
                  <RowActions>
                    <Link to={animalPath(slug, pet.id)} class="button-link">
                      Profile<Hidden> of {pet.name}</Hidden>
                    </Link>
                    <RowButton label="Edit" what={pet.name} onClick={() => editor.edit(pet)} />
                    <RowButton label="Remove" what={pet.name} danger onClick={() => remove(pet)} />
                  </RowActions>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <MoreButton list={list} pageSize={PAGE_SIZE} label="More animals" none="No more animals." />
      {editor.editing && <EditAnimalDialog slug={slug} pet={editor.editing} categories={categories.items} onDone={editor.done} />}
      {dialog}
    </>
  )
}

/** A category id as typed: a whole number from 1, or undefined. */
function categoryOf(text: string): number | undefined {
  const value = Number(text)
  return text.trim() !== '' && Number.isSafeInteger(value) && value >= 1 ? value : undefined
}

/** A category's name, and its id beside it (an id that names no category shows alone). */
function CategoryName({ categories, id }: { categories: readonly ProjectCategory[] | null; id: number }) {
  const name = categoryName(categories, id)
  return name === String(id) ? <span>{id}</span> : <span>{name} <span class="muted">({id})</span></span>
}

function NameAndCategory({
  id,
  name,
  category,
  categories,
  onName,
  onCategory,
}: {
  id: string
  name: string
  category: string
  categories: readonly ProjectCategory[] | null
  onName: (v: string) => void
  onCategory: (v: string) => void
}) {
  const typed = categoryOf(category)
  const named = typed === undefined ? undefined : categories?.find((c) => c.id === typed)?.name
  return (
    <>
      <div class="field">
        <label for={`${id}-name`}>Name</label>
        <input id={`${id}-name`} required maxLength={100} autoComplete="off" value={name} onInput={(e) => onName(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for={`${id}-category`}>Category id</label>
        <input id={`${id}-category`} type="number" required min={1} step={1} inputMode="numeric" aria-describedby={`${id}-category-name`} value={category} onInput={(e) => onCategory(e.currentTarget.value)} />
        <p class="help" id={`${id}-category-name`}>
          {typed === undefined ? 'A whole number from 1' : (named ?? 'No category of the project has this id: see the Categories tab')}
        </p>
      </div>
    </>
  )
}

function NewAnimalForm({ slug, categories, onAdded }: { slug: string; categories: readonly ProjectCategory[] | null; onAdded: (pet: Pet) => void }) {
  const [name, setName] = useState('')
  const [category, setCategory] = useState('1')
  const [status, setStatus] = useState<PetStatus>('available')
  const form = useSubmit(async () => {
    const body: RequestBody<'addAnimal'> = { name: name.trim(), categoryId: categoryOf(category) ?? Number.NaN, status }
    const pet = await api.post('/projects/{slug}/animals', { path: { slug }, body })
    setName('')
    onAdded(pet)
    document.getElementById('new-animal-name')?.focus()
  })
  return (
    <FormCard id="new-animal" title="Add an animal" submitLabel="Add animal" form={form}>
      <NameAndCategory id="new-animal" name={name} category={category} categories={categories} onName={setName} onCategory={setCategory} />
      <SelectField id="new-animal-status" label="Status" value={status} options={PET_STATUSES.map((value) => ({ value, text: value }))} onChange={setStatus} />
    </FormCard>
  )
}

/** Name and category of an animal, in a modal form; `onDone` with the animal as saved, or nothing when cancelled. */
function EditAnimalDialog({ slug, pet, categories, onDone }: { slug: string; pet: Pet; categories: readonly ProjectCategory[] | null; onDone: (changed?: Pet) => void }) {
  const [name, setName] = useState(pet.name)
  const [category, setCategory] = useState(String(pet.categoryId))
  const form = useSubmit(async () => {
    const changes: RequestBody<'updateAnimal'> = {}
    if (name.trim() !== pet.name) changes.name = name.trim()
    if (categoryOf(category) !== pet.categoryId) changes.categoryId = categoryOf(category) ?? Number.NaN
    onDone(Object.keys(changes).length === 0 ? undefined : await api.patch('/projects/{slug}/animals/{petId}', { path: { slug, petId: pet.id }, body: changes }))
  })
  return (
    <FormDialog title={`Edit ${pet.name}`} submitLabel="Save" form={form} onCancel={() => onDone()}>
      <NameAndCategory id="edit-animal" name={name} category={category} categories={categories} onName={setName} onCategory={setCategory} />
      <p class="help">The status follows the animal's adoption orders: see the Orders tab.</p>
    </FormDialog>
  )
}
