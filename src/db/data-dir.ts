import fs from 'node:fs'
import path from 'node:path'
import { ConfigError } from '../config.js'

/**
 * Makes `DATA_DIR` and its missing parents, or says in one line why it cannot. Not
 * `mkdirSync(dir, { recursive: true })`: under a file system that refuses new directories
 * without saying why (a child of /proc answers ENOENT), Node's recursive mkdir retries for ever.
 */
export function ensureDataDir(dataDir: string): void {
  const refuse = (why: string) =>
    new ConfigError(`DATA_DIR (${dataDir}) ${why}: set DATA_DIR (or --data-dir) to a directory this process can write; it is made if it does not exist.`)
  const ensure = (dir: string): void => {
    const code = (error: unknown) => (error as NodeJS.ErrnoException).code
    let stat: fs.Stats | undefined
    try {
      stat = fs.statSync(dir)
    } catch (error) {
      if (code(error) === 'ENOTDIR') throw refuse(`is inside a file (${nearestFile(dir)})`)
      if (code(error) !== 'ENOENT') throw refuse(`cannot be read (${code(error)} on ${dir})`)
    }
    if (stat?.isDirectory()) return
    if (stat) throw refuse(dir === dataDir ? 'is a file, not a directory' : `is inside a file (${dir})`)
    const parent = path.dirname(dir)
    ensure(parent)
    try {
      fs.mkdirSync(dir)
    } catch (error) {
      if (code(error) === 'EEXIST') return ensure(dir)
      if (code(error) === 'EACCES' || code(error) === 'EPERM') throw refuse(`cannot be made: ${parent} is not writable by this process`)
      if (code(error) === 'EROFS') throw refuse(`cannot be made: ${parent} is on a read-only file system`)
      if (code(error) === 'ENOENT') throw refuse(`cannot be made: ${parent} does not take new directories`)
      throw refuse(`cannot be made in ${parent} (${code(error)})`)
    }
  }
  ensure(path.resolve(dataDir))
}

/** The first path above `dir` that exists: the file a path runs into. */
function nearestFile(dir: string): string {
  let at = path.dirname(dir)
  while (!fs.existsSync(at) && path.dirname(at) !== at) at = path.dirname(at)
  return at
}
