import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { checkKey, type ObjectRead, type ObjectStore, type StoredObject } from './store.js'

/**
 * Objects as files under one directory (DATA_DIR/media by default): written to a temporary name
 * beside the target, flushed, then renamed, so a crash leaves a whole file or a `.tmp-` leftover
 * (which `list` reports like any object, for the sweep to remove), never half a file.
 */
export class FileObjectStore implements ObjectStore {
  readonly kind = 'files'

  constructor(private readonly root: string) {}

  async put(key: string, body: Buffer): Promise<void> {
    const target = this.path(key)
    await fs.promises.mkdir(path.dirname(target), { recursive: true })
    const temporary = path.join(path.dirname(target), `.tmp-${randomBytes(6).toString('hex')}-${path.basename(target)}`)
    const handle = await fs.promises.open(temporary, 'w', 0o644)
    try {
      await handle.writeFile(body)
      await handle.sync()
    } catch (error) {
      await handle.close()
      await fs.promises.rm(temporary, { force: true })
      throw error
    }
    await handle.close()
    await fs.promises.rename(temporary, target)
  }

  async get(key: string, range?: { start: number; end: number }): Promise<ObjectRead | undefined> {
    let handle: fs.promises.FileHandle
    try {
      handle = await fs.promises.open(this.path(key), 'r')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw error
    }
    const { size } = await handle.stat()
    return { body: handle.createReadStream(range ? { start: range.start, end: range.end } : {}), size }
  }

  async head(key: string): Promise<{ size: number } | undefined> {
    try {
      return { size: (await fs.promises.stat(this.path(key))).size }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw error
    }
  }

  async delete(keys: readonly string[]): Promise<void> {
    for (const key of keys) {
      const file = this.path(key)
      await fs.promises.rm(file, { force: true })
      // An emptied folder goes too, up to the root: a photo's folder ends with its last variant.
      for (let dir = path.dirname(file); dir.startsWith(this.root + path.sep); dir = path.dirname(dir)) {
        try {
          await fs.promises.rmdir(dir)
        } catch {
          break
        }
      }
    }
  }

  async *list(prefix: string): AsyncIterable<StoredObject> {
    const walk = async function* (dir: string, root: string): AsyncGenerator<StoredObject> {
      let entries: fs.Dirent[]
      try {
        entries = await fs.promises.readdir(dir, { withFileTypes: true })
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
        throw error
      }
      for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        const full = path.join(dir, entry.name)
        if (entry.isDirectory()) yield* walk(full, root)
        else if (entry.isFile()) {
          const stat = await fs.promises.stat(full).catch(() => undefined)
          if (stat) yield { key: path.relative(root, full).split(path.sep).join('/'), size: stat.size, modifiedAt: stat.mtime }
        }
      }
    }
    // The folder of the prefix's last complete segment, then the keys that start with the prefix.
    const slash = prefix.lastIndexOf('/')
    const start = slash === -1 ? this.root : path.join(this.root, checkKey(prefix.slice(0, slash)))
    for await (const object of walk(start, this.root)) if (object.key.startsWith(prefix)) yield object
  }

  async close(): Promise<void> {}

  private path(key: string): string {
    return path.join(this.root, ...checkKey(key).split('/'))
  }
}
