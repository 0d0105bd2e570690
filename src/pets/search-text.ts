/**
 * How text is compared, folded by this code rather than by the database, so that SQLite and
 * PostgreSQL find the same animals: SQLite's `lower()` folds ASCII only and PostgreSQL's follows
 * the server's locale; SQLite's FTS5 and PostgreSQL's text search split words differently.
 */

/** A name, breed or tag as filters compare it: lower case (`String#toLowerCase`), trimmed. */
export function foldedName(text: string): string {
  return text.trim().toLowerCase()
}

/** The longest token kept: PostgreSQL skips words over 2,047 bytes; both engines see the same cut. */
const MAX_TOKEN = 64

/**
 * Text as the full-text indexes read it: decomposed, without accents, in lower case, split into
 * runs of letters and digits, each at most 64 characters, joined by single spaces. Both engines
 * then see the same tokens (FTS5's `unicode61` and PostgreSQL's `simple` configuration only split
 * it again on the spaces).
 */
export function searchTokens(text: string): string {
  return tokens(text).join(' ')
}

function tokens(text: string): string[] {
  return (
    text
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu)
      ?.map((token) => token.slice(0, MAX_TOKEN)) ?? []
  )
}

/** The most words one search takes. */
export const MAX_QUERY_TOKENS = 10

/** A search's words, folded as the indexed text is: every one must start a word of the animal's text. */
export function queryTokens(q: string): string[] {
  return [...new Set(tokens(q))].slice(0, MAX_QUERY_TOKENS)
}
