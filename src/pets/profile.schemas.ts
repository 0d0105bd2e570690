import { type TSchema, Type, type Static } from 'typebox'
import { MAX_INT53, StringEnum } from '../shapes.js'

/**
 * An animal's profile: everything an adopter asks about beyond the spec's name, category and
 * status, modelled on what shelters publish today (breeds, age, sex, size, coat, colours,
 * compatibility, care attributes, fee, location, tags, videos). Every field is optional; one
 * that is not known is left out, in requests and answers alike.
 */

export const SEXES = ['female', 'male', 'unknown'] as const
export const AGE_GROUPS = ['baby', 'young', 'adult', 'senior'] as const
export const SIZES = ['small', 'medium', 'large', 'extra_large'] as const
export const COATS = ['hairless', 'short', 'medium', 'long', 'wire', 'curly'] as const
export const ANSWERS = ['yes', 'no', 'unknown'] as const
export const ATTRIBUTES = ['spayedNeutered', 'houseTrained', 'vaccinated', 'microchipped', 'specialNeeds'] as const
export const COMPANIONS = ['children', 'dogs', 'cats'] as const

export const LIMITS = {
  breed: 100,
  colors: 3,
  color: 50,
  description: 10_000,
  specialNeedsNote: 500,
  feeAmount: 100_000_000,
  tags: 20,
  tag: 40,
  videoUrls: 5,
  videoUrl: 500,
  externalId: 64,
} as const

/** No C0 or C1 control character nor DEL (as for names). */
const NO_CONTROLS = '^[^\\u0000-\\u001f\\u007f-\\u009f]*$'
/** Plain text that may run over lines: tab, line feed and carriage return are allowed. */
const TEXT = '^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]*$'

const line = (maxLength: number, description: string, example: string) =>
  Type.String({ minLength: 1, maxLength, pattern: NO_CONTROLS, 'x-expected': 'one line of text, without control characters (tabs, line breaks)', description, examples: [example] })

const date = (description: string, example: string) => Type.String({ format: 'date', description, examples: [example] })

const answer = (companion: string) =>
  StringEnum(ANSWERS, { description: `Whether the animal gets on with ${companion}: \`yes\`, \`no\` or \`unknown\``, examples: ['yes'] })

const flag = (description: string) => Type.Boolean({ description })

const BREEDS = {
  primary: line(LIMITS.breed, 'The main breed, e.g. one of `GET /categories/{categoryId}/breeds`; up to 100 characters', 'Labrador Retriever'),
  secondary: line(LIMITS.breed, 'A second breed, for a cross', 'Beagle'),
  mixed: flag('Whether the animal is a mix (of the breeds named, or of unknown ones); `false` when left out'),
}
const GOOD_WITH = { children: answer('children'), dogs: answer('other dogs'), cats: answer('cats') }
const CARE = {
  spayedNeutered: flag('Spayed or neutered'),
  houseTrained: flag('House-trained'),
  vaccinated: flag('Vaccinations up to date'),
  microchipped: flag('Microchipped'),
  specialNeeds: flag('Has special needs (medical or behavioural); say which in `specialNeedsNote`'),
  specialNeedsNote: Type.String({
    minLength: 1,
    maxLength: LIMITS.specialNeedsNote,
    pattern: TEXT,
    description: 'What the special needs are, up to 500 characters; requires `specialNeeds: true`',
    examples: ['Needs daily insulin.'],
  }),
}
const FEE = {
  amount: Type.Integer({ minimum: 0, maximum: LIMITS.feeAmount, description: "In the currency's minor unit (cents for USD and EUR, yen for JPY)", examples: [15000] }),
  currency: Type.String({ pattern: '^[A-Z]{3}$', 'x-expected': 'three capital letters, an ISO 4217 currency code (e.g. USD, EUR)', description: 'ISO 4217 currency code', examples: ['USD'] }),
}

const optional = <P extends Record<string, TSchema>>(properties: P) =>
  Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, Type.Optional(schema)])) as { [K in keyof P]: ReturnType<typeof Type.Optional<P[K]>> }

