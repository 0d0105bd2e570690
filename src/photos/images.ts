import { createHash } from 'node:crypto'
import { availableParallelism } from 'node:os'
import type Sharp from 'sharp'
import type { Outcome } from '../errors.js'
import type { ObjectStore } from '../storage/store.js'
import type { VariantRow } from './photos.repository.js'

let sharpLoaded: Promise<typeof Sharp> | undefined

/**
 * sharp (libvips), loaded at the first photo processed: only the image threads process photos, so
 * the server's and the CLI's own start never pay for it. libvips's threads for one image: every
 * core but one, which the event loop keeps for answering.
 */
function loadSharp(): Promise<typeof Sharp> {
  return (sharpLoaded ??= import('sharp').then(({ default: sharp }) => {
    sharp.concurrency(Math.max(1, availableParallelism() - 1))
    return sharp
  }))
}

/** The formats a photo may be uploaded in, as its bytes say (never its name or header). */
export const IMAGE_TYPES = ['jpeg', 'png', 'webp', 'avif', 'gif'] as const
export type ImageType = (typeof IMAGE_TYPES)[number]

/** What an upload may be, in words, for every refusal. */
export const ACCEPTED_IMAGES = 'JPEG, PNG, WebP, AVIF or GIF (its first frame is kept)'

/** The widths of the variants for `srcset`, each made only when the photo is wider. */
export const VARIANT_WIDTHS = [100, 300, 600, 1200] as const
/** The full size: the photo itself, its longer side at most this many pixels (never enlarged). */
export const FULL_SIZE_CAP = 2048
export const VARIANT_FORMATS = ['webp', 'jpeg'] as const
export type VariantFormat = (typeof VARIANT_FORMATS)[number]

export interface ProcessedVariant {
  format: VariantFormat
  width: number
  height: number
  bytes: Buffer
  /** SHA-256 of `bytes`, hex: what the variant's address and ETag are made of. */
  hash: string
}

export interface ProcessedPhoto {
  /** Of the full-size variant, upright. */
  width: number
  height: number
  /** SHA-256 of the bytes uploaded, hex. */
  hash: string
  variants: ProcessedVariant[]
}

/** A processed photo whose files are stored: what its row records. */
export interface StoredUpload {
  width: number
  height: number
  hash: string
  variants: VariantRow[]
}

/** Each variant format's media type, and the extension of its files. */
export const CONTENT_TYPES = { webp: 'image/webp', jpeg: 'image/jpeg' } as const
const EXTENSIONS = { webp: 'webp', jpeg: 'jpg' } as const

export type ImageFailure = 'unsupported_image_type' | 'image_too_large' | 'invalid_image' | 'invalid_request'

/**
 * What the bytes are: one of the accepted types, or a refusal naming what they look like. Only
 * the magic numbers are read; libvips (which also reads SVG, HEIC, TIFF, PDF…) is never given
 * anything else.
 */
