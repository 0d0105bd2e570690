import type { ExpressionBuilder, Updateable } from 'kysely'
import type { Db } from '../db/database.js'
import type { CertificateRow, Database, DomainRow, DomainTable } from '../db/schema.js'

export async function insertDomain(
  db: Db,
  domain: { projectId: number; name: string; apex: boolean; at: string },
): Promise<DomainRow> {
  return db
    .insertInto('domains')
    .values({
      project_id: domain.projectId,
      name: domain.name,
      apex: domain.apex ? 1 : 0,
      state: 'pending',
      checks_since: domain.at,
      next_check_at: domain.at,
      cert_state: 'pending',
      created_at: domain.at,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

export async function findDomainByName(db: Db, name: string): Promise<DomainRow | undefined> {
  return db.selectFrom('domains').selectAll().where('name', '=', name).executeTakeFirst()
}

export async function listDomains(db: Db, projectId: number): Promise<DomainRow[]> {
  return db.selectFrom('domains').selectAll().where('project_id', '=', projectId).orderBy('id').execute()
}

export async function updateDomain(db: Db, id: number, changes: Updateable<DomainTable>): Promise<DomainRow | undefined> {
  return db.updateTable('domains').set(changes).where('id', '=', id).returningAll().executeTakeFirst()
}

/** Deletes a domain (its certificate and challenges go with it) and every redirect to it. */
export async function deleteDomain(db: Db, projectId: number, name: string): Promise<boolean> {
  const result = await db.deleteFrom('domains').where('project_id', '=', projectId).where('name', '=', name).executeTakeFirst()
  await db
    .updateTable('domains')
    .set({ redirect_to: null, redirect_status: null })
    .where('project_id', '=', projectId)
    .where('redirect_to', '=', name)
    .execute()
  return Number(result.numDeletedRows) > 0
}

export async function setPrimaryDomain(db: Db, projectId: number, id: number | null): Promise<void> {
  await db.updateTable('domains').set({ is_primary: 0 }).where('project_id', '=', projectId).where('is_primary', '=', 1).execute()
  if (id !== null) await db.updateTable('domains').set({ is_primary: 1 }).where('project_id', '=', projectId).where('id', '=', id).execute()
}

/** Bumps the routing generation; every instance drops its cached routes and certificates when it changes. */
export async function bumpGeneration(db: Db): Promise<number> {
  const row = await db
    .updateTable('routing_state')
    .set((eb) => ({ generation: eb('generation', '+', 1) }))
    .where('id', '=', 1)
    .returning('generation')
    .executeTakeFirstOrThrow()
  return Number(row.generation)
}

export async function readGeneration(db: Db): Promise<number> {
  const row = await db.selectFrom('routing_state').select('generation').where('id', '=', 1).executeTakeFirstOrThrow()
  return Number(row.generation)
}

/** What host routing needs to know about a custom domain. */
export interface DomainRoute {
  projectId: number
  slug: string
  state: DomainRow['state']
  redirectTo: string | null
  redirectStatus: number | null
}

export async function findDomainRoute(db: Db, name: string): Promise<DomainRoute | undefined> {
  const row = await db
    .selectFrom('domains')
    .innerJoin('projects', 'projects.id', 'domains.project_id')
    .select(['domains.project_id', 'projects.slug', 'domains.state', 'domains.redirect_to', 'domains.redirect_status'])
    .where('domains.name', '=', name)
    .executeTakeFirst()
  return row && { projectId: row.project_id, slug: row.slug, state: row.state, redirectTo: row.redirect_to, redirectStatus: row.redirect_status }
}

export type WorkKind = 'dns' | 'certificate'

/**
 * Domains whose DNS check or certificate work is due and whose lease is free. A candidate is
 * only worked on after `claimDomain` won it.
 */
export async function findDueDomains(db: Db, kind: WorkKind, now: string, limit: number): Promise<DomainRow[]> {
  return db
    .selectFrom('domains')
    .selectAll()
    .where((eb) => dueAndFree(eb, kind, now))
    .orderBy(kind === 'dns' ? 'next_check_at' : 'cert_next_at')
    .limit(limit)
    .execute()
}

/** Due for this kind of work, and no instance's lease on it runs. */
function dueAndFree(eb: ExpressionBuilder<Database, 'domains'>, kind: WorkKind, now: string) {
  const free = eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)])
  return kind === 'dns'
    ? eb.and([free, eb('state', '!=', 'verified'), eb('next_check_at', '<=', now)])
    : eb.and([free, eb('state', '=', 'verified'), eb('cert_next_at', '<=', now)])
}

/**
 * Takes the lease of a domain until `until`, if the work is still due and no other instance holds
 * it: one conditional update, so of two instances racing for the same row exactly one wins, and
 * a row another instance has just finished is not worked on again.
 */
