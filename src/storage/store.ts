import type { Readable } from 'node:stream'

/** A stored object as listed: its key, size, and when it was written. */
export interface StoredObject {
  key: string
  size: number
  modifiedAt: Date
}

/** The bytes of an object, or of a part of it (`range`, inclusive, as HTTP Range names it). */
export interface ObjectRead {
  body: Readable
  /** The whole object's size, whatever part is read. */
  size: number
}

/**
 * Where uploaded media is kept: files under DATA_DIR, or an S3-compatible bucket. Keys are
 * relative paths of `[A-Za-z0-9._-]` segments joined by `/`; objects are written whole (a reader
 * never sees half of one) and never changed after (a key names one content for ever).
 */
export interface ObjectStore {
  readonly kind: 'files' | 's3'
  /** Writes an object whole; a failure leaves nothing readable under `key`. */
  put(key: string, body: Buffer, contentType: string): Promise<void>
  /** The object's bytes (from `range.start` to `range.end`, inclusive, when given), or undefined when there is none. */
  get(key: string, range?: { start: number; end: number }): Promise<ObjectRead | undefined>
  /** The object's size, or undefined when there is none. */
  head(key: string): Promise<{ size: number } | undefined>
  /** Deletes objects; a key without an object is no error. */
  delete(keys: readonly string[]): Promise<void>
  /** Every object whose key starts with `prefix`, in pages the store chooses. */
  list(prefix: string): AsyncIterable<StoredObject>
  close(): Promise<void>
}

const KEY = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/

/** Refuses a key that could leave its namespace (`..`, absolute paths, odd characters). */
export function checkKey(key: string): string {
  if (!KEY.test(key) || key.split('/').some((part) => part === '.' || part === '..')) throw new Error(`Invalid object key: ${JSON.stringify(key)}`)
  return key
}
