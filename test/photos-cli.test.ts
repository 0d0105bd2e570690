import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'
import sharp from 'sharp'
import type { TestPlan } from '../scripts/test-plan.js'
import { cleanup, cliJson, makeDataDir, runCli } from './helpers/process.js'

// The command on an SQLite store: the photo service is the server's, tested on both back ends in photos.test.ts.
export const testPlan: TestPlan = { legs: 'sqlite' }

/**
 * The command's `pets photos add` (photos from files, through the upload's service) and `media
 * verify` (rows without files, files without rows; exit 1 when any).
 */

let dataDir: string
const cli = (args: string[]) => runCli(args, { dataDir })
const json = <T>(args: string[]) => cliJson<T>(args, { dataDir })

interface Photo {
  id: string
  width: number
  height: number
  variants: { webp: { url: string }[] }
}

before(async () => {
  dataDir = makeDataDir()
  assert.equal((await cli(['projects', 'create', 'shelter', '--plan', 'pro'])).code, 0)
  fs.writeFileSync(path.join(dataDir, 'pets.csv'), 'ID,AnimalName,Type\nA-1,Rex,Dog\n')
  assert.equal((await cli(['pets', 'import', '--project', 'shelter', '--file', path.join(dataDir, 'pets.csv')])).code, 0)
})
after(() => cleanup())

test('pets photos add stores each file as a photo, in order; media verify finds every file, then a missing one and a stray one', async () => {
  const [pet] = await json<{ id: number }[]>(['pets', 'export', '--project', 'shelter', '--format', 'json'])
  const files = ['a.png', 'b.jpg'].map((name) => path.join(dataDir, name))
  fs.writeFileSync(files[0]!, await sharp({ create: { width: 320, height: 200, channels: 3, background: '#123456' } }).png().toBuffer())
  // A PNG named .jpg: typed by its bytes.
  fs.writeFileSync(files[1]!, await sharp({ create: { width: 50, height: 80, channels: 3, background: '#654321' } }).png().toBuffer())
  const added = await json<(Photo & { file: string })[]>(['pets', 'photos', 'add', String(pet!.id), ...files, '--project', 'shelter', '--json'])
  assert.deepEqual(added.map((photo) => [photo.file, photo.width, photo.height]), [[files[0], 320, 200], [files[1], 50, 80]])
  const [exported] = await json<{ photos: Photo[] }[]>(['pets', 'export', '--project', 'shelter', '--format', 'json'])
  assert.deepEqual(exported!.photos.map((photo) => photo.id), added.map((photo) => photo.id))

  const ok = await json<{ photos: number; files: number; missing: unknown[]; orphans: unknown[] }>(['media', 'verify', '--json'])
  assert.deepEqual([ok.photos, ok.files, ok.missing, ok.orphans], [2, 8, [], []])

  const key = new URL(added[0]!.variants.webp[0]!.url).pathname.replace('/media/', '')
  fs.rmSync(path.join(dataDir, 'media', key), { force: true })
  fs.mkdirSync(path.join(dataDir, 'media', 'photos', 'CCCCCCCCCCCCCCCCCCCCCC'), { recursive: true })
  fs.writeFileSync(path.join(dataDir, 'media', 'photos', 'CCCCCCCCCCCCCCCCCCCCCC', 'stray-100.jpg'), 'x')
  const bad = await cli(['media', 'verify', '--json'])
  assert.equal(bad.code, 1, bad.stderr)
  const report = JSON.parse(bad.stdout) as { missing: { key: string; photoId: string }[]; orphans: { key: string }[] }
  assert.deepEqual(report.missing.map((m) => [m.key, m.photoId]), [[key, added[0]!.id]])
  assert.deepEqual(report.orphans.map((o) => o.key), ['photos/CCCCCCCCCCCCCCCCCCCCCC/stray-100.jpg'])
  const human = await cli(['media', 'verify'])
  assert.match(human.stdout, /missing: photos\//)
  assert.match(human.stdout, /orphan: photos\/CCCC/)
})

test('pets photos add refuses a file that is not an image, naming it, and an animal of no project', async () => {
  const [pet] = await json<{ id: number }[]>(['pets', 'export', '--project', 'shelter', '--format', 'json'])
  const svg = path.join(dataDir, 'x.svg')
  fs.writeFileSync(svg, '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')
  const refused = await cli(['pets', 'photos', 'add', String(pet!.id), svg, '--project', 'shelter'])
  assert.equal(refused.code, 1)
  assert.match(refused.stderr, /x\.svg: The photo is SVG/)
  const none = await cli(['pets', 'photos', 'add', '999999', svg, '--project', 'shelter'])
  assert.equal(none.code, 1)
  assert.match(none.stderr, /No animal with id 999999/)
})
