import type { Generations } from '../cache/generations.js'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import { type Page, pageOf } from '../http/pagination.js'
import type { Idempotency } from '../idempotency/idempotency.service.js'
import type { Outbox } from '../webhooks/outbox.js'
import { findPet, insertPet, insertPetReported, listPets, type PetFilter } from './pets.repository.js'
import type { NewPet, Pet } from './pets.schemas.js'

export type CreatePetResult =
  | { ok: true; pet: Pet; replayed: boolean }
  | { ok: false; error: 'idempotency_key_reused' | 'idempotency_in_flight' }

export class PetsService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly idempotency: Idempotency,
    private readonly generations: Generations,
    private readonly outbox: Outbox,
  ) {}

  /** One page in ascending id order, and the cursor of the next page when there is one. */
  async list(projectId: number, filter: PetFilter): Promise<Page<Pet>> {
    return pageOf(await listPets(this.db, projectId, { ...filter, limit: filter.limit + 1 }), filter.limit)
  }

  async get(projectId: number, id: number): Promise<Pet | undefined> {
    return findPet(this.db, projectId, id)
  }

  async create(projectId: number, input: NewPet, idempotencyKey: string | undefined): Promise<CreatePetResult> {
    const result = await this.createOnce(projectId, input, idempotencyKey)
    // Before the answer: the next read on any instance must see the new animal.
    if (result.ok) await this.generations.dataChanged(projectId)
    return result
  }

  private async createOnce(projectId: number, input: NewPet, idempotencyKey: string | undefined): Promise<CreatePetResult> {
    const pet = { name: input.name.trim(), categoryId: input.categoryId, status: input.status ?? 'available' }
    // pet.created goes out with the animal, in its transaction, when an endpoint wants it.
    const reported = await this.outbox.wants(projectId, 'pet.created')
    const insert = async (db: Db) => {
      const createdAt = new Date(this.clock.now()).toISOString()
      if (!reported) return insertPet(db, projectId, { ...pet, createdAt })
      const { id, type } = this.outbox.event(projectId, 'pet.created', null)
      const created = await insertPetReported(db, projectId, { ...pet, createdAt }, { id, projectId, type, createdAt })
      this.outbox.written()
      return created
    }
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
