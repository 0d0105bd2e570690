import compress from '@fastify/compress'
import type { FastifyInstance } from 'fastify'

/**
 * Below this size an answer is sent as is. A 401, a 429, one animal and the default page of 20
 * animals (1 to 3 KB) fit in a packet or two either way, and compressing them would cost each
 * request on the hot path a new compressor (measured: 1 KiB cost the default page 45% of its
 * throughput; see docs/performance.md). Pages of 100 and the OpenAPI documents are well above.
 */
export const COMPRESSION_THRESHOLD = 4096

/**
 * Compresses answers of 4 KiB and more (long pages, admin lists, /metrics) with brotli or gzip,
 * as the client's `Accept-Encoding` prefers, adding `Vary: accept-encoding`; the OpenAPI
 * documents come compressed already (see caching.ts) and pass through. Small answers go out
 * untouched. Request bodies are never inflated: they are small JSON, and a few compressed bytes
 * could expand far past the body limit. Call before any route is added: the plugin equips each
 * route as it is added.
 */
export async function installCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    threshold: COMPRESSION_THRESHOLD,
    encodings: ['br', 'gzip'],
    globalDecompression: false,
  })
}
