import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { orThrow } from '../errors.js'
import { validatorCompiler } from '../http/validation.js'
import { errorResponses } from '../openapi/responses.js'
import { ACCEPTED_IMAGES } from './images.js'
import { acceptUploads, UPLOAD_BODY_DOC, uploadedBytes } from './photos.http.js'
import { PetPhotoParamsSchema, PhotoOrderSchema } from './photos.schemas.js'
import { PHOTOS_PER_PET, type PhotosService } from './photos.service.js'

const BETA = { 'x-stability': 'beta' } as const
const PetIdParams = Type.Object({ petId: PetPhotoParamsSchema.properties.petId }, { additionalProperties: false })

export interface PhotoRoutesOptions {
  photos: PhotosService
  /** Largest upload, in bytes (PHOTO_MAX_BYTES). */
  maxBytes: number
}

/** `/v1/pets/{petId}/photos…`: upload, list, order and remove an animal's photos. */
export const photosRoutes: FastifyPluginAsyncTypebox<PhotoRoutesOptions> = async (app, { photos, maxBytes }) => {
  const mb = Math.floor(maxBytes / 1048576)

  // Its own scope: every body is an image (or a form with one), whatever its Content-Type says.
  await app.register(async (uploads) => {
    await acceptUploads(uploads)
    uploads.post(
      '/pets/:petId/photos',
      {
        schema: {
          ...BETA,
          operationId: 'uploadPetPhoto',
          tags: ['pets'],
          summary: 'Add a photo of an animal',
          description: [
            `Adds a photo as the animal's last (its first photo is its main one). Send the image as the body (any Content-Type, e.g. \`image/jpeg\`), or as the file of a \`multipart/form-data\` form. Accepted: ${ACCEPTED_IMAGES}; the type is read from the bytes, so a PNG named \`.jpg\` works, and anything else (HEIC, SVG, an archive) is 415 \`unsupported_image_type\`.`,
            '',
            `Limits: ${mb} MB per photo (413 \`payload_too_large\`), the pixels of its header (413 \`image_too_large\`, before it is decoded), ${PHOTOS_PER_PET} photos per animal (409 \`limit_reached\`). A truncated or corrupt image is 422 \`invalid_image\`. The photo is turned upright, converted to sRGB and stripped of all metadata (EXIF, GPS, XMP, comments), then stored at widths 100, 300, 600, 1200 and its full size (longer side at most 2048 pixels), in WebP and JPEG. It is in the animal's answers (\`photos\`) once every file is stored; a refused upload leaves nothing behind.`,
          ].join('\n'),
          params: PetIdParams,
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
        const { photo } = orThrow(await photos.add(request.principal.projectId, (request.params as { petId: number }).petId, bytes))
        return reply.code(201).send(photo)
      },
    )
  })

  app.get(
    '/pets/:petId/photos',
    {
      schema: {
        ...BETA,
        operationId: 'listPetPhotos',
        tags: ['pets'],
        summary: "List an animal's photos",
        description: "The animal's photos in order, the main one first: the same as its answers' `photos`, and an empty list for an animal without any.",
        params: PetIdParams,
        response: { 200: { description: 'The photos, the main one first', ...Type.Ref('Photos') }, ...errorResponses(400, 401, 404, 500, 503) },
      },
    },
    async (request) => orThrow(await photos.list(request.principal.projectId, request.params.petId)).photos,
  )

  app.put(
    '/pets/:petId/photos/order',
    {
      schema: {
        ...BETA,
        operationId: 'orderPetPhotos',
        tags: ['pets'],
        summary: "Order an animal's photos",
        description: "Puts the animal's photos in the order of `ids`, which lists each of them once; the first becomes the main photo. Sending the same order again changes nothing.",
        params: PetIdParams,
        body: PhotoOrderSchema,
        response: { 200: { description: 'The photos in their new order', ...Type.Ref('Photos') }, ...errorResponses(400, 401, 404, 413, 415, 500, 503) },
      },
    },
    async (request) => orThrow(await photos.reorder(request.principal.projectId, request.params.petId, request.body.ids)).photos,
  )

  app.delete(
    '/pets/:petId/photos/:photoId',
    {
      schema: {
        ...BETA,
        operationId: 'deletePetPhoto',
        tags: ['pets'],
        summary: 'Remove a photo of an animal',
        description: "Removes the photo: its addresses stop working at once, on every instance, and its files are deleted. The next photo becomes the main one when it was the main one.",
        params: PetPhotoParamsSchema,
        // No body is taken, but one sent is still read: 413 and 415 as for any request with a body.
        response: { 204: { description: 'Removed', type: 'null' }, ...errorResponses(400, 401, 404, 413, 415, 500, 503) },
      },
    },
    async (request, reply) => {
      orThrow(await photos.remove(request.principal.projectId, request.params.petId, request.params.photoId))
      return reply.code(204).send(null)
    },
  )
}
