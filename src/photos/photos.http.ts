import type { Readable } from 'node:stream'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ApiError } from '../errors.js'
import { ACCEPTED_IMAGES } from './images.js'

/** The media types an upload is documented with; the bytes decide what it is. */
export const UPLOAD_MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/avif', 'image/gif', 'application/octet-stream'] as const

const binary = { type: 'string', format: 'binary', examples: ['(the bytes of the image file)'] } as const

/** The request body of an upload, for the OpenAPI document: the image itself, or a form with one file. */
export const UPLOAD_BODY_DOC = {
  content: {
    ...Object.fromEntries(UPLOAD_MEDIA_TYPES.map((type) => [type, { schema: binary }])),
    'multipart/form-data': {
      schema: { type: 'object', properties: { file: { ...binary, description: `The photo: ${ACCEPTED_IMAGES}` } }, required: ['file'], examples: [{ file: '(the bytes of the image file)' }] },
    },
  },
}

/**
 * Sets up a scope for uploads: every body is taken as the bytes of an image whatever its
 * Content-Type (the bytes decide), except `multipart/form-data`, read as a form with one file.
 */
export async function acceptUploads(app: FastifyInstance): Promise<void> {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload))
  // Loaded here, not at import: the commands import the feature too, and never take a form.
  await app.register((await import('@fastify/multipart')).default, { throwFileSizeLimit: false })
}

/**
 * The bytes of the photo sent, read up to `maxBytes` (413 past it), from the raw body or the form's
 * one file: as the pieces they arrived in, which move to an image thread without being joined here.
 */
export async function uploadedBytes(request: FastifyRequest, maxBytes: number): Promise<Buffer[]> {
  // The rest of the body is not read: the connection closes after the answer, rather than Node
  // reading and discarding what may be gigabytes to keep it open.
  const tooLarge = () =>
    new ApiError('payload_too_large', `The photo is larger than the limit of ${maxBytes} bytes (${Math.floor(maxBytes / 1048576)} MB): send it smaller.`, { connection: 'close' })
  const declared = Number(request.headers['content-length'])
  if (request.isMultipart()) {
    // The form's boundaries and headers come on top of the file: a little room for them.
    if (declared > maxBytes + 65536) throw tooLarge()
    try {
      const part = await request.file({ limits: { fileSize: maxBytes, files: 1, fields: 0, parts: 2 } })
      if (!part) throw new ApiError('invalid_request', `The form has no file: send the photo (${ACCEPTED_IMAGES}) as the form's file field "file".`)
      const bytes = await readAll(part.file, maxBytes, tooLarge)
      if (part.file.truncated) throw tooLarge()
      return bytes
    } catch (error) {
      if (error instanceof ApiError || request.raw.destroyed) throw error
      // A form that does not parse (no boundary, cut short, a field where the file should be).
      throw new ApiError('invalid_request', `The multipart/form-data body is malformed (${error instanceof Error ? error.message : String(error)}): send one file field "file" holding the photo.`)
    }
  }
  // Refused unread: Node discards the body after the answer.
  if (declared > maxBytes) throw tooLarge()
  return readAll(request.body as Readable | undefined, maxBytes, tooLarge)
}

/**
 * The whole stream, in its pieces, or a refusal once it passes `maxBytes` (the rest is left
 * unread: Node discards it after the answer), or the client's disconnection (nothing was stored,
 * nothing is answered).
 */
function readAll(stream: Readable | undefined, maxBytes: number, tooLarge: () => ApiError): Promise<Buffer[]> {
  if (!stream) return Promise.resolve([])
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const stop = () => {
      stream.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= maxBytes) return void chunks.push(chunk)
      stop()
      reject(tooLarge())
    }
    const onEnd = () => {
      stop()
      resolve(chunks)
    }
    const onError = (error: Error) => {
      stop()
      reject(error)
    }
    const onClose = () => onError(new Error('The client closed the connection before the whole photo arrived.'))
    stream.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose)
  })
}
