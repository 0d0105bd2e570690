/**
 * The data commands: `pets …` and `orders …` call a running service's API through the typed
 * client, as any API user would. They never open the database nor read the service's own
 * configuration: only `--url`/ADOPTION_STORE_URL and `--key`/ADOPTION_STORE_KEY.
 */
import { type Command, Option } from 'commander'
import {
  type AdoptionStoreClient,
  AdoptionStoreError,
  createClient,
  type Order,
  type OrderStatus,
  type Page,
  type Pet,
  type PetStatus,
  servers,
} from '../client/index.js'
import { type CliContext, CliError, jsonOption, table, wholeNumber } from './common.js'

/**
 * Every member of one of the client's unions, in order. A record rather than a list: the
 * type-checker refuses a member that is missing or unknown, so the choices follow openapi.json.
 */
function everyOf<T extends string>(members: Record<T, true>): readonly T[] {
  return Object.keys(members) as T[]
}

const PET_STATUSES = everyOf<PetStatus>({ available: true, pending: true, sold: true })
const ORDER_STATUSES = everyOf<OrderStatus>({ placed: true, approved: true, delivered: true, cancelled: true })

interface ApiOptions {
  url?: string
  key?: string
  json?: boolean
}

export function registerDataCommands(program: Command, cli: CliContext): void {
  const pets = program.command('pets').description("animals: list, add, fetch, change and remove them through a running service's API; import and export them on the store")

  listCommand(cli, pets, 'animals', PET_STATUSES, petTable, (client, query) => client.listPets(query), (client, query) => client.iteratePets(query))

  creation(
    pets
      .command('create <name>')
      .description('add an animal (safe to retry: sent with an Idempotency-Key)')
      .requiredOption('--category <id>', 'its category id', wholeNumber(1))
      .addOption(new Option('--status <status>', 'its status (default available)').choices(PET_STATUSES)),
  ).action((name: string, options: ApiOptions & { category: number; status?: PetStatus; idempotencyKey?: string }) =>
    run(cli, options, async (client) => {
      const pet = await client.createPet({ name, categoryId: options.category, status: options.status }, { idempotencyKey: options.idempotencyKey })
      cli.print(options.json, pet, () => `Created pet ${describePet(pet)}`)
    }),
  )

  apiOptions(pets.command('get <id>').description('show one animal (GET /v1/pets/{id}, deprecated: removed 5 December 2030)')).action(
    (petId: string, options: ApiOptions) =>
      run(cli, options, async (client) => {
        const pet = await client.getPet(idArgument(petId))
        cli.print(options.json, pet, () => `Pet ${describePet(pet)}`)
      }),
  )

  creation(
    pets
      .command('update <id>')
      .description("change an animal's name or category; its status follows its orders (safe to retry: sent with an Idempotency-Key)")
      .option('--name <name>', 'its new name')
      .option('--category <id>', 'its new category id', wholeNumber(1)),
  ).action((petId: string, options: ApiOptions & { name?: string; category?: number; idempotencyKey?: string }) =>
    run(cli, options, async (client) => {
      if (options.name === undefined && options.category === undefined) throw new CliError('nothing to change: give --name, --category or both.')
      const pet = await client.updatePet(idArgument(petId), { name: options.name, categoryId: options.category }, { idempotencyKey: options.idempotencyKey })
      cli.print(options.json, pet, () => `Updated pet ${describePet(pet)}`)
    }),
  )

  apiOptions(pets.command('delete <id>').description('remove an animal; refused while an order of it is placed or approved (its other orders are kept)')).action(
    (petId: string, options: ApiOptions) =>
      run(cli, options, async (client) => {
        const id = idArgument(petId)
        await client.deletePet(id)
        cli.print(options.json, { id, removed: true }, () => `Removed pet ${id}`)
      }),
  )

  const orders = program.command('orders').description("list, place and move adoption orders through a running service's API")

  listCommand(cli, orders, 'orders', ORDER_STATUSES, orderTable, (client, query) => client.listOrders(query), (client, query) => client.iterateOrders(query))

  creation(orders.command('create <petId>').description('order an available animal (safe to retry: sent with an Idempotency-Key)')).action((petId: string, options: ApiOptions & { idempotencyKey?: string }) =>
    run(cli, options, async (client) => {
      const order = await client.placeOrder({ petId: idArgument(petId) }, { idempotencyKey: options.idempotencyKey })
      cli.print(options.json, order, () => `Placed order ${describeOrder(order)}`)
    }),
  )

  apiOptions(orders.command('get <id>').description('show one order')).action((orderId: string, options: ApiOptions) =>
    run(cli, options, async (client) => {
      const order = await client.getOrder(idArgument(orderId))
      cli.print(options.json, order, () => `Order ${describeOrder(order)}`)
    }),
  )

  const moves = {
    approve: { description: 'approve a placed order', call: (c: AdoptionStoreClient, id: number) => c.approveOrder(id) },
    deliver: { description: 'deliver an approved order: the animal is sold', call: (c: AdoptionStoreClient, id: number) => c.deliverOrder(id) },
    cancel: { description: 'cancel a placed or approved order: the animal is available again', call: (c: AdoptionStoreClient, id: number) => c.cancelOrder(id) },
  }
  for (const [action, move] of Object.entries(moves)) {
    apiOptions(orders.command(`${action} <id>`).description(`${move.description} (not retried)`)).action((orderId: string, options: ApiOptions) =>
      run(cli, options, async (client) => {
        const order = await move.call(client, idArgument(orderId))
        cli.print(options.json, order, () => `Order ${describeOrder(order)}`)
      }),
    )
  }
}

