import { createHash } from 'node:crypto'
import type { Pet, PetStatus } from './pets.schemas.js'

/**
 * Animals as rows of a CSV file, both ways: the columns this service exports (and imports as
 * they are), and the column names of the files shelters already have, from listing sites'
 * animal uploads (`AnimalName`, `PrimaryBreed`, `NoKids`, `arrival_date`, …) and from shelter
 * software exports (`externalID`, `priBreed`, `okwithkids`, `dsc`, …). Column names compare
 * without case, spaces, dashes or underscores.
 */

/** The columns of an export, in order; an import reads any of them. */
export const CSV_COLUMNS = [
  'id',
  'externalId',
  'name',
  'categoryId',
  'status',
  'breedPrimary',
  'breedSecondary',
  'breedMixed',
  'sex',
  'age',
  'birthDate',
  'birthDateEstimated',
  'size',
  'color1',
  'color2',
  'color3',
  'coat',
  'description',
  'goodWithChildren',
  'goodWithDogs',
  'goodWithCats',
  'spayedNeutered',
  'houseTrained',
  'vaccinated',
  'microchipped',
  'specialNeeds',
  'specialNeedsNote',
  'adoptionFee',
  'adoptionFeeCurrency',
  'intakeDate',
  'locationId',
  'tags',
  'videoUrls',
  'createdAt',
  'updatedAt',
] as const

/** What an import reads a column as. */
type Field =
  | Exclude<(typeof CSV_COLUMNS)[number], 'id' | 'createdAt' | 'updatedAt'>
  | 'category'
  | 'location'
  | 'notGoodWithChildren'
  | 'notGoodWithDogs'
  | 'notGoodWithCats'

/** Other names of the columns, folded (see `fold`). */
const ALIASES: Record<string, Field> = {
  // Listing sites' animal uploads.
  id: 'externalId',
  animalname: 'name',
  primarybreed: 'breedPrimary',
  secondarybreed: 'breedSecondary',
  mix: 'breedMixed',
  desc: 'description',
  type: 'category',
  shots: 'vaccinated',
  altered: 'spayedNeutered',
  housetrained: 'houseTrained',
  nokids: 'notGoodWithChildren',
  nodogs: 'notGoodWithDogs',
  nocats: 'notGoodWithCats',
  arrivaldate: 'intakeDate',
  primarycolor: 'color1',
  secondarycolor: 'color2',
  tertiarycolor: 'color3',
  coatlength: 'coat',
  specialneedsnotes: 'specialNeedsNote',
  // Shelter software exports.
  externalid: 'externalId',
  pribreed: 'breedPrimary',
  secbreed: 'breedSecondary',
  okwithkids: 'goodWithChildren',
  okwithdogs: 'goodWithDogs',
  okwithcats: 'goodWithCats',
  housebroken: 'houseTrained',
  uptodate: 'vaccinated',
  color: 'color1',
  dsc: 'description',
  videourl: 'videoUrls',
  // Plain words.
  category: 'category',
  species: 'category',
  location: 'location',
  breed: 'breedPrimary',
  gender: 'sex',
  adoptionfeeamount: 'adoptionFee',
  fee: 'adoptionFee',
  currency: 'adoptionFeeCurrency',
  birthdate: 'birthDate',
}

/** Columns an import knows and leaves alone: what it says it ignored. */
const IGNORED = new Set(['createdat', 'updatedat', 'internal', 'declawed', 'internalid', 'rescueid', 'courtesy', 'found', 'pattern'])

const fold = (name: string) => name.toLowerCase().replace(/[\s_-]+/g, '')

const OWN = new Map<string, Field>(CSV_COLUMNS.filter((c) => c !== 'id' && c !== 'createdAt' && c !== 'updatedAt').map((c) => [fold(c), c as Field]))

/** How the header's columns are read: the field of each, and the columns left out. */
export interface Header {
  fields: (Field | undefined)[]
  ignored: string[]
}

export function readHeader(columns: string[]): Header {
  // Our own export's `id` is the service's id, not the shelter's: matched by externalId only.
  const own = columns.some((column) => fold(column) === 'externalid' || fold(column) === 'categoryid')
  const fields = columns.map((column) => {
    const folded = fold(column)
    if (own && folded === 'id') return undefined
    if (/^photo\d+$/.test(folded)) return undefined
    return OWN.get(folded) ?? ALIASES[folded]
  })
  return { fields, ignored: columns.filter((_, i) => fields[i] === undefined).filter((column) => column.trim() !== '') }
}

