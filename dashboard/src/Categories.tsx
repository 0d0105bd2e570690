import { useEffect, useState } from 'preact/hooks'
import { api, messageOf, type ProjectCategory } from './api'
import { FieldProblem, problemFor, useFieldSubmit } from './changes'
import { Badge, ErrorMessage, Loading, RowActions, RowButton, StackedTable, StatusMessage } from './components'
import { FormCard, FormDialog, useActions, useConfirm } from './dialogs'
import { replacing, useEditDialog } from './edit-dialog'
import { TextAreaField, TextField } from './form-fields'

/** The breeds typed one per line (or comma-separated), each once. */
function breedsOf(text: string): string[] {
  const breeds = text
    .split(/[\n,]/)
    .map((breed) => breed.trim())
    .filter(Boolean)
  return [...new Map(breeds.map((breed) => [breed.toLowerCase(), breed])).values()]
}

/** Where a category's name comes from: the default set, the project over it, or the project alone. */
function originOf(category: ProjectCategory): string {
  if (category.defaultName === null) return "Project's own"
  return category.own ? `Renamed (default: ${category.defaultName})` : 'Default'
}

/**
 * A project's categories: the default set (Dog, Cat, …) as the project names them, and its own.
 * Rename one and add breeds to its list, add a category with an id of one's choosing, and remove
 * what the project set (a default category gets its name and breeds back; one of its own is gone).
 * Animals keep their category id through all of it.
 */
export function Categories({ slug }: { slug: string }) {
  const [categories, setCategories] = useState<ProjectCategory[] | null>(null)
  const { status, error, setStatus, setError, act } = useActions()
  const editor = useEditDialog<ProjectCategory>((changed) => {
    setCategories((list) => list && replacing(changed)(list))
    setStatus(`${changed.name} is saved.`)
  })
  const { dialog, ask } = useConfirm()

  const load = () => api.get('/projects/{slug}/categories', { path: { slug } }).then(setCategories, (caught: unknown) => setError(messageOf(caught)))
  useEffect(() => void load(), [slug])

  const remove = (category: ProjectCategory) =>
    ask(
      category.defaultName === null
        ? { title: `Remove ${category.name}?`, body: <p>Category {category.id} is removed from the project. Its animals keep category id {category.id}.</p>, confirmLabel: 'Remove category', danger: true }
        : {
            title: `Restore ${category.defaultName}?`,
            body: (
              <p>
                Category {category.id} gets its default name, {category.defaultName}, and its shipped breeds back: the project's name ({category.name}) and the {category.addedBreeds.length}{' '}
                breeds it added are dropped.
              </p>
            ),
            confirmLabel: 'Restore default',
          },
      () =>
        void act(async () => {
          await api.delete('/projects/{slug}/categories/{categoryId}', { path: { slug, categoryId: category.id } })
          await load()
          return category.defaultName === null ? `${category.name} is removed.` : `Category ${category.id} is ${category.defaultName} again.`
        }),
    )

  return (
    <>
      <h2 tabIndex={-1}>Categories</h2>
      <p>
        The kinds of animal of the project: the default set, named as the project likes, with the breeds the project adds to their lists, and categories of its own. An animal's
        category is its id: renaming or removing a category never changes an animal.
      </p>
      {categories && (
        <NewCategoryForm
          slug={slug}
          categories={categories}
          onAdded={(category) => {
            setStatus(`${category.name} is added (id ${category.id}).`)
            void load()
          }}
        />
      )}
      <StatusMessage text={status} />
      <ErrorMessage error={error} />
      {categories === null && !error && <Loading what="categories" />}
      {categories && (
        <StackedTable kind="categories" caption={`Categories of ${slug}`} columns={['Name', 'Id', 'Breeds', 'Name from', 'Actions']}>
          {categories.map((category) => (
            <tr key={category.id}>
              <th scope="row">{category.name}</th>
              <td data-label="Id">{category.id}</td>
              <td data-label="Breeds">
                <span>
                  {category.breedCount}
                  {category.addedBreeds.length > 0 && <span class="muted"> ({category.addedBreeds.length} added: {category.addedBreeds.join(', ')})</span>}
                </span>
              </td>
              <td data-label="Name from">
                <Badge tone={category.own ? 'good' : 'neutral'}>{originOf(category)}</Badge>
              </td>
              <RowActions>
                <RowButton label="Edit" what={category.name} onClick={() => editor.edit(category)} />
                {category.own && <RowButton label={category.defaultName === null ? 'Remove' : 'Restore default'} what={category.name} danger={category.defaultName === null} onClick={() => remove(category)} />}
              </RowActions>
            </tr>
          ))}
        </StackedTable>
      )}
      {editor.editing && <EditCategoryDialog slug={slug} category={editor.editing} onDone={editor.done} />}
      {dialog}
    </>
  )
}

