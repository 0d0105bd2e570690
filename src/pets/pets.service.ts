import { type Change, recordChange } from '../audit/audit.js'
import type { Db } from '../db/database.js'
import { type Outcome, refuse } from '../errors.js'
import { type Page, pageOf } from '../http/pagination.js'
import { DataService } from '../idempotency/data-service.js'
import type { ChangeOutcome } from '../idempotency/idempotency.service.js'
import { findOpenOrder, keepPetName } from '../orders/orders.repository.js'
import type { WebhookEventType } from '../webhooks/events.js'
import { deletePet, findPet, insertPet, insertPetReported, listPets, type PetFilter, updatePet } from './pets.repository.js'
import type { NewPet, Pet, PetChanges } from './pets.schemas.js'

/** Who asks for a change, besides the project it is made in. */
export interface ChangeOptions {
  /** A /v1 request's Idempotency-Key: the change happens at most once per key, and a retry replays it. */
  idempotencyKey?: string | undefined
  /** An admin's change (the dashboard, the admin API): recorded in the audit log, in the change's transaction. */
  change?: Change | undefined
}

/** A change of an animal: the animal as it is after it, and whether this answer is a replay. */
export type PetChangeResult = Outcome<{ pet: Pet; replayed: boolean }>

/**
 * A project's animals. Every change has one method, used by /v1 and the admin API alike; its
 * transaction holds the change and everything that must commit with it (the audit entry), and
 * the caches hear of it before the method answers.
 */
export class PetsService extends DataService {
  /** One page in ascending id order, and the cursor of the next page when there is one. */
  async list(projectId: number, filter: PetFilter): Promise<Page<Pet>> {
    return pageOf(await listPets(this.db, projectId, { ...filter, limit: filter.limit + 1 }), filter.limit)
  }

  async get(projectId: number, id: number): Promise<Pet | undefined> {
    return findPet(this.db, projectId, id)
  }

  /** Adds an animal; `status` defaults to `available`. */
  async create(projectId: number, input: NewPet, options: ChangeOptions = {}): Promise<PetChangeResult> {
    const pet = { name: input.name.trim(), categoryId: input.categoryId, status: input.status ?? 'available' }
    const insert = (db: Db) => insertPet(db, projectId, { ...pet, createdAt: new Date(this.clock.now()).toISOString() })
    // pet.created goes out with the animal, in its transaction, when an endpoint wants it.
    const reported = await this.outbox.wants(projectId, 'pet.created')
    if (options.idempotencyKey === undefined && options.change === undefined) {
      // The common /v1 create needs nothing else in its transaction: it joins the group commit,
      // with its event when there is one.
      const created = reported ? await this.insertReported(projectId, pet) : await insert(this.db)
      await this.generations.dataChanged(projectId)
      return { ok: true, pet: created, replayed: false }
    }
    return this.changed(projectId, { key: options.idempotencyKey, sent: { operation: 'createPet', body: input }, status: 201 }, async (trx) => {
      const created = await insert(trx)
      await this.record(trx, projectId, options.change, 'pet.created', created, { name: created.name, categoryId: created.categoryId, status: created.status })
      if (reported) await this.outbox.write(trx, projectId, 'pet.created', created)
      return created
    })
  }

  /** An animal and its pet.created event, committed together (in the group commit where there is one). */
  private async insertReported(projectId: number, pet: { name: string; categoryId: number; status: Pet['status'] }): Promise<Pet> {
    const createdAt = new Date(this.clock.now()).toISOString()
    const { id, type } = this.outbox.event(projectId, 'pet.created', null)
    const created = await insertPetReported(this.db, projectId, { ...pet, createdAt }, { id, projectId, type, createdAt })
    this.outbox.written()
    return created
  }

