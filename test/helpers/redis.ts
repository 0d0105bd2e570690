/** The Redis server tests may use: TEST_REDIS_URL, else REDIS_URL, else none. */
export const redisUrl = process.env.TEST_REDIS_URL || process.env.REDIS_URL || undefined

if (!redisUrl) {
  process.stdout.write('# Redis not configured (TEST_REDIS_URL / REDIS_URL): Redis suites are skipped\n')
}
