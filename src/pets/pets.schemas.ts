import { Type, type Static } from 'typebox'
import { MAX_INT53, MAX_PAGE_SIZE, pageQuerySchema, StringEnum } from '../shapes.js'
import { PET_STATUSES } from '../db/schema.js'
import { ProjectParamsSchema } from '../projects/projects.schemas.js'
import { AGE_GROUPS, ANSWERS, COATS, optionalProfile, patchProfile, SEXES, SIZES } from './profile.schemas.js'


export const PetStatusSchema = StringEnum(PET_STATUSES, {
  $id: 'PetStatus',
  description: 'Availability status of an animal',
})

const statusField = StringEnum(PET_STATUSES, { description: 'Availability status' })
/**
 * A Pet's status as a reference to the shared PetStatus schema, so the document names it. NewPet
 * keeps its own copy: a request body is validated on its own, where the reference would not resolve.
 */
const statusRef = (description: string) => Type.Unsafe<PetStatus>({ ...Type.Ref('PetStatus'), description })

/** The fields a client sets, with the same rules on creation and on change. */
const nameField = Type.String({
  minLength: 1,
  maxLength: 100,
  // No C0 or C1 control character, nor DEL: what \p{Cc} names, as for key names.
  pattern: '^[^\\u0000-\\u001f\\u007f-\\u009f]*$',
  description: "The animal's name: 1 to 100 characters after surrounding whitespace is trimmed, no control characters",
  examples: ['Rex'],
})
const categoryField = Type.Integer({
  format: 'int64',
  minimum: 1,
  maximum: MAX_INT53,
  description: 'Identifier of the category the animal belongs to; 1 to 2^53-1, so it survives JSON in every client',
  examples: [1],
})

export const NewPetSchema = Type.Object(
  {
    name: nameField,
    categoryId: categoryField,
    status: Type.Optional({ ...statusField, description: 'Availability status; `available` when omitted' }),
    ...optionalProfile(),
  },
  {
    $id: 'NewPet',
    additionalProperties: false,
    description:
      'An animal to add: `name` and `categoryId` are required, every other field is optional (a profile field left out is not known). Unknown fields, `id` included, are rejected.',
    examples: [
      { name: 'Rex', categoryId: 1, status: 'available' },
      {
        name: 'Luna',
        categoryId: 1,
        breeds: { primary: 'Labrador Retriever', mixed: true },
        sex: 'female',
        age: 'young',
        birthDate: '2024-03-01',
        birthDateEstimated: true,
        size: 'large',
        colors: ['Black'],
        coat: 'short',
        description: 'Luna is a gentle, playful girl who loves long walks.',
        goodWith: { children: 'yes', dogs: 'yes', cats: 'unknown' },
        attributes: { spayedNeutered: true, houseTrained: true, vaccinated: true, microchipped: true },
        adoptionFee: { amount: 15000, currency: 'USD' },
        intakeDate: '2026-10-02',
        locationId: 1,
        tags: ['calm', 'good on leash'],
      },
    ],
  },
)

export const PetChangesSchema = Type.Object(
  {
    name: Type.Optional(nameField),
    categoryId: Type.Optional(categoryField),
    ...patchProfile(),
  },
  {
    $id: 'PetChanges',
    additionalProperties: false,
    minProperties: 1,
    description:
      'What to change of an animal, as a JSON Merge Patch (RFC 7396): a field left out stays as it is, `null` removes a profile field (`name` and `categoryId` cannot be removed), and the objects `breeds`, `goodWith`, `attributes` and `adoptionFee` merge member by member. Arrays (`colors`, `tags`, `videoUrls`) are replaced whole. Unknown fields, `id` and `status` included, are rejected: the status changes only through adoption orders.',
    examples: [{ name: 'Rexi' }, { description: 'Now house-trained!', attributes: { houseTrained: true }, adoptionFee: null }],
  },
)

const timestampField = (description: string) => Type.String({ format: 'date-time', description })

