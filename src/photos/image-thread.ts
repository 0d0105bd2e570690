import { parentPort } from 'node:worker_threads'
import { processImage } from './images.js'
import type { ImageJob, ImageJobAnswer } from './image-threads.js'

/**
 * An image thread: processes one upload at a time, as `ImageThreads` sends them. Its buffers (the
 * upload, the decoded pixels, the variants being encoded) are this thread's heap's to collect,
 * not the event loop's; the variants' bytes move back without a copy.
 */
const port = parentPort
if (!port) throw new Error('image-thread runs as a worker thread')
port.on('message', async ({ bytes, maxPixels }: ImageJob) => {
  let answer: ImageJobAnswer
  try {
    answer = { outcome: await processImage(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), maxPixels) }
  } catch (error) {
    answer = { crashed: error instanceof Error ? (error.stack ?? error.message) : String(error) }
  }
  const moved = 'outcome' in answer && answer.outcome.ok ? answer.outcome.photo.variants.map((variant) => variant.bytes).flatMap(ownedBuffer) : []
  port.postMessage(answer, moved)
})

/** A buffer's memory when the buffer is all of it (so moving it takes nothing else along). */
function ownedBuffer(bytes: Buffer): ArrayBuffer[] {
  const { buffer } = bytes
  return buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength ? [buffer] : []
}
