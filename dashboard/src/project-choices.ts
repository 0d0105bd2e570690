/**
 * A project's categories and locations, read whole for pickers, filters and names in tables. A
 * category id or location id that names none of them is still a valid value of an animal: shown
 * as its number.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, messageOf, type NextPage, page, type Page, type ProjectCategory, type ProjectLocation } from './api'

export interface Choices<T> {
  /** Null while they load (or when they could not be read: see `error`). */
  items: T[] | null
  error: string | null
}

function useChoices<T>(slug: string, load: () => Promise<T[]>): Choices<T> {
  const [items, setItems] = useState<T[] | null>(null)
  const [error, setError] = useState<string | null>(null)
  useEffect(() => {
    let current = true
    load().then(
      (read) => current && setItems(read),
      (caught: unknown) => current && setError(messageOf(caught)),
    )
    return () => {
      current = false
    }
  }, [slug])
  return { items, error }
}

export function useCategories(slug: string): Choices<ProjectCategory> {
  return useChoices(slug, () => api.get('/projects/{slug}/categories', { path: { slug } }))
}

/** Every location of the project, page after page (a project has at most 1,000). */
export function useLocations(slug: string): Choices<ProjectLocation> {
  return useChoices(slug, async () => {
    const all: ProjectLocation[] = []
    let next: NextPage | null = null
    do {
      const read: Page<ProjectLocation> = await page('/projects/{slug}/locations', { path: { slug }, query: { limit: 100 } }, next)
      all.push(...read.items)
      next = read.next
    } while (next)
    return all
  })
}

/** A category's name, or its number when the project has no category with that id. */
export function categoryName(categories: readonly ProjectCategory[] | null, id: number): string {
  return categories?.find((category) => category.id === id)?.name ?? String(id)
}

/** The options of a picker of ids: each item by name, and `current` as its number when it names none. */
export function idOptions<T extends { id: number; name: string }>(items: readonly T[] | null, current: string): { value: string; text: string }[] {
  const options = (items ?? []).map((item) => ({ value: String(item.id), text: item.name }))
  if (current !== '' && !options.some((option) => option.value === current)) options.push({ value: current, text: `${current} (no such id in this project)` })
  return options
}