/** Whether an ignored column is one an import knows to leave out (times, photos, notes) rather than an unknown one. */
export function isKnownIgnored(column: string): boolean {
  const folded = fold(column)
  return IGNORED.has(folded) || folded === 'id' || /^photo\d+$/.test(folded)
}

/** What a row is read against: the project's category and location names. */
export interface RowContext {
  categoryByName: ReadonlyMap<string, number>
  locationByName: ReadonlyMap<string, number>
}

/**
 * A row as the fields of an animal (`NewPet` without its checks), the fields its columns name
 * (an empty cell removes the field from an animal that has it), or the problems found.
 */
export type ReadRow = { ok: true; input: Record<string, unknown>; named: ReadonlySet<string>; externalIdDerived: boolean } | { ok: false; problems: string[] }

export function readRow(header: Header, cells: string[], context: RowContext): ReadRow {
  const problems: string[] = []
  const value = new Map<Field, string>()
  header.fields.forEach((field, i) => {
    if (field === undefined) return
    const cell = (cells[i] ?? '').trim()
    // A column named twice (two aliases): the first non-empty cell wins.
    if (cell !== '' || !value.has(field)) value.set(field, cell)
  })
  const named = new Set<string>()
  const input: Record<string, unknown> = {}
  const set = (name: string, parsed: unknown) => {
    named.add(name)
    if (parsed !== undefined) input[name] = parsed
  }
  const text = (field: Field) => value.get(field) || undefined

  if (value.has('name')) set('name', text('name'))
  // Descriptions exported by other tools keep line breaks as <br>: plain text here.
  if (value.has('description')) set('description', text('description')?.replace(/<br\s*\/?>/gi, '\n'))

  // Category: an id, or a name of the project's categories.
  if (value.has('categoryId') || value.has('category')) {
    const id = text('categoryId')
    const name = text('category')
    if (id !== undefined) set('categoryId', integer(id, 'categoryId', problems))
    else if (name !== undefined) {
      const found = context.categoryByName.get(name.toLowerCase())
      if (found === undefined) problems.push(`category "${name}": no category of the project has this name (see the dashboard's Categories page, or give categoryId)`)
      set('categoryId', found)
    } else set('categoryId', undefined)
  }
  if (value.has('status')) set('status', status(text('status'), problems))
  if (value.has('externalId')) set('externalId', text('externalId'))

  if (value.has('breedPrimary') || value.has('breedSecondary') || value.has('breedMixed')) {
    const primary = text('breedPrimary')
    const secondary = text('breedSecondary')
    const mixed = flag(text('breedMixed'), 'breedMixed', problems)
    set('breeds', primary === undefined && secondary === undefined && mixed === undefined ? undefined : { primary, ...(secondary !== undefined && { secondary }), ...(mixed !== undefined && { mixed }) })
  }
  if (value.has('sex')) set('sex', choice(text('sex'), 'sex', SEXES, problems))
  if (value.has('age')) set('age', choice(text('age'), 'age', AGES, problems))
  if (value.has('size')) set('size', choice(text('size'), 'size', SIZES, problems))
  if (value.has('coat')) set('coat', choice(text('coat'), 'coat', COATS, problems))
  for (const field of ['birthDate', 'intakeDate'] as const) if (value.has(field)) set(field, date(text(field), field, problems))
  if (value.has('birthDateEstimated')) set('birthDateEstimated', flag(text('birthDateEstimated'), 'birthDateEstimated', problems))
  if (value.has('color1') || value.has('color2') || value.has('color3')) {
    const colors = (['color1', 'color2', 'color3'] as const).map(text).filter((color): color is string => color !== undefined)
    set('colors', colors.length > 0 ? colors : undefined)
  }

  const companions = [
    ['children', 'goodWithChildren', 'notGoodWithChildren'],
    ['dogs', 'goodWithDogs', 'notGoodWithDogs'],
    ['cats', 'goodWithCats', 'notGoodWithCats'],
  ] as const
  if (companions.some(([, good, bad]) => value.has(good) || value.has(bad))) {
    const goodWith: Record<string, string> = {}
    for (const [companion, good, bad] of companions) {
      const answer = value.has(good) ? choice(text(good), good, ANSWERS, problems) : value.has(bad) && flag(text(bad), bad, problems) === true ? 'no' : undefined
      if (answer !== undefined) goodWith[companion] = answer
    }
    set('goodWith', Object.keys(goodWith).length > 0 ? goodWith : undefined)
  }
  const care = ['spayedNeutered', 'houseTrained', 'vaccinated', 'microchipped', 'specialNeeds'] as const
  if (care.some((field) => value.has(field)) || value.has('specialNeedsNote')) {
    const attributes: Record<string, unknown> = {}
    for (const field of care) {
      const parsed = flag(text(field), field, problems)
      if (parsed !== undefined) attributes[field] = parsed
    }
    const note = text('specialNeedsNote')
    if (note !== undefined) attributes.specialNeedsNote = note
    set('attributes', Object.keys(attributes).length > 0 ? attributes : undefined)
  }
  if (value.has('adoptionFee') || value.has('adoptionFeeCurrency')) {
    const amount = text('adoptionFee')
    // Listing sites' uploads give the fee alone, in US dollars.
    const currency = (text('adoptionFeeCurrency') ?? 'USD').toUpperCase()
    set('adoptionFee', amount === undefined ? undefined : { amount: minorUnits(amount, currency, problems), currency })
  }
  if (value.has('locationId') || value.has('location')) {
    const id = text('locationId')
    const name = text('location')
    if (id !== undefined) set('locationId', integer(id, 'locationId', problems))
    else if (name !== undefined) {
      const found = context.locationByName.get(name.toLowerCase())
      if (found === undefined) problems.push(`location "${name}": no location of the project has this name (add it on the dashboard's Locations page, or give locationId)`)
      set('locationId', found)
    } else set('locationId', undefined)
  }
  if (value.has('tags')) {
    const tags = text('tags')?.split(',').map((tag) => tag.trim()).filter(Boolean)
    set('tags', tags && tags.length > 0 ? tags : undefined)
  }
  if (value.has('videoUrls')) {
    const urls = text('videoUrls')?.split(/\s+/).filter(Boolean)
    set('videoUrls', urls && urls.length > 0 ? urls : undefined)
  }

  if (problems.length > 0) return { ok: false, problems }
  let externalIdDerived = false
  if (input.externalId === undefined) {
    // No identifier of the shelter's own: the row's content stands in for one, so that the same
    // row imported again finds the animal it made.
    input.externalId = `row-${createHash('sha256').update(JSON.stringify(cells)).digest('hex').slice(0, 20)}`
    externalIdDerived = true
  }
  return { ok: true, input, named, externalIdDerived }
}

