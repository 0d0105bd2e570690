import { type Change, recordChange } from '../audit/audit.js'
import type { Generations } from '../cache/generations.js'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import type { CategoryRow } from '../db/schema.js'
import { type Outcome, Refusal, refuse } from '../errors.js'
import { countProjectCategories, deleteCategory, findProjectCategory, listProjectCategories, upsertCategory } from './categories.repository.js'
import { type Breed, type Category, type CategoryInput, MAX_PROJECT_CATEGORIES, type ProjectCategory } from './categories.schemas.js'
import { DEFAULT_CATEGORIES } from './default-categories.js'

export interface CategoriesDeps {
  db: Db
  clock: Clock
  /** Told after a committed change: category lists in cached answers move with it. */
  generations: Pick<Generations, 'dataChanged'>
}

const DEFAULTS = new Map(DEFAULT_CATEGORIES.map((category) => [category.id, category]))

const byName = (a: string, b: string) => a.localeCompare(b, 'en', { sensitivity: 'base' })

/**
 * The categories of a project: the default set (Dog, Cat, Rabbit, … with their shipped breeds),
 * renamed or given more breeds where the project says so, and categories of its own. An animal's
 * `categoryId` may name none of them: the spec allows any id, and such an animal keeps working.
 */
export class CategoriesService {
  constructor(private readonly deps: CategoriesDeps) {}

  async list(projectId: number): Promise<Category[]> {
    return (await this.listForProject(projectId)).map(({ id, name, breedCount }) => ({ id, name, breedCount }))
  }

  async listForProject(projectId: number): Promise<ProjectCategory[]> {
    const own = new Map((await listProjectCategories(this.deps.db, projectId)).map((row) => [row.id, row]))
    const ids = [...new Set([...DEFAULTS.keys(), ...own.keys()])].sort((a, b) => a - b)
    return ids.map((id) => merged(id, own.get(id)))
  }

  /** A category's breeds (shipped and added by the project), or undefined when the id names no category. */
  async breeds(projectId: number, id: number): Promise<Breed[] | undefined> {
    const own = await findProjectCategory(this.deps.db, projectId, id)
    if (!own && !DEFAULTS.has(id)) return undefined
    return breedsOf(id, own).map((name) => ({ name }))
  }

  async set(projectId: number, id: number, input: CategoryInput, change?: Change): Promise<Outcome<{ category: ProjectCategory }>> {
    const name = input.name.trim()
    if (name === '') return { ok: false, error: 'invalid_request', message: 'Body field "name" is empty once its surrounding spaces are trimmed: name the category.' }
    // Each breed once, whatever the case, spelt as first given.
    const unique = new Map<string, string>()
    for (const breed of (input.breeds ?? []).map((name) => name.trim()).filter(Boolean)) if (!unique.has(breed.toLowerCase())) unique.set(breed.toLowerCase(), breed)
    const added = [...unique.values()].sort(byName)
    return this.changed(projectId, async (trx) => {
      const existing = await findProjectCategory(trx, projectId, id)
      // The name and breeds it has: the category as it is, with no write or audit entry.
      if (existing && existing.name === name && addedBreeds(existing).join('\n') === added.join('\n')) return merged(id, existing)
      if (!existing && !DEFAULTS.has(id) && (await countProjectCategories(trx, projectId)) >= MAX_PROJECT_CATEGORIES) {
        return refuse('limit_reached', `The project has ${MAX_PROJECT_CATEGORIES} categories of its own, the most it may have.`)
      }
      const row = await upsertCategory(trx, projectId, id, name, added.length > 0 ? JSON.stringify(added) : null, new Date(this.deps.clock.now()).toISOString())
      if (change) await recordChange(trx, this.deps.clock, change, { action: 'category.set', target: { type: 'category', id }, projectId, details: { name, addedBreeds: added.length } })
      return merged(id, row)
    })
  }

  async remove(projectId: number, id: number, change?: Change): Promise<Outcome<{ category: ProjectCategory }>> {
    return this.changed(projectId, async (trx) => {
      const row = await deleteCategory(trx, projectId, id)
      if (!row) return refuse('not_found', `The project has no name or breeds of its own for category ${id}.`)
      if (change) await recordChange(trx, this.deps.clock, change, { action: 'category.removed', target: { type: 'category', id }, projectId, details: { name: row.name } })
      return merged(id, row)
    })
  }

  private async changed(projectId: number, work: (trx: Db) => Promise<ProjectCategory>): Promise<Outcome<{ category: ProjectCategory }>> {
    let category: ProjectCategory
    try {
      category = await this.deps.db.transaction().execute(work)
    } catch (error) {
      if (error instanceof Refusal) return error.failure
      throw error
    }
    await this.deps.generations.dataChanged(projectId)
    return { ok: true, category }
  }
}

function addedBreeds(row: CategoryRow | undefined): string[] {
  return row?.breeds ? (JSON.parse(row.breeds) as string[]) : []
}

function breedsOf(id: number, own: CategoryRow | undefined): string[] {
  const all = new Map<string, string>()
  for (const breed of [...(DEFAULTS.get(id)?.breeds ?? []), ...addedBreeds(own)]) if (!all.has(breed.toLowerCase())) all.set(breed.toLowerCase(), breed)
  return [...all.values()].sort(byName)
}

function merged(id: number, own: CategoryRow | undefined): ProjectCategory {
  const fallback = DEFAULTS.get(id)
  return {
    id,
    name: own?.name ?? fallback?.name ?? String(id),
    breedCount: breedsOf(id, own).length,
    defaultName: fallback?.name ?? null,
    own: own !== undefined,
    addedBreeds: addedBreeds(own),
  }
}
