import { Type, type Static } from 'typebox'
import { MAX_INT53 } from '../shapes.js'
import { ProjectParamsSchema } from '../projects/projects.schemas.js'

/** The most categories of its own a project keeps, and breeds it adds to one. */
export const MAX_PROJECT_CATEGORIES = 200
export const MAX_ADDED_BREEDS = 500

const NO_CONTROLS = '^[^\\u0000-\\u001f\\u007f-\\u009f]*$'
const categoryId = Type.Integer({ format: 'int64', minimum: 1, maximum: MAX_INT53, description: "The category's id: an animal's `categoryId`", examples: [1] })

export const CategorySchema = Type.Object(
  {
    id: categoryId,
    name: Type.String({ description: 'The name shown to adopters', examples: ['Dog'] }),
    breedCount: Type.Integer({ minimum: 0, description: 'How many breeds `GET /categories/{categoryId}/breeds` lists' }),
  },
  { $id: 'Category', additionalProperties: false, description: 'A kind of animal: one of the default set (Dog, Cat, Rabbit, …) or a category of the project\'s own' },
)

export const CategoriesSchema = Type.Array(Type.Ref('Category'), { $id: 'Categories', description: 'Every category of the project, in ascending id order' })

export const BreedSchema = Type.Object(
  { name: Type.String({ description: 'The breed, as an animal\'s `breeds.primary` or `breeds.secondary` names it', examples: ['Labrador Retriever'] }) },
  { $id: 'Breed', additionalProperties: false, description: 'A breed of a category' },
)

export const BreedsSchema = Type.Array(Type.Ref('Breed'), { $id: 'Breeds', description: 'The breeds of a category, in alphabetical order' })

/** A category as the admin API shows it: what the project set over the default, too. */
export const ProjectCategorySchema = Type.Object(
  {
    id: categoryId,
    name: Type.String({ description: 'The name in force: the project\'s own, else the default one' }),
    breedCount: Type.Integer({ minimum: 0, description: 'How many breeds the category lists (shipped and added)' }),
    defaultName: Type.Union([Type.String(), Type.Null()], { description: 'The default set\'s name for this id; null for a category of the project\'s own' }),
    own: Type.Boolean({ description: 'Whether the project set a name (and breeds) for this id; removing that restores the default, or removes a category of its own' }),
    addedBreeds: Type.Array(Type.String(), { description: 'The breeds the project added to the shipped list' }),
  },
  { $id: 'ProjectCategory', additionalProperties: false, description: 'A category of the project, as the dashboard manages it' },
)

export const ProjectCategoriesSchema = Type.Array(Type.Ref('ProjectCategory'), { description: 'Every category of the project, in ascending id order' })

export const CategoryInputSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, pattern: NO_CONTROLS, description: 'The name shown to adopters: 1 to 100 characters', examples: ['Guinea pig'] }),
    breeds: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100, pattern: NO_CONTROLS, description: 'A breed name', examples: ['Teddy'] }), {
        maxItems: MAX_ADDED_BREEDS,
        description: 'Breeds added to the shipped list of this category (at most 500); the whole list is replaced. Default: none',
        examples: [['Teddy', 'Abyssinian']],
      }),
    ),
  },
  { additionalProperties: false, description: "The project's name (and added breeds) for a category id", examples: [{ name: 'Guinea pig', breeds: ['Teddy', 'Abyssinian'] }] },
)

export const CategoryParamsSchema = Type.Object({ categoryId })
export const ProjectCategoryParamsSchema = Type.Object({ ...ProjectParamsSchema.properties, categoryId })

export type Category = Static<typeof CategorySchema>
export type ProjectCategory = Static<typeof ProjectCategorySchema>
export type CategoryInput = Static<typeof CategoryInputSchema>
export type Breed = Static<typeof BreedSchema>
