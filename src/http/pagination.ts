import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ResponseCache } from '../cache/response-cache.js'
import type { Page, PageQuery } from '../shapes.js'

/**
 * The handler of a paged list operation of /v1 (listPets, listOrders): the caller's project, the
 * page kept in the response cache per query, and the `Link` to the next page.
 */
export function listHandler<Status extends string, T>(
  cache: ResponseCache,
  operationId: string,
  path: string,
  list: (projectId: number, query: PageQuery<Status>) => Promise<Page<T>>,
) {
  return async (request: FastifyRequest<{ Querystring: Partial<PageQuery<Status>> }>, reply: FastifyReply): Promise<FastifyReply> => {
    // The schema's default fills `limit` in; the type cannot know it.
    const { limit = 20, status, after } = request.query
    return cache.reply(request, reply, `${operationId} ${limit} ${status} ${after}`, async () => {
      const page = await list(request.principal.projectId, { limit, status, after })
      return { body: page.items, link: nextPageLink(path, { limit, status }, page.nextAfter) }
    })
  }
}

/**
 * The `Link: <…>; rel="next"` header (RFC 8288) when another page exists. The target is a path,
 * resolved by clients against the request URL, so it is right behind any proxy.
 */
export function nextPageLink(
  path: string,
  query: Record<string, string | number | undefined>,
  /** The cursor's value: an id (a number, or the id of an event). */
  next: number | string | undefined,
  cursor: 'after' | 'before' = 'after',
): string | undefined {
  if (next === undefined) return undefined
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value))
  params.set(cursor, String(next))
  return `<${path}?${params.toString()}>; rel="next"`
}

/** Answers a page of an admin list: its items, with the `Link` to the next page when there is one. */
export function sendPage<T>(
  reply: FastifyReply,
  page: Page<T>,
  path: string,
  query: Record<string, string | number | undefined>,
  cursor: 'after' | 'before' = 'after',
): T[] {
  const link = nextPageLink(path, query, page.nextAfter, cursor)
  if (link) reply.header('link', link)
  return page.items
}

export const NEXT_LINK_DOC = {
  Link: { type: 'string', description: 'RFC 8288 link to the next page, `<...>; rel="next"`, when more results exist' },
} as const
