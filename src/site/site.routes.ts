import { createHash, randomBytes } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { anonymousChangeOf } from '../audit/audit.http.js'
import type { Kept, ResponseCache } from '../cache/response-cache.js'
import type { CategoriesService } from '../categories/categories.service.js'
import type { Clock } from '../clock.js'
import { ApiError } from '../errors.js'
import type { LimiterStore } from '../limits/store.js'
import type { LocationsService } from '../locations/locations.service.js'
import type { OrdersService } from '../orders/orders.service.js'
import { AGE_GROUPS, SEXES, SIZES } from '../pets/profile.schemas.js'
import type { PetsService } from '../pets/pets.service.js'
import type { PetsQuery } from '../pets/pets.search.js'
import { checkFormToken, newCookieValue, signFormToken } from './form-token.js'
import { html } from './html.js'
import { animalPage, type EnquiryForm, listingPage, type ListingFilters, messagePage, type Pet, type SiteContext } from './site.pages.js'
import type { SiteService } from './site.service.js'

export interface SiteRoutesDeps {
  site: SiteService
  pets: PetsService
  categories: CategoriesService
  locations: LocationsService
  orders: OrdersService
  /** The project of a `/sites/<slug>` path, on the API's own hosts. */
  findProject: (slug: string) => Promise<{ id: number; slug: string } | undefined>
  /** The rate limiter's store (in process or Redis): enquiries are counted per address in it. */
  limits: LimiterStore
  /** The pages are kept in the response cache, under their project's data generation, as the API's reads are. */
  cache: Pick<ResponseCache, 'page'>
  clock: Clock
}

/** Animals on one page of the listing. */
export const PAGE_SIZE = 24
/** The least time a person takes to fill the enquiry form; a faster post is asked to confirm. */
export const MIN_FILL_MS = 3_000
/** Enquiries one address may post to one project's site per window (each attempt counts). */
export const ENQUIRY_LIMIT = { limit: 5, windowMs: 10 * 60_000 }
/** The cookie the enquiry form's token is tied to. */
export const FORM_COOKIE = 'site_form'
const MAX_FORM_BYTES = 32 * 1024

const HTML = 'text/html; charset=utf-8'
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; img-src 'self' https: http: data:; style-src 'unsafe-inline'; form-action 'self'; base-uri 'self'; frame-ancestors 'self'",
  'referrer-policy': 'strict-origin-when-cross-origin',
}

/** Whose site a request is for, and where its pages are. */
interface Target {
  projectId: number
  slug: string
  /** The path the site's pages start at: `` on the project's hosts, `/sites/<slug>` on the API's. */
  base: string
  origin: string
  embed: boolean
}

/** The project of the request's host, or of its `/sites/<slug>` path; undefined where the path serves no site. */
async function targetOf(request: FastifyRequest, deps: SiteRoutesDeps, slug: string | undefined, embed: boolean): Promise<Target | undefined> {
  let project: { id: number; slug: string } | undefined
  let base = ''
  if (slug === undefined) {
    if (!request.site) return undefined
    project = { id: request.site.projectId, slug: request.site.slug }
  } else {
    // A project's own host serves its site at its root, and only its own.
    if (request.site) return undefined
    project = await deps.findProject(slug)
    base = `/sites/${encodeURIComponent(slug)}`
  }
  if (!project) return undefined
  const scheme = request.protocol === 'https' ? 'https' : 'http'
  return { projectId: project.id, slug: project.slug, base, origin: `${scheme}://${request.host}${base}`, embed }
}

/** What the site's pages show of their project: undefined while it keeps its site unpublished. */
async function contextOf(deps: SiteRoutesDeps, target: Target): Promise<(SiteContext & { projectId: number }) | undefined> {
  const settings = await deps.site.settings(target.projectId)
  if (!settings.published) return undefined
  return { projectId: target.projectId, settings, name: settings.displayName ?? target.slug, base: target.base, origin: target.origin, embed: target.embed }
}

function notFound(request: FastifyRequest): never {
  throw new ApiError('not_found', `No route ${request.method} ${request.url.split('?', 1)[0]}.`)
}

