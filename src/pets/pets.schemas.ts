import { Type, type Static } from 'typebox'
import { MAX_INT53, MAX_PAGE_SIZE, pageQuerySchema, StringEnum } from '../http/schemas.js'
import { PET_STATUSES } from '../db/schema.js'
import { ProjectParamsSchema } from '../projects/projects.schemas.js'


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
  },
  {
    $id: 'NewPet',
    additionalProperties: false,
    description: 'An animal to add. Unknown fields, `id` included, are rejected.',
    examples: [{ name: 'Rex', categoryId: 1, status: 'available' }],
  },
)

export const PetChangesSchema = Type.Object(
  {
    name: Type.Optional(nameField),
    categoryId: Type.Optional(categoryField),
  },
  {
    $id: 'PetChanges',
    additionalProperties: false,
    minProperties: 1,
    description:
      'What to change of an animal: its name, its category, or both; a field left out stays as it is (JSON Merge Patch, RFC 7396, where neither field may be removed). Unknown fields, `id` and `status` included, are rejected: the status changes only through adoption orders.',
    examples: [{ name: 'Rexi' }],
  },
)

export const PetSchema = Type.Object(
  {
    id: Type.Integer({ format: 'int64', minimum: 1, description: 'Unique identifier assigned by the service' }),
    name: Type.String({ description: "The animal's name" }),
    categoryId: Type.Integer({ format: 'int64', description: 'Identifier of the category the animal belongs to' }),
    status: statusRef('Availability status'),
  },
  { $id: 'Pet', additionalProperties: false, description: 'An animal available for adoption' },
)

export const PetsSchema = Type.Array(Type.Ref('Pet'), { $id: 'Pets', maxItems: MAX_PAGE_SIZE, description: 'A page of animals, in ascending id order' })

export const ListPetsQuerySchema = pageQuerySchema('animals', statusField, 'available')

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
