/**
 * Webhook signing secrets against the keys that seal them: endpoints whose secrets the configured
 * keys do not open are found at start, and a key's rotation ends with every secret sealed again
 * under the new key (`webhooks reseal`).
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { afterEach, before, describe, test } from 'node:test'
import { sql } from 'kysely'
import { SecretBox } from '../src/secret-box.js'
import { createSealedSecrets } from '../src/webhooks/sealed-secrets.js'
import { secretContext } from '../src/webhooks/worker.js'
import { admin } from './helpers/admin.js'
import { ManualClock } from './helpers/app.js'
import { captureLogs } from './helpers/logs.js'
import { assertBuilt, cleanup, cliJson, makeDataDir, runCli } from './helpers/process.js'
import { addEndpoint, createWebhooksApp } from './helpers/webhooks.js'

const key = () => randomBytes(32).toString('hex')

describe('secrets sealed with a key the service does not have, at start', () => {
  test('one warning names the endpoints, their projects and what to do; the service starts and the metric counts them', async () => {
    const logs = captureLogs()
    const t = await createWebhooksApp({}, { logger: logs.logger, clock: new ManualClock() })
    let restarted = t
    try {
      const project = await t.project()
      const sound = await addEndpoint(t, project.slug, 'https://127.0.0.1:9/sound', ['pet.created'])
      const stale = await addEndpoint(t, project.slug, 'https://127.0.0.1:9/stale', ['pet.created'])
      const sealed = new SecretBox(key()).seal(stale.secret, secretContext(stale.id))
      await sql`update webhook_endpoints set secret = ${sealed} where id = ${stale.id}`.execute(t.database.db)
      assert.doesNotMatch(logs.text, /sealed with a key this service does not have/)

      restarted = await t.restart()
      const warnings = logs.lines().filter((line) => String(line.msg).includes('sealed with a key this service does not have'))
      assert.equal(warnings.length, 1, logs.text)
      const warning = warnings[0]!
      assert.equal(warning.level, 40)
      assert.match(String(warning.msg), new RegExp(`1 of 2 endpoints .*${stale.id} \\(project ${project.id}\\)`))
      assert.doesNotMatch(String(warning.msg), new RegExp(sound.id))
      assert.match(String(warning.msg), /WEBHOOK_PREVIOUS_ENCRYPTION_KEYS/)
      assert.match(String(warning.msg), /webhooks reseal/)
      assert.ok(!logs.text.includes(stale.secret), 'the secret never reaches the log')

      const metrics = await restarted.app.inject({ method: 'GET', url: '/metrics' })
      assert.match(metrics.body, /^adoption_store_webhook_unopenable_secrets 1$/m)
    } finally {
      await restarted.close()
    }
  })

  test('no warning when every secret opens', async () => {
    const logs = captureLogs()
    const t = await createWebhooksApp({}, { logger: logs.logger })
    try {
      const project = await t.project()
      await addEndpoint(t, project.slug, 'https://127.0.0.1:9/in', ['pet.created'])
      const restarted = await t.restart()
      assert.doesNotMatch(logs.text, /sealed with a key this service does not have/)
      await restarted.close()
    } catch (error) {
      await t.close()
      throw error
    }
  })
})

describe('re-sealing after a key rotation (the factory)', () => {
  test('secrets and previous secrets sealed with the old key open with the new key alone; a second run re-seals none', async () => {
    const oldKey = key()
    const t = await createWebhooksApp({ webhookEncryptionKey: oldKey })
    try {
      const project = await t.project()
      const endpoint = await addEndpoint(t, project.slug, 'https://127.0.0.1:9/in', ['pet.created'])
      const rotation = await admin(t, 'POST', `/projects/${project.slug}/webhooks/${endpoint.id}/rotate-secret`, { overlapHours: 24 })
      assert.equal(rotation.statusCode, 200, rotation.body)
      const rotated = rotation.json<{ secret: string }>()
      const newKey = key()
      const sealedSecrets = createSealedSecrets({ db: t.database.db, box: new SecretBox(newKey, [oldKey]) })
      assert.deepEqual(await sealedSecrets.reseal(), { resealed: 1, current: 0, unopenable: [] })
      const row = await t.database.db.selectFrom('webhook_endpoints').select(['secret', 'previous_secret']).where('id', '=', endpoint.id).executeTakeFirstOrThrow()
      const alone = new SecretBox(newKey)
      assert.equal(alone.open(row.secret, secretContext(endpoint.id)), rotated.secret)
      assert.equal(alone.open(row.previous_secret!, secretContext(endpoint.id)), endpoint.secret)
      assert.deepEqual(await sealedSecrets.reseal(), { resealed: 0, current: 1, unopenable: [] })
      assert.deepEqual(await createSealedSecrets({ db: t.database.db, box: alone }).check(), { endpoints: 1, unopenable: [] })
    } finally {
      await t.close()
    }
  })
})

describe('adoption-store webhooks reseal', () => {
  const dataDir = makeDataDir()
  const oldKey = key()
  const newKey = key()
  const reseal = (env: Record<string, string>, json = true) => runCli(['webhooks', 'reseal', ...(json ? ['--json'] : [])], { dataDir, env })
  before(assertBuilt)
  afterEach(cleanup)

  test('re-seals with the new key, then reports them current; a secret no key opens is named and exits 1', async () => {
    await cliJson(['projects', 'create', 'shelter', '--json'], { dataDir })
    const add = (env: Record<string, string>) =>
      cliJson<{ id: string }>(['webhooks', 'add', '--project', 'shelter', '--url', 'https://hooks.example.com/in', '--types', 'pet.created', '--json'], { dataDir, env })
    const first = await add({ WEBHOOK_ENCRYPTION_KEY: oldKey })

    const rotation = { WEBHOOK_ENCRYPTION_KEY: newKey, WEBHOOK_PREVIOUS_ENCRYPTION_KEYS: oldKey }
    let result = await reseal(rotation)
    assert.equal(result.code, 0, result.stderr)
    assert.deepEqual(JSON.parse(result.stdout), { resealed: 1, current: 0, unopenable: [] })
    result = await reseal(rotation)
    assert.deepEqual(JSON.parse(result.stdout), { resealed: 0, current: 1, unopenable: [] })
    // The old key can go: the new one alone opens every secret.
    result = await reseal({ WEBHOOK_ENCRYPTION_KEY: newKey }, false)
    assert.equal(result.code, 0, result.stderr)
    assert.match(result.stdout, /Re-sealed the secrets of 0 endpoints with the current key; 1 already were\./)

    const stray = await add({ WEBHOOK_ENCRYPTION_KEY: key() })
    result = await reseal({ WEBHOOK_ENCRYPTION_KEY: newKey })
    assert.equal(result.code, 1)
    const report = JSON.parse(result.stdout) as { resealed: number; current: number; unopenable: { endpointId: string }[] }
    assert.deepEqual([report.resealed, report.current, report.unopenable.map((u) => u.endpointId)], [0, 1, [stray.id]])
    result = await reseal({ WEBHOOK_ENCRYPTION_KEY: newKey }, false)
    assert.equal(result.code, 1)
    assert.match(result.stdout, new RegExp(`not opened: ${stray.id} \\(project \\d+\\)`))
    assert.match(result.stdout, /WEBHOOK_PREVIOUS_ENCRYPTION_KEYS/)
    assert.ok(!result.stdout.includes(first.id), 'the re-sealed endpoint is not listed as a problem')
  })
})