  /** Changes an animal's name or category. Its status is the orders' to change. */
  async update(projectId: number, id: number, input: PetChanges, options: ChangeOptions = {}): Promise<PetChangeResult> {
    const changes = { name: input.name?.trim(), categoryId: input.categoryId }
    const report = await this.reporter(projectId, 'pet.updated')
    return this.changed(projectId, { key: options.idempotencyKey, sent: { operation: 'updatePet', petId: id, body: input }, status: 200 }, async (trx) => {
      const before = await findPet(trx, projectId, id)
      const after = before && (await updatePet(trx, projectId, id, changes))
      if (!before || !after) return refuse('not_found', noSuchPet(id))
      const fields = (Object.keys(input) as (keyof PetChanges)[]).filter((field) => input[field] !== undefined)
      await this.record(trx, projectId, options.change, 'pet.updated', after, {
        from: Object.fromEntries(fields.map((field) => [field, before[field]])),
        to: Object.fromEntries(fields.map((field) => [field, after[field]])),
      })
      await report(trx, after)
      return after
    })
  }

  /**
   * Removes an animal, unless an order of it is open (placed or approved). Its delivered and
   * cancelled orders stay, with its name: adoption records outlive the animal's listing. The
   * removal and the check are one transaction that deletes first: a concurrent order either
   * committed before (and is seen) or waits for the deleted row (and finds no animal).
   */
  async remove(projectId: number, id: number, options: Pick<ChangeOptions, 'change'> = {}): Promise<PetChangeResult> {
    const report = await this.reporter(projectId, 'pet.deleted')
    return this.changed(projectId, undefined, async (trx) => {
      const removed = await deletePet(trx, projectId, id)
      if (!removed) return refuse('not_found', noSuchPet(id))
      const open = await findOpenOrder(trx, projectId, id)
      if (open) {
        return refuse(
          'pet_has_open_order',
          `Animal ${id} has an open adoption order (order ${open.id}, ${open.status}): deliver or cancel it first, then remove the animal.`,
        )
      }
      await keepPetName(trx, projectId, id, removed.name)
      await this.record(trx, projectId, options.change, 'pet.deleted', removed, { name: removed.name, categoryId: removed.categoryId, status: removed.status })
      await report(trx, removed)
      return removed
    })
  }

  /** Writes the event of a change of an animal in its transaction, when an endpoint of the project wants it (asked once, before the transaction). */
  private async reporter(projectId: number, type: Extract<WebhookEventType, `pet.${string}`>): Promise<(trx: Db, pet: Pet) => Promise<void>> {
    const wanted = await this.outbox.wants(projectId, type)
    return async (trx, pet) => {
      if (wanted) await this.outbox.write(trx, projectId, type, pet)
    }
  }

  /** Runs a change's transaction (at most once per Idempotency-Key, if one was sent), then tells the caches. */
  private async changed(
    projectId: number,
    idempotent: { key: string | undefined; sent: { operation: string; body: unknown; petId?: number }; status: number } | undefined,
    work: (trx: Db) => Promise<Pet>,
  ): Promise<PetChangeResult> {
    const request = idempotent?.key === undefined ? undefined : { key: idempotent.key, request: idempotent.sent, status: idempotent.status }
    const outcome: ChangeOutcome<Pet> = await this.idempotency.change(projectId, request, work)
    if (!outcome.ok) return outcome
    // Before the answer: the next read on any instance must see the change.
    await this.generations.dataChanged(projectId)
    return { ok: true, pet: outcome.value, replayed: outcome.replayed }
  }

  /** An admin's change, in the audit log; a /v1 change (an API key's) is the shelter's data, not its administration. */
  private async record(
    trx: Db,
    projectId: number,
    change: Change | undefined,
    action: 'pet.created' | 'pet.updated' | 'pet.deleted',
    pet: Pet,
    details: Record<string, unknown>,
  ): Promise<void> {
    if (change) await recordChange(trx, this.clock, change, { action, target: { type: 'pet', id: pet.id }, projectId, details })
  }
}

/** What is said of an animal that is not in the project (another project's is not either). */
export function noSuchPet(id: number): string {
  return `No animal with id ${id} in your project.`
}