export async function claimDomain(db: Db, id: number, kind: WorkKind, holder: string, now: string, until: string): Promise<boolean> {
  const result = await db
    .updateTable('domains')
    .set({ lease_holder: holder, lease_until: until })
    .where('id', '=', id)
    .where((eb) => dueAndFree(eb, kind, now))
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Ends a lease this holder has, with the row's new state; nothing when the lease was lost meanwhile. */
export async function releaseDomain(db: Db, id: number, holder: string, changes: Updateable<DomainTable>): Promise<DomainRow | undefined> {
  return db
    .updateTable('domains')
    .set({ ...changes, lease_holder: null, lease_until: null })
    .where('id', '=', id)
    .where('lease_holder', '=', holder)
    .returningAll()
    .executeTakeFirst()
}

/**
 * Saves a DNS check's outcome. A background re-check gives its `lease`: it saves only while that
 * lease holds and no other check was saved since it read the row (`checks`, the row's count of
 * checks then), releasing the lease; a Verify that answered meanwhile is the newer check and
 * stands. Answers the row, and whether this save moved the domain into the checked state: the
 * state is compared in the UPDATE itself, so of concurrent saves of one outcome (Verify beside a
 * background re-check) exactly one moves it. Nothing when the domain was removed, the lease lost
 * or the check overtaken.
 */
export async function saveDomainCheck(
  db: Db,
  id: number,
  changes: Updateable<DomainTable> & { state: DomainRow['state'] },
  lease?: { holder: string; checks: number },
): Promise<{ row: DomainRow; moved: boolean } | undefined> {
  const save = (moving: boolean) => {
    let update = db.updateTable('domains').where('id', '=', id)
    if (lease !== undefined) {
      update = update.set({ lease_holder: null, lease_until: null }).where('lease_holder', '=', lease.holder).where('checks', '=', lease.checks)
    }
    if (moving) update = update.where('state', '<>', changes.state)
    return update.set(changes).returningAll().executeTakeFirst()
  }
  const moved = await save(true)
  if (moved) return { row: moved, moved: true }
  const row = await save(false)
  return row && { row, moved: false }
}

export async function findCertificate(db: Db, domainId: number): Promise<CertificateRow | undefined> {
  return db.selectFrom('certificates').selectAll().where('domain_id', '=', domainId).executeTakeFirst()
}

export async function listCertificates(db: Db, domainIds: number[]): Promise<CertificateRow[]> {
  if (domainIds.length === 0) return []
  return db.selectFrom('certificates').selectAll().where('domain_id', 'in', domainIds).execute()
}

/** The certificate to present for a name: only an issued one, of a verified domain. */
export async function findServedCertificate(db: Db, name: string): Promise<(CertificateRow & { name: string }) | undefined> {
  return db
    .selectFrom('certificates')
    .innerJoin('domains', 'domains.id', 'certificates.domain_id')
    .selectAll('certificates')
    .select('domains.name')
    .where('domains.name', '=', name)
    .where('domains.state', '=', 'verified')
    .executeTakeFirst()
}

export async function saveCertificate(db: Db, certificate: CertificateRow): Promise<void> {
  const { certificate_pem, private_key, not_before, not_after, renew_at, issued_at } = certificate
  await db
    .insertInto('certificates')
    .values(certificate)
    .onConflict((oc) => oc.column('domain_id').doUpdateSet({ certificate_pem, private_key, not_before, not_after, renew_at, issued_at }))
    .execute()
}

export async function insertChallenge(db: Db, challenge: { token: string; domainId: number; host: string; keyAuthorization: string; at: string }): Promise<void> {
  await db
    .insertInto('acme_challenges')
    .values({ token: challenge.token, domain_id: challenge.domainId, host: challenge.host, key_authorization: challenge.keyAuthorization, created_at: challenge.at })
    .onConflict((oc) => oc.column('token').doUpdateSet({ key_authorization: challenge.keyAuthorization, host: challenge.host, domain_id: challenge.domainId }))
    .execute()
}

export async function deleteChallenge(db: Db, token: string): Promise<void> {
  await db.deleteFrom('acme_challenges').where('token', '=', token).execute()
}

/** A challenge answer, only for the host it was issued for. */
export async function findChallenge(db: Db, token: string, host: string): Promise<string | undefined> {
  const row = await db.selectFrom('acme_challenges').select('key_authorization').where('token', '=', token).where('host', '=', host).executeTakeFirst()
  return row?.key_authorization
}

export async function findAcmeAccount(db: Db, directoryUrl: string) {
  return db.selectFrom('acme_accounts').selectAll().where('directory_url', '=', directoryUrl).executeTakeFirst()
}

/** Records an account key unless another instance recorded one first; the caller re-reads. */
export async function insertAcmeAccount(db: Db, account: { directoryUrl: string; privateKey: string; at: string }): Promise<void> {
  await db
    .insertInto('acme_accounts')
    .values({ directory_url: account.directoryUrl, private_key: account.privateKey, account_url: null, created_at: account.at })
    .onConflict((oc) => oc.column('directory_url').doNothing())
    .execute()
}

export async function setAcmeAccountUrl(db: Db, directoryUrl: string, accountUrl: string): Promise<void> {
  await db.updateTable('acme_accounts').set({ account_url: accountUrl }).where('directory_url', '=', directoryUrl).execute()
}