function send(reply: FastifyReply, status: number, body: string, cacheControl: string): FastifyReply {
  return reply.code(status).headers(PAGE_HEADERS).header('cache-control', cacheControl).type(HTML).send(body)
}

/** A weak ETag of a page (weak: the same page is sent compressed or not). */
function etagOf(body: string): string {
  return `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`
}

/** Answers with the page's ETag, and 304 when the client has it: listings change only with the animals. */
function sendRevalidated(request: FastifyRequest, reply: FastifyReply, page: Kept, embed: boolean): FastifyReply {
  const etag = page.headers.etag!
  reply.header('etag', etag).header('vary', 'accept-encoding')
  if (embed) reply.header('content-security-policy', PAGE_HEADERS['content-security-policy'].replace("frame-ancestors 'self'", 'frame-ancestors *'))
  const seen = request.headers['if-none-match']
  if (seen && seen.split(',').some((tag) => tag.trim() === etag)) return reply.code(304).header('cache-control', 'public, no-cache').send()
  reply.code(200).header('cache-control', 'public, no-cache').type(HTML)
  if (!embed) reply.headers(PAGE_HEADERS)
  else reply.header('referrer-policy', PAGE_HEADERS['referrer-policy'])
  return reply.send(page.body)
}

function oneOf<const T extends readonly string[]>(values: T, value: unknown): T[number] | undefined {
  return typeof value === 'string' && (values as readonly string[]).includes(value) ? value : undefined
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

type Query = Record<string, string | string[] | undefined>

/** The listing, from the response cache while the project's data stands still; undefined while the site is unpublished. */
async function listing(request: FastifyRequest, reply: FastifyReply, deps: SiteRoutesDeps, target: Target): Promise<FastifyReply | undefined> {
  const query = request.query as Query
  const q = text(query.q)?.trim().slice(0, 200) || undefined
  const category = Number(text(query.categoryId))
  const filters: ListingFilters = {
    q,
    categoryId: Number.isSafeInteger(category) && category > 0 ? category : undefined,
    age: oneOf(AGE_GROUPS, query.age),
    size: oneOf(SIZES, query.size),
    sex: oneOf(SEXES, query.sex),
    goodWith: { children: query.goodWithChildren === 'yes', dogs: query.goodWithDogs === 'yes', cats: query.goodWithCats === 'yes' },
  }
  const after = Number(text(query.after))
  const cursor = /^[A-Za-z0-9_-]{1,512}$/.test(text(query.cursor) ?? '') ? text(query.cursor) : undefined
  const search: PetsQuery = {
    status: 'available',
    limit: PAGE_SIZE,
    count: 'true',
    q: filters.q,
    categoryId: filters.categoryId === undefined ? undefined : String(filters.categoryId),
    age: filters.age,
    size: filters.size,
    sex: filters.sex,
    goodWithChildren: filters.goodWith.children ? 'yes' : undefined,
    goodWithDogs: filters.goodWith.dogs ? 'yes' : undefined,
    goodWithCats: filters.goodWith.cats ? 'yes' : undefined,
    ...(cursor ? { cursor } : Number.isSafeInteger(after) && after > 0 && { after }),
  }
  // The filters, as the links of other pages repeat them.
  const kept = new URLSearchParams()
  if (filters.q) kept.set('q', filters.q)
  for (const name of ['categoryId', 'age', 'size', 'sex'] as const) if (filters[name] !== undefined) kept.set(name, String(filters[name]))
  for (const [companion, on] of Object.entries(filters.goodWith)) if (on) kept.set(`goodWith${companion[0]!.toUpperCase()}${companion.slice(1)}`, 'yes')
  const queryOf = (params: URLSearchParams) => (params.size ? `?${params}` : '')
  // Everything the page depends on besides the data: the same page for every spelling of the same query.
  const shown = new URLSearchParams(kept)
  if (search.cursor !== undefined) shown.set('cursor', search.cursor)
  else if (search.after !== undefined) shown.set('after', String(search.after))
  const key = `site listing ${target.embed ? 'embed' : 'page'} ${target.origin}${queryOf(shown)}`
  const page = await deps.cache.page(target.projectId, key, async () => {
    const context = await contextOf(deps, target)
    if (!context) return undefined
    const [found, categories] = await Promise.all([deps.pets.search(context.projectId, search), deps.categories.list(context.projectId)])
    let next: string | undefined
    if (found.ok && found.next) {
      const params = new URLSearchParams(kept)
      if ('after' in found.next) params.set('after', String(found.next.after))
      else params.set('cursor', found.next.cursor)
      next = queryOf(params)
    }
    const body = listingPage(context, {
      filters,
      categories,
      pets: found.ok ? (found.items as Pet[]) : [],
      total: found.ok ? found.total : undefined,
      next,
      later: search.after !== undefined || search.cursor !== undefined,
      first: queryOf(kept),
      problem: found.ok ? undefined : 'This search cannot be run: search with letters or digits, or start again from the first page.',
    })
    return { body, headers: { etag: etagOf(body) } }
  })
  return page && sendRevalidated(request, reply, page, target.embed)
}

/** The form's cookie: the one already set, or a new one set with this answer. */
function formCookie(request: FastifyRequest, reply: FastifyReply): string {
  const existing = readCookie(request, FORM_COOKIE)
  if (existing) return existing
  const value = newCookieValue()
  const secure = request.protocol === 'https' ? '; Secure' : ''
  reply.header('set-cookie', `${FORM_COOKIE}=${value}; Path=/; Max-Age=86400; HttpOnly; SameSite=Lax${secure}`)
  return value
}

function readCookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=')
    if (key === name) return /^[A-Za-z0-9_-]{1,64}$/.test(value.join('=')) ? value.join('=') : undefined
  }
  return undefined
}

