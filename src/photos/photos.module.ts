import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Config } from '../config.js'
import type { StorageSettings } from '../storage/backend.js'
import type { ObjectStore } from '../storage/store.js'
import { ImageThreads } from './image-threads.js'
import { MediaBytes } from './media-bytes.js'
import type { EarlyAnswer } from '../http/fastify.js'
import { type MediaEarlyDeps, mediaEarlyAnswer, mediaRoutes } from './media.routes.js'
import { photosAdminRoutes, photosRoutes } from './photos.routes.js'
import { type PhotosDeps, PhotosService } from './photos.service.js'
import { PhotoSweeper } from './sweeper.js'

/** Photos of animals, wired: the service, its routes, and the sweep of leftover files. */
export interface Photos {
  service: PhotosService
  /** Sweeps leftover files on a timer; started and closed with the app (it closes the store last). */
  sweeper: PhotoSweeper
  /** Where uploads are processed; closed with the app. */
  threads: ImageThreads
  routes: {
    /** `/v1/pets/{petId}/photos…`. */
    v1: FastifyPluginAsyncTypebox
    /** `/admin/v1/projects/{slug}/animals/{petId}/photos…`. */
    admin: FastifyPluginAsyncTypebox
    /** `/media/photos/…`, outside the API's scopes: no key. */
    media: FastifyPluginAsyncTypebox
    /** The same files' answer before routing, when they are in memory (see mediaEarlyAnswer). */
    mediaEarly: (deps: Omit<MediaEarlyDeps, 'photos' | 'bytes'>) => EarlyAnswer
  }
}

export function createPhotos({ config, ...deps }: Omit<PhotosDeps, 'config' | 'images'> & { store: ObjectStore; config: PhotosDeps['config'] & Pick<Config, 'photoMaxBytes' | 'photoSweepIntervalMs' | 'mediaCacheBytes'> & StorageSettings }): Photos {
  // The threads store what they make in the same place as `store`, opened from the same settings.
  const threads = new ImageThreads({ storage: config })
  const service = new PhotosService({ ...deps, images: threads, config })
  const bytes = new MediaBytes(deps.store, config.mediaCacheBytes)
  return {
    service,
    threads,
    sweeper: new PhotoSweeper(service, deps.store, deps.clock, config.photoSweepIntervalMs, deps.log),
    routes: {
      v1: (app) => photosRoutes(app, { photos: service, maxBytes: config.photoMaxBytes }),
      admin: (app) => photosAdminRoutes(app, { photos: service, maxBytes: config.photoMaxBytes }),
      media: (app) => mediaRoutes(app, { photos: service, bytes }),
      mediaEarly: (early) => mediaEarlyAnswer({ ...early, photos: service, bytes }),
    },
  }
}
