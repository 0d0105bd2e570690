import type { ProfileColumns } from './pets.repository.js'
import type { ATTRIBUTES, Profile } from './profile.schemas.js'
import { foldedName, searchTokens } from './search-text.js'

/**
 * The rules of an animal's profile beyond its schema: what a merge patch does to it, which
 * combinations contradict each other, and the columns that filters, sorts and the full-text
 * search read, derived from it. The profile itself is stored as the API shows it.
 */

/** ISO 4217 codes in use, as the runtime's ICU data knows them. */
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'))

const VIDEO_HOSTS = new Set(['youtube.com', 'www.youtube.com', 'm.youtube.com', 'youtu.be', 'vimeo.com', 'www.vimeo.com', 'player.vimeo.com'])

/** Profile fields, as validated by the schema (a merge patch's `null`s already applied). */
type Fields = Record<string, unknown>

/**
 * RFC 7396: `patch` applied to `target`. A member set to `null` is removed, an object merges
 * member by member, anything else replaces.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch
  const result: Fields = isObject(target) ? { ...target } : {}
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete result[name]
    else result[name] = mergePatch(result[name], value)
  }
  return result
}

function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The profile fields of a validated body (creation or merged change), in a fixed order and trimmed; empty objects dropped. */
export function profileOf(fields: Fields): Profile {
  const profile: Fields = {}
  for (const name of PROFILE_ORDER) {
    let value = fields[name]
    if (value === undefined) continue
    if (typeof value === 'string') value = value.trim()
    else if (Array.isArray(value)) value = value.map((item) => (typeof item === 'string' ? item.trim() : item))
    else if (isObject(value)) {
      const members = Object.entries(value)
        .filter(([, member]) => member !== undefined && member !== null)
        .map(([member, item]) => [member, typeof item === 'string' ? item.trim() : item] as const)
      if (members.length === 0) continue
      value = Object.fromEntries(members)
    }
    profile[name] = value
  }
  return profile as Profile
}

const PROFILE_ORDER = [
  'externalId',
  'breeds',
  'sex',
  'age',
  'birthDate',
  'birthDateEstimated',
  'size',
  'colors',
  'coat',
  'description',
  'goodWith',
  'attributes',
  'adoptionFee',
  'intakeDate',
  'locationId',
  'tags',
  'videoUrls',
] as const

/**
 * What contradicts itself or the calendar in a profile, as a message naming the field; undefined
 * when nothing does. `today` is the service's date (UTC, `YYYY-MM-DD`); a date a day ahead of it
 * is accepted, for shelters east of UTC.
 */
