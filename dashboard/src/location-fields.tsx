/**
 * A location as its forms hold it (text per field) and the bodies they send: the whole place to
 * add one, a JSON Merge Patch of what changed to edit one.
 */
import type { ProjectLocation, RequestBody } from './api'
import { FieldProblem, mergePatchOf, type Problem, problemFor } from './changes'
import { TextField } from './form-fields'

export type NewLocation = RequestBody<'addLocation'>
export type LocationChanges = RequestBody<'updateLocation'>

const ADDRESS = [
  { name: 'line1', label: 'Street and number', maxLength: 200 },
  { name: 'line2', label: 'More of the address', maxLength: 200 },
  { name: 'city', label: 'City or town', maxLength: 100 },
  { name: 'region', label: 'State or region', maxLength: 100 },
  { name: 'postalCode', label: 'Postal code', maxLength: 20 },
] as const
type AddressPart = (typeof ADDRESS)[number]['name'] | 'country'

export type LocationDraft = { name: string; latitude: string; longitude: string } & Record<AddressPart, string>

export function locationDraftOf(location?: ProjectLocation): LocationDraft {
  const address = location?.address ?? {}
  return {
    name: location?.name ?? '',
    line1: address.line1 ?? '',
    line2: address.line2 ?? '',
    city: address.city ?? '',
    region: address.region ?? '',
    postalCode: address.postalCode ?? '',
    country: address.country ?? '',
    latitude: location?.coordinates ? String(location.coordinates.latitude) : '',
    longitude: location?.coordinates ? String(location.coordinates.longitude) : '',
  }
}

const text = (value: string) => value.trim() || undefined

function coordinate(value: string, field: 'latitude' | 'longitude', limit: number): number {
  const number = Number(value.trim())
  if (value.trim() === '' || !Number.isFinite(number) || Math.abs(number) > limit) {
    throw new FieldProblem(`coordinates.${field}`, `The ${field} must be a number of decimal degrees from -${limit} to ${limit}.`)
  }
  return number
}

/** The location the draft describes; throws a FieldProblem for coordinates that cannot be read. */
export function newLocationOf(draft: LocationDraft): NewLocation {
  const parts = Object.fromEntries([...ADDRESS.map(({ name }) => name), 'country'].map((name) => [name, text(draft[name as AddressPart])]).filter(([, value]) => value !== undefined))
  const located = draft.latitude.trim() !== '' || draft.longitude.trim() !== ''
  return {
    name: draft.name.trim(),
    address: Object.keys(parts).length > 0 ? { ...parts, country: parts.country?.toUpperCase() } : undefined,
    coordinates: located ? { latitude: coordinate(draft.latitude, 'latitude', 90), longitude: coordinate(draft.longitude, 'longitude', 180) } : undefined,
  }
}

/** What changed, as a merge patch; the coordinates, a pair, are sent whole. */
export function locationChangesOf(location: ProjectLocation, draft: LocationDraft): LocationChanges {
  const after = newLocationOf(draft)
  const patch = mergePatchOf(newLocationOf(locationDraftOf(location)), after)
  if (patch.coordinates) patch.coordinates = after.coordinates ?? null
  return patch as LocationChanges
}

/** The fields of a location's form; `id` prefixes their ids. */
export function LocationFields({ id, draft, onChange, problem }: { id: string; draft: LocationDraft; onChange: (draft: LocationDraft) => void; problem: Problem | null }) {
  const set = (name: keyof LocationDraft) => (value: string) => onChange({ ...draft, [name]: value })
  return (
    <>
      <TextField id={`${id}-name`} label="Name" value={draft.name} onChange={set('name')} error={problemFor(problem, 'name')} input={{ required: true, maxLength: 100, autoComplete: 'off' }} />
      {ADDRESS.map(({ name, label, maxLength }) => (
        <TextField key={name} id={`${id}-${name}`} label={label} value={draft[name]} onChange={set(name)} error={problemFor(problem, `address.${name}`)} input={{ maxLength }} />
      ))}
      <TextField id={`${id}-country`} label="Country (2 letters, e.g. US)" value={draft.country} onChange={set('country')} error={problemFor(problem, 'address.country')} input={{ maxLength: 2, autoComplete: 'country' }} />
      <TextField id={`${id}-latitude`} label="Latitude (e.g. 39.7817)" value={draft.latitude} onChange={set('latitude')} error={problemFor(problem, 'coordinates.latitude') ?? problemFor(problem, 'coordinates')} input={{ inputMode: 'decimal' }} />
      <TextField id={`${id}-longitude`} label="Longitude (e.g. -89.6501)" value={draft.longitude} onChange={set('longitude')} error={problemFor(problem, 'coordinates.longitude')} input={{ inputMode: 'decimal' }} />
    </>
  )
}

/** A location's address on one line, and its coordinates. */
export function addressLine(location: ProjectLocation): string {
  const { line1, line2, city, region, postalCode, country } = location.address ?? {}
  return [line1, line2, [postalCode, city].filter(Boolean).join(' '), region, country].filter(Boolean).join(', ')
}