/** Each profile field, as sent on creation and shown in answers. */
export const PROFILE_FIELDS = {
  externalId: line(
    LIMITS.externalId,
    "The shelter's own identifier of the animal (its record in the shelter's software), unique in the project: 1 to 64 characters. Imports match animals by it.",
    'A-2024-0173',
  ),
  breeds: Type.Object(
    { primary: BREEDS.primary, ...optional({ secondary: BREEDS.secondary, mixed: BREEDS.mixed }) },
    { additionalProperties: false, description: 'The breeds: `primary` is required once breeds are given', examples: [{ primary: 'Labrador Retriever', secondary: 'Beagle', mixed: true }] },
  ),
  sex: StringEnum(SEXES, { description: 'The sex: `female`, `male` or `unknown`', examples: ['female'] }),
  age: StringEnum(AGE_GROUPS, { description: 'The age group: `baby` (puppy, kitten), `young`, `adult` or `senior`, as the shelter judges it', examples: ['young'] }),
  birthDate: date('The date of birth (RFC 3339 full-date), not in the future; see `birthDateEstimated`', '2024-03-01'),
  birthDateEstimated: flag('`true` when `birthDate` is an estimate; requires `birthDate`'),
  size: StringEnum(SIZES, { description: 'The size when grown: `small`, `medium`, `large` or `extra_large`', examples: ['medium'] }),
  colors: Type.Array(line(LIMITS.color, 'A colour, up to 50 characters', 'Black'), {
    minItems: 1,
    maxItems: LIMITS.colors,
    description: 'Up to 3 colours, main colour first',
    examples: [['Black', 'White']],
  }),
  coat: StringEnum(COATS, { description: 'The coat length or kind', examples: ['short'] }),
  description: Type.String({
    minLength: 1,
    maxLength: LIMITS.description,
    pattern: TEXT,
    'x-expected': 'plain text: line breaks and tabs, but no other control character',
    description: 'Plain text for adopters, up to 10,000 characters; line breaks are kept, no markup is interpreted',
    examples: ['Rex is a gentle, playful boy who loves long walks and belly rubs.'],
  }),
  goodWith: Type.Object(optional(GOOD_WITH), {
    additionalProperties: false,
    minProperties: 1,
    description: 'Compatibility with children, dogs and cats; one left out is unknown',
    examples: [{ children: 'yes', dogs: 'yes', cats: 'no' }],
  }),
  attributes: Type.Object(optional(CARE), {
    additionalProperties: false,
    minProperties: 1,
    description: 'Care facts; one left out is not known',
    examples: [{ spayedNeutered: true, vaccinated: true, specialNeeds: false }],
  }),
  adoptionFee: Type.Object(FEE, { additionalProperties: false, description: 'The adoption fee', examples: [{ amount: 15000, currency: 'USD' }] }),
  intakeDate: date('When the animal came to the shelter (RFC 3339 full-date), not in the future and not before `birthDate`', '2026-10-02'),
  locationId: Type.Integer({
    format: 'int64',
    minimum: 1,
    maximum: MAX_INT53,
    description: "Where the animal can be met: the id of one of the project's locations (`GET /locations`)",
    examples: [1],
  }),
  tags: Type.Array(
    Type.String({ minLength: 1, maxLength: LIMITS.tag, pattern: '^[^\\u0000-\\u001f\\u007f-\\u009f,|]*$', description: 'A tag: up to 40 characters, no comma or `|`', examples: ['calm'] }),
    { maxItems: LIMITS.tags, description: 'Up to 20 tags, each different (whatever the case); searched by `q` and filtered by `tag`', examples: [['calm', 'good on leash']] },
  ),
  videoUrls: Type.Array(Type.String({ format: 'uri', maxLength: LIMITS.videoUrl, description: 'An https URL on YouTube or Vimeo', examples: ['https://www.youtube.com/watch?v=dQw4w9WgXcQ'] }), {
    maxItems: LIMITS.videoUrls,
    uniqueItems: true,
    description: 'Up to 5 video links, each an https URL on YouTube (`youtube.com`, `youtu.be`) or Vimeo (`vimeo.com`)',
  }),
} as const

/** Everything of the profile as one optional field each: for creation and answers. */
export function optionalProfile() {
  return optional(PROFILE_FIELDS)
}

const orNull = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()], { description: (schema as { description?: string }).description })

/** A nested object in a merge patch: each member optional, `null` removes it. */
const patchObject = (members: Record<string, TSchema>, description: string) =>
  Type.Object(Object.fromEntries(Object.entries(members).map(([name, schema]) => [name, Type.Optional(orNull(schema))])), {
    additionalProperties: false,
    minProperties: 1,
    description,
  })

/** The profile in a merge patch (RFC 7396): each field optional, `null` removes it; nested objects merge. */
export function patchProfile(): Record<string, TSchema> {
  const plain = Object.fromEntries(Object.entries(PROFILE_FIELDS).filter(([name]) => !['breeds', 'goodWith', 'attributes', 'adoptionFee'].includes(name)))
  return {
    ...Object.fromEntries(Object.entries(plain).map(([name, schema]) => [name, Type.Optional(orNull(schema))])),
    breeds: Type.Optional(orNull(patchObject(BREEDS, 'The breeds, merged: `null` removes them all, `{"secondary": null}` only the second one'))),
    goodWith: Type.Optional(orNull(patchObject(GOOD_WITH, 'Compatibility, merged: `{"cats": "no"}` changes only cats; `null` removes an answer'))),
    attributes: Type.Optional(orNull(patchObject(CARE, 'Care facts, merged: a member left out stays, `null` removes it'))),
    adoptionFee: Type.Optional(orNull(patchObject(FEE, 'The adoption fee, merged: `{"amount": 9000}` keeps the currency'))),
  }
}

/** The profile as stored and answered: every field optional. */
export const ProfileSchema = Type.Object(optionalProfile(), { additionalProperties: false })
export type Profile = Static<typeof ProfileSchema>
