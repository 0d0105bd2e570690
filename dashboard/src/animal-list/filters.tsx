/**
 * The Animals tab's filters: those of the API's list (search, category, sex, age, size, status,
 * good with children, dogs or cats, location, order) and the name search, kept in the tab's
 * address (`…/animals?q=lab&sex=female&sort=name`) so that a filtered view can be shared, and
 * sent to `listAnimals` as they are.
 */
import { PET_STATUSES, type Pet, type PetStatus, type ProjectCategory, type ProjectLocation } from '../api'
import { AGES, type Answer, ANSWERS, SEXES, SIZES } from '../animal-editor/draft'
import { FilterForm } from '../components'
import { SelectField, TextField } from '../form-fields'
import { idOptions } from '../project-choices'

export const SORTS = [
  { value: 'id', text: 'Order added' },
  { value: '-createdAt', text: 'Newest first' },
  { value: 'name', text: 'Name' },
] as const
export type Sort = (typeof SORTS)[number]['value']

export interface Filters {
  q: string
  name: string
  status: PetStatus | ''
  categoryId: string
  sex: string
  age: string
  size: string
  goodWithChildren: Answer | ''
  goodWithDogs: Answer | ''
  goodWithCats: Answer | ''
  locationId: string
  sort: Sort
}

const GOOD_WITH = [
  { name: 'goodWithChildren', label: 'Good with children' },
  { name: 'goodWithDogs', label: 'Good with dogs' },
  { name: 'goodWithCats', label: 'Good with cats' },
] as const

/** The value of `name` when it is one of `values`, else '' (any). */
function oneOf<T extends string>(params: URLSearchParams, name: string, values: readonly T[]): T | '' {
  const value = params.get(name) ?? ''
  return values.includes(value as T) ? (value as T) : ''
}

const id = (params: URLSearchParams, name: string) => (/^[1-9][0-9]{0,15}$/.test(params.get(name) ?? '') ? (params.get(name) ?? '') : '')

export function filtersOf(search: string): Filters {
  const params = new URLSearchParams(search)
  return {
    q: params.get('q') ?? '',
    name: params.get('name') ?? '',
    status: oneOf(params, 'status', PET_STATUSES),
    categoryId: id(params, 'categoryId'),
    sex: oneOf(params, 'sex', SEXES),
    age: oneOf(params, 'age', AGES),
    size: oneOf(params, 'size', SIZES),
    goodWithChildren: oneOf(params, 'goodWithChildren', ANSWERS),
    goodWithDogs: oneOf(params, 'goodWithDogs', ANSWERS),
    goodWithCats: oneOf(params, 'goodWithCats', ANSWERS),
    locationId: id(params, 'locationId'),
    sort: oneOf(params, 'sort', SORTS.map((sort) => sort.value)) || 'id',
  }
}

/** The filters for the address and for the API: empty ones (and the default order) left out. */
export function queryOf(filters: Filters): Record<string, string> {
  const { sort, ...rest } = filters
  return Object.fromEntries(Object.entries({ ...rest, q: rest.q.trim(), name: rest.name.trim(), sort: sort === 'id' ? '' : sort }).filter(([, value]) => value !== ''))
}

/** Whether any filter is in force (the order is not a filter). */
export function isFiltered(filters: Filters): boolean {
  return Object.keys(queryOf({ ...filters, sort: 'id' })).length > 0
}

/**
 * Whether an animal just added belongs at the end of the list as shown: in the default order, by
 * the filters this page can check itself.
 */
export function showsAtEnd(pet: Pet, filters: Filters): boolean {
  const { status, name, sort, ...others } = filters
  const checked = (!status || pet.status === status) && pet.name.toLowerCase().includes(name.toLowerCase())
  return sort === 'id' && checked && Object.values(others).every((value) => value === '')
}

const anyOf = <T extends string>(values: readonly T[], any: string) => [{ value: '' as const, text: any }, ...values.map((value) => ({ value, text: value.replace(/_/g, ' ') }))]

export function AnimalFilters({
  draft,
  setDraft,
  categories,
  locations,
  onApply,
}: {
  draft: Filters
  setDraft: (filters: Filters) => void
  categories: readonly ProjectCategory[] | null
  locations: readonly ProjectLocation[] | null
  onApply: () => void
}) {
  const set = <K extends keyof Filters>(name: K) => (value: Filters[K]) => setDraft({ ...draft, [name]: value })
  return (
    <FilterForm label="Filter the animals" onApply={onApply}>
      <TextField id="animals-q" label="Search" value={draft.q} onChange={set('q')} input={{ type: 'search', maxLength: 200 }} />
      <TextField id="animals-name" label="Name contains" value={draft.name} onChange={set('name')} input={{ type: 'search', maxLength: 100 }} />
      <SelectField id="animals-status" label="Filter by status" value={draft.status} options={anyOf(PET_STATUSES, 'Any status')} onChange={set('status')} />
      <SelectField id="animals-category" label="Filter by category" value={draft.categoryId} options={[{ value: '', text: 'Any category' }, ...idOptions(categories, draft.categoryId)]} onChange={set('categoryId')} />
      <SelectField id="animals-sex" label="Filter by sex" value={draft.sex} options={anyOf(SEXES, 'Any sex')} onChange={set('sex')} />
      <SelectField id="animals-age" label="Filter by age" value={draft.age} options={anyOf(AGES, 'Any age')} onChange={set('age')} />
      <SelectField id="animals-size" label="Filter by size" value={draft.size} options={anyOf(SIZES, 'Any size')} onChange={set('size')} />
      {GOOD_WITH.map(({ name, label }) => (
        <SelectField key={name} id={`animals-${name}`} label={label} value={draft[name]} options={anyOf(ANSWERS, 'Any')} onChange={set(name)} />
      ))}
      <SelectField id="animals-location" label="Filter by location" value={draft.locationId} options={[{ value: '', text: 'Any location' }, ...idOptions(locations, draft.locationId)]} onChange={set('locationId')} />
      <SelectField id="animals-sort" label="Sort by" value={draft.sort} options={SORTS} onChange={set('sort')} />
    </FilterForm>
  )
}
