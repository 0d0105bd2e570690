import { createHash } from 'node:crypto'
import type Zlib from 'node:zlib'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { lazy } from '../lazy.js'

/** Loaded at the first compressed answer: the commands that keep a response cache answer none. */
const zlib = lazy<typeof Zlib>('node:zlib')

/**
 * What every answer carries unless its route says otherwise: API answers are one caller's data
 * at one instant (and carry that caller's rate-limit headers), so no cache, shared or private,
 * may keep them; and a body is only what its Content-Type says (no MIME sniffing).
 * The dashboard's and /docs' static files set their own Cache-Control over this one.
 */
export function setDefaultResponseHeaders(reply: FastifyReply): void {
  reply.header('cache-control', 'no-store')
  reply.header('x-content-type-options', 'nosniff')
}

/**
 * Serves a JSON document that changes only with a deployment (the OpenAPI documents): serialised
 * once, with a weak ETag of its content, `Cache-Control: no-cache` (store it, but ask each time)
 * and 304 Not Modified for a matching `If-None-Match`. Weak, because the bytes sent differ with
 * the content coding while the document is the same. It is compressed once per coding too, at
 * the best levels (about 100 KB: brotli takes it to 5 KB): compressing it per request took ten
 * times the CPU of serving it. `Vary: accept-encoding` on every answer, since a stored copy
 * may be compressed or not.
 */
export function revalidatedJson(build: () => unknown): (request: FastifyRequest, reply: FastifyReply) => FastifyReply {
  let document: { body: string; etag: string; coded: Map<Coding, Buffer> } | undefined
  return (request, reply) => {
    document ??= serialise(build())
    reply.header('cache-control', 'no-cache').header('etag', document.etag).header('vary', 'accept-encoding')
    if (matches(request.headers['if-none-match'], document.etag)) return reply.code(304).send()
    reply.type('application/json; charset=utf-8')
    const coding = preferredCoding(request.headers['accept-encoding'])
    if (!coding) return reply.send(document.body)
    let coded = document.coded.get(coding)
    if (!coded) document.coded.set(coding, (coded = CODERS[coding](document.body)))
    // Already encoded: the compression plugin passes it through as it is.
    return reply.header('content-encoding', coding).send(coded)
  }
}

function serialise(value: unknown): { body: string; etag: string; coded: Map<Coding, Buffer> } {
  const body = JSON.stringify(value)
  return { body, etag: `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`, coded: new Map() }
}

type Coding = 'br' | 'gzip'

const CODERS: Record<Coding, (body: string) => Buffer> = {
  br: (body) => zlib().brotliCompressSync(body, { params: { [zlib().constants.BROTLI_PARAM_QUALITY]: 9, [zlib().constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(body) } }),
  gzip: (body) => zlib().gzipSync(body, { level: 9 }),
}

/**
 * The coding a client prefers by `Accept-Encoding` (RFC 9110 §12.5.3): the higher q of brotli and
 * gzip (`x-gzip` and `*` count), brotli on a tie; none when neither is acceptable.
 */
export function preferredCoding(acceptEncoding: string | undefined): Coding | undefined {
  if (!acceptEncoding) return undefined
  const weights = new Map<string, number>()
  for (const part of acceptEncoding.toLowerCase().split(',')) {
    const [token = '', ...parameters] = part.split(';').map((piece) => piece.trim())
    const q = parameters.find((parameter) => parameter.startsWith('q='))
    const weight = q === undefined ? 1 : Number(q.slice(2))
    weights.set(token === 'x-gzip' ? 'gzip' : token, Number.isFinite(weight) ? weight : 0)
  }
  const any = weights.get('*') ?? 0
  const br = weights.get('br') ?? any
  const gzip = weights.get('gzip') ?? any
  if (br <= 0 && gzip <= 0) return undefined
  return br >= gzip ? 'br' : 'gzip'
}

/** RFC 9110 §13.1.2: `*`, or a list of tags compared weakly (`W/` ignored on both sides). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false
  const opaque = etag.replace(/^W\//, '')
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim()
    return trimmed === '*' || trimmed.replace(/^W\//, '') === opaque
  })
}