export function profileProblem(profile: Profile, today: string): string | undefined {
  const blank = blankField(profile)
  if (blank) return `Field "${blank}" is empty once its surrounding spaces are trimmed: give some text, or leave the field out.`
  const tomorrow = new Date(Date.parse(`${today}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)
  if (profile.breeds && profile.breeds.primary === undefined) return 'Field "breeds.primary" is required once breeds are given: name the main breed first.'
  if (profile.breeds?.secondary !== undefined && profile.breeds.secondary.toLowerCase() === profile.breeds.primary.toLowerCase()) {
    return 'Field "breeds.secondary" names the same breed as "breeds.primary": leave it out, or set "breeds.mixed" for a mix.'
  }
  for (const field of ['birthDate', 'intakeDate'] as const) {
    const value = profile[field]
    if (value === undefined) continue
    if (!isCalendarDate(value)) return `Field "${field}" is not a calendar date: use YYYY-MM-DD, e.g. 2024-03-01.`
    if (value > tomorrow) return `Field "${field}" is in the future (${value}): use a date up to today.`
  }
  if (profile.birthDateEstimated !== undefined && profile.birthDate === undefined) {
    return 'Field "birthDateEstimated" needs "birthDate": send the (estimated) date of birth with it.'
  }
  if (profile.birthDate !== undefined && profile.intakeDate !== undefined && profile.intakeDate < profile.birthDate) {
    return `Field "intakeDate" (${profile.intakeDate}) is before "birthDate" (${profile.birthDate}).`
  }
  const attributes = profile.attributes
  if (attributes?.specialNeedsNote !== undefined && attributes.specialNeeds !== true) {
    return 'Field "attributes.specialNeedsNote" needs "attributes.specialNeeds": true.'
  }
  const fee = profile.adoptionFee
  if (fee) {
    if (fee.amount === undefined || fee.currency === undefined) return 'Field "adoptionFee" needs both "amount" (in minor units) and "currency".'
    if (!CURRENCIES.has(fee.currency)) return `Field "adoptionFee.currency" is not an ISO 4217 currency code: "${fee.currency}" (e.g. USD, EUR, GBP).`
  }
  if (profile.tags) {
    const seen = new Set<string>()
    for (const tag of profile.tags) {
      if (tag === '') return 'Field "tags" holds an empty tag: every tag has 1 to 40 characters.'
      const folded = foldedName(tag)
      if (seen.has(folded)) return `Field "tags" names "${tag}" twice (tags compare without case).`
      seen.add(folded)
    }
  }
  if (profile.colors?.includes('')) return 'Field "colors" holds an empty colour: every colour has 1 to 50 characters.'
  for (const url of profile.videoUrls ?? []) {
    if (!isVideoUrl(url)) return `Field "videoUrls" holds "${url}": only https links to YouTube (youtube.com, youtu.be) or Vimeo (vimeo.com) are accepted.`
  }
  return undefined
}

/** The first text of the profile that trimming left empty (`breeds.primary`, `tags.2`), if any. */
function blankField(value: unknown, path = ''): string | undefined {
  if (value === '') return path
  if (typeof value !== 'object' || value === null) return undefined
  for (const [key, item] of Object.entries(value)) {
    const found = blankField(item, path ? `${path}.${key}` : key)
    if (found !== undefined) return found
  }
  return undefined
}

function isCalendarDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value)
  if (!match) return false
  const date = new Date(`${value}T00:00:00Z`)
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value
}

function isVideoUrl(text: string): boolean {
  try {
    const url = new URL(text)
    return url.protocol === 'https:' && url.username === '' && url.password === '' && url.port === '' && VIDEO_HOSTS.has(url.hostname)
  } catch {
    return false
  }
}

const flag = (value: boolean | undefined) => (value === undefined ? null : value ? 1 : 0)

export function profileColumns(name: string, profile: Profile): ProfileColumns {
  const attributes = profile.attributes ?? {}
  const empty = Object.keys(profile).length === 0
  return {
    profile: empty ? null : JSON.stringify(profile),
    external_id: profile.externalId ?? null,
    sex: profile.sex ?? null,
    age_group: profile.age ?? null,
    size: profile.size ?? null,
    coat: profile.coat ?? null,
    good_with_children: profile.goodWith?.children ?? null,
    good_with_dogs: profile.goodWith?.dogs ?? null,
    good_with_cats: profile.goodWith?.cats ?? null,
    spayed_neutered: flag(attributes.spayedNeutered),
    house_trained: flag(attributes.houseTrained),
    vaccinated: flag(attributes.vaccinated),
    microchipped: flag(attributes.microchipped),
    special_needs: flag(attributes.specialNeeds),
    breed_primary_key: profile.breeds ? foldedName(profile.breeds.primary) : null,
    breed_secondary_key: profile.breeds?.secondary === undefined ? null : foldedName(profile.breeds.secondary),
    location_id: profile.locationId ?? null,
    tags_key: profile.tags?.length ? `|${profile.tags.map(foldedName).join('|')}|` : null,
    search_text: searchTokens([name, profile.breeds?.primary, profile.breeds?.secondary, profile.description, ...(profile.tags ?? [])].filter(Boolean).join(' ')),
  }
}

/** The attribute filters, by their query parameter, and the column each reads. */
export const ATTRIBUTE_COLUMNS = {
  spayedNeutered: 'spayed_neutered',
  houseTrained: 'house_trained',
  vaccinated: 'vaccinated',
  microchipped: 'microchipped',
  specialNeeds: 'special_needs',
} as const satisfies Record<(typeof ATTRIBUTES)[number], keyof ProfileColumns>
