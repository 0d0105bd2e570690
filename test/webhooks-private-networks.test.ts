/**
 * The private networks an operator allows (WEBHOOK_ALLOWED_NETWORKS) are reached only by the
 * projects an operator grants them to; an owner cannot grant them, and does not read those
 * endpoints' answers in the delivery log.
 */
import assert from 'node:assert/strict'
import { after, afterEach, before, beforeEach, describe, test } from 'node:test'
import { asUser, createUser, signIn } from './helpers/accounts.js'
import { admin } from './helpers/admin.js'
import type { TestApp } from './helpers/app.js'
import { Receiver } from './helpers/receiver.js'
import { createWebhooksApp, deliverAll, deliveriesOf } from './helpers/webhooks.js'

let t: TestApp
let receiver: Receiver

before(async () => {
  // Loopback allowed by the operator, as for the test receivers; no project granted it.
  t = await createWebhooksApp({}, { granted: false })
})
after(async () => t.close())
beforeEach(async () => {
  receiver = await Receiver.start()
})
afterEach(async () => receiver.close())

const grant = (slug: string, allowed: boolean, token?: string) => admin(t, 'PUT', `/projects/${slug}/webhook-private-networks`, { allowed }, token)

describe('the grant is an operator decision', () => {
  test('an owner is answered 403 and the project stays without it; an operator grants it, once in the audit log', async () => {
    const project = await t.project()
    const owner = await signIn(t, ...Object.values(await createUser(t, { role: 'owner', projects: [project.slug] })) as [string, string])
    const refused = await asUser(t, owner, 'PUT', `/projects/${project.slug}/webhook-private-networks`, { allowed: true })
    assert.equal(refused.statusCode, 403, refused.body)
    assert.equal(refused.json<{ code: string }>().code, 'forbidden')
    assert.equal((await admin(t, 'GET', `/projects/${project.slug}`)).json<{ webhookPrivateNetworks: boolean }>().webhookPrivateNetworks, false)

    const granted = await grant(project.slug, true)
    assert.equal(granted.statusCode, 200, granted.body)
    assert.equal(granted.json<{ webhookPrivateNetworks: boolean }>().webhookPrivateNetworks, true)
    assert.equal((await grant(project.slug, true)).statusCode, 200, 'granting again changes nothing')
    const entries = await t.database.db.selectFrom('audit_entries').select(['action', 'actor_name']).where('project_id', '=', project.id).where('action', '=', 'project.webhook_private_networks_changed').execute()
    assert.deepEqual(entries, [{ action: 'project.webhook_private_networks_changed', actor_name: 'ADMIN_TOKEN' }])
  })

  test('a malformed grant is a 400 naming the field', async () => {
    const project = await t.project()
    const response = await grant(project.slug, 'yes' as unknown as boolean)
    assert.equal(response.statusCode, 400)
    assert.match(response.body, /allowed/)
  })
})

describe('without the grant, the allowed networks are refused as any private address', () => {
  test('a loopback URL is refused with 400, though WEBHOOK_ALLOWED_NETWORKS includes it; with the grant it is accepted and delivered', async () => {
    const project = await t.project()
    const refused = await admin(t, 'POST', `/projects/${project.slug}/webhooks`, { url: receiver.url, types: ['pet.created'] })
    assert.equal(refused.statusCode, 400, refused.body)
    assert.match(refused.json<{ message: string }>().message, /"url" must be an https URL.*grants this project/)
    const tls = await admin(t, 'POST', `/projects/${project.slug}/webhooks`, { url: receiver.url.replace('http:', 'https:'), types: ['pet.created'] })
    assert.equal(tls.statusCode, 400, tls.body)
    assert.match(tls.json<{ message: string }>().message, /"url" is refused: .*projects an operator grants them to/)

    assert.equal((await grant(project.slug, true)).statusCode, 200)
    const added = await admin(t, 'POST', `/projects/${project.slug}/webhooks`, { url: receiver.url, types: ['pet.created'] })
    assert.equal(added.statusCode, 201, added.body)
    const endpoint = added.json<{ id: string }>()
    assert.equal((await admin(t, 'POST', `/projects/${project.slug}/webhooks/${endpoint.id}/test`)).statusCode, 202)
    await deliverAll(t)
    assert.equal(receiver.received.length, 1)
    assert.equal((await deliveriesOf(t, project.slug, endpoint.id))[0]!.state, 'succeeded')
  })

  test('a grant withdrawn: the next attempt is refused, nothing is sent', async () => {
    const project = await t.project()
    assert.equal((await grant(project.slug, true)).statusCode, 200)
    const endpoint = (await admin(t, 'POST', `/projects/${project.slug}/webhooks`, { url: receiver.url, types: ['pet.created'] })).json<{ id: string }>()
    assert.equal((await grant(project.slug, false)).statusCode, 200)
    assert.equal((await admin(t, 'POST', `/projects/${project.slug}/webhooks/${endpoint.id}/test`)).statusCode, 202)
    await deliverAll(t)
    assert.equal(receiver.received.length, 0)
    const [delivery] = await deliveriesOf(t, project.slug, endpoint.id)
    assert.match(delivery!.lastError!, /^Refused: /)
  })
})

describe('the delivery log of a granted project', () => {
  test("an owner does not see the answers' excerpts; an operator does", async () => {
    const project = await t.project()
    assert.equal((await grant(project.slug, true)).statusCode, 200)
    const endpoint = (await admin(t, 'POST', `/projects/${project.slug}/webhooks`, { url: receiver.url, types: ['pet.created'] })).json<{ id: string }>()
    receiver.answers.push({ status: 200, body: 'internal: db password is hunter2' })
    assert.equal((await admin(t, 'POST', `/projects/${project.slug}/webhooks/${endpoint.id}/test`)).statusCode, 202)
    await deliverAll(t)

    const [seen] = await deliveriesOf(t, project.slug, endpoint.id)
    assert.equal(seen!.responseExcerpt, 'internal: db password is hunter2')
    const owner = await signIn(t, ...Object.values(await createUser(t, { role: 'owner', projects: [project.slug] })) as [string, string])
    const asOwner = await asUser(t, owner, 'GET', `/projects/${project.slug}/webhooks/${endpoint.id}/deliveries`)
    assert.equal(asOwner.statusCode, 200, asOwner.body)
    const [hidden] = asOwner.json<{ responseExcerpt: string | null; lastStatus: number }[]>()
    assert.equal(hidden!.responseExcerpt, null)
    assert.equal(hidden!.lastStatus, 200, 'the status is still shown')
    assert.ok(!asOwner.body.includes('hunter2'))
    // Nor through the delivery's attempts.
    const attempts = `/projects/${project.slug}/webhooks/${endpoint.id}/deliveries/${seen!.id}/attempts`
    assert.equal((await admin(t, 'GET', attempts)).json<{ responseExcerpt: string | null }[]>()[0]!.responseExcerpt, 'internal: db password is hunter2')
    const ownersAttempts = await asUser(t, owner, 'GET', attempts)
    assert.equal(ownersAttempts.statusCode, 200, ownersAttempts.body)
    assert.deepEqual(ownersAttempts.json<{ responseExcerpt: string | null; status: number | null }[]>().map((attempt) => [attempt.status, attempt.responseExcerpt]), [[200, null]])
    assert.ok(!ownersAttempts.body.includes('hunter2'))
  })
})
