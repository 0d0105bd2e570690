/**
 * `adoption-store users …` as an operator runs it (the BUILT CLI), and the users it creates
 * signing in to a running server on the same data.
 */
import assert from 'node:assert/strict'
import { afterEach, before, describe, test } from 'node:test'
import { assertBuilt, cleanup, type CliResult, makeDataDir, runCli, type ServerProcess, startServer } from './helpers/process.js'

before(() => assertBuilt())
afterEach(cleanup)

interface CreatedUser {
  email: string
  role: string
  projects: string[]
  password?: string
}

function ok(result: CliResult, what: string): string {
  assert.equal(result.code, 0, `${what} failed:\n${result.stderr}`)
  return result.stdout
}

/** An expected failure: exit 1, nothing on stdout, one line on stderr matching `message`. */
function fails(result: CliResult, message: RegExp, what: string): void {
  assert.equal(result.code, 1, `${what}: should fail with 1\n${result.stdout}${result.stderr}`)
  assert.equal(result.stdout, '', `${what}: printed on stdout`)
  assert.match(result.stderr.trim(), message, what)
}

async function signIn(server: ServerProcess, email: string, password: string): Promise<Response> {
  return fetch(`${server.url}/admin/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
    signal: AbortSignal.timeout(5_000),
  })
}

describe('adoption-store users', () => {
  test('create prints a one-time password that signs in; --password-stdin takes the password and never prints it', async () => {
    const dataDir = makeDataDir()
    const cli = (args: string[], input?: string) => runCli(args, { dataDir, input })
    ok(await cli(['projects', 'create', 'acme', '--plan', 'pro']), 'projects create')
    ok(await cli(['projects', 'create', 'shelter']), 'projects create')

    const human = ok(await cli(['users', 'create', '--email', 'Ops@Example.com', '--role', 'operator']), 'users create')
    assert.match(human, /^Created operator ops@example\.com\.\n/)
    const generated = /^ {2}([A-Za-z0-9_-]{24})$/m.exec(human)?.[1]
    assert.ok(generated, `no password printed:\n${human}`)

    const owner = JSON.parse(
      ok(await cli(['users', 'create', '--email', 'owner@example.com', '--role', 'owner', '--project', 'shelter', '--project', 'acme', '--password-stdin', '--json'], 'my own long password\n'), 'owner'),
    ) as CreatedUser
    assert.deepEqual(owner, { email: 'owner@example.com', role: 'owner', projects: ['acme', 'shelter'] })

    const json = JSON.parse(ok(await cli(['users', 'create', '--email', 'second@example.com', '--role', 'operator', '--json']), 'json')) as CreatedUser
    assert.match(json.password ?? '', /^[A-Za-z0-9_-]{24}$/)

    const listed = JSON.parse(ok(await cli(['users', 'list', '--json']), 'users list')) as CreatedUser[]
    assert.deepEqual(
      listed.map((u) => [u.email, u.role, u.projects]),
      [
        ['ops@example.com', 'operator', []],
        ['owner@example.com', 'owner', ['acme', 'shelter']],
        ['second@example.com', 'operator', []],
      ],
    )
    assert.ok(!JSON.stringify(listed).includes('scrypt'), 'no hashes listed')

    const server = await startServer({ dataDir })
    const operator = await signIn(server, 'ops@example.com', generated)
    assert.equal(operator.status, 200, await operator.clone().text())
    assert.match(operator.headers.get('set-cookie') ?? '', /^adoption_session=[A-Za-z0-9_-]{43}; /)
    const ownerSession = await signIn(server, 'owner@example.com', 'my own long password')
    assert.equal(ownerSession.status, 200)
    assert.deepEqual(((await ownerSession.json()) as { user: unknown }).user, { email: 'owner@example.com', role: 'owner', projects: ['acme', 'shelter'] })
    assert.equal((await signIn(server, 'owner@example.com', 'my own long password\n')).status, 401, 'the line break was not part of it')
  })

  test('refuses an owner without --project, an unknown project, a duplicate email, a short password and an unknown role', async () => {
    const dataDir = makeDataDir()
    const cli = (args: string[], input?: string) => runCli(args, { dataDir, input })
    ok(await cli(['projects', 'create', 'acme']), 'projects create')
    fails(await cli(['users', 'create', '--email', 'o@example.com', '--role', 'owner']), /An owner needs at least one project: add --project <slug>/, 'no project')
    fails(await cli(['users', 'create', '--email', 'o@example.com', '--role', 'owner', '--project', 'nope']), /No project with slug "nope"/, 'unknown project')
    fails(await cli(['users', 'create', '--email', 'o@example.com', '--role', 'owner', '--project', 'acme', '--password-stdin'], 'short\n'), /12 to 1024 characters/, 'short')
    fails(await cli(['users', 'create', '--email', 'not-an-email', '--role', 'operator']), /Invalid email/, 'email')
    ok(await cli(['users', 'create', '--email', 'o@example.com', '--role', 'owner', '--project', 'acme']), 'first')
    fails(await cli(['users', 'create', '--email', 'O@example.com', '--role', 'operator']), /A user with email o@example\.com already exists/, 'duplicate')
    const role = await cli(['users', 'create', '--email', 'x@example.com', '--role', 'admin'])
    assert.notEqual(role.code, 0)
    assert.match(role.stderr, /Allowed choices are operator, owner/)
    assert.equal(JSON.parse(ok(await cli(['users', 'list', '--json']), 'list')).length, 1)
  })
})
