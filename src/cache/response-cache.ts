import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Generations } from './generations.js'
import { SizedLru } from './lru.js'

/** An answer as it was sent: its status (200 when absent), its serialized body and the headers that depend on it. */
export interface Kept {
  status?: number
  body: string
  headers: Readonly<Record<string, string>>
}

interface Entry extends Kept {
  token: string
}

export interface CacheCounters {
  hit(): void
  miss(): void
}

/** What a cached read answers: the body the route's schema serializes, its next-page link, and how many match (when asked). */
export interface Page {
  body: unknown
  link?: string | undefined
  total?: number | undefined
}

/**
 * Serialized answers of the /v1 reads and of the adoption site's pages, per project and per
 * query, each kept under the token of its project's data generation: an answer is reused only
 * while no write has touched that project since it was read. Least recently used entries go
 * first once `maxBytes` is reached. Only the body and the headers that depend on it are kept:
 * authentication, rate limits, usage counting and every other header run as for any request,
 * before the handler asks the cache.
 */
export class ResponseCache {
  private readonly entries: SizedLru<Entry>

  constructor(
    private readonly generations: Generations,
    private readonly maxBytes: number,
    private readonly counters: CacheCounters,
  ) {
    this.entries = new SizedLru(maxBytes)
  }

  /**
   * Answers `request` from the cache when its project's data has not changed since `key` was
   * read; else runs `read`, sends its answer and keeps it. `key` names the route and every
   * query value that shapes the answer.
   */
  async reply(request: FastifyRequest, reply: FastifyReply, key: string, read: () => Promise<Page>): Promise<FastifyReply> {
    if (this.maxBytes === 0) return sendPage(reply, await read())
    const projectId = request.principal.projectId
    // Read before the data: a write committed after this read moves the token on.
    const token = await this.generations.data(projectId, request.tokens?.data)
    if (token === undefined) return sendPage(reply, await read())
    const kept = await this.kept(projectId, token, key, async () => {
      const page = await read()
      const headers: Record<string, string> = {}
      if (page.link !== undefined) headers.link = page.link
      if (page.total !== undefined) headers['x-total-count'] = String(page.total)
      return { body: reply.serialize(page.body) as string, headers }
    })
    return reply.headers(kept.headers).type(JSON_TYPE).send(kept.body)
  }

  /**
   * For a request no key authenticated (the site's pages): the answer kept under `key` while the
   * project's data stands still, else what `make` renders, kept. `make` answering undefined
   * (nothing to show) keeps nothing, and so does a deployment whose instances share no tokens.
   */
  async page(projectId: number, key: string, make: () => Promise<Kept | undefined>): Promise<Kept | undefined> {
    // Read before the data, as for `reply`.
    const token = this.maxBytes === 0 ? undefined : await this.generations.current(projectId)
    return token === undefined ? make() : this.kept(projectId, token, key, make)
  }

  private kept(projectId: number, token: string, key: string, make: () => Promise<Kept>): Promise<Kept>
  private kept(projectId: number, token: string, key: string, make: () => Promise<Kept | undefined>): Promise<Kept | undefined>
  private async kept(projectId: number, token: string, key: string, make: () => Promise<Kept | undefined>): Promise<Kept | undefined> {
    const id = `${projectId} ${key}`
    const entry = this.entries.get(id)
    if (entry?.token === token) {
      this.counters.hit()
      return entry
    }
    this.counters.miss()
    const made = await make()
    if (made) this.entries.set(id, { ...made, token }, 2 * (id.length + made.body.length + headerLength(made.headers)) + ENTRY_OVERHEAD)
    return made
  }

  forget(): void {
    this.entries.clear()
  }
}

/** What Fastify itself sends for a JSON answer. */
const JSON_TYPE = 'application/json; charset=utf-8'
/** Per entry beyond its strings (the entry, the map's slot): an estimate, to keep the bound honest. */
const ENTRY_OVERHEAD = 200

function headerLength(headers: Readonly<Record<string, string>>): number {
  let length = 0
  for (const name in headers) length += name.length + headers[name]!.length
  return length
}

function sendPage(reply: FastifyReply, page: Page): FastifyReply {
  if (page.link !== undefined) reply.header('link', page.link)
  if (page.total !== undefined) reply.header('x-total-count', String(page.total))
  return reply.send(page.body)
}
