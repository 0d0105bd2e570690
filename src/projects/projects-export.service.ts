import { createReadStream, createWriteStream } from 'node:fs'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough, type Readable, type Writable } from 'node:stream'
import { finished } from 'node:stream/promises'
import type { Pack } from 'tar-stream'
import { type Change, recordChange } from '../audit/audit.js'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import type { ProjectRow } from '../db/schema.js'
import type { Outcome } from '../errors.js'
import { limitsOf } from '../limits/plans.js'
import type { ObjectStore } from '../storage/store.js'
import { exportedSiteSettings, exportReaders, type PageReader, subscriptionsOf } from './projects-export.repository.js'
import { findProjectBySlug } from './projects.repository.js'

/** The layout's version, in `manifest.json`: a reader checks it before reading the rest. */
export const EXPORT_FORMAT = 1

/** What an export needs besides the database: where the photos' files are, and what to name the service. */
export interface ExportDeps {
  db: Db
  clock: Clock
  /** The object store of the photos' files (files under DATA_DIR, or a bucket). */
  files: Pick<ObjectStore, 'get'>
  /** The service's version, written in the manifest. */
  version: string
}

/** A started export: the archive's suggested file name and its bytes, gzip-compressed tar, as they are made. */
export interface ProjectArchive {
  slug: string
  filename: string
  body: Readable
}

/** Who asks: an operator sees every answer of the delivery log; an owner not those of a project granted the private networks. */
export interface ExportCaller {
  operator: boolean
}

/** `20261128T145000Z`: a UTC instant as file names carry it. */
export function fileTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '')
}

/**
 * A project's whole data as one archive (gzip-compressed tar), streamed: rows are read a page at
 * a time, each JSON Lines file is spooled to a temporary file (a tar entry states its size first)
 * and sent from there, each photo file is copied from the object store as it is read. Nothing
 * holds the whole archive. See docs/export.md for the layout.
 */
export class ProjectExporter {
  constructor(private readonly deps: ExportDeps) {}

  /**
   * Records `project.exported` (in the audit log, for the project) and starts the archive; its
   * bytes flow as fast as `body` is read. A failure while making it ends `body` with the error.
   */
  async start(slug: string, caller: ExportCaller, change: Change): Promise<Outcome<{ archive: ProjectArchive }, 'not_found'>> {
    const { db, clock } = this.deps
    // Loaded by the first export, not at import: every command imports the projects feature.
    const [{ pack: tarPack }, { createGzip }] = await Promise.all([import('tar-stream'), import('node:zlib')])
    const project = await findProjectBySlug(db, slug)
    if (!project) return { ok: false, error: 'not_found', message: `No project with slug "${slug}".` }
    const now = clock.now()
    await db.transaction().execute((trx) =>
      recordChange(trx, clock, change, { action: 'project.exported', target: { type: 'project', id: slug }, projectId: project.id }),
    )
    const tar = tarPack()
    const gzip = createGzip()
    const body = new PassThrough()
    // A failure on either side ends the other: the reader gets the error, the writing stops.
    tar.on('error', (error: Error) => body.destroy(error))
    gzip.on('error', (error) => body.destroy(error))
    body.on('close', () => {
      if (!body.readableEnded) tar.destroy()
    })
    tar.pipe(gzip).pipe(body)
    this.write(tar, project, now, caller).catch((error: unknown) => {
      tar.destroy(error instanceof Error ? error : new Error(String(error)))
    })
    return { ok: true, archive: { slug, filename: `${slug}-${fileTimestamp(now)}.tar.gz`, body } }
  }

