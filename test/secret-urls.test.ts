/**
 * No secret of a connection URL reaches a terminal or a log line, whatever the URL: each of a
 * table of DATABASE_URL and REDIS_URL values (unescaped reserved characters in the password, a
 * password in the query string) is given to the real CLI process, `serve` and a command, and its
 * whole output (stdout and stderr) must not contain the password, while the message names the
 * variable and what is wrong.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, describe, test } from 'node:test'
import type { TestPlan } from '../scripts/test-plan.js'
import { cleanup, freePort, makeDataDir, runCli } from './helpers/process.js'

// The variables are given explicitly: the dialect of the run does not matter.
export const testPlan: TestPlan = { legs: 'sqlite' }

after(cleanup)

/** A password no output would contain by chance. */
const secret = () => `Pw${randomBytes(6).toString('hex')}`

interface Case {
  variable: 'DATABASE_URL' | 'REDIS_URL'
  what: string
  url: (password: string, port: number) => string
  /** What the message must say is wrong. */
  says: RegExp
}

const RESERVED = /percent-encoded/
const CASES: Case[] = [
  { variable: 'DATABASE_URL', what: 'an unescaped # in the password', url: (pw, port) => `postgres://adoption:se#${pw}@127.0.0.1:${port}/x`, says: RESERVED },
  { variable: 'DATABASE_URL', what: 'an unescaped / in the password', url: (pw, port) => `postgres://adoption:se/${pw}@127.0.0.1:${port}/x`, says: RESERVED },
  { variable: 'DATABASE_URL', what: 'an unescaped # after digits (parses, the rest a fragment)', url: (pw, port) => `postgres://adoption:12#${pw}@127.0.0.1:${port}/x`, says: RESERVED },
  { variable: 'DATABASE_URL', what: 'an unescaped / after digits (parses, the rest a path)', url: (pw, port) => `postgres://adoption:12/${pw}@127.0.0.1:${port}/x`, says: RESERVED },
  { variable: 'DATABASE_URL', what: 'an unescaped ? after digits (parses, the rest a query)', url: (pw, port) => `postgres://adoption:12?${pw}@127.0.0.1:${port}/x`, says: RESERVED },
  { variable: 'DATABASE_URL', what: 'a % not followed by two hex digits', url: (pw, port) => `postgres://adoption:${pw}%zz@127.0.0.1:${port}/x`, says: /%25/ },
  { variable: 'DATABASE_URL', what: 'a password in the query string', url: (pw, port) => `postgres://adoption@127.0.0.1:${port}/x?password=${pw}`, says: /cannot use the PostgreSQL database of DATABASE_URL .*password=\*\*\*/ },
  { variable: 'DATABASE_URL', what: 'a password in the user info and the query string', url: (pw, port) => `postgresql://adoption:${pw}@127.0.0.1:${port}/x?sslmode=disable&password=${pw}`, says: /cannot use the PostgreSQL database of DATABASE_URL \(postgresql:\/\/adoption:\*\*\*@.*password=\*\*\*/ },
  { variable: 'REDIS_URL', what: 'an unescaped # in the password', url: (pw, port) => `redis://:se#${pw}@127.0.0.1:${port}`, says: RESERVED },
  { variable: 'REDIS_URL', what: 'an unescaped / in the password', url: (pw, port) => `redis://:se/${pw}@127.0.0.1:${port}`, says: RESERVED },
  { variable: 'REDIS_URL', what: 'an unescaped / after digits (parses, the rest a path)', url: (pw, port) => `redis://default:12/${pw}@127.0.0.1:${port}`, says: RESERVED },
  { variable: 'REDIS_URL', what: 'an unescaped ? in the password', url: (pw, port) => `rediss://default:se?${pw}@127.0.0.1:${port}/0`, says: RESERVED },
]

describe('connection URLs never print their secrets', () => {
  for (const { variable, what, url, says } of CASES) {
    for (const command of [['serve'], ['migrate']]) {
      test(`${variable} with ${what}: ${command.join(' ')}`, { timeout: 30_000 }, async () => {
        const password = secret()
        // Nothing listens there: a URL that is read stops at the connection, one that is not before.
        const value = url(password, await freePort())
        const result = await runCli(command, { dataDir: makeDataDir(), env: { PORT: String(await freePort()), [variable]: value, DATABASE_TIMEOUT_MS: '1000', LOG_LEVEL: 'trace' }, timeoutMs: 20_000 })
        const output = `${result.stdout}\n${result.stderr}`
        assert.equal(result.timedOut, false, `${command.join(' ')} did not exit:\n${output.replaceAll(password, '<password>')}`)
        assert.notEqual(result.code, 0)
        assert.ok(!output.includes(password), `the password was printed:\n${output.replaceAll(password, '<password>')}`)
        assert.ok(!/\n\s+at /.test(output), `no stack trace:\n${output.replaceAll(password, '<password>')}`)
        assert.match(result.stderr, new RegExp(`\\b${variable}\\b`))
        assert.match(result.stderr, says)
      })
    }
  }
})
