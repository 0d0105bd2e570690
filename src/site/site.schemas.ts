import { type Static, type TSchema, Type } from 'typebox'

const displayName = Type.String({ minLength: 1, maxLength: 100, description: 'The name the site shows in its header and title; default: the project slug' })
const logoUrl = Type.String({
  maxLength: 500,
  pattern: '^https://[^\\s<>"]+$',
  description: 'An `https` address of the logo image shown in the header (shown at most 48 px high)',
})
const primaryColor = Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: 'The colour of the header and buttons, `#rrggbb`; white text must be readable on it' })
const about = Type.String({ maxLength: 5000, description: 'A few words about the shelter, shown under the listing; plain text, line breaks kept' })
const contactEmail = Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@<>]+@[^\\s@<>]+\\.[^\\s@<>.]{2,}$', description: 'The email address shown in the footer', examples: ['adopt@example.org'] })
const contactPhone = Type.String({ minLength: 3, maxLength: 40, pattern: '^[0-9+() .\\-]+$', description: 'The phone number shown in the footer' })

export const SiteSettingsSchema = Type.Object(
  {
    published: Type.Boolean({ description: "True: the site is served at the project's addresses; false: they serve the API only" }),
    displayName: Type.Optional(displayName),
    logoUrl: Type.Optional(logoUrl),
    primaryColor: Type.Optional(primaryColor),
    about: Type.Optional(about),
    contactEmail: Type.Optional(contactEmail),
    contactPhone: Type.Optional(contactPhone),
  },
  { $id: 'SiteSettings', additionalProperties: false, description: "The project's adoption site: whether it is published, and its branding. A field left out is not set." },
)

const orNull = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()], { description: (schema as { description?: string }).description }))

export const SiteSettingsChangesSchema = Type.Object(
  {
    published: Type.Optional(SiteSettingsSchema.properties.published),
    displayName: orNull(displayName),
    logoUrl: orNull(logoUrl),
    primaryColor: orNull(primaryColor),
    about: orNull(about),
    contactEmail: orNull(contactEmail),
    contactPhone: orNull(contactPhone),
  },
  {
    additionalProperties: false,
    description: 'A JSON Merge Patch of the site settings: a field left out stays, `null` removes it',
    examples: [{ displayName: 'Springfield Animal Rescue', primaryColor: '#1f5f8b' }],
  },
)

export type SiteSettings = Static<typeof SiteSettingsSchema>
export type SiteSettingsChanges = Static<typeof SiteSettingsChangesSchema>
