/**
 * An animal as the editor holds it (text for every field, as the controls give it) and the
 * bodies it sends: the whole profile to add an animal, and to change one, a JSON Merge Patch of
 * only what changed (`null` removes a field).
 */
import { petAgeValues, petCoatValues, petSexValues, petSizeValues } from '../admin-schema'
import type { Pet, PetStatus, RequestBody } from '../api'
import { FieldProblem, mergePatchOf } from '../changes'
import { amountHint, majorOf, minorOf } from './fee'

export type NewPet = RequestBody<'addAnimal'>
export type PetChanges = RequestBody<'updateAnimal'>
/** The fields of an animal that the editor sets: all but its id, status and times. */
export type Fields = Omit<NewPet, 'status'>

type Sex = NonNullable<Pet['sex']>
type Age = NonNullable<Pet['age']>
type Size = NonNullable<Pet['size']>
type Coat = NonNullable<Pet['coat']>
export const SEXES: readonly Sex[] = petSexValues
export const AGES: readonly Age[] = petAgeValues
export const SIZES: readonly Size[] = petSizeValues
export const COATS: readonly Coat[] = petCoatValues

/** A fact that is known to be so, known not to be, or not known (left out of the profile). */
export type Answer = 'yes' | 'no' | 'unknown'
export const ANSWERS: readonly Answer[] = ['yes', 'no', 'unknown']
export const COMPANIONS = ['children', 'dogs', 'cats'] as const
export type Companion = (typeof COMPANIONS)[number]
export const CARE = ['spayedNeutered', 'houseTrained', 'vaccinated', 'microchipped', 'specialNeeds'] as const
export type Care = (typeof CARE)[number]

export const MAX_COLORS = 3

export interface Draft {
  name: string
  /** The category id, as text (the picker's value). */
  categoryId: string
  /** Only when adding: afterwards the animal's orders move it. */
  status: PetStatus
  externalId: string
  primaryBreed: string
  secondaryBreed: string
  mixed: boolean
  sex: Sex | ''
  age: Age | ''
  size: Size | ''
  coat: Coat | ''
  birthDate: string
  birthDateEstimated: boolean
  /** Main colour first; empty ones are left out. */
  colors: string[]
  description: string
  goodWith: Record<Companion, Answer>
  care: Record<Care, Answer>
  specialNeedsNote: string
  /** In the currency's major unit, as typed (`150.00`); empty: no fee. */
  feeAmount: string
  feeCurrency: string
  intakeDate: string
  locationId: string
  /** Comma-separated, as typed (a tag holds no comma). */
  tags: string
  /** One link per line. */
  videoUrls: string
}

const UNKNOWN: Record<Companion, Answer> = { children: 'unknown', dogs: 'unknown', cats: 'unknown' }

export function emptyDraft(categoryId = 1, currency = 'USD'): Draft {
  return {
    name: '',
    categoryId: String(categoryId),
    status: 'available',
    externalId: '',
    primaryBreed: '',
    secondaryBreed: '',
    mixed: false,
    sex: '',
    age: '',
    size: '',
    coat: '',
    birthDate: '',
    birthDateEstimated: false,
    colors: Array.from({ length: MAX_COLORS }, () => ''),
    description: '',
    goodWith: { ...UNKNOWN },
    care: { spayedNeutered: 'unknown', houseTrained: 'unknown', vaccinated: 'unknown', microchipped: 'unknown', specialNeeds: 'unknown' },
    specialNeedsNote: '',
    feeAmount: '',
    feeCurrency: currency,
    intakeDate: '',
    locationId: '',
    tags: '',
    videoUrls: '',
  }
}

const answerOf = (value: boolean | undefined): Answer => (value === undefined ? 'unknown' : value ? 'yes' : 'no')

export function draftOf(pet: Pet): Draft {
  const empty = emptyDraft(pet.categoryId, pet.adoptionFee?.currency)
  const attributes = pet.attributes ?? {}
  return {
    ...empty,
    name: pet.name,
    status: pet.status,
    externalId: pet.externalId ?? '',
    primaryBreed: pet.breeds?.primary ?? '',
    secondaryBreed: pet.breeds?.secondary ?? '',
    mixed: pet.breeds?.mixed ?? false,
    sex: pet.sex ?? '',
    age: pet.age ?? '',
    size: pet.size ?? '',
    coat: pet.coat ?? '',
    birthDate: pet.birthDate ?? '',
    birthDateEstimated: pet.birthDateEstimated ?? false,
    colors: empty.colors.map((blank, i) => pet.colors?.[i] ?? blank),
    description: pet.description ?? '',
    goodWith: { ...UNKNOWN, ...pet.goodWith },
    care: Object.fromEntries(CARE.map((name) => [name, answerOf(attributes[name])])) as Record<Care, Answer>,
    specialNeedsNote: attributes.specialNeedsNote ?? '',
    feeAmount: pet.adoptionFee ? majorOf(pet.adoptionFee.amount, pet.adoptionFee.currency) : '',
    intakeDate: pet.intakeDate ?? '',
    locationId: pet.locationId === undefined ? '' : String(pet.locationId),
    tags: (pet.tags ?? []).join(', '),
    videoUrls: (pet.videoUrls ?? []).join('\n'),
  }
}