const formOf = (projectId: number, petId: number) => `enquiry:${projectId}:${petId}`

async function newForm(deps: SiteRoutesDeps, cookie: string, projectId: number, petId: number, values: EnquiryForm['values'] = {}, errors: EnquiryForm['errors'] = {}): Promise<EnquiryForm> {
  return { token: signFormToken(await deps.site.formSecret(), cookie, formOf(projectId, petId), deps.clock.now()), values, errors }
}

/**
 * Where an animal page's form token goes: the page is kept without it (the same for every
 * visitor), and each answer carries a token tied to its visitor's cookie. Random per process, so
 * no text of a profile can spell it.
 */
const FORM_TOKEN_SLOT = randomBytes(18).toString('base64url')

/** An animal's page, from the response cache as the listing; undefined while the site is unpublished. */
async function petPage(request: FastifyRequest, reply: FastifyReply, deps: SiteRoutesDeps, target: Target, id: string): Promise<FastifyReply | undefined> {
  const page = await deps.cache.page(target.projectId, `site animal ${target.embed ? 'embed' : 'page'} ${target.origin} ${id}`, async () => {
    const context = await contextOf(deps, target)
    if (!context) return undefined
    const pet = await findPet(deps, context.projectId, id)
    if (!pet) return { status: 404, body: messagePage(context, 'Animal not found', 'No animal is listed at this address: it may have found its home already.', back(context)), headers: {} }
    const form = pet.status === 'available' ? { token: FORM_TOKEN_SLOT, values: {}, errors: {} } : undefined
    const view = { pet, categories: await deps.categories.list(context.projectId), location: pet.locationId === undefined ? undefined : await deps.locations.get(context.projectId, pet.locationId), form }
    return { body: animalPage(context, view), headers: {} }
  })
  if (!page) return undefined
  if (page.status === 404) return send(reply, 404, page.body, 'no-cache')
  const slot = page.body.indexOf(FORM_TOKEN_SLOT)
  const body = slot === -1 ? page.body : page.body.slice(0, slot) + (await newForm(deps, formCookie(request, reply), target.projectId, Number(id))).token + page.body.slice(slot + FORM_TOKEN_SLOT.length)
  // The form carries a token tied to this visitor's cookie: for this visitor only, never stored.
  return send(reply, 200, body, 'private, no-store')
}

async function findPet(deps: SiteRoutesDeps, projectId: number, id: string): Promise<Pet | undefined> {
  const petId = /^[1-9][0-9]{0,15}$/.test(id) ? Number(id) : NaN
  if (!Number.isSafeInteger(petId)) return undefined
  return (await deps.pets.get(projectId, petId)) as Pet | undefined
}

