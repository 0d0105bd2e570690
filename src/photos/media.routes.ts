import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ApiError } from '../errors.js'
import type { EarlyAnswer } from '../http/fastify.js'
import { requestId } from '../http/request-id.js'
import type { MediaBytes } from './media-bytes.js'
import { PHOTO_ID_PATTERN } from './photos.schemas.js'
import type { PhotosService } from './photos.service.js'

const MediaParams = Type.Object(
  { photoId: Type.String({ pattern: PHOTO_ID_PATTERN }), file: Type.String({ pattern: '^[0-9a-f]{32}-[0-9]{1,5}[.](webp|jpg)$' }) },
  { additionalProperties: false },
)

const IMMUTABLE = 'public, max-age=31536000, immutable'

/**
 * `/media/photos/{photoId}/{file}`: a photo's files, without an API key (they go in `<img>`).
 * Each address names one content for ever (the hash of its bytes), so it is cached for a year; a
 * file is served only while its photo's row exists, read on every request, so a removed photo (or
 * animal) stops being served at once by every instance; the small files' bytes are kept in memory
 * (`MediaBytes`). Single byte ranges are served (206).
 */
export const mediaRoutes: FastifyPluginAsyncTypebox<{ photos: PhotosService; bytes: MediaBytes }> = async (app, { photos, bytes }) => {
  // Photos are compressed already (WebP, JPEG): the compression hooks would only cost each request.
  app.get(MEDIA_ROUTE, { schema: { hide: true, params: MediaParams }, compress: false }, async (request, reply) => {
    const notFound = () => new ApiError('not_found', 'No such photo: it was removed, or the address is wrong.')
    const file = await photos.file(request.params.photoId, request.params.file)
    if (!file) throw notFound()
    reply.header('cache-control', IMMUTABLE).header('etag', file.etag).header('x-content-type-options', 'nosniff').header('accept-ranges', 'bytes').type(file.contentType)
    if (matches(request.headers['if-none-match'], file.etag)) return reply.code(304).send()
    let range = parseRange(request.headers.range, file.size)
    // If-Range with another validator: the whole file, as it may have changed (it never does here).
    if (range && request.headers['if-range'] !== undefined && request.headers['if-range'] !== file.etag) range = undefined
    if (range === 'unsatisfiable') throw new ApiError('range_not_satisfiable', `The range starts past the end of the file, which has ${file.size} bytes.`, { 'content-range': `bytes */${file.size}` })
    const read = await bytes.read(file.key, file.size, range)
    if (!read) throw notFound()
    if (range) reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${read.size}`)
    reply.header('content-length', String(range ? range.end - range.start + 1 : read.size))
    return reply.send(read.body)
  })
}

/** The route's path, as metrics and logs name it. */
export const MEDIA_ROUTE = '/media/photos/:photoId/:file'
/** The same path, undecoded and without a query: what the early answer serves. */
const MEDIA_PATH = new RegExp(`^/media/photos/(${PHOTO_ID_PATTERN.slice(1, -1)})/([0-9a-f]{32}-[0-9]{1,5}[.](?:webp|jpg))$`)

/** Set by Node on the response to a connection's last allowed request; not in its types. */
type LastOnConnection = { maxRequestsOnConnectionReached?: boolean }

export interface MediaEarlyDeps {
  photos: Pick<PhotosService, 'keptFile'>
  bytes: Pick<MediaBytes, 'kept'>
  /** Whether a Host is the API's own: other hosts go through host routing. */
  servesApi: (host: string | undefined) => boolean
  /** Counts and logs the answer, as the app does every answer. */
  answered: (requestId: string, ms: number) => void
}

/**
 * The media route's answer before routing, for the requests that are nearly all of its traffic: a
 * plain GET of a file whose photo row and bytes are both in memory and current. It sends what the
 * route sends (the same headers, the request id, the count and the log line) without the
 * per-request work of the framework, which was most of the cost of serving a small photo.
 * Anything else (HEAD, a range, a revalidation, a file not in memory, another host, a
 * connection's last request, shutdown) goes the usual way.
 */
export function mediaEarlyAnswer({ photos, bytes, servesApi, answered }: MediaEarlyDeps): EarlyAnswer {
  return (request, response) => {
    if (request.method !== 'GET' || (response as LastOnConnection).maxRequestsOnConnectionReached) return false
    const match = MEDIA_PATH.exec(request.url ?? '')
    if (!match) return false
    const { headers } = request
    if (headers.range !== undefined || headers['if-none-match'] !== undefined || !servesApi(headers.host)) return false
    const file = photos.keptFile(match[1]!, match[2]!)
    const body = file && bytes.kept(file.key)
    if (!file || !body) return false
    const started = performance.now()
    const id = requestId(request)
    response.writeHead(200, {
      'x-request-id': id,
      'cache-control': IMMUTABLE,
      'x-content-type-options': 'nosniff',
      etag: file.etag,
      'accept-ranges': 'bytes',
      'content-type': file.contentType,
      'content-length': body.length,
    })
    response.end(body)
    answered(id, performance.now() - started)
    return true
  }
}

function matches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false
  return header.trim() === '*' || header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)
}

/** One byte range of `bytes=a-b`, `bytes=a-` or `bytes=-n`; several ranges, or a malformed header, are answered whole (RFC 9110 allows it). */
function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const match = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (!match || (match[1] === '' && match[2] === '')) return undefined
  let start: number
  let end: number
  if (match[1] === '') {
    const suffix = Number(match[2])
    if (suffix === 0) return 'unsatisfiable'
    start = Math.max(0, size - suffix)
    end = size - 1
  } else {
    start = Number(match[1])
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1)
  }
  if (start >= size || start > end) return 'unsatisfiable'
  return { start, end }
}