export const PetSchema = Type.Object(
  {
    id: Type.Integer({ format: 'int64', minimum: 1, description: 'Unique identifier assigned by the service' }),
    name: Type.String({ description: "The animal's name" }),
    categoryId: Type.Integer({ format: 'int64', description: 'Identifier of the category the animal belongs to' }),
    status: statusRef('Availability status'),
    ...optionalProfile(),
    photos: Type.Optional(
      Type.Array(Type.Ref('Photo'), { minItems: 1, maxItems: 20, description: 'Its photos in order, the main one first (add them with `uploadPetPhoto`); absent while it has none' }),
    ),
    createdAt: Type.Optional(timestampField('When the animal was added. Sent when `fields` asks for it, and in the change feed')),
    updatedAt: Type.Optional(timestampField('When the animal last changed (its status included). Sent when `fields` asks for it, and in the change feed')),
    distance: Type.Optional(
      Type.Number({ minimum: 0, description: 'With `near`: the distance to the animal\'s location, in the `unit` asked for (km by default), rounded to 0.1' }),
    ),
  },
  {
    $id: 'Pet',
    additionalProperties: false,
    description:
      'An animal available for adoption: the fields every animal has (`id`, `name`, `categoryId`, `status`) and the profile fields that are known (one not known is left out).',
  },
)

export const PetsSchema = Type.Array(Type.Ref('Pet'), { $id: 'Pets', maxItems: MAX_PAGE_SIZE, description: 'A page of animals, in ascending id order' })

const pageQuery = pageQuerySchema('animals', statusField, 'available')

/** The most values one list filter takes. */
export const MAX_FILTER_VALUES = 20

/** A comma-separated list of these values: the pattern, and what a wrong one is told. */
function enumList(values: readonly string[], description: string, example: string) {
  const one = `(${values.join('|')})`
  return Type.String({
    pattern: `^${one}(,${one}){0,${MAX_FILTER_VALUES - 1}}$`,
    'x-expected': `one or more (comma-separated) of ${values.join(', ')}`,
    description: `${description}: one or more of ${values.map((value) => `\`${value}\``).join(', ')}, comma-separated (any of them matches)`,
    examples: [example],
  })
}

const idList = (description: string, example: string) =>
  Type.String({
    pattern: `^[1-9][0-9]{0,15}(,[1-9][0-9]{0,15}){0,${MAX_FILTER_VALUES - 1}}$`,
    'x-expected': `one or more (comma-separated) ids`,
    description: `${description}: one or more ids, comma-separated (any of them matches)`,
    examples: [example],
  })

const textList = (description: string, example: string, maxLength: number) =>
  Type.String({
    minLength: 1,
    maxLength,
    pattern: '^[^\\u0000-\\u001f\\u007f-\\u009f]*$',
    description: `${description}, comma-separated (any of them matches), whatever the case`,
    examples: [example],
  })

const yesNo = (description: string) => StringEnum(['true', 'false'], { description: `${description}: \`true\` or \`false\` (an animal for which it is not known matches neither)`, examples: ['true'] })

/** The fields an answer may be limited to (`fields`); `id` is always sent. */
export const PET_FIELD_NAMES = ['name', 'categoryId', 'status', ...Object.keys(optionalProfile()), 'photos', 'createdAt', 'updatedAt', 'distance'] as const

/** What `sort` orders by: `id` (the default), newest or oldest first, name, distance (with `near`), a seeded random order. */
export const PET_SORTS = ['id', '-createdAt', 'createdAt', 'name', 'distance', 'random'] as const

