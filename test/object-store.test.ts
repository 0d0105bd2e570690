import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { TestPlan } from '../scripts/test-plan.js'
import { createObjectStore } from '../src/storage/backend.js'
import type { ObjectStore } from '../src/storage/store.js'
import { defineConfig } from '../src/config.js'
import { startTestS3, type TestS3 } from './helpers/s3.js'

// Opens no database: the object stores are the same on both legs.
export const testPlan: TestPlan = { legs: 'sqlite' }

/**
 * The object store contract, run on both back ends chosen the way the service chooses them
 * (`createObjectStore` from configuration): files under DATA_DIR, and an S3-protocol server
 * (TEST_S3_ENDPOINT, else an s3rver started by the test).
 */

async function text(store: ObjectStore, key: string, range?: { start: number; end: number }): Promise<string | undefined> {
  const read = await store.get(key, range)
  if (!read) return undefined
  let out = ''
  for await (const chunk of read.body) out += String(chunk)
  return out
}

async function keysOf(store: ObjectStore, prefix: string): Promise<string[]> {
  const keys: string[] = []
  for await (const object of store.list(prefix)) keys.push(object.key)
  return keys.sort()
}

const backends: { name: string; open: () => Promise<{ store: ObjectStore; close: () => Promise<void> }> }[] = [
  {
    name: 'files',
    open: async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'adoption-store-objects-'))
      const store = createObjectStore(defineConfig({ dataDir }))
      assert.equal(store.kind, 'files')
      return { store, close: async () => fs.rmSync(dataDir, { recursive: true, force: true }) }
    },
  },
  {
    name: 's3',
    open: async () => {
      const s3: TestS3 = await startTestS3()
      const store = createObjectStore(defineConfig({ ...s3.config }))
      assert.equal(store.kind, 's3')
      return {
        store,
        close: async () => {
          await store.close()
          await s3.close()
        },
      }
    },
  },
]

for (const backend of backends) {
  describe(`the ${backend.name} object store`, () => {
    let store: ObjectStore
    let close: () => Promise<void>
    before(async () => {
      ;({ store, close } = await backend.open())
    })
    after(async () => close())

    test('writes an object whole and reads it back, whole or by range, with its size', async () => {
      const bytes = Buffer.from('0123456789abcdefghij')
      await store.put('photos/one/a-100.webp', bytes, 'image/webp')
      assert.equal(await text(store, 'photos/one/a-100.webp'), bytes.toString())
      assert.equal(await text(store, 'photos/one/a-100.webp', { start: 5, end: 9 }), '56789')
      assert.equal((await store.get('photos/one/a-100.webp', { start: 18, end: 19 }))?.size, 20)
      assert.deepEqual(await store.head('photos/one/a-100.webp'), { size: 20 })
    })

    test('answers nothing for a missing object, and deleting one is no error', async () => {
      assert.equal(await store.get('photos/none/x.jpg'), undefined)
      assert.equal(await store.head('photos/none/x.jpg'), undefined)
      await store.delete(['photos/none/x.jpg'])
    })

    test('lists by prefix, with sizes and times, and deletes several at once', async () => {
      const started = Date.now() - 5000
      await store.put('photos/two/b-100.jpg', Buffer.from('bb'), 'image/jpeg')
      await store.put('photos/two/b-300.jpg', Buffer.from('bbb'), 'image/jpeg')
      await store.put('photos/twofold/c-100.jpg', Buffer.from('c'), 'image/jpeg')
      await store.put('other/d.txt', Buffer.from('d'), 'text/plain')
      assert.deepEqual(await keysOf(store, 'photos/two/'), ['photos/two/b-100.jpg', 'photos/two/b-300.jpg'])
      assert.deepEqual(await keysOf(store, 'photos/two'), ['photos/two/b-100.jpg', 'photos/two/b-300.jpg', 'photos/twofold/c-100.jpg'])
      for await (const object of store.list('photos/two/')) {
        assert.equal(object.size, object.key.endsWith('300.jpg') ? 3 : 2)
        assert.ok(object.modifiedAt.getTime() >= started && object.modifiedAt.getTime() <= Date.now() + 5000, String(object.modifiedAt))
      }
      await store.delete(['photos/two/b-100.jpg', 'photos/two/b-300.jpg'])
      assert.deepEqual(await keysOf(store, 'photos/two/'), [])
      assert.deepEqual(await keysOf(store, 'other/'), ['other/d.txt'])
    })

    test('an object written again under its key is replaced whole', async () => {
      await store.put('photos/three/e.jpg', Buffer.from('first'), 'image/jpeg')
      await store.put('photos/three/e.jpg', Buffer.from('second!'), 'image/jpeg')
      assert.equal(await text(store, 'photos/three/e.jpg'), 'second!')
    })

    test('refuses keys that could leave its namespace', async () => {
      for (const key of ['../etc/passwd', '/abs', 'photos/../x', 'photos//x', 'photos/a b']) {
        await assert.rejects(store.put(key, Buffer.from('x'), 'text/plain'), /Invalid object key/, key)
      }
    })
  })
}
