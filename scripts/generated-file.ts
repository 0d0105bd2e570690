import fs from 'node:fs'

/**
 * Writes a generated file only when its text changed, and says which: an unchanged file keeps its
 * modification time, which says when the source it was generated from last changed (the
 * benchmark warns of a build older than its sources by these times).
 */
export function writeGenerated(file: URL | string, text: string): void {
  let current: string | undefined
  try {
    current = fs.readFileSync(file, 'utf8')
  } catch {
    current = undefined
  }
  const name = typeof file === 'string' ? file : file.pathname
  if (current === text) {
    process.stdout.write(`unchanged ${name}\n`)
    return
  }
  fs.writeFileSync(file, text)
  process.stdout.write(`wrote ${name}\n`)
}