function back(context: SiteContext) {
  return { href: `${context.base}/`, text: 'See the animals looking for a home' }
}

const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:".]{2,}$/
const PHONE = /^[0-9+() .-]{5,40}$/

/** The enquiry's fields, checked: each problem worded for the person who filled the form. */
function checkEnquiry(body: Record<string, string>): { values: EnquiryForm['values']; errors: EnquiryForm['errors'] } {
  const values = { name: (body.name ?? '').trim(), email: (body.email ?? '').trim(), phone: (body.phone ?? '').trim(), message: (body.message ?? '').trim() }
  const errors: EnquiryForm['errors'] = {}
  if (!values.name) errors.name = 'Enter your name.'
  else if (values.name.length > 200) errors.name = 'Your name can be at most 200 characters.'
  if (values.email && (values.email.length > 254 || !EMAIL.test(values.email))) errors.email = 'Enter an email address like name@example.com.'
  if (values.phone && !PHONE.test(values.phone)) errors.phone = 'Enter a phone number of digits, spaces and + ( ) - only.'
  if (!values.email && !values.phone) errors.email = 'Enter an email address or a phone number, so the shelter can answer you.'
  if (values.message.length > 5000) errors.message = 'Your message can be at most 5,000 characters.'
  // A value too long to show back is cut for the form; the message above says why.
  const shown = Object.fromEntries(Object.entries(values).map(([key, value]) => [key, value.slice(0, { name: 200, email: 254, phone: 40, message: 5000 }[key])]))
  return { values: shown, errors }
}

async function enquiry(request: FastifyRequest, reply: FastifyReply, deps: SiteRoutesDeps, context: SiteContext & { projectId: number }, id: string): Promise<FastifyReply> {
  const noStore = 'private, no-store'
  // Every post counts, whatever becomes of it: a flood is refused before any other work.
  const decision = await deps.limits.consume({
    subject: `site-enquiry:${context.projectId}:${request.ip}`,
    windows: [{ name: 'minute', limit: ENQUIRY_LIMIT.limit, lengthMs: ENQUIRY_LIMIT.windowMs }],
  })
  if (decision.outcome !== 'allowed') {
    const window = decision.windows[0]
    const seconds = Math.max(1, Math.ceil(((window?.resetAt ?? decision.now + ENQUIRY_LIMIT.windowMs) - decision.now) / 1000))
    reply.header('retry-after', String(seconds))
    return send(reply, 429, messagePage(context, 'Too many enquiries', `Too many enquiries were sent from your address. Please try again in ${Math.ceil(seconds / 60)} minutes, or contact the shelter directly.`, back(context)), noStore)
  }
  const pet = await findPet(deps, context.projectId, id)
  if (!pet) return send(reply, 404, messagePage(context, 'Animal not found', 'No animal is listed at this address: it may have found its home already.', back(context)), noStore)
  const body = (request.body ?? {}) as Record<string, string>
  const animal = { href: `${context.base}/animals/${pet.id}`, text: `Back to ${pet.name}` }
  const check = checkFormToken(await deps.site.formSecret(), readCookie(request, FORM_COOKIE), formOf(context.projectId, pet.id), text(body.token), deps.clock.now())
  if (!check.ok) {
    const why =
      check.reason === 'expired'
        ? 'This form was opened too long ago and has expired. Open the animal’s page again and send your enquiry from there.'
        : 'This form could not be checked: it was not sent from this site’s own page, or your browser did not send its cookie. Open the animal’s page again and send your enquiry from there.'
    return send(reply, 403, messagePage(context, 'The enquiry could not be accepted', why, animal), noStore)
  }
  // A field people never see: only scripts fill it.
  if (body.website) return send(reply, 400, messagePage(context, 'The enquiry could not be sent', 'The form came back with a field filled that people leave empty, so nothing was sent.', animal), noStore)
  if (pet.status !== 'available') return unavailable(reply, context, pet)
  const { values, errors } = checkEnquiry(body)
  const cookie = formCookie(request, reply)
  const categories = await deps.categories.list(context.projectId)
  const location = pet.locationId === undefined ? undefined : await deps.locations.get(context.projectId, pet.locationId)
  if (deps.clock.now() - check.issuedAt < MIN_FILL_MS && Object.keys(errors).length === 0) {
    errors.form = 'That was very quick: please check your details and send the form again.'
  }
  if (Object.keys(errors).length) {
    const form = await newForm(deps, cookie, context.projectId, pet.id, values, errors)
    return send(reply, 422, animalPage(context, { pet, categories, location, form }), noStore)
  }
  const placed = await deps.orders.place(context.projectId, pet.id, undefined, {
    name: values.name!,
    email: values.email || undefined,
    phone: values.phone || undefined,
    message: values.message || undefined,
  }, anonymousChangeOf(request))
  if (!placed.ok) {
    if (placed.error === 'pet_unavailable') return unavailable(reply, context, pet)
    if (placed.error === 'not_found') return send(reply, 404, messagePage(context, 'Animal not found', 'No animal is listed at this address.', back(context)), noStore)
    throw new ApiError(placed.error, placed.message)
  }
  return send(
    reply,
    200,
    messagePage(context, 'Thank you', html`Your enquiry about ${pet.name} was sent to ${context.name}. They will contact you${values.email ? ` at ${values.email}` : ''}${values.email && values.phone ? ' or' : ''}${values.phone ? ` on ${values.phone}` : ''} soon.`, back(context)),
    noStore,
  )
}

