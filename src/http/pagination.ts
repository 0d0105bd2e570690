/**
 * The `Link: <…>; rel="next"` header (RFC 8288) when another page exists. The target is a path,
 * resolved by clients against the request URL, so it is right behind any proxy.
 */
export function nextPageLink(path: string, query: Record<string, string | number | undefined>, nextAfter: number | undefined): string | undefined {
  if (nextAfter === undefined) return undefined
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value))
  params.set('after', String(nextAfter))
  return `<${path}?${params.toString()}>; rel="next"`
}

export const NEXT_LINK_DOC = {
  Link: { type: 'string', description: 'RFC 8288 link to the next page, `<...>; rel="next"`, when more results exist' },
} as const
