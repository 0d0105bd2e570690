// The uploads of the photo benchmark's busy phase, from a process of their own: the clients that
// upload are not the one that measures GET list, as on a real site. In the harness's own process,
// sending megabytes kept its event loop from reading the answers it was timing.
//
// Usage: node bench/uploader.mjs <config.json>  ({ baseUrl, key, pets, first, file, concurrency })
// Prints "started" once every stream has sent its first upload, keeps one upload in flight per
// stream until its stdin ends, then prints how many uploads it made and exits (1 on a refusal).
/* global fetch */
import { readFileSync } from 'node:fs'
import process from 'node:process'

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'))
const bytes = readFileSync(config.file)
let stop = false
let sent = 0
process.stdin.on('end', () => (stop = true)).resume()

async function stream() {
  while (!stop) {
    // Twenty photos an animal at most: the animals fill up in turn, after the harness's own uploads.
    const petId = config.pets[Math.floor((config.first + sent++) / 20) % config.pets.length]
    if (sent === config.concurrency) process.stdout.write('started\n')
    const response = await fetch(`${config.baseUrl}/v1/pets/${petId}/photos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${config.key}`, 'content-type': 'image/jpeg' },
      body: bytes,
    })
    const text = await response.text()
    if (response.status !== 201) {
      process.stderr.write(`a photo upload answered ${response.status}: ${text.slice(0, 500)}\n`)
      process.exit(1)
    }
  }
}

await Promise.all(Array.from({ length: config.concurrency }, stream))
process.stdout.write(`${sent}\n`)