const SEXES: Record<string, string> = { m: 'male', male: 'male', f: 'female', female: 'female', u: 'unknown', unknown: 'unknown' }
const AGES: Record<string, string> = { baby: 'baby', puppy: 'baby', kitten: 'baby', young: 'young', adult: 'adult', senior: 'senior' }
const SIZES: Record<string, string> = {
  s: 'small',
  small: 'small',
  m: 'medium',
  medium: 'medium',
  l: 'large',
  large: 'large',
  xl: 'extra_large',
  xlarge: 'extra_large',
  extralarge: 'extra_large',
}
const COATS: Record<string, string> = { hairless: 'hairless', short: 'short', medium: 'medium', long: 'long', wire: 'wire', wirehaired: 'wire', curly: 'curly' }
const ANSWERS: Record<string, string> = { yes: 'yes', y: 'yes', true: 'yes', '1': 'yes', no: 'no', n: 'no', false: 'no', '0': 'no', unknown: 'unknown', '?': 'unknown' }
const STATUSES: Record<string, PetStatus> = { available: 'available', adoptable: 'available', a: 'available', pending: 'pending', p: 'pending', hold: 'pending', h: 'pending', sold: 'sold', adopted: 'sold', x: 'sold' }

function choice(cell: string | undefined, field: string, values: Record<string, string>, problems: string[]): string | undefined {
  if (cell === undefined) return undefined
  const found = values[fold(cell)]
  if (found === undefined) problems.push(`${field} "${cell}": use one of ${[...new Set(Object.values(values))].join(', ')}`)
  return found
}

function status(cell: string | undefined, problems: string[]): PetStatus | undefined {
  return choice(cell, 'status', STATUSES, problems) as PetStatus | undefined
}

function flag(cell: string | undefined, field: string, problems: string[]): boolean | undefined {
  if (cell === undefined) return undefined
  const answer = ANSWERS[fold(cell)]
  if (answer === undefined) problems.push(`${field} "${cell}": use yes or no (or leave it empty)`)
  return answer === 'yes' ? true : answer === 'no' ? false : undefined
}

