/**
 * An animal's photos in the dashboard's editor, in Chromium against the real app on loopback:
 * several files chosen at once (real images made by sharp, and a text file and one over the size
 * limit that the API refuses), each with its progress and, when refused, the API's reason beside
 * it; the thumbnails the API's files give; a photo made the main one, moved, and removed after a
 * confirmation, each checked through the admin API; files dropped on the drop zone; the saved
 * video links as links; axe-core finding nothing on the page. On a desktop and 390 and 375 px phones;
 * screenshots go to test-results/dashboard/.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Page } from 'playwright-core'
import sharp from 'sharp'
import { admin } from './helpers/admin.js'
import { assertFitsPhone, axeViolations, chromiumMissing, dashboardSuite, isFocused, pageScrollWidth, PHONE, screenshot, signedInPage, textOf } from './helpers/browser.js'
import type { TestPlan } from '../scripts/test-plan.js'

// The page, what it sends and what it shows, is the subject: the photo operations under it are
// test/photos.test.ts's subject on both back ends.
export const testPlan: TestPlan = { legs: 'either' }

interface Photo {
  id: string
  width: number
  height: number
  variants: { jpeg: { url: string; width: number }[]; webp: { url: string }[] }
}

/** What the page's images tell (this file is compiled without the DOM's types). */
type Image = { complete: boolean; naturalWidth: number; src: string }

/** Largest upload in this suite: the noisy PNG is over it, the other images far under. */
const MAX_BYTES = 300_000

/** A small JPEG, PNG or WebP of one colour. */
function image(format: 'jpeg' | 'png' | 'webp', background: { r: number; g: number; b: number }, width = 640, height = 480): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background } })[format]().toBuffer()
}

/** A PNG of noise, which does not compress: over MAX_BYTES. */
async function largeImage(): Promise<Buffer> {
  const pixels = Buffer.alloc(400 * 400 * 3)
  for (let i = 0; i < pixels.length; i++) pixels[i] = Math.floor(Math.random() * 256)
  const png = await sharp(pixels, { raw: { width: 400, height: 400, channels: 3 } }).png({ compressionLevel: 0 }).toBuffer()
  assert.ok(png.length > MAX_BYTES, `the noisy PNG is over the limit (${png.length} bytes)`)
  return png
}

