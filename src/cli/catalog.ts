/**
 * `adoption-store locations …` and `categories …`: a project's places and category names, on
 * the store itself, as the dashboard's Locations and Categories pages change them.
 */
import type { Command } from 'commander'
import { CategoryInputSchema } from '../categories/categories.schemas.js'
import { type Location, LocationChangesSchema, type NewLocation, NewLocationSchema } from '../locations/locations.schemas.js'
import { checked, CliError, jsonOption, schemaCheck, succeeded } from './common.js'
import type { CliContext } from './common.js'
import { withShelter } from './shelter.js'

interface PlaceOptions {
  project: string
  name?: string
  address?: string
  city?: string
  region?: string
  postalCode?: string
  country?: string
  latitude?: string
  longitude?: string
  json?: boolean
}

export function registerCatalogCommands(program: Command, cli: CliContext): void {
  const locations = program.command('locations').description("a project's places (shelter sites, foster areas): where its animals can be met")

  jsonOption(locations.command('list').description("list a project's locations").requiredOption('--project <slug>', 'the project')).action(async (options: { project: string; json?: boolean }) =>
    withShelter(cli, options.project, async ({ projectId, locations: service }) => {
      const all: Location[] = []
      for (let after: number | undefined = 0; after !== undefined; ) {
        const page = await service.list(projectId, { limit: 100, after })
        all.push(...page.items)
        after = page.nextAfter
      }
      cli.printList(options.json, all, {
        ID: (l) => String(l.id),
        NAME: (l) => l.name,
        ADDRESS: (l) => Object.values(l.address ?? {}).join(', '),
        COORDINATES: (l) => (l.coordinates ? `${l.coordinates.latitude},${l.coordinates.longitude}` : ''),
      })
    }),
  )

  placeOptions(jsonOption(locations.command('add <name>').description('add a location').requiredOption('--project <slug>', 'the project'))).action(
    async (name: string, options: PlaceOptions) =>
      withShelter(cli, options.project, async ({ projectId, locations: service }) => {
        const location = succeeded(await service.create(projectId, checked(schemaCheck(NewLocationSchema), { name, ...placeOf(options) } as NewLocation), cli.change)).location
        cli.print(options.json, location, () => `Added location ${location.id}: ${location.name}`)
      }),
  )

  placeOptions(
    jsonOption(locations.command('update <id>').description("change a location's name, address or coordinates").requiredOption('--project <slug>', 'the project').option('--name <name>', 'its new name')),
  ).action(async (id: string, options: PlaceOptions) =>
    withShelter(cli, options.project, async ({ projectId, locations: service }) => {
      const place = placeOf(options)
      const changes = { ...(options.name !== undefined && { name: options.name }), ...place }
      if (Object.keys(changes).length === 0) throw new CliError('nothing to change: give --name, an address part or --latitude and --longitude.')
      const { location } = succeeded(await service.update(projectId, locationId(id), checked(schemaCheck(LocationChangesSchema), changes), cli.change))
      cli.print(options.json, location, () => `Location ${location.id}: ${location.name}`)
    }),
  )

  jsonOption(locations.command('remove <id>').description('remove a location; refused while animals are there').requiredOption('--project <slug>', 'the project')).action(
    async (id: string, options: { project: string; json?: boolean }) =>
      withShelter(cli, options.project, async ({ projectId, locations: service }) => {
        const { location } = succeeded(await service.remove(projectId, locationId(id), cli.change))
        cli.print(options.json, { removed: true, id: location.id }, () => `Removed location ${location.id}: ${location.name}`)
      }),
  )

  const categories = program.command('categories').description("a project's categories: the default set (Dog, Cat, …), renamed or with more breeds, and its own")

  jsonOption(categories.command('list').description("list a project's categories").requiredOption('--project <slug>', 'the project')).action(async (options: { project: string; json?: boolean }) =>
    withShelter(cli, options.project, async ({ projectId, categories: service }) =>
      cli.printList(options.json, await service.listForProject(projectId), {
        ID: (c) => String(c.id),
        NAME: (c) => c.name,
        BREEDS: (c) => String(c.breedCount),
        DEFAULT: (c) => c.defaultName ?? '',
        'ADDED BREEDS': (c) => c.addedBreeds.join(', '),
      }),
    ),
  )

  jsonOption(
    categories
      .command('set <id> <name>')
      .description("name a category id for the project (rename a default one, or add one of its own), with breeds added to its list")
      .requiredOption('--project <slug>', 'the project')
      .option('--breeds <names>', 'breeds added to its list, comma-separated (replaces those added before)'),
  ).action(async (id: string, name: string, options: { project: string; breeds?: string; json?: boolean }) =>
    withShelter(cli, options.project, async ({ projectId, categories: service }) => {
      const breeds = options.breeds?.split(',').map((breed) => breed.trim()).filter(Boolean)
      const { category } = succeeded(await service.set(projectId, categoryId(id), checked(schemaCheck(CategoryInputSchema), { name, ...(breeds && { breeds }) }), cli.change))
      cli.print(options.json, category, () => `Category ${category.id}: ${category.name} (${category.breedCount} breeds)`)
    }),
  )

  jsonOption(categories.command('remove <id>').description("remove the project's own name and breeds of a category (a default one gets its default back)").requiredOption('--project <slug>', 'the project')).action(
    async (id: string, options: { project: string; json?: boolean }) =>
      withShelter(cli, options.project, async ({ projectId, categories: service }) => {
        const { category } = succeeded(await service.remove(projectId, categoryId(id), cli.change))
        cli.print(options.json, category, () => (category.defaultName ? `Category ${category.id} is ${category.defaultName} again` : `Removed category ${category.id}`))
      }),
  )
}

function placeOptions(command: Command): Command {
  return command
    .option('--address <line>', 'street and number')
    .option('--city <city>', 'city or town')
    .option('--region <region>', 'state, province or region')
    .option('--postal-code <code>', 'postal code')
    .option('--country <code>', 'ISO 3166-1 alpha-2 country code, e.g. US')
    .option('--latitude <degrees>', 'decimal degrees, -90 to 90 (with --longitude)')
    .option('--longitude <degrees>', 'decimal degrees, -180 to 180 (with --latitude)')
}

/** The address and coordinates the options give. */
function placeOf(options: PlaceOptions): Partial<NewLocation> {
  const address = Object.fromEntries(
    Object.entries({ line1: options.address, city: options.city, region: options.region, postalCode: options.postalCode, country: options.country?.toUpperCase() }).filter(([, value]) => value !== undefined),
  )
  if ((options.latitude === undefined) !== (options.longitude === undefined)) throw new CliError('give --latitude and --longitude together.')
  const coordinates = options.latitude === undefined ? undefined : { latitude: degrees(options.latitude, 90, '--latitude'), longitude: degrees(options.longitude!, 180, '--longitude') }
  return { ...(Object.keys(address).length > 0 && { address }), ...(coordinates && { coordinates }) }
}

function degrees(text: string, limit: number, option: string): number {
  const value = Number(text)
  if (text.trim() === '' || !Number.isFinite(value) || Math.abs(value) > limit) throw new CliError(`${option} must be decimal degrees from -${limit} to ${limit}, not "${text}".`)
  return value
}

function locationId(text: string): number {
  return idOf(text, 'location')
}

function categoryId(text: string): number {
  return idOf(text, 'category')
}

function idOf(text: string, what: string): number {
  if (!/^\d{1,16}$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) throw new CliError(`a ${what} id is a whole number from 1, not "${text}".`)
  return Number(text)
}