/** `pets list` and `orders list`: one page in ascending id order, or every page with `--all`. */
function listCommand<S extends string, T extends { id: number }>(
  cli: CliContext,
  group: Command,
  noun: string,
  statuses: readonly S[],
  render: (page: Page<T>) => string,
  page: (client: AdoptionStoreClient, query: ListQuery<S>) => Promise<Page<T>>,
  all: (client: AdoptionStoreClient, query: ListQuery<S>) => AsyncIterable<T>,
): void {
  apiOptions(
    group
      .command('list')
      .description(`list ${noun} in ascending id order, one page (or every page with --all)`)
      .addOption(new Option('--status <status>', `only ${noun} with this status`).choices(statuses))
      .option('--limit <n>', `${noun} per page, 1 to 100 (default 20)`, wholeNumber(1))
      .option('--after <id>', `the cursor: only ${noun} with a greater id`, wholeNumber(0))
      .option('--all', 'follow the pages to the end'),
  ).action((options: ApiOptions & { status?: S; limit?: number; after?: number; all?: boolean }) =>
    run(cli, options, async (client) => {
      const query = { status: options.status, limit: options.limit, after: options.after }
      const found = options.all ? { items: await collect(all(client, query)), next: undefined } : await page(client, query)
      cli.print(options.json, found.items, () => render(found))
    }),
  )
}

interface ListQuery<S> {
  status: S | undefined
  limit: number | undefined
  after: number | undefined
}

/** A command that creates or changes: sent with an Idempotency-Key, the caller's own to repeat it safely. */
function creation(command: Command): Command {
  return apiOptions(command.option('--idempotency-key <key>', 'your own Idempotency-Key, to repeat this command safely (default: a new UUID)'))
}

function apiOptions(command: Command): Command {
  return jsonOption(
    command
      .option('--url <url>', `the API's base URL (env ADOPTION_STORE_URL, default ${servers.production})`)
      .option('--key <key>', 'the API key (env ADOPTION_STORE_KEY; prefer the variable: flags show in the process list)'),
  )
}

/** Runs a command with a client; any failure becomes one line on stderr and exit status 1. */
async function run(cli: CliContext, options: ApiOptions, work: (client: AdoptionStoreClient) => Promise<void>): Promise<void> {
  try {
    await work(clientFor(cli, options))
  } catch (error) {
    cli.note(`adoption-store: ${oneLine(describeFailure(error))}`)
    cli.exitCode = 1
  }
}

function clientFor(cli: CliContext, options: ApiOptions): AdoptionStoreClient {
  const url = options.url ?? nonEmpty(cli.terminal.env.ADOPTION_STORE_URL) ?? servers.production
  const apiKey = options.key ?? nonEmpty(cli.terminal.env.ADOPTION_STORE_KEY)
  if (!apiKey) throw new CliError('no API key: pass --key or set ADOPTION_STORE_KEY.')
  try {
    return createClient({
      baseUrl: url,
      apiKey,
      retry: {
        onRetry: ({ attempt, delayMs, code, status }) =>
          cli.note(`adoption-store: ${code || `HTTP ${status}`}; retrying in ${(delayMs / 1000).toFixed(1)} s (attempt ${attempt + 1})`),
      },
    })
  } catch (error) {
    throw new CliError(`${(error as Error).message.replace(/^createClient: /, '')} (from --url or ADOPTION_STORE_URL).`)
  }
}

function describeFailure(error: unknown): string {
  if (error instanceof CliError) return error.message
  if (error instanceof AdoptionStoreError) {
    const where = error.status ? `${error.code}, HTTP ${error.status}` : error.code
    const bannedUntil = error.bannedUntil ? `; banned until ${error.bannedUntil.toISOString()}` : ''
    const retry = !error.bannedUntil && error.retryAfter !== undefined ? `; retry after ${error.retryAfter} s` : ''
    return `${error.message} (${where}${bannedUntil}${retry})`
  }
  if (error instanceof TypeError) return error.message
  throw error
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = []
  for await (const item of items) all.push(item)
  return all
}

function describePet(pet: Pet): string {
  return `${pet.id}: ${pet.name} (category ${pet.categoryId}, ${pet.status})`
}

function describeOrder(order: Order): string {
  return `${order.id} for pet ${order.petId}: ${order.status}${order.complete ? ', complete' : ''} (placed ${order.createdAt})`
}

function petTable(page: Page<Pet>): string {
  return withMore(
    table(
      ['ID', 'NAME', 'CATEGORY', 'STATUS'],
      page.items.map((p) => [String(p.id), p.name, String(p.categoryId), p.status]),
    ),
    page,
  )
}

function orderTable(page: Page<Order>): string {
  return withMore(
    table(
      ['ID', 'PET', 'STATUS', 'COMPLETE', 'CREATED'],
      page.items.map((o) => [String(o.id), String(o.petId), o.status, o.complete ? 'yes' : 'no', o.createdAt]),
    ),
    page,
  )
}

function withMore(text: string, page: Page<{ id: number }>): string {
  const last = page.items.at(-1)
  return page.next && last ? `${text}\nMore: --after ${last.id} for the next page, or --all.` : text
}

function idArgument(value: string): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) < 1) {
    throw new CliError(`"${value}" is not an id: a whole number of at least 1 is needed.`)
  }
  return Number(value)
}
