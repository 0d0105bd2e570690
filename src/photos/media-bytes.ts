import type { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import { SizedLru } from '../cache/lru.js'
import type { ObjectStore } from '../storage/store.js'

/** Files up to this size are kept whole in memory once read (a 1,200 px WebP is 100–300 KB). */
export const MAX_KEPT_FILE_BYTES = 512 * 1024

/** Per entry beyond its bytes (the map's slot, the key): an estimate, to keep the bound honest. */
const ENTRY_OVERHEAD = 200

/**
 * The bytes of media files, the small ones kept in memory, least recently used first out once
 * `maxBytes` is reached. A file's key names one content for ever (the hash of its bytes), so a
 * kept copy is never stale; whether its photo still exists is not kept here but read for every
 * request, so a removed photo stops being served at once. Opening a file, a stream and a close
 * for every request cost more than everything else a request for a small variant does.
 */
export class MediaBytes {
  private readonly entries: SizedLru<Buffer>

  constructor(
    private readonly store: ObjectStore,
    private readonly maxBytes: number,
  ) {
    this.entries = new SizedLru(maxBytes)
  }

  /** A file's bytes, or those from `range.start` to `range.end` (inclusive); undefined when it is not stored. */
  async read(key: string, size: number, range?: { start: number; end: number }): Promise<{ body: Buffer | Readable; size: number } | undefined> {
    const kept = this.kept(key)
    if (kept) return { body: part(kept, range), size: kept.length }
    if (size > MAX_KEPT_FILE_BYTES || size + ENTRY_OVERHEAD > this.maxBytes) return this.store.get(key, range)
    const read = await this.store.get(key)
    if (!read) return undefined
    const bytes = await buffer(read.body)
    this.entries.set(key, bytes, bytes.length + ENTRY_OVERHEAD)
    return { body: part(bytes, range), size: bytes.length }
  }

  /** A kept file's bytes, without waiting; undefined when `read` has to read it. */
  kept(key: string): Buffer | undefined {
    return this.entries.get(key)
  }
}

function part(bytes: Buffer, range: { start: number; end: number } | undefined): Buffer {
  return range ? bytes.subarray(range.start, range.end + 1) : bytes
}