export function sniffImage(bytes: Buffer): { type: ImageType } | { refused: string } {
  const ascii = (start: number, end: number) => bytes.subarray(start, end).toString('latin1')
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return { type: 'jpeg' }
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return { type: 'png' }
  if (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a') return { type: 'gif' }
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return { type: 'webp' }
  if (ascii(4, 8) === 'ftyp' && bytes.length >= 16) {
    // ISO base media: the major brand, then the compatible ones, up to the end of the box.
    const end = Math.min(bytes.readUInt32BE(0), bytes.length, 256)
    const brands = [ascii(8, 12)]
    for (let at = 16; at + 4 <= end; at += 4) brands.push(ascii(at, at + 4))
    if (brands.includes('avif') || brands.includes('avis')) return { type: 'avif' }
    if (brands.some((brand) => ['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis', 'mif1', 'msf1'].includes(brand))) return { refused: 'HEIC/HEIF' }
    return { refused: 'a video or other ISO media file' }
  }
  const start = ascii(0, 512).replace(/^\uFEFF/, '').trimStart().toLowerCase()
  if (start.startsWith('<svg') || (start.startsWith('<?xml') && start.includes('<svg'))) return { refused: 'SVG' }
  if (ascii(0, 4) === 'PK\x03\x04') return { refused: 'a ZIP archive' }
  if (ascii(0, 5) === '%PDF-') return { refused: 'PDF' }
  if (ascii(0, 4) === 'II*\0' || ascii(0, 4) === 'MM\0*') return { refused: 'TIFF' }
  if (ascii(0, 2) === 'BM') return { refused: 'BMP' }
  return { refused: 'not an image this service reads' }
}

/**
 * The photo in every variant: upright (EXIF orientation applied), in sRGB, without any metadata
 * (EXIF, GPS, XMP, IPTC, ICC, comments: nothing of the upload's metadata is kept), at each width of
 * VARIANT_WIDTHS narrower than it and at its full size, in WebP and JPEG. The header is read
 * first: a photo of more than `maxPixels` is refused before it is decoded (and libvips is bounded
 * by the same number, should a header lie). sharp runs in libuv's thread pool, off the event loop.
 */
export async function processImage(bytes: Buffer, maxPixels: number): Promise<Outcome<{ photo: ProcessedPhoto }, ImageFailure>> {
  if (bytes.length === 0) return { ok: false, error: 'invalid_request', message: `The body is empty: send the photo's bytes (${ACCEPTED_IMAGES}).` }
  const sniffed = sniffImage(bytes)
  if ('refused' in sniffed) return { ok: false, error: 'unsupported_image_type', message: `The photo is ${sniffed.refused}: send ${ACCEPTED_IMAGES}. The type is read from the bytes, whatever the name or Content-Type.` }
  // One frame (a GIF's or an animated WebP's first); a warning of the decoder (a truncated file) fails.
  const input = { limitInputPixels: maxPixels, failOn: 'warning', pages: 1 } as const
  const sharp = await loadSharp()
  let metadata: Awaited<ReturnType<ReturnType<typeof Sharp>['metadata']>>
  try {
    // The header alone: its dimensions are checked here, before anything is decoded.
    metadata = await sharp(bytes, { ...input, limitInputPixels: false }).metadata()
  } catch {
    return corrupt(sniffed.type)
  }
  const { width, height } = metadata
  if (!width || !height) return corrupt(sniffed.type)
  if (width * height > maxPixels) {
    return { ok: false, error: 'image_too_large', message: `The photo is ${width} × ${height} pixels (${Math.round((width * height) / 1e6)} MP); the limit is ${Math.floor(maxPixels / 1e6)} MP (${maxPixels} pixels): send it smaller.` }
  }
  try {
    // Decoded once, upright, in sRGB, at the full size; the other variants are made from it.
    const { data, info } = await sharp(bytes, input)
      .rotate()
      .resize({ width: FULL_SIZE_CAP, height: FULL_SIZE_CAP, fit: 'inside', withoutEnlargement: true })
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true })
    const raw = { raw: { width: info.width, height: info.height, channels: info.channels } }
    const widths = [...VARIANT_WIDTHS.filter((w) => w < info.width), info.width]
    const variants: ProcessedVariant[] = []
    for (const target of widths) {
      const sized = target === info.width ? sharp(data, raw) : sharp(data, raw).resize({ width: target })
      // One encoding at a time: each takes libvips's threads (every core but one), and two at once
      // would take the event loop's core too.
      const encoded = [
        await sized.clone().webp({ quality: 80 }).toBuffer({ resolveWithObject: true }),
        // JPEG has no transparency: transparent parts become white, not black.
        await sized.clone().flatten({ background: '#ffffff' }).jpeg({ quality: 82, progressive: true }).toBuffer({ resolveWithObject: true }),
      ] as const
      for (const [format, { data: out, info: outInfo }] of [['webp', encoded[0]], ['jpeg', encoded[1]]] as const) {
        variants.push({ format, width: outInfo.width, height: outInfo.height, bytes: out, hash: sha256(out) })
      }
    }
    return { ok: true, photo: { width: info.width, height: info.height, hash: sha256(bytes), variants } }
  } catch (error) {
    if (error instanceof Error && /pixel limit/i.test(error.message)) {
      return { ok: false, error: 'image_too_large', message: `The photo has more than ${maxPixels} pixels: send it smaller.` }
    }
    return corrupt(sniffed.type)
  }
}

function corrupt(type: ImageType): Outcome<never, ImageFailure> {
  return { ok: false, error: 'invalid_image', message: `The photo looks like ${type.toUpperCase()} but cannot be read: it is truncated or corrupt. Send the whole file again.` }
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex')
}

/**
 * Stores every variant of a processed photo under `prefix` (`photos/<photo id>/`), each named by its
 * content (`<hash>-<width>.<ext>`). All or nothing: when a file fails, those stored are deleted
 * (or, should that fail too, left to the sweep: no row names them) and the failure is thrown.
 */
export async function storeVariants(store: ObjectStore, photo: ProcessedPhoto, prefix: string): Promise<StoredUpload> {
  const variants: VariantRow[] = photo.variants.map(({ format, width, height, bytes, hash }) => ({
    format,
    width,
    height,
    hash,
    size: bytes.length,
    key: `${prefix}${hash.slice(0, 32)}-${width}.${EXTENSIONS[format]}`,
  }))
  // Every put settles before any is deleted: a put still under way when another failed would
  // otherwise land its file after the delete, and leave it behind.
  const puts = await Promise.allSettled(photo.variants.map((variant, i) => store.put(variants[i]!.key, variant.bytes, CONTENT_TYPES[variant.format])))
  const failed = puts.find((put): put is PromiseRejectedResult => put.status === 'rejected')
  if (failed !== undefined) {
    await store.delete(variants.map((variant) => variant.key)).catch(() => undefined)
    throw failed.reason
  }
  return { width: photo.width, height: photo.height, hash: photo.hash, variants }
}

/** Runs at most `limit` tasks at once; the others wait their turn in order. */
export class Gate {
  private running = 0
  private readonly waiting: (() => void)[] = []

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    // A finishing task hands its place to the first waiting one, so no newcomer slips in between.
    if (this.running < this.limit) this.running++
    else await new Promise<void>((resolve) => this.waiting.push(resolve))
    try {
      return await task()
    } finally {
      const next = this.waiting.shift()
      if (next) next()
      else this.running--
    }
  }
}
