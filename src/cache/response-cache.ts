import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Generations } from './generations.js'

/** A page as it was sent: the serialized body, its `Link` header and its count. */
interface Entry {
  token: string
  body: string
  link: string | undefined
  total: number | undefined
  bytes: number
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
 * Serialized answers of the /v1 reads, per project and per query, each kept under the token of
 * its project's data generation: an answer is reused only while no write has touched that
 * project since it was read. Least recently used entries go first once `maxBytes` is reached.
 * Only the body and its `Link` header are kept: authentication, rate limits, usage counting
 * and every other header run as for any request, before the handler asks the cache.
 */
export class ResponseCache {
  private readonly entries = new Map<string, Entry>()
  private bytes = 0

  constructor(
    private readonly generations: Generations,
    private readonly maxBytes: number,
    private readonly counters: CacheCounters,
  ) {}

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
    const id = `${projectId} ${key}`
    const entry = this.entries.get(id)
    if (entry?.token === token) {
      this.counters.hit()
      // Most recently used last.
      this.entries.delete(id)
      this.entries.set(id, entry)
      headersOf(reply, entry)
      return reply.type(JSON_TYPE).send(entry.body)
    }
    this.counters.miss()
    const page = await read()
    const body = reply.serialize(page.body) as string
    this.store(id, { token, body, link: page.link, total: page.total, bytes: 2 * (id.length + body.length + (page.link?.length ?? 0)) + ENTRY_OVERHEAD })
    headersOf(reply, page)
    return reply.type(JSON_TYPE).send(body)
  }

  forget(): void {
    this.entries.clear()
    this.bytes = 0
  }

  private store(id: string, entry: Entry): void {
    const previous = this.entries.get(id)
    if (previous) {
      this.bytes -= previous.bytes
      this.entries.delete(id)
    }
    if (entry.bytes > this.maxBytes) return
    this.entries.set(id, entry)
    this.bytes += entry.bytes
    for (const [oldest, { bytes }] of this.entries) {
      if (this.bytes <= this.maxBytes) break
      this.entries.delete(oldest)
      this.bytes -= bytes
    }
  }
}

/** What Fastify itself sends for a JSON answer. */
const JSON_TYPE = 'application/json; charset=utf-8'
/** Per entry beyond its strings (the entry, the map's slot): an estimate, to keep the bound honest. */
const ENTRY_OVERHEAD = 200

function headersOf(reply: FastifyReply, page: { link?: string | undefined; total?: number | undefined }): void {
  if (page.link !== undefined) reply.header('link', page.link)
  if (page.total !== undefined) reply.header('x-total-count', String(page.total))
}

function sendPage(reply: FastifyReply, page: Page): FastifyReply {
  headersOf(reply, page)
  return reply.send(page.body)
}
