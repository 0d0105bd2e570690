import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyContextConfig, FastifyRequest } from 'fastify'
import { Type, type TObject } from 'typebox'
import { changeOf, keyChangeOf } from '../audit/audit.http.js'
import type { Change } from '../audit/audit.js'
import { orThrow } from '../errors.js'
import { named } from '../http/plugin-name.js'
import { validatorCompiler } from '../http/validation.js'
import { errorResponses } from '../openapi/responses.js'
import { ProjectParamsSchema } from '../projects/projects.schemas.js'
import { ACCEPTED_IMAGES } from './images.js'
import { acceptUploads, UPLOAD_BODY_DOC, uploadedBytes } from './photos.http.js'
import { PetPhotoParamsSchema, PhotoOrderSchema } from './photos.schemas.js'
import { PHOTOS_PER_PET, type PhotosService } from './photos.service.js'

export interface PhotoRoutesOptions {
  photos: PhotosService
  /** Largest upload, in bytes (PHOTO_MAX_BYTES). */
  maxBytes: number
}

/** Where the same four operations live in each API, and how each names and scopes them. */
interface PhotoApi {
  path: string
  params: TObject
  photoParams: TObject
  schema: Record<string, unknown>
  ids: { upload: string; list: string; order: string; remove: string }
  /** The route config of its reads and of its changes: on /v1, the scope a key needs. */
  config: { read: FastifyContextConfig; write: FastifyContextConfig }
  audit: boolean
  projectOf(request: FastifyRequest): number
  changeOf(request: FastifyRequest): Change | undefined
}

const petId = PetPhotoParamsSchema.properties.petId
const photoId = PetPhotoParamsSchema.properties.photoId

const V1: PhotoApi = {
  path: '/pets/:petId/photos',
  params: Type.Object({ petId }, { additionalProperties: false }),
  photoParams: Type.Object({ petId, photoId }, { additionalProperties: false }),
  schema: { tags: ['pets'], 'x-stability': 'beta' },
  ids: { upload: 'uploadPetPhoto', list: 'listPetPhotos', order: 'orderPetPhotos', remove: 'deletePetPhoto' },
  config: { read: { scope: 'pets:read' }, write: { scope: 'pets:write' } },
  audit: false,
  projectOf: (request) => request.principal.projectId,
  changeOf: (request) => keyChangeOf(request),
}

const ADMIN: PhotoApi = {
  path: '/projects/:slug/animals/:petId/photos',
  params: Type.Object({ ...ProjectParamsSchema.properties, petId }, { additionalProperties: false }),
  photoParams: Type.Object({ ...ProjectParamsSchema.properties, petId, photoId }, { additionalProperties: false }),
  schema: { tags: ['animals'] },
  ids: { upload: 'addAnimalPhoto', list: 'listAnimalPhotos', order: 'orderAnimalPhotos', remove: 'removeAnimalPhoto' },
  config: { read: {}, write: {} },
  audit: true,
  projectOf: (request) => request.adminProject.id,
  changeOf: (request) => changeOf(request),
}

/** `/v1/pets/{petId}/photos…`: upload, list, order and remove an animal's photos. */
export const photosRoutes: FastifyPluginAsyncTypebox<PhotoRoutesOptions> = (app, options) => photoOperations(app, options, V1)

/** `/admin/v1/projects/{slug}/animals/{petId}/photos…`: the same operations for the dashboard, each change in the audit log. */
export const photosAdminRoutes: FastifyPluginAsyncTypebox<PhotoRoutesOptions> = (app, options) => photoOperations(app, options, ADMIN)

type App = Parameters<FastifyPluginAsyncTypebox>[0]