/** Trimmed text, or undefined when empty (a field left out). */
function text(value: string): string | undefined {
  const trimmed = value.trim()
  return trimmed === '' ? undefined : trimmed
}

function list(values: string[]): string[] | undefined {
  const items = values.map((value) => value.trim()).filter(Boolean)
  return items.length === 0 ? undefined : items
}

/** The object, or undefined when none of its members is set (an empty object is left out). */
function some<T extends object>(value: T): T | undefined {
  const set = Object.entries(value).filter(([, member]) => member !== undefined)
  return set.length === 0 ? undefined : (Object.fromEntries(set) as T)
}

const flagOf = (answer: Answer): boolean | undefined => (answer === 'unknown' ? undefined : answer === 'yes')
const companionOf = (answer: Answer): Answer | undefined => (answer === 'unknown' ? undefined : answer)

/**
 * The animal's fields as the API takes them, those not given left undefined (JSON leaves them
 * out); throws a FieldProblem for what cannot be read.
 */
export function fieldsOf(draft: Draft): Fields {
  const categoryId = Number(draft.categoryId)
  if (!Number.isSafeInteger(categoryId) || categoryId < 1) throw new FieldProblem('categoryId', 'Choose a category.')
  const birthDate = text(draft.birthDate)
  const specialNeeds = flagOf(draft.care.specialNeeds)
  const feeText = text(draft.feeAmount)
  const amount = feeText === undefined ? undefined : minorOf(feeText, draft.feeCurrency)
  if (feeText !== undefined && amount === undefined) throw new FieldProblem('adoptionFee.amount', `The adoption fee must be ${amountHint(draft.feeCurrency)}.`)
  const locationId = text(draft.locationId)
  const primary = text(draft.primaryBreed)
  const secondary = text(draft.secondaryBreed)
  if (primary === undefined && (secondary !== undefined || draft.mixed)) throw new FieldProblem('breeds.primary', 'Name the primary breed first: the secondary breed and "mixed" go with it.')
  return {
    name: draft.name.trim(),
    categoryId,
    externalId: text(draft.externalId),
    breeds: primary === undefined ? undefined : { primary, secondary, mixed: draft.mixed || undefined },
    sex: draft.sex || undefined,
    age: draft.age || undefined,
    birthDate,
    birthDateEstimated: birthDate !== undefined && draft.birthDateEstimated ? true : undefined,
    size: draft.size || undefined,
    colors: list(draft.colors),
    coat: draft.coat || undefined,
    description: text(draft.description),
    goodWith: some({ children: companionOf(draft.goodWith.children), dogs: companionOf(draft.goodWith.dogs), cats: companionOf(draft.goodWith.cats) }),
    attributes: some({
      spayedNeutered: flagOf(draft.care.spayedNeutered),
      houseTrained: flagOf(draft.care.houseTrained),
      vaccinated: flagOf(draft.care.vaccinated),
      microchipped: flagOf(draft.care.microchipped),
      specialNeeds,
      specialNeedsNote: specialNeeds ? text(draft.specialNeedsNote) : undefined,
    }),
    adoptionFee: amount === undefined ? undefined : { amount, currency: draft.feeCurrency },
    intakeDate: text(draft.intakeDate),
    locationId: locationId === undefined ? undefined : Number(locationId),
    tags: list(draft.tags.split(',')),
    videoUrls: list(draft.videoUrls.split('\n')),
  }
}

/** The body that adds the animal the draft describes. */
export function newPetOf(draft: Draft): NewPet {
  return { ...fieldsOf(draft), status: draft.status }
}

/**
 * The merge patch that turns `pet` into what the draft says: only the fields that changed, `null`
 * for one removed, and the objects (`breeds`, `goodWith`, `attributes`, `adoptionFee`) member by
 * member. Both sides go through the same reading, so a field the form shows as it was never
 * counts as changed.
 */
export function changesOf(pet: Pet, draft: Draft): PetChanges {
  return mergePatchOf(fieldsOf(draftOf(pet)), fieldsOf(draft)) as PetChanges
}
