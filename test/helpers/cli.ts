/**
 * What the tests of the built service and its commands share (cli.test.ts, cli-operator.test.ts,
 * client-cli.test.ts, client.test.ts): requests to a running server, CLI commands that must succeed or fail in one
 * line, and the first start's output.
 */
import assert from 'node:assert/strict'
import { type CliResult, cliJson, runCli, type ServerProcess } from './process.js'

export interface Pet {
  id: number
  name: string
  categoryId: number
  status: string
}
export interface Project {
  id: number
  slug: string
  plan: string
  limits: { perMinute: number; perDay: number }
  createdAt: string
}

export const KEY = /as_live_[0-9A-Za-z]{28}_[0-9A-Za-z]{6}/g
export const DB_FILE = 'adoption-store.db'
export const REQUEST_TIMEOUT_MS = 5_000

export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` }
}

export interface ApiResponse<T> {
  status: number
  headers: Headers
  body: T
}

/** One HTTP request with fetch, bounded; the body parsed as JSON when there is one. */
export async function api<T = unknown>(server: ServerProcess, method: string, url: string, key: string, body?: unknown): Promise<ApiResponse<T>> {
  const response = await fetch(new URL(url, server.url), {
    method,
    headers: { ...bearer(key), ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  })
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : undefined) as T }
}

/** Every animal of the key's project, following `Link: <...>; rel="next"` from page to page. */
export async function listAllPets(server: ServerProcess, key: string): Promise<Pet[]> {
  const pets: Pet[] = []
  let next: string | undefined = '/v1/pets?limit=100'
  for (let pages = 0; next !== undefined; pages++) {
    assert.ok(pages < 50, 'the Link chain does not end')
    const page: ApiResponse<Pet[]> = await api<Pet[]>(server, 'GET', next, key)
    assert.equal(page.status, 200, JSON.stringify(page.body))
    pets.push(...page.body)
    next = /^<([^>]+)>;\s*rel="next"$/.exec(page.headers.get('link') ?? '')?.[1]
  }
  return pets
}

/** An expected CLI failure: non-zero exit, nothing on stdout, one line on stderr matching `message`. */
export function assertCliError(result: CliResult, message: RegExp, what: string): void {
  assert.equal(result.timedOut, false, `${what}: timed out`)
  assert.notEqual(result.code, null, `${what}: ended by signal ${result.signal}`)
  assert.notEqual(result.code, 0, `${what}: should fail\n${result.stdout}`)
  assert.equal(result.stdout, '', `${what}: printed on stdout`)
  const stderr = result.stderr.trim()
  assert.ok(stderr.length > 0 && !stderr.includes('\n'), `${what}: stderr should be one line, got:\n${result.stderr}`)
  assert.match(stderr, message, what)
}

/**
 * Lifts the default project's request limits, so that load in a test about durability or
 * shutdown is never answered 429 by the plan's rate limit.
 */
export async function liftLimits(dataDir: string): Promise<void> {
  const limits = { perMinute: 1_000_000, perDay: 1_000_000 }
  const args = ['projects', 'set-plan', 'default', 'enterprise', '--per-minute', String(limits.perMinute), '--per-day', String(limits.perDay), '--json']
  assert.deepEqual((await cliJson<Project>(args, { dataDir })).limits, limits)
}

/** The first-start output: the key on its own line, and a curl command using it. */
export async function firstStartWelcome(server: ServerProcess): Promise<{ key: string; url: string; header: [string, string] }> {
  const [, headerText = '', url = ''] = await server.waitForStdout(/^[ \t]*curl -H "([^"\n]+)" (\S+)[ \t]*\r?\n/m)
  const header = /^([A-Za-z-]+):\s*(.+)$/.exec(headerText)
  assert.ok(header, `unparseable curl header: ${headerText}`)
  const key = /^Bearer (as_live_\S+)$/.exec(header[2]!)?.[1]
  assert.ok(key, `the curl header carries no as_live_ key: ${headerText}`)
  assert.match(server.stdout, new RegExp(`^\\s*${key}\\s*$`, 'm'), 'the key is printed on its own line too')
  return { key, url, header: [header[1]!, header[2]!] }
}

/** Asserts an ISO 8601 timestamp of about now; answers it in milliseconds. */
export function assertRecentIso(value: unknown, what: string): number {
  assert.equal(typeof value, 'string', what)
  const ms = Date.parse(value as string)
  assert.ok(Number.isFinite(ms) && new Date(ms).toISOString() === value, `${what} is not an ISO timestamp: ${String(value)}`)
  assert.ok(Math.abs(Date.now() - ms) < 120_000, `${what} is not about now: ${String(value)}`)
  return ms
}

/** Runs a CLI command on `dataDir` that must succeed; answers what it printed. */
export async function runCliOk(args: string[], dataDir: string): Promise<string> {
  const result = await runCli(args, { dataDir })
  assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`)
  return result.stdout
}
