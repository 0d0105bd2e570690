/**
 * Values kept by key up to a total size in bytes, the least recently used going first once
 * `maxBytes` is passed. A value larger than the whole bound is not kept. The size of each value is
 * the caller's estimate (its bytes and what keeping it costs beyond them), so the bound is honest.
 */
export class SizedLru<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>()
  private bytes = 0

  constructor(private readonly maxBytes: number) {}

  /** The value kept under `key`, now the most recently used; undefined when none is. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key)
    if (entry === undefined) return undefined
    // Most recently used last.
    this.entries.delete(key)
    this.entries.set(key, entry)
    return entry.value
  }

  /** Keeps `value` under `key` in place of what was there, counted as `bytes`; the least recently used go until the total fits. */
  set(key: string, value: V, bytes: number): void {
    const previous = this.entries.get(key)
    if (previous !== undefined) {
      this.bytes -= previous.bytes
      this.entries.delete(key)
    }
    if (bytes > this.maxBytes) return
    this.entries.set(key, { value, bytes })
    this.bytes += bytes
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break
      this.entries.delete(oldest)
      this.bytes -= entry.bytes
    }
  }

  clear(): void {
    this.entries.clear()
    this.bytes = 0
  }
}
