import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import type { FastifyBaseLogger } from 'fastify'
import { type FullStorage, fullStorageOf } from './errors.js'

/** How often a full storage is asked whether it has room again. */
const PROBE_INTERVAL_MS = 1_000

/**
 * How much room a probe asks for: a storage is full until this much can be written again, so
 * that the few kilobytes a deleted row or a checkpoint frees do not end the condition only for
 * the next write to start it again.
 */
export const PROBE_BYTES = 1024 * 1024

/** Where the condition is counted (the metrics, built above this layer). */
export interface StorageObserver {
  /** The storage became full (true) or has room again (false). */
  full(storage: FullStorage, full: boolean): void
  /** A write was refused because the storage is full. */
  refused(storage: FullStorage): void
}

export interface StorageFullDeps {
  /** For each storage, a write of PROBE_BYTES that fails while it is full, and leaves nothing behind. */
  probes: Record<FullStorage, () => Promise<void>>
  log: FastifyBaseLogger
  observer: StorageObserver
}

/**
 * Watches for a full storage (the database's disk, or the file system photos are written to):
 * one warning when the first write is refused, one line when the storage has room again, and
 * meanwhile a gauge and a count of refused writes, never a line per request. Writes are not
 * turned away in advance: each is tried, and refused by the storage itself while there is no
 * room, so the first write after room is made succeeds. Whether there is room is found by a probe
 * every second (PROBE_BYTES written and removed), so readiness comes back without any traffic:
 * a balancer that took the instance out sends none.
 */
export class StorageFull {
  private readonly since = new Map<FullStorage, number>()
  private readonly probes = new Map<FullStorage, NodeJS.Timeout>()
  private closed = false

  constructor(private readonly deps: StorageFullDeps) {
    for (const storage of Object.keys(deps.probes) as FullStorage[]) deps.observer.full(storage, false)
  }

  /** The storages full right now, for readiness. */
  full(): FullStorage[] {
    return [...this.since.keys()]
  }

  /**
   * A write failed: when because its storage is full, it is counted (and the condition starts, with
   * its one warning); answers whether it was.
   */
  refused(error: unknown): boolean {
    const storage = fullStorageOf(error)
    if (storage === undefined) return false
    this.deps.observer.refused(storage)
    if (this.since.has(storage) || this.closed) return true
    this.since.set(storage, Date.now())
    this.deps.observer.full(storage, true)
    const { code } = (error ?? {}) as { code?: unknown }
    this.deps.log.warn({ storage, code }, `storage full: the ${storage === 'database' ? "database's" : 'file'} storage has no room; writes answer 503 until there is room, reads go on`)
    this.schedule(storage)
    return true
  }

  close(): void {
    this.closed = true
    for (const probe of this.probes.values()) clearTimeout(probe)
  }

  // One probe at a time per storage: a write of PROBE_BYTES, then the next one while it fails.
  private schedule(storage: FullStorage): void {
    const probe = setTimeout(() => {
      this.deps.probes[storage]().then(
        () => {
          if (this.closed) return
          const seconds = Math.round((Date.now() - (this.since.get(storage) ?? Date.now())) / 100) / 10
          this.since.delete(storage)
          this.probes.delete(storage)
          this.deps.observer.full(storage, false)
          this.deps.log.info({ storage, seconds }, 'storage has room again: writes are taken')
        },
        () => {
          if (!this.closed) this.schedule(storage)
        },
      )
    }, PROBE_INTERVAL_MS)
    probe.unref()
    this.probes.set(storage, probe)
  }
}

/**
 * A probe of the file system `directory` is on: PROBE_BYTES written to a file there and synced
 * (so that the file system must find the room, and a quota is charged), then removed. Fails with
 * ENOSPC or EDQUOT while there is not that much room. The bytes are random, so that a compressing
 * file system cannot store them in less.
 */
export async function probeDirectory(directory: string): Promise<void> {
  const file = path.join(directory, `.storage-probe-${process.pid}-${randomBytes(4).toString('hex')}`)
  const handle = await fs.open(file, 'w')
  try {
    await handle.writeFile(randomBytes(PROBE_BYTES))
    await handle.sync()
  } finally {
    await handle.close()
    await fs.rm(file, { force: true })
  }
}
