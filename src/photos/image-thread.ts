import { workerData, parentPort } from 'node:worker_threads'
import { createObjectStore } from '../storage/backend.js'
import { processImage, storeVariants } from './images.js'
import type { ImageJob, ImageJobAnswer, ImageJobFailure, ImageThreadData } from './image-threads.js'

/**
 * An image thread: processes one upload at a time, as `ImageThreads` sends them, and stores its
 * variants. Its buffers (the upload, the decoded pixels, the variants being encoded and written)
 * are this thread's heap's to collect, not the event loop's.
 */
const port = parentPort
if (!port) throw new Error('image-thread runs as a worker thread')
const store = createObjectStore((workerData as ImageThreadData).storage)
port.on('message', async ({ pieces, maxPixels, prefix }: ImageJob) => {
  let answer: ImageJobAnswer
  try {
    const bytes = Buffer.concat(pieces)
    pieces.length = 0
    const processed = await processImage(bytes, maxPixels)
    answer = { outcome: processed.ok ? { ok: true, photo: await storeVariants(store, processed.photo, prefix) } : processed }
  } catch (error) {
    answer = { crashed: error instanceof Error ? (error.stack ?? error.message) : String(error), ...(error !== null && typeof error === 'object' && { cause: causeOf(error) }) }
  }
  port.postMessage(answer)
})

/** What the event loop's error handling reads of an error (a full storage's code or status), which a thread's message does not carry of an Error itself. */
function causeOf(error: object): ImageJobFailure {
  const { code, errno, name, $metadata } = error as { code?: unknown; errno?: unknown; name?: unknown; $metadata?: { httpStatusCode?: unknown } }
  return {
    ...(typeof code === 'string' && { code }),
    ...(typeof errno === 'number' && { errno }),
    ...(typeof name === 'string' && { name }),
    ...(typeof $metadata?.httpStatusCode === 'number' && { $metadata: { httpStatusCode: $metadata.httpStatusCode } }),
  }
}