  private async write(tar: Pack, project: ProjectRow, now: number, caller: ExportCaller): Promise<void> {
    const { db } = this.deps
    const read = exportReaders(db, project.id)
    const counts: Record<string, number> = {}
    const site = await exportedSiteSettings(db, project.id)
    await addBuffer(tar, 'project.json', json({
      slug: project.slug,
      plan: project.plan,
      limits: limitsOf(project),
      customLimits: project.plan === 'enterprise' ? { perMinute: project.per_minute, perDay: project.per_day } : null,
      webhookPrivateNetworks: project.webhook_private_networks === 1,
      createdAt: project.created_at,
      site: site
        ? {
            published: site.published === 1,
            displayName: site.display_name,
            logoUrl: site.logo_url,
            primaryColor: site.primary_color,
            about: site.about,
            contactEmail: site.contact_email,
            contactPhone: site.contact_phone,
            updatedAt: site.updated_at,
          }
        : null,
    }))
    // The answers of a delivery log of a project granted the private networks are for operators.
    const excerpts = caller.operator || project.webhook_private_networks !== 1
    const temp = await mkdtemp(join(tmpdir(), 'adoption-store-export-'))
    try {
      const lines = async <Row, Key>(name: string, reader: PageReader<Row, Key>, keyOf: (row: Row) => Key, shape: (rows: Row[]) => Promise<unknown[]> | unknown[]) => {
        counts[name] = await addLines(tar, join(temp, name), name, reader, keyOf, shape)
      }
      await lines('animals.jsonl', read.pets, (row) => row.id, (rows) =>
        rows.map((row) => ({
          id: row.id,
          name: row.name,
          categoryId: row.category_id,
          status: row.status,
          externalId: row.external_id,
          locationId: row.location_id,
          profile: parsed(row.profile),
          photos: parsed(row.photos),
          createdAt: row.created_at,
          updatedAt: row.updated_at ?? row.created_at,
        })),
      )
      await lines('categories.jsonl', read.categories, (row) => row.id, (rows) =>
        rows.map((row) => ({ id: row.id, name: row.name, breeds: parsed(row.breeds), createdAt: row.created_at, updatedAt: row.updated_at })),
      )
      await lines('locations.jsonl', read.locations, (row) => row.id, (rows) =>
        rows.map((row) => ({
          id: row.id,
          name: row.name,
          address: parsed(row.address),
          coordinates: row.latitude === null || row.longitude === null ? null : { latitude: row.latitude, longitude: row.longitude },
          createdAt: row.created_at,
          updatedAt: row.updated_at,
        })),
      )
      await lines('orders.jsonl', read.orders, (row) => row.id, (rows) =>
        rows.map((row) => ({
          id: row.id,
          petId: row.pet_id,
          petName: row.pet_name,
          status: row.status,
          enquiry: row.enquiry_name === null && row.enquiry_email === null ? null : { name: row.enquiry_name, email: row.enquiry_email, phone: row.enquiry_phone, message: row.enquiry_message },
          createdAt: row.created_at,
          updatedAt: row.updated_at,
        })),
      )
      const photoKeys: string[] = []
      await lines('photos.jsonl', read.photos, (row) => row.id, (rows) =>
        rows.map((row) => {
          const variants = JSON.parse(row.variants) as { format: string; width: number; height: number; key: string; hash: string; size: number }[]
          photoKeys.push(...variants.map((variant) => variant.key))
          return {
            id: row.id,
            petId: row.pet_id,
            position: row.position,
            width: row.width,
            height: row.height,
            hash: row.hash,
            files: variants.map(({ format, width, height, key, hash, size }) => ({ format, width, height, hash, size, path: `photos/${key}` })),
            createdAt: row.created_at,
          }
        }),
      )
      await lines('api-keys.jsonl', read.apiKeys, (row) => row.id, (rows) =>
        rows.map((row) => ({
          id: row.id,
          prefix: row.prefix,
          name: row.name,
          scopes: row.scopes === null ? null : row.scopes.split(' '),
          publishable: row.publishable === 1,
          allowedOrigins: row.allowed_origins === null ? null : row.allowed_origins.split(' '),
          createdAt: row.created_at,
          lastUsedAt: row.last_used_at,
          expiresAt: row.expires_at,
          revokedAt: row.revoked_at,
        })),
      )
      await lines('webhook-endpoints.jsonl', read.webhookEndpoints, (row) => row.id, async (rows) => {
        const subscriptions = await subscriptionsOf(db, rows.map((row) => row.id))
        return rows.map((row) => ({
          id: row.id,
          url: row.url,
          description: row.description,
          enabled: row.enabled === 1,
          disabledReason: row.disabled_reason,
          types: subscriptions.filter((s) => s.endpoint_id === row.id).map((s) => s.event_type),
          previousSecretUntil: row.previous_secret_until,
          failingSince: row.failing_since,
          createdAt: row.created_at,
          updatedAt: row.updated_at,
        }))
      })
      await lines('webhook-events.jsonl', read.webhookEvents, (row) => row.id, (rows) =>
        rows.map((row) => ({ id: row.id, type: row.type, data: parsed(row.data), createdAt: row.created_at })),
      )
      await lines('webhook-deliveries.jsonl', read.webhookDeliveries, (row) => row.id, (rows) =>
        rows.map((row) => ({
          id: row.id,
          eventId: row.event_id,
          endpointId: row.endpoint_id,
          state: row.state,
          manual: row.manual === 1,
          attempts: row.attempts,
          nextAttemptAt: row.next_attempt_at,
          lastAttemptAt: row.last_attempt_at,
          lastStatus: row.last_status,
          lastError: row.last_error,
          lastLatencyMs: row.last_latency_ms,
          responseExcerpt: excerpts ? row.response_excerpt : null,
          createdAt: row.created_at,
          completedAt: row.completed_at,
        })),
      )
      await lines('webhook-attempts.jsonl', read.webhookAttempts, (row) => row.id, (rows) =>
        rows.map((row) => ({
          id: row.id,
          deliveryId: row.delivery_id,
          attemptedAt: row.attempted_at,
          status: row.status,
          durationMs: row.duration_ms,
          responseExcerpt: excerpts ? row.response_excerpt : null,
          error: row.error,
          request: row.request_body === null ? null : { headers: parsed(row.request_headers), body: row.request_body },
        })),
      )
      await lines('domains.jsonl', read.domains, (row) => row.id, (rows) =>
        rows.map((row) => ({
          id: row.id,
          name: row.name,
          apex: row.apex === 1,
          primary: row.is_primary === 1,
          redirect: row.redirect_to === null ? null : { to: row.redirect_to, status: row.redirect_status },
          state: row.state,
          reason: row.reason,
          checkedAt: row.checked_at,
          verifiedAt: row.verified_at,
          certificate: { state: row.cert_state, reason: row.cert_reason, notBefore: row.not_before, notAfter: row.not_after, issuedAt: row.issued_at },
          createdAt: row.created_at,
        })),
      )
      await lines('members.jsonl', read.members, (row) => row.id, (rows) =>
        rows.map((row) => ({ id: row.id, email: row.email, role: row.role, createdAt: row.created_at, disabledAt: row.disabled_at, lastSignedInAt: row.last_signed_in_at })),
      )
      await lines('audit.jsonl', read.audit, (row) => row.id, (rows) =>
        rows.map((row) => ({
          id: row.id,
          at: row.at,
          actor: { kind: row.actor_kind, name: row.actor_name, keyId: row.actor_key_id },
          action: row.action,
          target: { type: row.target_type, id: row.target_id },
          requestId: row.request_id,
          details: parsed(row.details),
        })),
      )
      await lines('usage.jsonl', read.usage, (row) => row.minute, (rows) =>
        rows.map((row) => ({ minute: row.minute, requests: row.requests, limited: row.limited, bans: row.bans })),
      )
      let files = 0
      const missing: string[] = []
      for (const key of photoKeys) {
        const object = await this.deps.files.get(key)
        if (!object) {
          missing.push(key)
          continue
        }
        await addStream(tar, `photos/${key}`, object.size, object.body)
        files++
      }
      counts.photos = files
      await addBuffer(tar, 'manifest.json', json({
        format: EXPORT_FORMAT,
        service: { name: 'adoption-store', version: this.deps.version },
        project: project.slug,
        createdAt: new Date(now).toISOString(),
        counts,
        missingPhotoFiles: missing.map((key) => `photos/${key}`),
      }))
      tar.finalize()
    } finally {
      await rm(temp, { recursive: true, force: true })
    }
  }
}

