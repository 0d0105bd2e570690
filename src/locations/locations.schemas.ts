import { type TSchema, Type, type Static } from 'typebox'
import { MAX_INT53, MAX_PAGE_SIZE } from '../shapes.js'
import { ProjectParamsSchema } from '../projects/projects.schemas.js'

/** The most locations a project keeps. */
export const MAX_LOCATIONS = 1000

const NO_CONTROLS = '^[^\\u0000-\\u001f\\u007f-\\u009f]*$'
const line = (maxLength: number, description: string, example: string) =>
  Type.String({ minLength: 1, maxLength, pattern: NO_CONTROLS, description, examples: [example] })

const nameField = line(100, 'What adopters know the place by: 1 to 100 characters', 'Main shelter')

const ADDRESS = {
  line1: line(200, 'Street and number', '123 Main Street'),
  line2: line(200, 'More of the address (building, suite)', 'Suite 4'),
  city: line(100, 'City or town', 'Springfield'),
  region: line(100, 'State, province or region', 'IL'),
  postalCode: line(20, 'Postal code', '62701'),
  country: Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 country code', examples: ['US'] }),
}

const COORDINATES = {
  latitude: Type.Number({ minimum: -90, maximum: 90, description: 'Decimal degrees, -90 to 90', examples: [39.7817] }),
  longitude: Type.Number({ minimum: -180, maximum: 180, description: 'Decimal degrees, -180 to 180', examples: [-89.6501] }),
}

const optional = <P extends Record<string, TSchema>>(properties: P) =>
  Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, Type.Optional(schema)])) as { [K in keyof P]: ReturnType<typeof Type.Optional<P[K]>> }
const orNull = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()], { description: (schema as { description?: string }).description })

const addressField = Type.Object(optional(ADDRESS), {
  additionalProperties: false,
  minProperties: 1,
  description: 'The postal address; every part optional',
  examples: [{ line1: '123 Main Street', city: 'Springfield', region: 'IL', postalCode: '62701', country: 'US' }],
})
const coordinatesField = Type.Object(COORDINATES, {
  additionalProperties: false,
  description: 'Where it is, for distance searches (`near` on `GET /pets`): an animal at a place without coordinates is never "near"',
  examples: [{ latitude: 39.7817, longitude: -89.6501 }],
})

export const LocationSchema = Type.Object(
  {
    id: Type.Integer({ format: 'int64', minimum: 1, description: "The location's id: an animal's `locationId`" }),
    name: Type.String({ description: 'What adopters know the place by' }),
    address: Type.Optional(addressField),
    coordinates: Type.Optional(coordinatesField),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'Location', additionalProperties: false, description: "A project's place where animals can be met: a shelter site, a foster area" },
)

export const LocationsSchema = Type.Array(Type.Ref('Location'), { $id: 'Locations', maxItems: MAX_PAGE_SIZE, description: 'A page of locations, in ascending id order' })

export const NewLocationSchema = Type.Object(
  { name: nameField, address: Type.Optional(addressField), coordinates: Type.Optional(coordinatesField) },
  {
    additionalProperties: false,
    description: 'A place to add: a name, and optionally its address and coordinates',
    examples: [{ name: 'Main shelter', address: { line1: '123 Main Street', city: 'Springfield', country: 'US' }, coordinates: { latitude: 39.7817, longitude: -89.6501 } }],
  },
)

export const LocationChangesSchema = Type.Object(
  {
    name: Type.Optional(nameField),
    address: Type.Optional(
      orNull(
        Type.Object(
          Object.fromEntries(Object.entries(ADDRESS).map(([name, schema]) => [name, Type.Optional(orNull(schema))])),
          { additionalProperties: false, minProperties: 1, description: 'The address, merged part by part: `null` removes a part' },
        ),
      ),
    ),
    coordinates: Type.Optional(orNull(coordinatesField)),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description: 'What to change, as a JSON Merge Patch (RFC 7396): a field left out stays, `null` removes the address (or a part of it) or the coordinates',
    examples: [{ coordinates: { latitude: 39.8, longitude: -89.6 } }],
  },
)

export const LocationsQuerySchema = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 20, description: 'Maximum number of locations returned', examples: [20] })),
    after: Type.Optional(
      Type.Integer({ format: 'int64', minimum: 0, maximum: MAX_INT53, description: 'Cursor: only locations with an id greater than this. Follow the `Link: rel="next"` header.', examples: [0] }),
    ),
  },
  { additionalProperties: false },
)

export const LocationParamsSchema = Type.Object({
  ...ProjectParamsSchema.properties,
  locationId: Type.Integer({ format: 'int64', minimum: 1, maximum: MAX_INT53, description: 'The id of the location', examples: [1] }),
})

export type Location = Static<typeof LocationSchema>
export type NewLocation = Static<typeof NewLocationSchema>
export type LocationChanges = Static<typeof LocationChangesSchema>
export type Address = NonNullable<Location['address']>
export type Coordinates = NonNullable<Location['coordinates']>
