/**
 * `adoption-store users …` as an operator runs it (`runCli`), and the users it creates and
 * changes signing in to a running server on the same data: a generated password is a one-time
 * password, and what the CLI disables, deletes or resets ends the server's sessions at once.
 */
import assert from 'node:assert/strict'
import { afterEach, before, describe, test } from 'node:test'
import { assertBuilt, cleanup, type CliResult, makeDataDir, runCli, type ServerProcess, startServer } from './helpers/process.js'

before(() => assertBuilt())
afterEach(cleanup)

interface CreatedUser {
  id: number
  email: string
  role: string
  projects: string[]
  state: string
  oneTimePasswordExpiresAt: string | null
  lastSignedInAt: string | null
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

async function signIn(server: ServerProcess, email: string, password: string, newPassword?: string): Promise<Response> {
  return fetch(`${server.url}/admin/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password, newPassword }),
    signal: AbortSignal.timeout(5_000),
  })
}

/** The session cookie of a sign-in that worked. */
async function cookieOf(response: Response): Promise<string> {
  assert.equal(response.status, 200, await response.clone().text())
  const cookie = /^(adoption_session=[A-Za-z0-9_-]{43});/.exec(response.headers.get('set-cookie') ?? '')?.[1]
  assert.ok(cookie, 'a session cookie')
  return cookie
}

/** GET /admin/v1/session with a cookie: 200 while the session lives, 401 once it ended. */
async function sessionStatus(server: ServerProcess, cookie: string): Promise<number> {
  return (await fetch(`${server.url}/admin/v1/session`, { headers: { cookie }, signal: AbortSignal.timeout(5_000) })).status
}

describe('adoption-store users', () => {
  test('create prints a one-time password, replaced by its user at the first sign-in; --password-stdin takes their own password and never prints it', async () => {
    const dataDir = makeDataDir()
    const cli = (args: string[], input?: string) => runCli(args, { dataDir, input })
    ok(await cli(['projects', 'create', 'acme', '--plan', 'pro']), 'projects create')
    ok(await cli(['projects', 'create', 'shelter']), 'projects create')

    const human = ok(await cli(['users', 'create', '--email', 'Ops@Example.com', '--role', 'operator']), 'users create')
    assert.match(human, /^Created operator ops@example\.com\.\n/)
    const generated = /^ {2}([A-Za-z0-9_-]{24})$/m.exec(human)?.[1]
    assert.ok(generated, `no password printed:\n${human}`)

    assert.match(human, /At their first sign-in they choose their own; it stops working at \d{4}-\d{2}-\d{2}T/)
    const owner = JSON.parse(
      ok(await cli(['users', 'create', '--email', 'owner@example.com', '--role', 'owner', '--project', 'shelter', '--project', 'acme', '--password-stdin', '--json'], 'my own long password\n'), 'owner'),
    ) as CreatedUser
    assert.deepEqual([owner.email, owner.role, owner.projects, owner.state, owner.oneTimePasswordExpiresAt], ['owner@example.com', 'owner', ['acme', 'shelter'], 'enabled', null])
    assert.equal(owner.password, undefined, 'a password given on stdin is never printed')

    const json = JSON.parse(ok(await cli(['users', 'create', '--email', 'second@example.com', '--role', 'operator', '--json']), 'json')) as CreatedUser
    assert.match(json.password ?? '', /^[A-Za-z0-9_-]{24}$/)
    assert.ok(json.oneTimePasswordExpiresAt, 'a generated password is a one-time password')

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
    // A generated password opens no session: its user chooses their own at the first sign-in.
    const forced = await signIn(server, 'ops@example.com', generated)
    assert.equal(forced.status, 403)
    assert.equal(((await forced.json()) as { code: string }).code, 'password_change_required')
    assert.equal(forced.headers.get('set-cookie'), null)
    await cookieOf(await signIn(server, 'ops@example.com', generated, 'the operator chose this'))
    assert.equal((await signIn(server, 'ops@example.com', 'the operator chose this')).status, 200)
    const ownerSession = await signIn(server, 'owner@example.com', 'my own long password')
    assert.equal(ownerSession.status, 200)
    assert.deepEqual(((await ownerSession.json()) as { user: unknown }).user, { email: 'owner@example.com', role: 'owner', projects: ['acme', 'shelter'] })
    assert.equal((await signIn(server, 'owner@example.com', 'my own long password\n')).status, 401, 'the line break was not part of it')
  })

  test('refuses an owner without --project, an unknown project, a duplicate email, a short password and an unknown role', async () => {
    const dataDir = makeDataDir()
    const cli = (args: string[], input?: string) => runCli(args, { dataDir, input })
    ok(await cli(['projects', 'create', 'acme']), 'projects create')
    fails(await cli(['users', 'create', '--email', 'o@example.com', '--role', 'owner']), /An owner needs at least one project/, 'no project')
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

  test('disable, enable, delete and reset-password end the running server\'s sessions at once; list shows states and last sign-ins; set-projects applies at the next request', async () => {
    const dataDir = makeDataDir()
    const cli = (args: string[], input?: string) => runCli(args, { dataDir, input })
    ok(await cli(['projects', 'create', 'acme']), 'projects create')
    ok(await cli(['projects', 'create', 'shelter']), 'projects create')
    for (const [email, role, projects] of [
      ['ops@example.com', 'operator', []],
      ['ann@example.com', 'owner', ['--project', 'acme']],
      ['bob@example.com', 'owner', ['--project', 'acme']],
    ] as const) {
      ok(await cli(['users', 'create', '--email', email, '--role', role, ...projects, '--password-stdin'], `the password of ${email}\n`), `create ${email}`)
    }
    const server = await startServer({ dataDir })
    const ann = await cookieOf(await signIn(server, 'ann@example.com', 'the password of ann@example.com'))
    const bob = await cookieOf(await signIn(server, 'bob@example.com', 'the password of bob@example.com'))
    assert.equal(await sessionStatus(server, ann), 200)

    const listed = JSON.parse(ok(await cli(['users', 'list', '--json']), 'list')) as CreatedUser[]
    assert.deepEqual(listed.map((u) => [u.email, u.state, Boolean(u.lastSignedInAt)]), [
      ['ops@example.com', 'enabled', false],
      ['ann@example.com', 'enabled', true],
      ['bob@example.com', 'enabled', true],
    ])
    assert.match(ok(await cli(['users', 'list']), 'list'), /^EMAIL +ROLE +PROJECTS +STATE +CREATED +LAST SIGN-IN\nops@example\.com +operator +\(all\) +enabled +\S+ +never\n/)

    // Disable: the server refuses the session from its very next request, and the sign-in.
    const disabled = JSON.parse(ok(await cli(['users', 'disable', 'ANN@example.com', '--json']), 'disable')) as CreatedUser
    assert.equal(disabled.state, 'disabled')
    assert.equal(await sessionStatus(server, ann), 401)
    assert.equal((await signIn(server, 'ann@example.com', 'the password of ann@example.com')).status, 401)
    assert.match(ok(await cli(['users', 'enable', 'ann@example.com']), 'enable'), /^Enabled ann@example\.com: they can sign in again\.\n$/)
    await cookieOf(await signIn(server, 'ann@example.com', 'the password of ann@example.com'))

    // Reset: a one-time password, printed once; the old password and the sessions are gone.
    const reset = ok(await cli(['users', 'reset-password', 'bob@example.com']), 'reset-password')
    assert.match(reset, /^Reset the password of bob@example\.com; their sessions have ended\.\n/)
    const oneTime = /^ {2}([A-Za-z0-9_-]{24})$/m.exec(reset)?.[1]
    assert.ok(oneTime, reset)
    assert.equal(await sessionStatus(server, bob), 401)
    assert.equal((await signIn(server, 'bob@example.com', 'the password of bob@example.com')).status, 401)
    assert.equal((await signIn(server, 'bob@example.com', oneTime)).status, 403)
    const bobAgain = await cookieOf(await signIn(server, 'bob@example.com', oneTime, 'bob chose a new one'))
    const resetJson = JSON.parse(ok(await cli(['users', 'reset-password', 'ann@example.com', '--json']), 'reset --json')) as CreatedUser
    assert.match(resetJson.password ?? '', /^[A-Za-z0-9_-]{24}$/)
    assert.ok(resetJson.oneTimePasswordExpiresAt)

    // An owner's projects: the open session sees them at its next request.
    const moved = JSON.parse(ok(await cli(['users', 'set-projects', 'bob@example.com', '--project', 'shelter', '--json']), 'set-projects')) as CreatedUser
    assert.deepEqual(moved.projects, ['shelter'])
    const session = await fetch(`${server.url}/admin/v1/session`, { headers: { cookie: bobAgain }, signal: AbortSignal.timeout(5_000) })
    assert.deepEqual(((await session.json()) as { user: { projects: string[] } }).user.projects, ['shelter'])

    // Delete: gone, and so is the session.
    assert.match(ok(await cli(['users', 'delete', 'bob@example.com']), 'delete'), /^Deleted bob@example\.com\.\n$/)
    assert.equal(await sessionStatus(server, bobAgain), 401)
    assert.deepEqual((JSON.parse(ok(await cli(['users', 'list', '--json']), 'list')) as CreatedUser[]).map((u) => u.email), ['ops@example.com', 'ann@example.com'])

    // Every change is in the audit log, by the CLI, without a password.
    const entries = JSON.parse(ok(await cli(['audit', 'list', '--target-type', 'user', '--json']), 'audit')) as { action: string; actor: { kind: string } }[]
    const changes = entries.filter((e) => e.action.startsWith('user.') && e.actor.kind === 'cli').map((e) => e.action)
    assert.deepEqual(changes.slice(0, 6), ['user.deleted', 'user.projects_changed', 'user.password_reset', 'user.password_reset', 'user.enabled', 'user.disabled'])
    const log = JSON.stringify(entries)
    for (const secret of [oneTime, resetJson.password ?? '', 'bob chose a new one', 'the password of ann@example.com']) assert.ok(!log.includes(secret))
  })

  test('refuses an unknown email, the last enabled operator, and projects for an operator, with exit status 1', async () => {
    const dataDir = makeDataDir()
    const cli = (args: string[]) => runCli(args, { dataDir })
    ok(await cli(['projects', 'create', 'acme']), 'projects create')
    ok(await cli(['users', 'create', '--email', 'ops@example.com', '--role', 'operator']), 'create')
    fails(await cli(['users', 'disable', 'nobody@example.com']), /^adoption-store: No user with email nobody@example\.com\.$/, 'unknown')
    fails(await cli(['users', 'reset-password', 'nobody@example.com']), /No user with email nobody@example\.com/, 'unknown')
    fails(await cli(['users', 'disable', 'ops@example.com']), /ops@example\.com is the last enabled operator: enable or create another operator before you disable this one\./, 'last')
    fails(await cli(['users', 'delete', 'ops@example.com']), /is the last enabled operator/, 'last')
    fails(await cli(['users', 'set-projects', 'ops@example.com', '--project', 'acme']), /is an operator, who sees every project/, 'operator')
    fails(await cli(['users', 'set-projects', 'ops@example.com', '--project', 'nope']), /No project with slug "nope"/, 'unknown project')
    const missing = await cli(['users', 'set-projects', 'ops@example.com'])
    assert.notEqual(missing.code, 0)
    assert.match(missing.stderr, /required option '--project <slug>' not specified/)
    // Recovery from the shell: another operator first, then the first one can go.
    ok(await cli(['users', 'create', '--email', 'new-ops@example.com', '--role', 'operator']), 'another operator')
    ok(await cli(['users', 'disable', 'ops@example.com']), 'disable')
    ok(await cli(['users', 'delete', 'ops@example.com']), 'delete')
  })
})
