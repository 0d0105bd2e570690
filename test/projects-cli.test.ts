/**
 * The command's `projects delete`: without --yes and without a terminal it refuses and deletes
 * nothing; with --yes it deletes the project with its keys, animals and photos' files, prints what
 * went (JSON with --json), and a second deletion is an error naming the slug.
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'
import sharp from 'sharp'
import { cleanup, cliJson, makeDataDir, runCli } from './helpers/process.js'

let dataDir: string
const cli = (args: string[]) => runCli(args, { dataDir })
const json = <T>(args: string[]) => cliJson<T>(args, { dataDir })

before(async () => {
  dataDir = makeDataDir()
  for (const slug of ['doomed', 'kept']) {
    assert.equal((await cli(['projects', 'create', slug])).code, 0)
    fs.writeFileSync(path.join(dataDir, `${slug}.csv`), 'name,categoryId,status\nRex,1,available\nTom,2,available\n')
    assert.equal((await cli(['pets', 'import', '--project', slug, '--file', path.join(dataDir, `${slug}.csv`)])).code, 0)
  }
  assert.equal((await cli(['keys', 'create', '--project', 'doomed', '--name', 'site'])).code, 0)
  const [pet] = await json<{ id: number }[]>(['pets', 'export', '--project', 'doomed', '--format', 'json'])
  const image = path.join(dataDir, 'rex.jpg')
  fs.writeFileSync(image, await sharp({ create: { width: 40, height: 30, channels: 3, background: '#2a6f97' } }).jpeg().toBuffer())
  assert.equal((await cli(['pets', 'photos', 'add', String(pet!.id), image, '--project', 'doomed'])).code, 0)
})
after(cleanup)

test('without --yes and without a terminal it refuses, naming --yes, and deletes nothing', async () => {
  const refused = await cli(['projects', 'delete', 'doomed'])
  assert.equal(refused.code, 1, refused.stderr)
  assert.match(refused.stderr, /cannot be undone: run "adoption-store projects delete doomed --yes"/)
  const slugs = (await json<{ slug: string }[]>(['projects', 'list', '--json'])).map((p) => p.slug)
  assert.deepEqual(slugs, ['doomed', 'kept'])
})

test('with --yes it deletes the project, its animals, keys and photo files; the other project stays', async () => {
  const deleted = await json<{ slug: string; rows: Record<string, number>; photoFiles: number }>(['projects', 'delete', 'doomed', '--yes', '--json'])
  assert.equal(deleted.slug, 'doomed')
  assert.equal(deleted.rows.pets, 2)
  assert.equal(deleted.rows.api_keys, 1)
  assert.equal(deleted.rows.pet_photos, 1)
  assert.ok(deleted.photoFiles > 0)
  const report = await json<{ photos: number; files: number; orphans: unknown[] }>(['media', 'verify', '--json'])
  assert.deepEqual({ photos: report.photos, files: report.files, orphans: report.orphans }, { photos: 0, files: 0, orphans: [] }, 'no photo row or file is left')
  assert.deepEqual((await json<{ slug: string }[]>(['projects', 'list', '--json'])).map((p) => p.slug), ['kept'])
  assert.equal((await json<unknown[]>(['pets', 'export', '--project', 'kept', '--format', 'json'])).length, 2)
  const entries = await json<{ action: string; target: { id: string } }[]>(['audit', 'list', '--action', 'project.deleted', '--json'])
  assert.deepEqual(entries.map((entry) => [entry.action, entry.target.id]), [['project.deleted', 'doomed']])

  const again = await cli(['projects', 'delete', 'doomed', '--yes'])
  assert.equal(again.code, 1)
  assert.match(again.stderr, /No project with slug "doomed"/)
})
