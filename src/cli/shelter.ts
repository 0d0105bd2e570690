/**
 * The shelter's data features for operator commands that work on the store itself (`pets
 * import|export`, `locations`, `categories`): built by the server's factories (see `withFeatures`),
 * for one project named by `--project`.
 */
import { announceDataChange } from '../cache/generations.js'
import { ResponseCache } from '../cache/response-cache.js'
import { createCategories } from '../categories/categories.module.js'
import type { CategoriesService } from '../categories/categories.service.js'
import type { Db } from '../db/database.js'
import { createIdempotency } from '../idempotency/idempotency.module.js'
import { createLocations } from '../locations/locations.module.js'
import type { LocationsService } from '../locations/locations.service.js'
import { createPets } from '../pets/pets.module.js'
import type { PetsService } from '../pets/pets.service.js'
import { createPhotos } from '../photos/photos.module.js'
import type { PhotosService } from '../photos/photos.service.js'
import { createObjectStore } from '../storage/backend.js'
import { findProjectBySlug } from '../projects/projects.repository.js'
import { type CliContext, CliError, type CommandDeps, DATA_LAG, redisNotTold, withFeatures } from './common.js'

export interface Shelter {
  db: Db
  /** The project `--project` names. */
  projectId: number
  pets: PetsService
  photos: PhotosService
  locations: LocationsService
  categories: CategoriesService
}

/**
 * Runs `work` on the project's features, then tells running servers that share cache generations
 * in Redis which projects' data changed (SQLite's own triggers tell its servers).
 */
export async function withShelter(cli: CliContext, slug: string, work: (shelter: Shelter) => Promise<void>): Promise<void> {
  const changed = new Set<number>()
  const build = (deps: CommandDeps) => {
    const generations = { dataChanged: async (projectId: number) => void changed.add(projectId) }
    // A command answers no request: its response cache holds nothing.
    const cache = new ResponseCache({ data: async () => undefined, auth: async () => undefined } as never, 0, { hit: () => undefined, miss: () => undefined })
    const locations = createLocations({ db: deps.db, clock: deps.clock, generations, cache })
    const categories = createCategories({ db: deps.db, clock: deps.clock, generations, cache })
    const idempotency = createIdempotency({ db: deps.db, clock: deps.clock, log: deps.log }).service
    const photos = createPhotos({ db: deps.db, clock: deps.clock, store: createObjectStore(deps.config), config: deps.config, generations, outbox: deps.outbox, log: deps.log })
    const pets = createPets({ db: deps.db, dialect: deps.dialect, clock: deps.clock, idempotency, generations, outbox: deps.outbox, locations: locations.service, photos: photos.service, cache })
    return { db: deps.db, pets: pets.service, photos: photos.service, locations: locations.service, categories: categories.service, close: () => photos.sweeper.close() }
  }
  try {
    await withFeatures(cli, build, async (features) => {
      const project = await findProjectBySlug(features.db, slug)
      if (!project) throw new CliError(`No project with slug "${slug}": see \`adoption-store projects list\`.`)
      try {
        await work({ ...features, projectId: project.id })
      } finally {
        await features.close()
      }
    })
  } finally {
    await announceDataChange(cli.config(), changed).catch((error: unknown) => {
      cli.note(`warning: ${redisNotTold(error, DATA_LAG)}`)
    })
  }
}