function unavailable(reply: FastifyReply, context: SiteContext, pet: Pet): FastifyReply {
  const state = pet.status === 'pending' ? 'has an adoption pending' : 'has been adopted'
  return send(reply, 409, messagePage(context, `${pet.name} is not available`, `${pet.name} ${state}, so no enquiry was sent. Other animals are still looking for a home.`, back(context)), 'private, no-store')
}

/**
 * The adoption site's pages: at the root of a project's hosts (`/`, `/animals/:id`, `/embed`) and,
 * on the API's own hosts, under `/sites/<slug>/`. Not API operations: hidden from the documents.
 * `root` answers `/` for the index route when the request is for a published site.
 */
export function siteRoutes(deps: SiteRoutesDeps) {
  const plugin = async (app: FastifyInstance) => {
    // Forms post `application/x-www-form-urlencoded`: parsed in this scope only.
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: MAX_FORM_BYTES }, (_request, body, done) => {
      const fields: Record<string, string> = {}
      for (const [key, value] of new URLSearchParams(body as string)) if (!(key in fields)) fields[key] = value
      done(null, fields)
    })
    const hide = { schema: { hide: true } }
    type Params = { slug?: string; id?: string }
    const embedded = (request: FastifyRequest) => (request.query as Query).embed === '1'
    const at = (path: string) => [path, `/sites/:slug${path}`]

    const targetFor = (request: FastifyRequest, embed = embedded(request)) => targetOf(request, deps, (request.params as Params).slug, embed)

    for (const path of ['/sites/:slug', '/sites/:slug/']) {
      app.get(path, hide, async (request, reply) => {
        const target = await targetFor(request)
        return (target && (await listing(request, reply, deps, target))) ?? notFound(request)
      })
    }
    for (const path of at('/embed')) {
      app.get(path, hide, async (request, reply) => {
        const target = await targetFor(request, true)
        return (target && (await listing(request, reply, deps, target))) ?? notFound(request)
      })
    }
    for (const path of at('/animals/:id')) {
      app.get(path, hide, async (request, reply) => {
        const target = await targetFor(request)
        return (target && (await petPage(request, reply, deps, target, (request.params as Params).id!))) ?? notFound(request)
      })
    }
    for (const path of at('/animals/:id/enquiry')) {
      app.post(path, hide, async (request, reply) => {
        const target = await targetFor(request)
        const context = target && (await contextOf(deps, target))
        return context ? enquiry(request, reply, deps, context, (request.params as Params).id!) : notFound(request)
      })
    }
  }
  /** `/` on a project's host: the listing when its site is published; undefined otherwise (the index answers). */
  const root = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const target = await targetOf(request, deps, undefined, (request.query as Query).embed === '1')
    return target && listing(request, reply, deps, target)
  }
  return { plugin, root }
}