function integer(cell: string, field: string, problems: string[]): number | undefined {
  if (!/^\d{1,16}$/.test(cell) || !Number.isSafeInteger(Number(cell)) || Number(cell) < 1) {
    problems.push(`${field} "${cell}": a whole number from 1 is needed`)
    return undefined
  }
  return Number(cell)
}

function date(cell: string | undefined, field: string, problems: string[]): string | undefined {
  if (cell === undefined) return undefined
  if (/^\d{4}-\d{2}-\d{2}$/.test(cell)) return cell
  // Month first, as listing sites' uploads write dates.
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(cell)
  if (us) return `${us[3]}-${us[1]!.padStart(2, '0')}-${us[2]!.padStart(2, '0')}`
  problems.push(`${field} "${cell}": use YYYY-MM-DD (or MM/DD/YYYY)`)
  return undefined
}

/** The digits after the decimal point of a currency (2 for USD, 0 for JPY). */
export function currencyDigits(currency: string): number {
  let digits = DIGITS.get(currency)
  if (digits === undefined) {
    try {
      digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2
    } catch {
      digits = 2
    }
    // Asked for every row of an import: a formatter costs about 60 µs to build.
    if (DIGITS.size < 1000) DIGITS.set(currency, digits)
  }
  return digits
}

const DIGITS = new Map<string, number>()

function minorUnits(cell: string, currency: string, problems: string[]): number | undefined {
  const digits = currencyDigits(currency)
  const match = /^(\d{1,9})(?:[.,](\d+))?$/.exec(cell.replace(/^[$€£¥]\s*/, ''))
  if (!match || (match[2]?.length ?? 0) > digits) {
    problems.push(`adoptionFee "${cell}": an amount in ${currency} with at most ${digits} decimal${digits === 1 ? '' : 's'}, e.g. ${digits === 0 ? '15000' : '150.00'}`)
    return undefined
  }
  return Number(match[1]) * 10 ** digits + Number((match[2] ?? '').padEnd(digits, '0') || 0)
}

/** An animal as a row of an export, in CSV_COLUMNS order. */
export function petRow(pet: Pet): (string | number)[] {
  const fee = pet.adoptionFee
  const digits = fee ? currencyDigits(fee.currency) : 0
  const yesNo = (value: boolean | undefined) => (value === undefined ? '' : value ? 'yes' : 'no')
  const cells: Record<(typeof CSV_COLUMNS)[number], string | number> = {
    id: pet.id,
    externalId: pet.externalId ?? '',
    name: pet.name,
    categoryId: pet.categoryId,
    status: pet.status,
    breedPrimary: pet.breeds?.primary ?? '',
    breedSecondary: pet.breeds?.secondary ?? '',
    breedMixed: yesNo(pet.breeds?.mixed),
    sex: pet.sex ?? '',
    age: pet.age ?? '',
    birthDate: pet.birthDate ?? '',
    birthDateEstimated: yesNo(pet.birthDateEstimated),
    size: pet.size ?? '',
    color1: pet.colors?.[0] ?? '',
    color2: pet.colors?.[1] ?? '',
    color3: pet.colors?.[2] ?? '',
    coat: pet.coat ?? '',
    description: pet.description ?? '',
    goodWithChildren: pet.goodWith?.children ?? '',
    goodWithDogs: pet.goodWith?.dogs ?? '',
    goodWithCats: pet.goodWith?.cats ?? '',
    spayedNeutered: yesNo(pet.attributes?.spayedNeutered),
    houseTrained: yesNo(pet.attributes?.houseTrained),
    vaccinated: yesNo(pet.attributes?.vaccinated),
    microchipped: yesNo(pet.attributes?.microchipped),
    specialNeeds: yesNo(pet.attributes?.specialNeeds),
    specialNeedsNote: pet.attributes?.specialNeedsNote ?? '',
    adoptionFee: fee ? (fee.amount / 10 ** digits).toFixed(digits) : '',
    adoptionFeeCurrency: fee?.currency ?? '',
    intakeDate: pet.intakeDate ?? '',
    locationId: pet.locationId ?? '',
    tags: (pet.tags ?? []).join(', '),
    videoUrls: (pet.videoUrls ?? []).join(' '),
    createdAt: pet.createdAt ?? '',
    updatedAt: pet.updatedAt ?? '',
  }
  return CSV_COLUMNS.map((column) => cells[column])
}