/** The search on GET /pets: the spec's `limit`, `status` and `after`, and optional filters, search, sorts and fields. */
export const ListPetsQuerySchema = Type.Object(
  {
    ...pageQuery.properties,
    status: Type.Optional(
      Type.Union([{ ...statusField }, enumList(PET_STATUSES, 'Several statuses', 'available,pending')], {
        description: 'Only animals with this status, or with any of several (comma-separated, e.g. `available,pending`)',
        examples: ['available'],
      }),
    ),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'Full-text search over the name, breeds, description and tags: every word must start a word there, whatever the case and accents (`lab choc` finds "Labrador" described as "chocolate"). Up to 10 words.',
        examples: ['friendly lab'],
      }),
    ),
    categoryId: Type.Optional(idList('Only animals of these categories', '1,2')),
    breed: Type.Optional(textList('Only animals whose primary or secondary breed is one of these names', 'Labrador Retriever,Beagle', 1000)),
    sex: Type.Optional(enumList(SEXES, 'Only animals of this sex', 'female')),
    age: Type.Optional(enumList(AGE_GROUPS, 'Only animals of this age group', 'baby,young')),
    size: Type.Optional(enumList(SIZES, 'Only animals of this size', 'small,medium')),
    coat: Type.Optional(enumList(COATS, 'Only animals with this coat', 'short')),
    goodWithChildren: Type.Optional(enumList(ANSWERS, 'Compatibility with children (`unknown` also matches animals nobody said)', 'yes')),
    goodWithDogs: Type.Optional(enumList(ANSWERS, 'Compatibility with dogs (`unknown` also matches animals nobody said)', 'yes')),
    goodWithCats: Type.Optional(enumList(ANSWERS, 'Compatibility with cats (`unknown` also matches animals nobody said)', 'yes')),
    spayedNeutered: Type.Optional(yesNo('Spayed or neutered')),
    houseTrained: Type.Optional(yesNo('House-trained')),
    vaccinated: Type.Optional(yesNo('Vaccinations up to date')),
    microchipped: Type.Optional(yesNo('Microchipped')),
    specialNeeds: Type.Optional(yesNo('Has special needs')),
    locationId: Type.Optional(idList('Only animals at these locations', '1')),
    tag: Type.Optional(textList('Only animals with one of these tags', 'calm', 1000)),
    externalId: Type.Optional(textList("Only animals with these identifiers of the shelter's own", 'A-2024-0173', 1500)),
    near: Type.Optional(
      Type.String({
        pattern: '^-?[0-9]{1,3}(\\.[0-9]{1,10})?,-?[0-9]{1,3}(\\.[0-9]{1,10})?$',
        'x-expected': 'latitude,longitude in decimal degrees, e.g. 40.7128,-74.0060',
        description:
          'Only animals at a location within `radius` of this point, `latitude,longitude` in decimal degrees; each answer then carries its `distance`. Animals without a location (or at a location without coordinates) are left out.',
        examples: ['40.7128,-74.0060'],
      }),
    ),
    radius: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,5}(\\.[0-9]{1,3})?$',
        'x-expected': 'a distance greater than 0, e.g. 25 or 2.5',
        description: 'With `near`: the greatest distance, in `unit`, more than 0 and at most 20,000 km (12,400 mi); default 100',
        examples: ['25'],
      }),
    ),
    unit: Type.Optional(StringEnum(['km', 'mi'], { description: 'The unit of `radius` and `distance`: `km` (the default) or `mi`', examples: ['km'] })),
    updatedAfter: Type.Optional(
      Type.String({ format: 'date-time', description: 'Only animals changed (created, edited, or moved by an order) after this instant, RFC 3339', examples: ['2026-11-01T00:00:00Z'] }),
    ),
    sort: Type.Optional(
      StringEnum(PET_SORTS, {
        description:
          'The order: `id` (ascending, the default), `-createdAt` (newest first), `createdAt`, `name`, `distance` (nearest first; needs `near`) or `random` (a shuffle that stays the same while `seed` does, so pages neither repeat nor skip). Ties go by id.',
        // Every example together is a request "Try it out" can send: a shuffle, from its start.
        examples: ['random'],
      }),
    ),
    seed: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 2_147_483_646, description: 'With `sort=random`: which shuffle, 0 to 2147483646; send the same seed for every page. Default 0', examples: [42] }),
    ),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        pattern: '^[A-Za-z0-9_-]+$',
        'x-expected': 'a cursor from a Link header of this list',
        description: 'Where the page starts, for any `sort`: opaque, taken from the `Link: rel="next"` header (the default order also takes `after`)',
        // `["random",42,0,0]`: the start of the example's shuffle.
        examples: ['WyJyYW5kb20iLDQyLDAsMF0'],
      }),
    ),
    count: Type.Optional(
      StringEnum(['true', 'false'], { description: '`true`: the answer carries `X-Total-Count`, how many animals match the filters (whatever the page)', examples: ['true'] }),
    ),
    fields: Type.Optional(
      Type.String({
        pattern: `^(\\*|(${PET_FIELD_NAMES.join('|')})(,(${PET_FIELD_NAMES.join('|')})){0,${PET_FIELD_NAMES.length - 1}})$`,
        'x-expected': `* or comma-separated fields among ${PET_FIELD_NAMES.join(', ')}`,
        description:
          'Which profile fields each animal carries, comma-separated, `*` for all (the spec\'s `id`, `name`, `categoryId` and `status` are always sent): by default every field it has but `createdAt` and `updatedAt`, which are sent only when named here.',
        examples: ['name,breeds,createdAt'],
      }),
    ),
  },
  { additionalProperties: false },
)