async function photoOperations(app: App, { photos, maxBytes }: PhotoRoutesOptions, api: PhotoApi): Promise<void> {
  const mb = Math.floor(maxBytes / 1048576)
  const audit = (action: string) => (api.audit ? { 'x-audit-action': action } : {})

  // Its own scope: every body is an image (or a form with one), whatever its Content-Type says.
  await app.register(named(async (uploads) => {
    await acceptUploads(uploads)
    uploads.post(
      api.path,
      {
        config: api.config.write,
        schema: {
          ...api.schema,
          ...audit('pet.photo_added'),
          operationId: api.ids.upload,
          summary: 'Add a photo of an animal',
          description: [
            `Adds a photo as the animal's last (its first photo is its main one). Send the image as the body (any Content-Type, e.g. \`image/jpeg\`), or as the file of a \`multipart/form-data\` form. Accepted: ${ACCEPTED_IMAGES}; the type is read from the bytes, so a PNG named \`.jpg\` works, and anything else (HEIC, SVG, an archive) is 415 \`unsupported_image_type\`.`,
            '',
            `Limits: ${mb} MB per photo (413 \`payload_too_large\`), the pixels of its header (413 \`image_too_large\`, before it is decoded), ${PHOTOS_PER_PET} photos per animal (409 \`limit_reached\`). A truncated or corrupt image is 422 \`invalid_image\`. The photo is turned upright, converted to sRGB and stripped of all metadata (EXIF, GPS, XMP, comments), then stored at widths 100, 300, 600, 1200 and its full size (longer side at most 2048 pixels), in WebP and JPEG. It is in the animal's answers (\`photos\`) once every file is stored; a refused upload leaves nothing behind. An animal of another project is 404, as one that does not exist.`,
          ].join('\n'),
          params: api.params,
          body: UPLOAD_BODY_DOC,
          response: {
            201: { description: "The photo, with its files' addresses", ...Type.Ref('Photo') },
            ...errorResponses(400, 401, 404, 409, 413, 415, 422, 500, 503),
          },
        },
        // The body is a stream of bytes, not a value a schema can check; the path is checked as everywhere.
        validatorCompiler: (route) => (route.httpPart === 'body' ? () => true : validatorCompiler(route)),
      },
      async (request, reply) => {
        const bytes = await uploadedBytes(request, maxBytes)
        const { petId: id } = request.params as { petId: number }
        const { photo } = orThrow(await photos.add(api.projectOf(request), id, bytes, { change: api.changeOf(request) }))
        return reply.code(201).send(photo)
      },
    )
  }, 'uploads'))

  app.get(
    api.path,
    {
      config: api.config.read,
      schema: {
        ...api.schema,
        operationId: api.ids.list,
        summary: "List an animal's photos",
        description: "The animal's photos in order, the main one first: the same as its answers' `photos`, and an empty list for an animal without any.",
        params: api.params,
        response: { 200: { description: 'The photos, the main one first', ...Type.Ref('Photos') }, ...errorResponses(400, 401, 404, 500, 503) },
      },
    },
    async (request) => orThrow(await photos.list(api.projectOf(request), (request.params as { petId: number }).petId)).photos,
  )

  app.put(
    `${api.path}/order`,
    {
      config: api.config.write,
      schema: {
        ...api.schema,
        ...audit('pet.photos_ordered'),
        operationId: api.ids.order,
        summary: "Order an animal's photos",
        description: "Puts the animal's photos in the order of `ids`, which lists each of them once; the first becomes the main photo. Sending the same order again changes nothing.",
        params: api.params,
        body: PhotoOrderSchema,
        response: { 200: { description: 'The photos in their new order', ...Type.Ref('Photos') }, ...errorResponses(400, 401, 404, 413, 415, 500, 503) },
      },
    },
    async (request) => {
      const { ids } = request.body as { ids: string[] }
      return orThrow(await photos.reorder(api.projectOf(request), (request.params as { petId: number }).petId, ids, { change: api.changeOf(request) })).photos
    },
  )

  app.delete(
    `${api.path}/:photoId`,
    {
      config: api.config.write,
      schema: {
        ...api.schema,
        ...audit('pet.photo_removed'),
        operationId: api.ids.remove,
        summary: 'Remove a photo of an animal',
        description: 'Removes the photo: its addresses stop working at once, on every instance, and its files are deleted. When it was the main photo, the next one becomes the main one.',
        params: api.photoParams,
        // No body is taken, but one sent is still read: 413 and 415 as for any request with a body.
        response: { 204: { description: 'Removed', type: 'null' }, ...errorResponses(400, 401, 404, 413, 415, 500, 503) },
      },
    },
    async (request, reply) => {
      const params = request.params as { petId: number; photoId: string }
      orThrow(await photos.remove(api.projectOf(request), params.petId, params.photoId, { change: api.changeOf(request) }))
      return reply.code(204).send(null)
    },
  )
}
