import path from 'node:path'
import type { Config } from '../config.js'
import { FileObjectStore } from './file.store.js'
import { S3ObjectStore } from './s3.store.js'
import type { ObjectStore } from './store.js'

export type StorageSettings = Pick<Config, 'dataDir' | 's3Bucket' | 's3Endpoint' | 's3Region' | 's3ForcePathStyle' | 's3Prefix'>

/** The one place that chooses where media is kept: an S3-compatible bucket when S3_BUCKET is set, else files under DATA_DIR/media. */
export function createObjectStore(settings: StorageSettings): ObjectStore {
  if (settings.s3Bucket === undefined) return new FileObjectStore(path.join(settings.dataDir, 'media'))
  return new S3ObjectStore({ bucket: settings.s3Bucket, endpoint: settings.s3Endpoint, region: settings.s3Region, forcePathStyle: settings.s3ForcePathStyle, prefix: settings.s3Prefix })
}
