import type * as WorkerThreads from 'node:worker_threads'
import type { Worker } from 'node:worker_threads'
import type { ErrorFacts } from '../db/errors.js'
import type { Outcome } from '../errors.js'
import type { StorageSettings } from '../storage/backend.js'
import type { ImageFailure, StoredUpload } from './images.js'
import { lazy } from '../lazy.js'

// Loaded with the first thread: the commands that build the photos feature process no upload.
const threads = lazy<typeof WorkerThreads>('node:worker_threads')

/**
 * What an image thread is sent: the upload's bytes as they arrived (each piece moved, not copied,
 * when it is a buffer of its own), and where its files go in the store (`photos/<photo id>/`).
 */
export interface ImageJob {
  pieces: Uint8Array[]
  maxPixels: number
  prefix: string
}

/**
 * What it answers: the photo with its files stored, a refusal of its bytes, or why it failed
 * unexpectedly (its stack, and what the error handling reads of it: a store's full disk is a 503).
 */
export type ImageJobAnswer = { outcome: Outcome<{ photo: StoredUpload }, ImageFailure> } | { crashed: string; cause: ErrorFacts | undefined }

/** What an image thread starts with: where it stores the files it makes. */
export interface ImageThreadData {
  storage: StorageSettings
}

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

function startThread(workerData: ImageThreadData): Worker {
  if (threadScript) return new (threads().Worker)((threadScript.text ??= threadScript.source()), { eval: true, workerData })
  if (import.meta.url.endsWith('.ts')) {
    throw new Error('The image thread runs JavaScript: from the TypeScript sources, give it its script first (useImageThreadScript; see scripts/thread-scripts.ts).')
  }
  return new (threads().Worker)(new URL('./image-thread.js', import.meta.url), { workerData })
}

/**
 * Photos processed and stored by worker threads, one upload per thread at a time (the caller
 * bounds how many run at once). libvips works off the event loop either way; what a thread adds is
 * a heap of its own. An upload's bytes, decoded pixels and variants are tens of megabytes of
 * buffers: on the event loop's heap they made its collector run a full mark-compact about once an
 * upload, a pause every answer waiting behind it took. So the upload's pieces move to the thread
 * as they arrived, the thread writes the variants to the store itself, and only their
 * description comes back. Threads start when first needed and, idle, keep no process alive.
 */
export class ImageThreads {
  private readonly idle: Worker[] = []
  private readonly busy = new Set<Worker>()

  constructor(private readonly data: ImageThreadData) {}

  /** Processes an upload (its pieces, in order; they are unusable here afterwards) and stores its files under `prefix`. */
  async process(pieces: readonly Uint8Array[], maxPixels: number, prefix: string): Promise<Outcome<{ photo: StoredUpload }, ImageFailure>> {
    const thread = this.idle.pop() ?? startThread(this.data)
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
        thread.postMessage({ pieces: [...pieces], maxPixels, prefix } satisfies ImageJob, pieces.flatMap(ownMemory))
      })
      settled = true
      if ('crashed' in answer) throw new Error(`processing a photo failed: ${answer.crashed}`, { cause: answer.cause })
      return answer.outcome
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

/**
 * A piece's memory, to move with it, when the piece is all of it: moving takes nothing else along
 * (a piece of a shared pool, or of a buffer still being read, is copied instead).
 */
export function ownMemory(piece: Uint8Array): ArrayBuffer[] {
  const { buffer } = piece
  return buffer instanceof ArrayBuffer && piece.byteOffset === 0 && piece.byteLength === buffer.byteLength ? [buffer] : []
}
