import { Worker } from 'node:worker_threads'
import type { Outcome } from '../errors.js'
import type { ImageFailure, ProcessedPhoto } from './images.js'

/** What an image thread is sent: the upload's bytes (moved, not copied, when they are a buffer of their own). */
export interface ImageJob {
  bytes: Uint8Array
  maxPixels: number
}

/** What it answers: the processing's outcome, or why it failed unexpectedly. */
export type ImageJobAnswer = { outcome: Outcome<{ photo: ProcessedPhoto }, ImageFailure> } | { crashed: string }

/** Where the image thread's code comes from, when not from the compiled module beside this one. */
let threadScript: { source: () => string; text?: string } | undefined

/**
 * Runs image threads from a script (CommonJS, evaluated in each thread) instead of the compiled
 * `image-thread.js` beside this module: for a process that runs the TypeScript sources (the tests,
 * scripts under tsx), whose loader a thread does not inherit (see scripts/thread-scripts.ts).
 */
export function useImageThreadScript(source: () => string): void {
  threadScript = { source }
}

function startThread(): Worker {
  if (threadScript) return new Worker((threadScript.text ??= threadScript.source()), { eval: true })
  if (import.meta.url.endsWith('.ts')) {
    throw new Error('The image thread runs JavaScript: from the TypeScript sources, give it its script first (useImageThreadScript; see scripts/thread-scripts.ts).')
  }
  return new Worker(new URL('./image-thread.js', import.meta.url))
}

/**
 * Photos processed in worker threads, one upload per thread at a time (the caller bounds how many
 * run at once). libvips works off the event loop either way; what a thread adds is a heap of its
 * own: an upload's tens of megabytes of buffers (its bytes, its decoded pixels, its variants)
 * made the event loop's collector run a full mark-compact every few hundred milliseconds, a
 * pause every answer waiting behind it took. Threads start when first needed and, idle, keep no
 * process alive.
 */
export class ImageThreads {
  private readonly idle: Worker[] = []
  private readonly busy = new Set<Worker>()

  async process(bytes: Buffer, maxPixels: number): Promise<Outcome<{ photo: ProcessedPhoto }, ImageFailure>> {
    const thread = this.idle.pop() ?? startThread()
    thread.ref()
    this.busy.add(thread)
    let settled = false
    try {
      const answer = await new Promise<ImageJobAnswer>((resolve, reject) => {
        const onMessage = (message: ImageJobAnswer) => {
          cleanup()
          resolve(message)
        }
        const onError = (error: Error) => {
          cleanup()
          reject(error)
        }
        const onExit = (code: number) => {
          cleanup()
          reject(new Error(`the image thread stopped (exit code ${code}) while processing a photo`))
        }
        const cleanup = () => {
          thread.off('message', onMessage).off('error', onError).off('exit', onExit)
        }
        thread.on('message', onMessage).on('error', onError).on('exit', onExit)
        // The upload's memory moves to the thread when it is a buffer of its own; else it is copied.
        const owned = bytes.byteOffset === 0 && bytes.buffer instanceof ArrayBuffer && bytes.byteLength === bytes.buffer.byteLength
        thread.postMessage({ bytes, maxPixels } satisfies ImageJob, owned ? [bytes.buffer as ArrayBuffer] : [])
      })
      settled = true
      if ('crashed' in answer) throw new Error(`processing a photo failed: ${answer.crashed}`)
      const { outcome } = answer
      if (outcome.ok) for (const variant of outcome.photo.variants) variant.bytes = Buffer.from(variant.bytes.buffer, variant.bytes.byteOffset, variant.bytes.byteLength)
      return outcome
    } finally {
      this.busy.delete(thread)
      if (settled) {
        thread.unref()
        this.idle.push(thread)
      } else {
        void thread.terminate()
      }
    }
  }

  async close(): Promise<void> {
    const threads = [...this.idle, ...this.busy]
    this.idle.length = 0
    this.busy.clear()
    await Promise.all(threads.map((thread) => thread.terminate()))
  }
}
