import os from 'node:os'

/**
 * Whether an error means the database cannot be reached or cannot serve right now (as opposed
 * to a bug): such requests answer 503 and may be retried.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  if (typeof code === 'string') {
    // Network failures, PostgreSQL's connection exceptions (08), operator intervention (57P0x:
    // shutdown, crash recovery, too many connections 53300) and statement timeouts (57014);
    // SQLite's busy and locked, after its busy timeout.
    if (/^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EPIPE|08\w{3}|57P0\d|57014|53300|SQLITE_BUSY\w*|SQLITE_LOCKED\w*)$/.test(code)) {
      return true
    }
  }
  // node-postgres reports pool and connection timeouts and dropped connections only in words.
  return typeof message === 'string' && /timeout exceeded when trying to connect|Connection terminated|connection timeout|Query read timeout/i.test(message)
}

/** Which storage a full-storage error came from: the database, or a store of files on a file system. */
export type FullStorage = 'database' | 'files'

/** The file system's "no space left on device" and "disk quota exceeded", as libuv numbers them. */
const NO_ROOM_ERRNOS = [os.constants.errno.ENOSPC, os.constants.errno.EDQUOT].filter((errno) => errno !== undefined).map((errno) => -errno)

/**
 * Which storage an error says is full, or undefined when it says something else: SQLite's
 * "database or disk is full" (SQLITE_FULL) and PostgreSQL's disk_full (SQLSTATE 53100) are the
 * database's; no space left on a device (ENOSPC) and a quota exceeded (EDQUOT), by code or by
 * libuv's errno, are a file store's (photos and other media, wherever they are written from), and
 * so is an S3-compatible store's 507 Insufficient Storage (as the AWS SDK reports it).
 * An error that wraps another (`cause`) is looked through, so a store may add its own words.
 * A full storage is an outage, not a bug: the write is refused with 503 until there is room.
 */
export function fullStorageOf(error: unknown): FullStorage | undefined {
  for (let facts = errorFacts(error); facts; facts = facts.cause) {
    const { code, errno, name, $metadata } = facts
    if (code === 'SQLITE_FULL' || code === '53100') return 'database'
    if (code === 'ENOSPC' || code === 'EDQUOT' || (errno !== undefined && NO_ROOM_ERRNOS.includes(errno))) return 'files'
    // An S3-compatible store out of room: 507 Insufficient Storage (MinIO's XMinioStorageFull).
    if ($metadata?.httpStatusCode === 507 || name === 'XMinioStorageFull' || name === 'InsufficientStorage') return 'files'
  }
  return undefined
}

/** What `fullStorageOf` reads of an error, and of the errors it wraps (`cause`), as plain data. */
export interface ErrorFacts {
  code?: string
  errno?: number
  name?: string
  $metadata?: { httpStatusCode: number }
  cause?: ErrorFacts
}

/** How deep `errorFacts` looks through the errors an error wraps. */
const MAX_CAUSES = 5

/**
 * The facts of an error and its causes (see ErrorFacts); undefined for what is not an object. A
 * worker thread's message keeps an Error's message and stack but not these fields: a thread sends
 * them in its stead, and the event loop's error handling reads them as it reads the error itself.
 */
export function errorFacts(error: unknown, depth = 0): ErrorFacts | undefined {
  if (error === null || typeof error !== 'object' || depth >= MAX_CAUSES) return undefined
  const { code, errno, name, $metadata, cause } = error as { code?: unknown; errno?: unknown; name?: unknown; $metadata?: { httpStatusCode?: unknown }; cause?: unknown }
  const below = errorFacts(cause, depth + 1)
  return {
    ...(typeof code === 'string' && { code }),
    ...(typeof errno === 'number' && { errno }),
    ...(typeof name === 'string' && { name }),
    ...(typeof $metadata?.httpStatusCode === 'number' && { $metadata: { httpStatusCode: $metadata.httpStatusCode } }),
    ...(below && { cause: below }),
  }
}

/** Whether an error means the storage it wrote to is full (see fullStorageOf). */
export function isStorageFull(error: unknown): boolean {
  return fullStorageOf(error) !== undefined
}

/** Whether an error is a unique constraint refusing a duplicate, on either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const { code } = (error ?? {}) as { code?: unknown }
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
}

/** Whether an error is a foreign key refusing a reference to a row that does not exist (or a removal of one still referred to). */
export function isForeignKeyViolation(error: unknown): boolean {
  const { code } = (error ?? {}) as { code?: unknown }
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY'
}

/**
 * Why the database could not be used at all, in one line for an operator: unreachable, refused
 * credentials, no such database, or a file SQLite cannot open. Undefined for anything else (a
 * bug keeps its stack trace).
 */
export function describeDatabaseFailure(error: unknown): string | undefined {
  const { code, message, errors } = (error ?? {}) as { code?: unknown; message?: unknown; errors?: unknown }
  const cantOpen = typeof code === 'string' && /^(28\w{3}|3D000|SQLITE_(CANTOPEN|READONLY|NOTADB|CORRUPT|PERM|IOERR)\w*)$/.test(code)
  if (!cantOpen && !isDatabaseUnavailable(error)) return undefined
  // A host name with several addresses fails with one error per address and no message of its own.
  const first = Array.isArray(errors) ? (errors[0] as { message?: unknown } | undefined)?.message : undefined
  const text = (typeof message === 'string' && message) || (typeof first === 'string' && first) || String(code)
  return text.replace(/\s+/g, ' ').trim()
}
