import type { Clock } from '../clock.js'
import { BackgroundPass } from '../jobs/background-pass.js'
import type { ObjectStore } from '../storage/store.js'
import { ORPHAN_GRACE_MS, type PhotosService } from './photos.service.js'

/**
 * Deletes, every PHOTO_SWEEP_INTERVAL_MS, the stored photo files that no photo row names and that
 * are older than ORPHAN_GRACE_MS: what a crash between storing an upload's files and committing its
 * row, or a failed deletion, left. Every instance sweeps; deleting twice is harmless. It closes the
 * object store after its last pass.
 */
export class PhotoSweeper {
  private readonly passes: BackgroundPass

  constructor(
    photos: PhotosService,
    private readonly store: ObjectStore,
    clock: Clock,
    intervalMs: number,
    log: { warn(object: object, message: string): void },
  ) {
    this.passes = new BackgroundPass(() => photos.sweep(clock.now() - ORPHAN_GRACE_MS), intervalMs, (err) => log.warn({ err }, 'photo sweep failed'))
  }

  start(): void {
    this.passes.start()
  }

  async close(): Promise<void> {
    await this.passes.stop(5000)
    await this.store.close()
  }
}
