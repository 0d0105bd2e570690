import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3'
import S3rver from 's3rver'
import type { Config } from '../../src/config.js'

/**
 * An S3-protocol server for tests: the one TEST_S3_ENDPOINT names (a MinIO, say, with its
 * credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY), else an s3rver started here, in
 * this process, on a free port, over a temporary directory. Each call gets a bucket of its own.
 */
export interface TestS3 {
  /** The configuration that points the service at the bucket. */
  config: Pick<Config, 's3Bucket' | 's3Endpoint' | 's3Region' | 's3ForcePathStyle' | 's3Prefix'>
  close(): Promise<void>
}

export async function startTestS3(): Promise<TestS3> {
  let endpoint = process.env.TEST_S3_ENDPOINT
  let server: S3rver | undefined
  let directory: string | undefined
  if (!endpoint) {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'adoption-store-s3-'))
    server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory })
    const { port } = await server.run()
    endpoint = `http://127.0.0.1:${port}`
    // s3rver's fixed credentials; the SDK reads them from the environment, as a deployment's are.
    process.env.AWS_ACCESS_KEY_ID = 'S3RVER'
    process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER'
  }
  const bucket = `test-${randomBytes(6).toString('hex')}`
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true })
  await client.send(new CreateBucketCommand({ Bucket: bucket }))
  client.destroy()
  return {
    config: { s3Bucket: bucket, s3Endpoint: endpoint, s3Region: 'us-east-1', s3ForcePathStyle: true, s3Prefix: 'store/' },
    async close() {
      await server?.close()
      if (directory) fs.rmSync(directory, { recursive: true, force: true })
    },
  }
}