function json(value: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(value, null, 2)}\n`)
}

function parsed(text: string | null): unknown {
  return text === null ? null : JSON.parse(text)
}

function addBuffer(tar: Pack, name: string, bytes: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    if (tar.destroyed) return reject(new Error('The archive was closed before it was complete.'))
    const closed = () => reject(new Error('The archive was closed before it was complete.'))
    tar.once('close', closed)
    tar.entry({ name, size: bytes.length, mode: 0o644 }, bytes, (error) => {
      tar.off('close', closed)
      if (error) reject(error)
      else resolve()
    })
  })
}

/** Adds a file of known size from a stream; fails when the stream or the archive does (the archive destroyed: its reader went away). */
function addStream(tar: Pack, name: string, size: number, body: Readable): Promise<void> {
  return new Promise((resolve, reject) => {
    if (tar.destroyed) {
      body.destroy()
      return reject(new Error('The archive was closed before it was complete.'))
    }
    const stop = (error: Error) => {
      tar.off('close', closed)
      body.destroy()
      reject(error)
    }
    const closed = () => stop(new Error('The archive was closed before it was complete.'))
    tar.once('close', closed)
    const entry = tar.entry({ name, size, mode: 0o644 }, (error) => {
      tar.off('close', closed)
      if (error) reject(error)
      else resolve()
    })
    body.once('error', (error) => {
      entry.destroy(error)
      stop(error)
    })
    body.pipe(entry as unknown as Writable)
  })
}

/** Writes a JSON Lines file page by page to `path`, then adds it to the archive; its number of lines. */
async function addLines<Row, Key>(
  tar: Pack,
  path: string,
  name: string,
  reader: PageReader<Row, Key>,
  keyOf: (row: Row) => Key,
  shape: (rows: Row[]) => Promise<unknown[]> | unknown[],
): Promise<number> {
  const out = createWriteStream(path)
  let count = 0
  try {
    let after: Key | undefined
    // Read no further once the archive is closed (its reader went away).
    while (!tar.destroyed) {
      const rows = await reader(after)
      if (rows.length === 0) break
      const text = (await shape(rows)).map((item) => `${JSON.stringify(item)}\n`).join('')
      if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', () => resolve()))
      count += rows.length
      after = keyOf(rows[rows.length - 1]!)
    }
  } finally {
    out.end()
    await finished(out)
  }
  const { size } = await stat(path)
  await addStream(tar, name, size, createReadStream(path))
  return count
}
