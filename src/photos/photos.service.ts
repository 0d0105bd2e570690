import { randomBytes } from 'node:crypto'
import { type Change, recordChange } from '../audit/audit.js'
import type { Generations } from '../cache/generations.js'
import type { Clock } from '../clock.js'
import type { Config } from '../config.js'
import type { Db } from '../db/database.js'
import { type Outcome, Refusal, refuse } from '../errors.js'
import type { ObjectStore } from '../storage/store.js'
import type { Outbox } from '../webhooks/outbox.js'
import type { ImageThreads } from './image-threads.js'
import { CONTENT_TYPES, Gate } from './images.js'
import { countPhotos, deletePhoto, existingPhotoIds, findPhoto, insertPhoto, listPhotos, type PhotoRow, photoIdsAfter, setPosition, touchPet, type VariantRow, writePetPhotos } from './photos.repository.js'
import { type Photo, type StoredPhoto, toPhoto } from './photos.schemas.js'

/** An animal has at most this many photos. */
export const PHOTOS_PER_PET = 20
/** Where every photo's files are, in the object store: `photos/<photo id>/<hash>-<width>.<ext>`. */
export const PHOTOS_PREFIX = 'photos/'
/** A stored file with no photo row is a crash's leftover once it is this old: an upload in progress stores its files before it commits its row. */
export const ORPHAN_GRACE_MS = 60 * 60 * 1000

export interface PhotosDeps {
  db: Db
  clock: Clock
  store: ObjectStore
  /** Where uploads are processed: threads with heaps of their own. */
  images: Pick<ImageThreads, 'process'>
  config: Pick<Config, 'mediaBaseUrl' | 'photoMaxPixels' | 'photoProcessingConcurrency'>
  /** Told after a committed change, before the answer: cached animals on every instance move on. */
  generations: Pick<Generations, 'dataChanged'>
  outbox: Outbox
  /** Where failures to delete files are told (the sweep deletes them later). */
  log: { warn(object: object, message: string): void }
  /**
   * A number that moves whenever the database may have changed, whoever wrote (the embedded
   * database's change counter): the rows of served photos are kept while it stands still.
   * Without it (PostgreSQL), every request for a file reads its photo's row.
   */
  changeCounter?: (() => number) | undefined
}

/** At most this many served photos' rows are kept (a few MB); then they are read again. */
const SERVED_ROWS = 10_000

/** A file of a photo to serve: its key in the store, type, size and ETag. */
export interface MediaFile {
  key: string
  contentType: string
  size: number
  etag: string
}

/** A served photo's row, and its files as served, by name, each made at its first request. */
interface ServedPhoto {
  row: PhotoRow
  files: Map<string, MediaFile>
}

/** What `verify` found: rows whose files are missing, and stored files no row names. */
export interface MediaReport {
  photos: number
  files: number
  missing: { photoId: string; petId: number; key: string }[]
  orphans: { key: string; size: number; modifiedAt: string }[]
}

/** Who asks for a change (an admin, an API key): recorded in the audit log, in the change's transaction. */
export interface ChangeOptions {
  change?: Change | undefined
}

/**
 * Photos of a project's animals. An upload is processed (at most `photoProcessingConcurrency` at
 * once per instance), every file stored, and only then its row committed, with the animal's
 * `photos` and its webhook event, in one transaction: a photo is visible whole or not at all. A
 * failure after the files were stored deletes them; a crash leaves them to `sweep`.
 */
export class PhotosService {
  private readonly gate: Gate
  /** Served photos' rows, by id, as of `servedCounter`. */
  private readonly served = new Map<string, ServedPhoto>()
  private servedCounter = -1

  constructor(private readonly deps: PhotosDeps) {
    this.gate = new Gate(deps.config.photoProcessingConcurrency)
  }

  /** The answer's photos from what `pets.photos` holds. */
  render(stored: string | null): Photo[] | undefined {
    if (stored === null) return undefined
    return (JSON.parse(stored) as StoredPhoto[]).map((photo) => toPhoto(photo, this.deps.config.mediaBaseUrl))
  }