export const PetFeedEntrySchema = Type.Object(
  {
    cursor: Type.String({ description: 'Where this change sits in the feed: send it as `after` to read the changes that follow. Opaque', examples: ['MC4xNw'] }),
    type: StringEnum(['changed', 'removed'], { description: '`changed`: the animal was added or changed (or moved by an order), `pet` is it as it is now; `removed`: it was removed' }),
    id: Type.Integer({ format: 'int64', minimum: 1, description: "The animal's id" }),
    changedAt: Type.String({ format: 'date-time', description: "When it changed: the animal's `updatedAt`, or when it was removed (by the database's clock)" }),
    pet: Type.Optional(Type.Ref('Pet', { description: 'With `changed`: the animal as it is now, every field it has, `createdAt` and `updatedAt` included' })),
  },
  {
    $id: 'PetFeedEntry',
    additionalProperties: false,
    description: 'A change of the feed: an animal at its latest change, or the tombstone of a removed one',
    examples: [
      { cursor: 'MC4xNw', type: 'changed', id: 7, changedAt: '2026-11-20T09:30:00.000Z', pet: { id: 7, name: 'Rex', categoryId: 1, status: 'available', createdAt: '2026-11-01T10:00:00.000Z', updatedAt: '2026-11-20T09:30:00.000Z' } },
      { cursor: 'MC4xOA', type: 'removed', id: 3, changedAt: '2026-11-20T09:31:12.000Z' },
    ],
  },
)

/** The most changes one page of the feed holds. */
export const MAX_FEED_PAGE = 1000

export const PetFeedSchema = Type.Array(Type.Ref('PetFeedEntry'), { $id: 'PetFeed', maxItems: MAX_FEED_PAGE, description: 'Changes, oldest first' })

export const PetFeedQuerySchema = Type.Object(
  {
    after: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        pattern: '^[A-Za-z0-9_-]+$',
        'x-expected': 'the cursor of a change of this feed',
        description: 'The `cursor` of the last change you applied: only the changes after it. Leave it out to start from the beginning (every animal, and the tombstones of removed ones).',
        examples: ['MC4xNw'],
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_FEED_PAGE, default: 100, description: 'Maximum number of changes returned, 1 to 1000', examples: [100] })),
  },
  { additionalProperties: false },
)

/** The query of GET /pets/{petId}: the fields of the answer. */
export const PetFieldsQuerySchema = Type.Object({ fields: Type.Optional(ListPetsQuerySchema.properties.fields) }, { additionalProperties: false })

export const PetIdParamsSchema = Type.Object({
  petId: Type.Integer({ format: 'int64', minimum: 1, maximum: MAX_INT53, description: 'The identifier of the animal', examples: [1] }),
})

/** An animal of a project, in the admin API's paths. */
export const ProjectPetParamsSchema = Type.Object({ ...ProjectParamsSchema.properties, ...PetIdParamsSchema.properties })

/** The admin API's list of a project's animals: the public list's query, and a search by name. */
export const AnimalsQuerySchema = Type.Object(
  {
    ...ListPetsQuerySchema.properties,
    name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Only animals whose name contains this, whatever the case (`ex` finds Rex and EXO); `%` and `_` are plain characters',
        examples: ['rex'],
      }),
    ),
  },
  { additionalProperties: false },
)

export type PetStatus = Static<typeof PetStatusSchema>
export type NewPet = Static<typeof NewPetSchema>
export type PetChanges = Static<typeof PetChangesSchema>
export type Pet = Static<typeof PetSchema>
export type ListPetsQuery = Static<typeof ListPetsQuerySchema>
export type PetFeedEntry = Static<typeof PetFeedEntrySchema>
