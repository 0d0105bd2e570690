import { workerData, parentPort } from 'node:worker_threads'
import { errorFacts } from '../db/errors.js'
import { createObjectStore } from '../storage/backend.js'
import { processImage, storeVariants } from './images.js'
import type { ImageJob, ImageJobAnswer, ImageThreadData } from './image-threads.js'

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
    answer = { crashed: error instanceof Error ? (error.stack ?? error.message) : String(error), cause: errorFacts(error) }
  }
  port.postMessage(answer)
})