  async list(projectId: number, petId: number): Promise<Outcome<{ photos: Photo[] }>> {
    const count = await countPhotos(this.deps.db, projectId, petId)
    if (count === undefined) return { ok: false, error: 'not_found', message: noSuchPet(petId) }
    const rows = await listPhotos(this.deps.db, projectId, petId)
    return { ok: true, photos: rows.map((row) => this.photoOf(row)) }
  }

  /**
   * Adds a photo as the animal's last; the first photo of an animal is its main one. `bytes` is the
   * file, or its pieces as they arrived (handed over: unusable afterwards).
   */
  async add(projectId: number, petId: number, bytes: Buffer | readonly Buffer[], options: ChangeOptions = {}): Promise<Outcome<{ photo: Photo }>> {
    const { db } = this.deps
    // Refused before any work: no such animal, or no room.
    const count = await countPhotos(db, projectId, petId)
    if (count === undefined) return { ok: false, error: 'not_found', message: noSuchPet(petId) }
    if (count >= PHOTOS_PER_PET) return full(petId)
    const id = randomBytes(16).toString('base64url')
    const pieces = Buffer.isBuffer(bytes) ? [bytes] : bytes
    const processed = await this.gate.run(() => this.deps.images.process(pieces, this.deps.config.photoMaxPixels, `${PHOTOS_PREFIX}${id}/`))
    if (!processed.ok) return processed
    const { variants } = processed.photo
    const keys = variants.map((variant) => variant.key)
    let photo: Photo
    try {
      photo = await db.transaction().execute(async (trx) => {
        const now = this.now()
        if (!(await touchPet(trx, projectId, petId, now))) refuse('not_found', noSuchPet(petId))
        const before = await countPhotos(trx, projectId, petId)
        if (before === undefined) refuse('not_found', noSuchPet(petId))
        if (before >= PHOTOS_PER_PET) throw new Refusal(full(petId))
        const row: PhotoRow = { id, petId, position: before, width: processed.photo.width, height: processed.photo.height, hash: processed.photo.hash, variants, createdAt: now }
        await insertPhoto(trx, projectId, row)
        await writePetPhotos(trx, projectId, petId)
        const added = this.photoOf(row)
        await this.record(trx, projectId, petId, options.change, 'pet.photo_added', { photoId: id, width: row.width, height: row.height })
        await this.deps.outbox.write(trx, projectId, 'pet.photo_added', { petId, photo: added })
        return added
      })
    } catch (error) {
      await this.discardKeys(keys)
      if (error instanceof Refusal) return error.failure
      throw error
    }
    await this.deps.generations.dataChanged(projectId)
    return { ok: true, photo }
  }

  /** Removes a photo: its files stop being served at once (no row, no file), then are deleted. */
  async remove(projectId: number, petId: number, photoId: string, options: ChangeOptions = {}): Promise<Outcome<object>> {
    let removed: PhotoRow
    try {
      removed = await this.deps.db.transaction().execute(async (trx) => {
        if (!(await touchPet(trx, projectId, petId, this.now()))) refuse('not_found', noSuchPet(petId))
        const row = await deletePhoto(trx, projectId, petId, photoId)
        if (!row) refuse('not_found', `Animal ${petId} has no photo ${photoId}.`)
        await writePetPhotos(trx, projectId, petId)
        await this.record(trx, projectId, petId, options.change, 'pet.photo_removed', { photoId })
        await this.deps.outbox.write(trx, projectId, 'pet.photo_removed', { petId, photo: this.photoOf(row) })
        return row
      })
    } catch (error) {
      if (error instanceof Refusal) return error.failure
      throw error
    }
    await this.deps.generations.dataChanged(projectId)
    await this.discardKeys(removed.variants.map((variant) => variant.key))
    return { ok: true }
  }