function NewCategoryForm({ slug, categories, onAdded }: { slug: string; categories: readonly ProjectCategory[]; onAdded: (category: ProjectCategory) => void }) {
  const free = String(Math.max(100, ...categories.map((category) => category.id)) + 1)
  const [id, setId] = useState(free)
  const [name, setName] = useState('')
  const [breeds, setBreeds] = useState('')
  const { form, problem } = useFieldSubmit(async () => {
    const categoryId = Number(id)
    const taken = categories.find((category) => category.id === categoryId)
    if (taken) throw new FieldProblem('categoryId', `Id ${categoryId} is ${taken.name}: choose a free id, or edit ${taken.name} in the table.`)
    const category = await api.put('/projects/{slug}/categories/{categoryId}', { path: { slug, categoryId }, body: { name: name.trim(), breeds: breedsOf(breeds) } })
    setName('')
    setBreeds('')
    onAdded(category)
  })
  useEffect(() => setId(free), [free])
  return (
    <FormCard id="new-category" title="Add a category" submitLabel="Add category" form={form}>
      <TextField
        id="new-category-id"
        label="Id (an animal's category id)"
        value={id}
        onChange={setId}
        error={problemFor(problem, 'categoryId')}
        input={{ type: 'number', required: true, min: 1, step: 1, inputMode: 'numeric' }}
      />
      <TextField id="new-category-name" label="Name" value={name} onChange={setName} error={problemFor(problem, 'name')} input={{ required: true, maxLength: 100, autoComplete: 'off' }} />
      <TextAreaField id="new-category-breeds" label="Breeds" wide rows={2} maxLength={50_000} help="One per line (or comma-separated); optional" value={breeds} onChange={setBreeds} />
    </FormCard>
  )
}

/** A category's name and the breeds the project adds to it, in a modal form. */
function EditCategoryDialog({ slug, category, onDone }: { slug: string; category: ProjectCategory; onDone: (changed?: ProjectCategory) => void }) {
  const [name, setName] = useState(category.name)
  const [breeds, setBreeds] = useState(category.addedBreeds.join('\n'))
  const shipped = category.breedCount - category.addedBreeds.length
  const { form, problem } = useFieldSubmit(async () => {
    onDone(await api.put('/projects/{slug}/categories/{categoryId}', { path: { slug, categoryId: category.id }, body: { name: name.trim(), breeds: breedsOf(breeds) } }))
  })
  return (
    <FormDialog title={`Edit ${category.name}`} submitLabel="Save" form={form} onCancel={() => onDone()}>
      <TextField id="edit-category-name" label="Name" value={name} onChange={setName} error={problemFor(problem, 'name')} input={{ required: true, maxLength: 100, autoComplete: 'off' }} />
      <TextAreaField
        id="edit-category-breeds"
        label="Added breeds"
        rows={5}
        maxLength={50_000}
        help={`One per line, added to the ${shipped} shipped with the category; at most 500`}
        value={breeds}
        onChange={setBreeds}
        error={problemFor(problem, 'breeds')}
      />
    </FormDialog>
  )
}
