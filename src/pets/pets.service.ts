import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import type { Idempotency } from '../idempotency/idempotency.service.js'
import { findPet, insertPet, listPets, type PetFields, type PetFilter } from './pets.repository.js'
import type { NewPet, Pet } from './pets.schemas.js'

export function toPet(row: PetFields): Pet {
  return { id: row.id, name: row.name, categoryId: row.category_id, status: row.status }
}

export type CreatePetResult =
  | { ok: true; pet: Pet; replayed: boolean }
  | { ok: false; error: 'idempotency_key_reused' | 'idempotency_in_flight' }

export class PetsService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly idempotency: Idempotency,
  ) {}

  /** One page in ascending id order, and the cursor of the next page when there is one. */
  async list(projectId: number, filter: PetFilter): Promise<{ pets: Pet[]; nextAfter: number | undefined }> {
    // One row more than asked tells whether another page exists, without a count.
    const rows = await listPets(this.db, projectId, { ...filter, limit: filter.limit + 1 })
    const page = rows.slice(0, filter.limit)
    const more = rows.length > filter.limit
    return { pets: page.map(toPet), nextAfter: more ? page[page.length - 1]?.id : undefined }
  }

  async get(projectId: number, id: number): Promise<Pet | undefined> {
    const row = await findPet(this.db, projectId, id)
    return row && toPet(row)
  }

  async create(projectId: number, input: NewPet, idempotencyKey: string | undefined): Promise<CreatePetResult> {
    const pet = { name: input.name.trim(), categoryId: input.categoryId, status: input.status ?? 'available' }
    const insert = async (db: Db) => toPet(await insertPet(db, projectId, { ...pet, createdAt: new Date(this.clock.now()).toISOString() }))
    if (idempotencyKey === undefined) return { ok: true, pet: await insert(this.db), replayed: false }

    const outcome = await this.idempotency.run(projectId, idempotencyKey, { operation: 'createPet', body: input }, async (trx) => ({
      status: 201,
      body: await insert(trx),
    }))
    switch (outcome.kind) {
      case 'done':
        return { ok: true, pet: outcome.response.body, replayed: outcome.replayed }
      case 'reused':
        return { ok: false, error: 'idempotency_key_reused' }
      case 'in_flight':
        return { ok: false, error: 'idempotency_in_flight' }
    }
  }
}