  /** Puts the animal's photos in the order of `ids`, which names each of them once: the first is the main photo. */
  async reorder(projectId: number, petId: number, ids: readonly string[], options: ChangeOptions = {}): Promise<Outcome<{ photos: Photo[] }>> {
    let photos: Photo[]
    try {
      photos = await this.deps.db.transaction().execute(async (trx) => {
        if (!(await touchPet(trx, projectId, petId, this.now()))) refuse('not_found', noSuchPet(petId))
        const rows = await listPhotos(trx, projectId, petId)
        const known = new Set(rows.map((row) => row.id))
        const unknown = ids.find((id) => !known.has(id))
        if (unknown !== undefined) refuse('invalid_request', `Body field "ids" names ${unknown}, which is not a photo of animal ${petId}: list its photos (GET /v1/pets/${petId}/photos).`)
        if (ids.length !== rows.length) refuse('invalid_request', `Body field "ids" must name every photo of animal ${petId}, each once: it has ${rows.length}, you sent ${ids.length}.`)
        for (const [position, id] of ids.entries()) await setPosition(trx, projectId, id, position)
        await this.record(trx, projectId, petId, options.change, 'pet.photos_ordered', { ids })
        return (await writePetPhotos(trx, projectId, petId)).map((photo) => toPhoto(photo, this.deps.config.mediaBaseUrl))
      })
    } catch (error) {
      if (error instanceof Refusal) return error.failure
      throw error
    }
    await this.deps.generations.dataChanged(projectId)
    return { ok: true, photos }
  }

  /** The file of a photo to serve, when the photo exists (its row, read now) and names it. */
  async file(photoId: string, name: string): Promise<MediaFile | undefined> {
    return fileIn(await this.servedPhoto(photoId), photoId, name)
  }

  /**
   * The same, without waiting: only from a row kept while the change counter has stood still
   * since it was read (so the photo exists now); undefined when `file` has to read it.
   */
  keptFile(photoId: string, name: string): MediaFile | undefined {
    const { changeCounter } = this.deps
    if (!changeCounter || changeCounter() !== this.servedCounter) return undefined
    return fileIn(this.served.get(photoId), photoId, name)
  }

  /**
   * A photo's row for serving its files: kept while the database's change counter stands still,
   * so a removed photo (or animal) stops being served at once, by every process on the file.
   */
  private async servedPhoto(photoId: string): Promise<ServedPhoto | undefined> {
    const { changeCounter, db } = this.deps
    if (!changeCounter) return servedPhoto(await findPhoto(db, photoId))
    const counter = changeCounter()
    if (counter !== this.servedCounter) {
      this.served.clear()
      this.servedCounter = counter
    }
    const kept = this.served.get(photoId)
    if (kept) return kept
    const photo = servedPhoto(await findPhoto(db, photoId))
    // Kept only if nothing moved during the read; not found is not kept (addresses are unguessable, a miss is rare).
    if (photo && changeCounter() === counter) {
      if (this.served.size >= SERVED_ROWS) this.served.clear()
      this.served.set(photoId, photo)
    }
    return photo
  }

  /** After an animal was removed (its photo rows with it): deletes the files its `photos` named. */
  async discard(stored: string | null): Promise<void> {
    if (stored === null) return
    const photos = JSON.parse(stored) as StoredPhoto[]
    await this.discardKeys(photos.flatMap((photo) => [...photo.variants.webp, ...photo.variants.jpeg].map((variant) => variant.key)))
  }

  /**
   * Deletes stored files that no photo row names and that are older than `olderThan` (an upload
   * stores its files before it commits its row): a crash's leftovers. Answers how many went.
   */
  async sweep(olderThan: number): Promise<number> {
    let removed = 0
    for await (const batch of this.orphans(olderThan)) {
      await this.deps.store.delete(batch.map((object) => object.key))
      removed += batch.length
    }
    return removed
  }

