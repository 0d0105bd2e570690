/**
 * The shelter's data features for operator commands that work on the store itself (`pets
 * import|export`, `locations`, `categories`): built by the same factories as the server, on the
 * migrated database, for one project named by `--project`.
 */
import pino from 'pino'
import { announceDataChange } from '../cache/generations.js'
import { createCategories } from '../categories/categories.module.js'
import type { CategoriesService } from '../categories/categories.service.js'
import { systemClock } from '../clock.js'
import { migrateToLatest, openDatabase } from '../db/database.js'
import type { Db } from '../db/database.js'
import { Idempotency } from '../idempotency/idempotency.service.js'
import { createLocations } from '../locations/locations.module.js'
import type { LocationsService } from '../locations/locations.service.js'
import { createPets } from '../pets/pets.module.js'
import type { PetsService } from '../pets/pets.service.js'
import { findProjectBySlug } from '../projects/projects.repository.js'
import { Outbox } from '../webhooks/outbox.js'
import { type CliContext, CliError } from './common.js'

export interface Shelter {
  db: Db
  /** The project `--project` names. */
  projectId: number
  pets: PetsService
  locations: LocationsService
  categories: CategoriesService
}

/**
 * Runs `work` on the project's features, then tells running servers that share cache generations
 * in Redis which projects' data changed (SQLite's own triggers tell its servers), and closes the
 * database.
 */
export async function withShelter(cli: CliContext, slug: string, work: (shelter: Shelter) => Promise<void>): Promise<void> {
  const config = cli.config()
  const database = openDatabase(config)
  const changed = new Set<number>()
  const generations = { dataChanged: async (projectId: number) => void changed.add(projectId) }
  try {
    await migrateToLatest(database.db)
    const { db } = database
    const project = await findProjectBySlug(db, slug)
    if (!project) throw new CliError(`No project with slug "${slug}" in ${database.location}: see \`adoption-store projects list\`.`)
    const clock = systemClock
    const locations = createLocations({ db, clock, generations })
    const categories = createCategories({ db, clock, generations })
    const pets = createPets({
      db,
      dialect: database.dialect,
      clock,
      // Idempotency-Keys are the API's; a command's changes are made once by itself.
      idempotency: new Idempotency(db, clock, pino({ level: 'silent' })),
      generations,
      // Which event types the project's endpoints want is read once per command.
      outbox: new Outbox(db, clock, { auth: async () => 'this command' }),
      locations: locations.service,
    })
    await work({ db, projectId: project.id, pets: pets.service, locations: locations.service, categories: categories.service })
  } finally {
    await announceDataChange(config, changed).catch((error: unknown) => {
      process.stderr.write(`warning: Redis not told of the change (${error instanceof Error ? error.message : String(error)}); servers' cached reads may lag until their next change\n`)
    })
    await database.close()
  }
}
