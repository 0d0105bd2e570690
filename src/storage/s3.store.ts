import type { Readable } from 'node:stream'
import type * as S3 from '@aws-sdk/client-s3'
import { lazy } from '../lazy.js'
import { checkKey, type ObjectRead, type ObjectStore, type StoredObject } from './store.js'

/** The AWS SDK, loaded when a bucket is configured: files under DATA_DIR never pay for its start. */
const sdk = lazy<typeof S3>('@aws-sdk/client-s3')

/** Where the bucket is; credentials come from the AWS SDK's usual chain (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_PROFILE, roles…). */
export interface S3Settings {
  bucket: string
  /** An S3-compatible endpoint (MinIO, R2, Ceph…); absent: AWS itself. */
  endpoint: string | undefined
  region: string
  /** Path-style addresses (`endpoint/bucket/key`), which most S3-compatible stores need. */
  forcePathStyle: boolean
  /** Optional key prefix inside the bucket, so several deployments can share one. */
  prefix: string
}

/**
 * Objects in an S3-compatible bucket, through the official SDK. A PUT is atomic in S3: an object
 * is visible whole or not at all. Checksums are sent and checked only when the operation requires
 * them: several S3-compatible stores refuse the SDK's newer default trailing checksums.
 */
export class S3ObjectStore implements ObjectStore {
  readonly kind = 's3'
  private readonly client: S3.S3Client

  constructor(private readonly settings: S3Settings) {
    const { S3Client } = sdk()
    this.client = new S3Client({
      region: settings.region,
      ...(settings.endpoint === undefined ? {} : { endpoint: settings.endpoint }),
      forcePathStyle: settings.forcePathStyle,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    })
  }

  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    const { PutObjectCommand } = sdk()
    await this.client.send(new PutObjectCommand({ Bucket: this.settings.bucket, Key: this.key(key), Body: body, ContentType: contentType, ContentLength: body.length }))
  }

  async get(key: string, range?: { start: number; end: number }): Promise<ObjectRead | undefined> {
    const { GetObjectCommand } = sdk()
    try {
      const answer = await this.client.send(
        new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.key(key), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
      )
      // A ranged answer's total is after the slash of Content-Range.
      const total = answer.ContentRange ? Number(answer.ContentRange.split('/')[1]) : answer.ContentLength
      return { body: answer.Body as Readable, size: total ?? 0 }
    } catch (error) {
      if (isMissing(error)) return undefined
      throw error
    }
  }

  async head(key: string): Promise<{ size: number } | undefined> {
    const { HeadObjectCommand } = sdk()
    try {
      const answer = await this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: this.key(key) }))
      return { size: answer.ContentLength ?? 0 }
    } catch (error) {
      if (isMissing(error)) return undefined
      throw error
    }
  }

  async delete(keys: readonly string[]): Promise<void> {
    const { DeleteObjectsCommand } = sdk()
    // At most 1,000 keys per request, S3's limit.
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000)
      const answer = await this.client.send(
        new DeleteObjectsCommand({ Bucket: this.settings.bucket, Delete: { Objects: batch.map((key) => ({ Key: this.key(key) })), Quiet: true } }),
      )
      const failed = answer.Errors?.[0]
      if (failed) throw new Error(`S3 could not delete ${failed.Key}: ${failed.Code} ${failed.Message}`)
    }
  }

  async *list(prefix: string): AsyncIterable<StoredObject> {
    const { ListObjectsV2Command } = sdk()
    let token: string | undefined
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.settings.bucket, Prefix: this.settings.prefix + prefix, ...(token === undefined ? {} : { ContinuationToken: token }) }),
      )
      for (const object of page.Contents ?? []) {
        if (object.Key === undefined) continue
        yield { key: object.Key.slice(this.settings.prefix.length), size: object.Size ?? 0, modifiedAt: object.LastModified ?? new Date(0) }
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined
    } while (token !== undefined)
  }

  async close(): Promise<void> {
    this.client.destroy()
  }

  private key(key: string): string {
    return this.settings.prefix + checkKey(key)
  }
}

function isMissing(error: unknown): boolean {
  return error instanceof sdk().S3ServiceException && (error.name === 'NoSuchKey' || error.name === 'NotFound' || error.$metadata.httpStatusCode === 404)
}