  /** Rows whose files are missing, and files no row names (whatever their age). */
  async verify(): Promise<MediaReport> {
    const report: MediaReport = { photos: 0, files: 0, missing: [], orphans: [] }
    for (let after = ''; ; ) {
      const rows = await photoIdsAfter(this.deps.db, after, 500)
      for (const row of rows) {
        report.photos++
        for (const variant of row.variants) if (!(await this.deps.store.head(variant.key))) report.missing.push({ photoId: row.id, petId: row.petId, key: variant.key })
      }
      const last = rows.at(-1)
      if (!last) break
      after = last.id
    }
    for await (const batch of this.orphans(Infinity, (count) => (report.files += count))) {
      report.orphans.push(...batch.map(({ key, size, modifiedAt }) => ({ key, size, modifiedAt: modifiedAt.toISOString() })))
    }
    return report
  }

  /** Stored files without a row, modified before `olderThan` (ms), in batches. */
  private async *orphans(olderThan: number, counted: (count: number) => void = () => undefined) {
    let batch: { key: string; size: number; modifiedAt: Date; photoId: string }[] = []
    const flush = async () => {
      const existing = await existingPhotoIds(this.deps.db, [...new Set(batch.map((object) => object.photoId))])
      const found = batch.filter((object) => !existing.has(object.photoId))
      batch = []
      return found
    }
    for await (const object of this.deps.store.list(PHOTOS_PREFIX)) {
      counted(1)
      if (object.modifiedAt.getTime() >= olderThan) continue
      batch.push({ ...object, photoId: object.key.slice(PHOTOS_PREFIX.length).split('/')[0] ?? '' })
      if (batch.length >= 500) yield await flush()
    }
    if (batch.length > 0) yield await flush()
  }

  private async discardKeys(keys: readonly string[]): Promise<void> {
    try {
      await this.deps.store.delete(keys)
    } catch (error) {
      // Not served (no row names them): the sweep deletes them later.
      this.deps.log.warn({ err: error, keys: keys.length }, 'photo files not deleted; the sweep will delete them')
    }
  }

  /** An admin's change, in the audit log, in its transaction; a /v1 change (an API key's) is the shelter's data, not its administration. */
  private async record(trx: Db, projectId: number, petId: number, change: Change | undefined, action: 'pet.photo_added' | 'pet.photo_removed' | 'pet.photos_ordered', details: Record<string, unknown>): Promise<void> {
    if (change) await recordChange(trx, this.deps.clock, change, { action, target: { type: 'pet', id: petId }, projectId, details })
  }

  private photoOf(row: PhotoRow): Photo {
    const of = (format: VariantRow['format']) => row.variants.filter((v) => v.format === format).map(({ width, height, key }) => ({ width, height, key }))
    return toPhoto({ id: row.id, width: row.width, height: row.height, variants: { webp: of('webp'), jpeg: of('jpeg') } }, this.deps.config.mediaBaseUrl)
  }

  private now(): string {
    return new Date(this.deps.clock.now()).toISOString()
  }
}

function full(petId: number): Outcome<never> {
  return { ok: false, error: 'limit_reached', message: `Animal ${petId} has ${PHOTOS_PER_PET} photos, the most an animal may have: remove one first (DELETE /v1/pets/${petId}/photos/{photoId}).` }
}

/** Worded as the animals feature words it (src/pets/pets.service.ts `noSuchPet`). */
function noSuchPet(id: number): string {
  return `No animal with id ${id} in your project.`
}

function servedPhoto(row: PhotoRow | undefined): ServedPhoto | undefined {
  return row && { row, files: new Map() }
}

/**
 * The file `name` of a served photo, made once and kept with its row: a small photo's file is
 * asked for tens of thousands of times a second (a name that is not the photo's is not kept).
 */
function fileIn(photo: ServedPhoto | undefined, photoId: string, name: string): MediaFile | undefined {
  if (!photo) return undefined
  const kept = photo.files.get(name)
  if (kept) return kept
  const key = `${PHOTOS_PREFIX}${photoId}/${name}`
  const variant = photo.row.variants.find((v) => v.key === key)
  if (!variant) return undefined
  const file = { key, contentType: CONTENT_TYPES[variant.format], size: variant.size, etag: `"${variant.hash}"` }
  photo.files.set(name, file)
  return file
}
