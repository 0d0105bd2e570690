import { Type, type Static } from 'typebox'

export const PHOTO_ID_PATTERN = '^[A-Za-z0-9_-]{22}$'

export const PhotoVariantSchema = Type.Object(
  {
    width: Type.Integer({ minimum: 1, description: 'Pixels' }),
    height: Type.Integer({ minimum: 1, description: 'Pixels' }),
    url: Type.String({ format: 'uri', description: 'Where the file is served, without an API key; the address changes only when the bytes do' }),
  },
  { $id: 'PhotoVariant', additionalProperties: false, description: 'One file of a photo: for `srcset`, `<url> <width>w`' },
)

export const PhotoSchema = Type.Object(
  {
    id: Type.String({ pattern: PHOTO_ID_PATTERN, description: 'The photo, in your project', examples: ['Qm9vdHN0cmFwcGVkUGhvdG'] }),
    width: Type.Integer({ minimum: 1, description: 'Width of the full size, upright, in pixels' }),
    height: Type.Integer({ minimum: 1, description: 'Height of the full size, upright, in pixels' }),
    variants: Type.Object(
      {
        webp: Type.Array(Type.Ref('PhotoVariant'), { minItems: 1, description: 'WebP files, narrowest first; the last is the full size' }),
        jpeg: Type.Array(Type.Ref('PhotoVariant'), { minItems: 1, description: 'JPEG files (for clients without WebP), narrowest first; the last is the full size' }),
      },
      { additionalProperties: false, description: 'The same picture at 100, 300, 600 and 1200 pixels wide (each only when the photo is wider) and at its full size (its longer side at most 2048 pixels, never enlarged)' },
    ),
  },
  { $id: 'Photo', additionalProperties: false, description: 'A photo of an animal: upright, in sRGB, without any of the upload\'s metadata (EXIF, GPS, XMP, comments)' },
)

export const PhotosSchema = Type.Array(Type.Ref('Photo'), { $id: 'Photos', maxItems: 20, description: "An animal's photos in order: the first is the main one" })

export const PhotoOrderSchema = Type.Object(
  {
    ids: Type.Array(Type.String({ pattern: PHOTO_ID_PATTERN }), {
      minItems: 1,
      maxItems: 20,
      uniqueItems: true,
      description: "Every photo of the animal, each once, in the new order: the first becomes the main photo",
    }),
  },
  { additionalProperties: false, examples: [{ ids: ['Zm9yIHRoZSBtYWluIHBob3', 'dGhlbiB0aGlzIG9uZSAxMj'] }] },
)

export const PetPhotoParamsSchema = Type.Object(
  {
    petId: Type.Integer({ minimum: 1, maximum: 9007199254740991, format: 'int64', description: 'The animal', examples: [1] }),
    photoId: Type.String({ pattern: PHOTO_ID_PATTERN, description: 'The photo', 'x-expected': '22 letters, digits, - or _ (a photo id)', examples: ['Zm9yIHRoZSBtYWluIHBob3'] }),
  },
  { additionalProperties: false },
)

export type Photo = Static<typeof PhotoSchema>
export type PhotoOrder = Static<typeof PhotoOrderSchema>

/** A photo as kept in `pets.photos`: its answer without the base address of its files. */
export interface StoredPhoto {
  id: string
  width: number
  height: number
  variants: { webp: StoredVariant[]; jpeg: StoredVariant[] }
}

/** A file of a photo: its size and its key in the object store (also its path under MEDIA_BASE_URL). */
export interface StoredVariant {
  width: number
  height: number
  key: string
}

/** A photo in the API's shape: the keys of its files made addresses under `baseUrl`. */
export function toPhoto(stored: StoredPhoto, baseUrl: string): Photo {
  const urls = (variants: StoredVariant[]) => variants.map(({ width, height, key }) => ({ width, height, url: `${baseUrl}/${key}` }))
  return { id: stored.id, width: stored.width, height: stored.height, variants: { webp: urls(stored.variants.webp), jpeg: urls(stored.variants.jpeg) } }
}