describe("an animal's photos in the editor, in Chromium", { skip: chromiumMissing, timeout: 240_000 }, () => {
  const suite = dashboardSuite({ config: { photoMaxBytes: MAX_BYTES } })
  const { closePages } = suite

  const adminJson = async <T,>(method: 'GET' | 'POST', url: string, body?: object): Promise<T> => {
    const response = await admin(suite.t, method, url, body)
    assert.equal(response.statusCode, method === 'POST' ? 201 : 200, response.body)
    return response.json<T>()
  }

  /** An animal of a new project, with an editor page signed in on it. */
  async function editorOf(name: string, profile: object = {}) {
    const shelter = await suite.t.project({ plan: 'pro' })
    const animal = await adminJson<{ id: number }>('POST', `/projects/${shelter.slug}/animals`, { name, categoryId: 1, ...profile })
    const page = await signedInPage(suite, `/projects/${shelter.slug}/animals/${animal.id}`, { role: 'operator' })
    await page.getByRole('heading', { level: 2, name: `Profile of ${name}` }).waitFor()
    await page.getByRole('heading', { level: 3, name: 'Photos' }).waitFor()
    const photosUrl = `/projects/${shelter.slug}/animals/${animal.id}/photos`
    return { page, photosUrl, stored: () => adminJson<Photo[]>('GET', photosUrl) }
  }

  /** The thumbnails shown, in order: each loaded (its bytes decoded: the CSP let it in) and its address. */
  async function thumbnails(page: Page, name: string): Promise<string[]> {
    const images = page.getByRole('list', { name: `Photos of ${name}, the main one first` }).getByRole('img')
    await images.first().waitFor()
    const deadline = Date.now() + 15_000
    while (!(await images.evaluateAll((imgs) => (imgs as unknown as Image[]).every((img) => img.complete && img.naturalWidth > 0)))) {
      assert.ok(Date.now() < deadline, `the thumbnails of ${name} load`)
      await sleep(50)
    }
    return images.evaluateAll((imgs) => (imgs as unknown as Image[]).map((img) => img.src))
  }

  const smallest = (photo: Photo) => photo.variants.jpeg[0]!.url

  test('several files at once: each with its progress, the refused ones with the reason; make main, move, remove; axe finds nothing', async () => {
    const { page, stored } = await editorOf('Rex', { videoUrls: ['https://www.youtube.com/watch?v=dQw4w9WgXcQ'] })
    const files = [
      { name: 'front.jpg', mimeType: 'image/jpeg', buffer: await image('jpeg', { r: 200, g: 40, b: 40 }) },
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('Not a photo at all.\n') },
      { name: 'side.png', mimeType: 'image/png', buffer: await image('png', { r: 40, g: 160, b: 40 }, 480, 640) },
      { name: 'huge.png', mimeType: 'image/png', buffer: await largeImage() },
      { name: 'back.webp', mimeType: 'image/webp', buffer: await image('webp', { r: 40, g: 40, b: 200 }) },
    ]
    await page.getByLabel('Choose photos').setInputFiles(files)

    await textOf(page.getByRole('status').filter({ hasText: 'added' }), /^3 photos added, 2 photos not: see why beside each file\.$/, 30_000)
    const uploads = page.getByRole('list', { name: 'Uploads' }).getByRole('listitem')
    assert.equal(await uploads.count(), 5)
    const upload = (name: string) => uploads.filter({ hasText: name })
    for (const name of ['front.jpg', 'side.png', 'back.webp']) {
      await textOf(upload(name), /Added$/)
      // Its bar at the end: all its bytes sent.
      const bar = upload(name).getByRole('progressbar', { name })
      assert.equal(await bar.evaluate((p) => (p as unknown as { value: number }).value === (p as unknown as { max: number }).max), true, `${name}: progress complete`)
    }
    await textOf(upload('notes.txt'), /Not added: The photo is .+: send JPEG, PNG, WebP, AVIF or GIF/)
    await textOf(upload('huge.png'), /Not added: The photo is larger than the limit of 300000 bytes/)

    // The thumbnails: the API's narrowest files, in the order chosen, the first labelled main.
    let photos = await stored()
    assert.equal(photos.length, 3)
    assert.deepEqual(photos.map((p) => p.variants.jpeg[0]!.width), [100, 100, 100])
    assert.deepEqual(await thumbnails(page, 'Rex'), photos.map(smallest))
    const items = page.getByRole('list', { name: 'Photos of Rex, the main one first' }).getByRole('listitem')
    await textOf(items.first(), /Main photo/)
    assert.equal(await items.nth(1).getByText('Main photo', { exact: true }).count(), 0)
    assert.equal(await page.getByRole('img', { name: 'Main photo of Rex' }).getAttribute('src'), smallest(photos[0]!))
    await screenshot(page, 'animal-photos')
    assert.deepEqual(await axeViolations(page), [], 'axe-core: no violations on the editor with photos')

    // The second made the main photo: the API's order, and the list as it answers.
    const [front, side, back] = photos
    await page.getByRole('button', { name: 'Make main photo (photo 2 of Rex)' }).click()
    await textOf(page.getByRole('status').filter({ hasText: 'main photo' }), /^Photo 2 is now the main photo of Rex\.$/)
    photos = await stored()
    assert.deepEqual(photos.map((p) => p.id), [side!.id, front!.id, back!.id])
    assert.deepEqual(await thumbnails(page, 'Rex'), photos.map(smallest))
    assert.equal(await isFocused(page.getByRole('button', { name: 'Move later the main photo of Rex' })), true, 'the focus stays on the moved photo')

    // The last moved one place earlier.
    await page.getByRole('button', { name: 'Move earlier photo 3 of Rex' }).click()
    await textOf(page.getByRole('status').filter({ hasText: 'Moved' }), /^Moved to place 2\.$/)
    assert.deepEqual((await stored()).map((p) => p.id), [side!.id, back!.id, front!.id])
    assert.equal(await isFocused(page.getByRole('button', { name: 'Move earlier photo 2 of Rex' })), true)

    // Removed after its confirmation: gone from the API, and its files with it.
    await page.getByRole('button', { name: 'Remove photo 3 of Rex' }).click()
    const dialog = page.getByRole('dialog', { name: 'Remove photo 3 of Rex?' })
    await textOf(dialog, /addresses stop working/)
    assert.equal(await isFocused(dialog.getByRole('button', { name: 'Cancel' })), true, 'the harmless choice has the focus')
    await dialog.getByRole('button', { name: 'Remove photo' }).click()
    await textOf(page.getByRole('status').filter({ hasText: 'removed' }), /^The photo is removed; Rex has 2 photos\.$/)
    photos = await stored()
    assert.deepEqual(photos.map((p) => p.id), [side!.id, back!.id])
    assert.equal((await fetch(smallest(front!))).status, 404, "the removed photo's files are gone")
    assert.deepEqual(await thumbnails(page, 'Rex'), photos.map(smallest))

    // The saved video link, as a link.
    const video = page.getByRole('list', { name: /The saved links/ }).getByRole('link', { name: 'youtube.com/watch?v=dQw4w9WgXcQ' })
    assert.equal(await video.getAttribute('href'), 'https://www.youtube.com/watch?v=dQw4w9WgXcQ')

    await assertFitsPhone(page, 'animal-photos')
    assert.deepEqual(await axeViolations(page), [], 'axe-core: no violations on a phone either')
    await closePages()
  })

  test('on a phone: photos chosen with the file button, the second made main', async () => {
    const { page, stored } = await editorOf('Mia')
    await page.setViewportSize(PHONE)
    await page.getByLabel('Choose photos').setInputFiles([
      { name: 'one.jpg', mimeType: 'image/jpeg', buffer: await image('jpeg', { r: 250, g: 200, b: 0 }) },
      { name: 'two.jpg', mimeType: 'image/jpeg', buffer: await image('jpeg', { r: 0, g: 200, b: 250 }, 300, 900) },
    ])
    await textOf(page.getByRole('status').filter({ hasText: 'added' }), /^2 photos added\.$/, 30_000)
    let photos = await stored()
    assert.deepEqual(await thumbnails(page, 'Mia'), photos.map(smallest))
    await page.getByRole('button', { name: 'Make main photo (photo 2 of Mia)' }).click()
    await textOf(page.getByRole('status').filter({ hasText: 'main photo' }), /main photo of Mia/)
    const [one, two] = photos
    photos = await stored()
    assert.deepEqual(photos.map((p) => p.id), [two!.id, one!.id])
    assert.deepEqual(await thumbnails(page, 'Mia'), photos.map(smallest))
    await assertFitsPhone(page, 'animal-photos-added')
    assert.deepEqual(await axeViolations(page), [], 'axe-core: no violations')
    // A smaller phone still: 375 px.
    await page.setViewportSize({ width: 375, height: 812 })
    assert.ok((await pageScrollWidth(page)) <= 375, 'no sideways scroll at 375 px')
    await screenshot(page, 'animal-photos-added-375')
    await closePages()
  })

  test('files dropped on the drop zone are added, in the order dropped', async () => {
    const { page, stored } = await editorOf('Tom')
    const files = [
      { name: 'dropped-1.png', type: 'image/png', bytes: [...(await image('png', { r: 10, g: 10, b: 10 }, 320, 240))] },
      { name: 'dropped-2.jpg', type: 'image/jpeg', bytes: [...(await image('jpeg', { r: 240, g: 240, b: 240 }, 240, 320))] },
    ]
    const zone = page.getByTestId('photo-drop')
    // A drop as the browser makes it from files dragged in: dragenter, dragover, then drop, with the files in a DataTransfer.
    await zone.evaluate((element, dropped) => {
      // The page's own classes (this file is compiled without the DOM's types).
      const view = element.ownerDocument.defaultView as unknown as {
        DataTransfer: new () => { items: { add(file: unknown): void } }
        DragEvent: new (type: string, init: object) => Event
        File: new (bits: unknown[], name: string, options: object) => unknown
      }
      const transfer = new view.DataTransfer()
      for (const file of dropped) transfer.items.add(new view.File([new Uint8Array(file.bytes)], file.name, { type: file.type }))
      for (const type of ['dragenter', 'dragover', 'drop']) element.dispatchEvent(new view.DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: transfer }))
    }, files)
    await textOf(page.getByRole('status').filter({ hasText: 'added' }), /^2 photos added\.$/, 30_000)
    const photos = await stored()
    assert.deepEqual(
      photos.map((p) => `${p.width}x${p.height}`),
      ['320x240', '240x320'],
    )
    assert.deepEqual(await thumbnails(page, 'Tom'), photos.map(smallest))
    const uploads = page.getByRole('list', { name: 'Uploads' }).getByRole('listitem')
    assert.deepEqual(await uploads.locator('.photo-upload-name').allInnerTexts(), ['dropped-1.png', 'dropped-2.jpg'])
    await closePages()
  })
})
