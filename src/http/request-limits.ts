import { ApiError } from '../errors.js'

/**
 * The longest request target (path and query string) accepted, in bytes: 8 KiB, what common
 * proxies allow on a request line (nginx, Apache), so a URL a proxy passes is one the service
 * can judge, and an overlong one gets a clear 414 rather than the 431 of Node's 16 KiB limit
 * on the request line and headers together. The API's own URLs stay under 400 bytes.
 */
export const MAX_URL_LENGTH = 8192

/**
 * The deepest nesting of objects and arrays accepted in a JSON body. The API's bodies nest at
 * most 3 levels; 32 leaves room for any sane client and refuses bodies built to exhaust parsers.
 */
export const MAX_JSON_DEPTH = 32

/** 414 for a request target over MAX_URL_LENGTH (Node reads it as latin1: characters are bytes). */
export function checkUrlLength(url: string): ApiError | undefined {
  if (url.length <= MAX_URL_LENGTH) return undefined
  return new ApiError(
    'uri_too_long',
    `The URL is ${url.length} bytes long; at most ${MAX_URL_LENGTH} bytes (path and query string) are accepted. Send large inputs in a JSON body.`,
  )
}

/**
 * Whether JSON text nests objects and arrays deeper than `max`: one pass over the text, before
 * it is parsed, so a hostile body costs no more than reading it. Brackets inside strings do not
 * count; the text need not be valid JSON (the parser judges that afterwards).
 */
export function nestedDeeperThan(text: string, max: number): boolean {
  // A body shorter than the limit cannot nest deeper than it.
  if (text.length <= max) return false
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c /* \ */) i++
      else if (c === 0x22 /* " */) inString = false
    } else if (c === 0x22) {
      inString = true
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) return true
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--
    }
  }
  return false
}
