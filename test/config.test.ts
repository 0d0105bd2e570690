import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { describe, test } from 'node:test'
import { Ajv } from 'ajv'
import { ConfigError, configuredSecrets, EnvSchema, loadConfig, redactedUrl } from '../src/config.js'
import type { TestPlan } from '../scripts/test-plan.js'
import { CONFIG_VALIDATOR_FILE, configValidatorSource } from '../scripts/config-validator.js'

// Opens no database (configuration parsing): its subject is the same on both back ends.
export const testPlan: TestPlan = { legs: 'sqlite' }

describe('loadConfig defaults', () => {
  test('with nothing set', () => {
    const config = loadConfig({}, {})
    assert.deepEqual(
      { ...config },
      {
        port: 8080,
        host: '127.0.0.1',
        dataDir: path.resolve('./data'),
        databaseUrl: undefined,
        databasePoolSize: 10,
        databaseTimeoutMs: 5000,
        environment: 'production',
        publicBaseUrl: 'http://localhost:8080/v1',
        stagingBaseUrl: 'http://staging.localhost:8080/v1',
        logLevel: 'info',
        bodyLimit: 1048576,
        maxConnections: 10000,
        redisUrl: undefined,
        redisKeyPrefix: 'adoption-store:',
        redisTimeoutMs: 250,
        trustProxy: false,
        platformDomain: undefined,
        platformDnsTarget: undefined,
        dnsResolvers: [],
        adminToken: undefined,
        httpsPort: undefined,
        acmeDirectoryUrl: 'https://acme-v02.api.letsencrypt.org/directory',
        acmeEmail: undefined,
        acmeCaFile: undefined,
        acmeCaaDomains: ['letsencrypt.org'],
        certificateEncryptionKey: undefined,
        domainWorkerIntervalMs: 15000,
        responseCacheBytes: 33554432,
        webhookEncryptionKey: undefined,
        webhookPreviousEncryptionKeys: [],
        webhookAllowedNetworks: [],
        webhookTimeoutMs: 10000,
        webhookWorkerIntervalMs: 1000,
        webhookRetentionDays: 30,
        s3Bucket: undefined,
        s3Endpoint: undefined,
        s3Region: 'us-east-1',
        s3ForcePathStyle: false,
        s3Prefix: '',
        mediaBaseUrl: 'http://localhost:8080/media',
        photoMaxBytes: 20971520,
        mediaCacheBytes: 33554432,
        photoMaxPixels: 50000000,
        photoProcessingConcurrency: 1,
        photoSweepIntervalMs: 3600000,
      },
    )
    assert.ok(path.isAbsolute(config.dataDir))
  })

  test('photo storage and limits: an S3 endpoint turns path-style addresses on, media addresses follow PUBLIC_BASE_URL, each value out of range names its variable', () => {
    const s3 = loadConfig({}, { S3_BUCKET: 'photos', S3_ENDPOINT: 'http://127.0.0.1:9000/', PUBLIC_BASE_URL: 'https://api.example.com/v1' })
    assert.deepEqual([s3.s3Bucket, s3.s3Endpoint, s3.s3ForcePathStyle, s3.mediaBaseUrl], ['photos', 'http://127.0.0.1:9000', true, 'https://api.example.com/media'])
    assert.equal(loadConfig({}, { S3_BUCKET: 'photos', S3_FORCE_PATH_STYLE: 'false', S3_ENDPOINT: 'http://minio:9000' }).s3ForcePathStyle, false)
    assert.equal(loadConfig({}, { MEDIA_BASE_URL: 'https://cdn.example.com/media' }).mediaBaseUrl, 'https://cdn.example.com/media')
    for (const [name, value] of [
      ['S3_BUCKET', 'No_Capitals'],
      ['S3_ENDPOINT', 'ftp://x'],
      ['S3_PREFIX', 'no-slash'],
      ['MEDIA_BASE_URL', 'https://cdn.example.com/'],
      ['PHOTO_MAX_BYTES', '100'],
      ['PHOTO_MAX_PIXELS', '1'],
      ['PHOTO_PROCESSING_CONCURRENCY', '0'],
      ['PHOTO_SWEEP_INTERVAL_MS', '10'],
    ] as const) {
      assert.throws(() => loadConfig({}, { [name]: value }), new RegExp(`Invalid configuration: ${name}`), name)
    }
  })

  test('reads the environment it is given, not process.env', () => {
    const saved = process.env.PORT
    process.env.PORT = '1234'
    try {
      assert.equal(loadConfig({}, {}).port, 8080)
      assert.equal(loadConfig({}, { PORT: '4321' }).port, 4321)
    } finally {
      if (saved === undefined) delete process.env.PORT
      else process.env.PORT = saved
    }
  })

  test('base URLs follow the port and end with /v1', () => {
    const config = loadConfig({}, { PORT: '9000' })
    assert.equal(config.publicBaseUrl, 'http://localhost:9000/v1')
    assert.equal(config.stagingBaseUrl, 'http://staging.localhost:9000/v1')
  })
})

describe('loadConfig values', () => {
  test('every variable is read', () => {
    const config = loadConfig(
      {},
      {
        PORT: '3000',
        HOST: '0.0.0.0',
        DATA_DIR: 'var/store',
        DATABASE_URL: 'postgres://user:pw@db:5432/store',
        DATABASE_POOL_SIZE: '25',
        DATABASE_TIMEOUT_MS: '2000',
        ENVIRONMENT: 'staging',
        PUBLIC_BASE_URL: 'https://api.example.com/v1',
        STAGING_BASE_URL: 'https://staging.example.com/v1',
        LOG_LEVEL: 'debug',
        BODY_LIMIT: '2048',
        MAX_CONNECTIONS: '500',
        REDIS_URL: 'redis://cache:6379/2',
        REDIS_KEY_PREFIX: 'store-a:',
        REDIS_TIMEOUT_MS: '100',
        TRUST_PROXY: '10.0.0.0/8, 127.0.0.1',
        PLATFORM_DOMAIN: 'stores.example.com',
        PLATFORM_DNS_TARGET: 'edge.example.net',
        DNS_RESOLVERS: '192.0.2.53, [2001:db8::53]:5353',
        ADMIN_TOKEN: 'x'.repeat(40),
        HTTPS_PORT: '8443',
        ACME_DIRECTORY_URL: 'https://acme.example.net/directory',
        ACME_EMAIL: 'ops@example.com',
        ACME_CA_FILE: '/etc/ssl/acme-ca.pem',
        ACME_CAA_DOMAINS: 'example.net,example.org',
        CERTIFICATE_ENCRYPTION_KEY: 'ab'.repeat(32),
        DOMAIN_WORKER_INTERVAL_MS: '5000',
        RESPONSE_CACHE: 'on',
        RESPONSE_CACHE_MAX_BYTES: '1048576',
        WEBHOOK_ENCRYPTION_KEY: 'cd'.repeat(32),
        WEBHOOK_PREVIOUS_ENCRYPTION_KEYS: `${'ef'.repeat(32)},${'A'.repeat(43)}=`,
        WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/8, fd00::/8',
        WEBHOOK_TIMEOUT_MS: '5000',
        WEBHOOK_WORKER_INTERVAL_MS: '250',
        WEBHOOK_RETENTION_DAYS: '14',
        S3_BUCKET: 'adoption-photos',
        S3_ENDPOINT: 'https://s3.example.net',
        S3_REGION: 'eu-west-3',
        S3_FORCE_PATH_STYLE: 'false',
        S3_PREFIX: 'store-a/',
        MEDIA_BASE_URL: 'https://cdn.example.com/media',
        PHOTO_MAX_BYTES: '10485760',
        MEDIA_CACHE_MAX_BYTES: '0',
        PHOTO_MAX_PIXELS: '24000000',
        PHOTO_PROCESSING_CONCURRENCY: '3',
        PHOTO_SWEEP_INTERVAL_MS: '600000',
      },
    )
    assert.deepEqual(
      { ...config },
      {
        port: 3000,
        host: '0.0.0.0',
        dataDir: path.resolve('var/store'),
        databaseUrl: 'postgres://user:pw@db:5432/store',
        databasePoolSize: 25,
        databaseTimeoutMs: 2000,
        environment: 'staging',
        publicBaseUrl: 'https://api.example.com/v1',
        stagingBaseUrl: 'https://staging.example.com/v1',
        logLevel: 'debug',
        bodyLimit: 2048,
        maxConnections: 500,
        redisUrl: 'redis://cache:6379/2',
        redisKeyPrefix: 'store-a:',
        redisTimeoutMs: 100,
        trustProxy: '10.0.0.0/8, 127.0.0.1',
        platformDomain: 'stores.example.com',
        platformDnsTarget: 'edge.example.net',
        dnsResolvers: ['192.0.2.53', '[2001:db8::53]:5353'],
        adminToken: 'x'.repeat(40),
        httpsPort: 8443,
        acmeDirectoryUrl: 'https://acme.example.net/directory',
        acmeEmail: 'ops@example.com',
        acmeCaFile: '/etc/ssl/acme-ca.pem',
        acmeCaaDomains: ['example.net', 'example.org'],
        certificateEncryptionKey: 'ab'.repeat(32),
        domainWorkerIntervalMs: 5000,
        responseCacheBytes: 1048576,
        webhookEncryptionKey: 'cd'.repeat(32),
        webhookPreviousEncryptionKeys: ['ef'.repeat(32), `${'A'.repeat(43)}=`],
        webhookAllowedNetworks: ['10.0.0.0/8', 'fd00::/8'],
        webhookTimeoutMs: 5000,
        webhookWorkerIntervalMs: 250,
        webhookRetentionDays: 14,
        s3Bucket: 'adoption-photos',
        s3Endpoint: 'https://s3.example.net',
        s3Region: 'eu-west-3',
        s3ForcePathStyle: false,
        s3Prefix: 'store-a/',
        mediaBaseUrl: 'https://cdn.example.com/media',
        photoMaxBytes: 10485760,
        mediaCacheBytes: 0,
        photoMaxPixels: 24000000,
        photoProcessingConcurrency: 3,
        photoSweepIntervalMs: 600000,
      },
    )
  })

  test('WEBHOOK_ALLOWED_NETWORKS takes CIDR ranges only, and names the one that is not', () => {
    assert.throws(() => loadConfig({}, { WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/8,10.0.0.1' }), /WEBHOOK_ALLOWED_NETWORKS must be comma-separated CIDR ranges .*"10.0.0.1" is not one/)
    assert.throws(() => loadConfig({}, { WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/33' }), /"10.0.0.0\/33" is not one/)
    assert.throws(() => loadConfig({}, { WEBHOOK_ALLOWED_NETWORKS: 'localhost' }), /WEBHOOK_ALLOWED_NETWORKS must be comma-separated CIDR ranges/)
  })

  test('DNS_RESOLVERS takes IP addresses with an optional port, and names the entry that is not one', () => {
    assert.deepEqual(loadConfig({}, { DNS_RESOLVERS: '1.1.1.1, 9.9.9.9:53,2606:4700:4700::1111,[2620:fe::fe]:5353,[8.8.8.8]:53' }).dnsResolvers, ['1.1.1.1', '9.9.9.9:53', '2606:4700:4700::1111', '[2620:fe::fe]:5353', '[8.8.8.8]:53'])
    // Letters of hexadecimal digits alone were let through, and failed later in node:dns with a
    // stack trace; port 0 there aborts the whole process.
    for (const bad of ['bad', '1.1.1', '1.1.1.1:0', '1.1.1.1:65536', '[::1', 'dead:beef']) {
      assert.throws(() => loadConfig({}, { DNS_RESOLVERS: `1.1.1.1,${bad}` }), new RegExp(`^ConfigError: Invalid configuration: DNS_RESOLVERS must be comma-separated IP addresses, each with an optional :port .*"${bad.replace(/[[\]]/g, '\\$&')}" is not one$`), bad)
    }
    // Characters no address has are refused by the variable's pattern first, in the same words.
    assert.throws(() => loadConfig({}, { DNS_RESOLVERS: '1.1.1.1:dns' }), /^ConfigError: Invalid configuration: DNS_RESOLVERS must be comma-separated IP addresses, each with an optional :port/)
  })

  test('HTTPS_PORT must differ from PORT (both 0 ask the system for two ports)', () => {
    assert.throws(() => loadConfig({}, { PORT: '8080', HTTPS_PORT: '8080' }), /^ConfigError: Invalid configuration: HTTPS_PORT is 8080, the port of PORT too: the HTTPS listener needs a port of its own \(e\.g\. HTTPS_PORT=8443\)$/)
    assert.throws(() => loadConfig({ PORT: 8443 }, { HTTPS_PORT: '8443' }), /HTTPS_PORT is 8443, the port of PORT too/, 'the port given as --port')
    assert.equal(loadConfig({}, { PORT: '0', HTTPS_PORT: '0' }).httpsPort, 0)
    assert.equal(loadConfig({}, { PORT: '8080', HTTPS_PORT: '8443' }).httpsPort, 8443)
  })

  test('RESPONSE_CACHE=off turns the response cache off whatever its budget', () => {
    assert.equal(loadConfig({}, { RESPONSE_CACHE: 'off', RESPONSE_CACHE_MAX_BYTES: '1048576' }).responseCacheBytes, 0)
    assert.throws(() => loadConfig({}, { RESPONSE_CACHE: 'no' }), /RESPONSE_CACHE .*\(on, off\)/)
  })

  test('TRUST_PROXY takes true, false, a hop count or a list of addresses', () => {
    assert.equal(loadConfig({}, { TRUST_PROXY: 'true' }).trustProxy, true)
    assert.equal(loadConfig({}, { TRUST_PROXY: 'false' }).trustProxy, false)
    assert.equal(loadConfig({}, { TRUST_PROXY: '2' }).trustProxy, 2)
    assert.equal(loadConfig({}, { TRUST_PROXY: '127.0.0.1,::1' }).trustProxy, '127.0.0.1,::1')
    assert.throws(() => loadConfig({}, { TRUST_PROXY: 'yes please' }), /TRUST_PROXY/)
    assert.throws(() => loadConfig({}, { REDIS_URL: 'http://cache' }), /REDIS_URL/)
  })

  test('postgresql:// is accepted as well as postgres://', () => {
    assert.equal(loadConfig({}, { DATABASE_URL: 'postgresql://db/store' }).databaseUrl, 'postgresql://db/store')
  })

  test('overrides win over the environment, variable by variable', () => {
    const config = loadConfig({ PORT: 9001, LOG_LEVEL: 'warn' }, { PORT: '9000', LOG_LEVEL: 'debug', HOST: '0.0.0.0' })
    assert.equal(config.port, 9001)
    assert.equal(config.logLevel, 'warn')
    assert.equal(config.host, '0.0.0.0', 'a variable without an override still applies')
    assert.equal(loadConfig({ PORT: '9002' }, { PORT: '9000' }).port, 9002, 'a string override too')
  })

  test('an invalid override is refused like an invalid variable', () => {
    assert.throws(() => loadConfig({ PORT: 'abc' }, { PORT: '9000' }), (error: unknown) => error instanceof ConfigError && /PORT/.test(error.message))
  })

  test('an empty string means unset', () => {
    const config = loadConfig(
      {},
      { PORT: '', HOST: '', DATA_DIR: '', DATABASE_URL: '', ENVIRONMENT: '', PUBLIC_BASE_URL: '', STAGING_BASE_URL: '', LOG_LEVEL: '', BODY_LIMIT: '' },
    )
    assert.deepEqual({ ...config }, { ...loadConfig({}, {}) })
  })

  test('the variables\' schema is a valid JSON Schema (the parse does not check it against the meta-schema)', () => {
    const ajv = new Ajv({ allowUnionTypes: true })
    assert.equal(ajv.validateSchema(EnvSchema), true, ajv.errorsText())
    assert.equal(ajv.validateSchema({ ...EnvSchema, properties: { PORT: { type: 'integr' } } }), false, 'the check can fail')
  })

  test('the compiled validator is the one EnvSchema makes today (npm run config:validator writes it)', () => {
    assert.equal(fs.readFileSync(CONFIG_VALIDATOR_FILE, 'utf8'), configValidatorSource(), 'src/config-validator.ts is out of date: run npm run config:validator')
    const changed = { ...EnvSchema, properties: { ...EnvSchema.properties, PORT: { ...EnvSchema.properties.PORT, maximum: 65534 } } }
    assert.notEqual(configValidatorSource(changed), configValidatorSource(), 'a change of the schema changes the code')
  })

  test('the result is frozen', () => {
    const config = loadConfig({}, {})
    assert.ok(Object.isFrozen(config))
    assert.throws(() => {
      ;(config as { port: number }).port = 1
    }, TypeError)
    assert.equal(config.port, 8080)
  })
})

describe('loadConfig refuses invalid values with a ConfigError naming the variable', () => {
  const cases: [variable: string, value: string, message: RegExp][] = [
    ['PORT', 'abc', /PORT must be integer/],
    ['PORT', '80.5', /PORT must be integer/],
    ['PORT', '70000', /PORT must be <= 65535/],
    ['PORT', '-1', /PORT must be >= 0/],
    ['ENVIRONMENT', 'dev', /ENVIRONMENT .*\(production, staging\)/],
    ['ENVIRONMENT', 'Production', /ENVIRONMENT .*\(production, staging\)/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL .*\(fatal, error, warn, info, debug, trace, silent\)/],
    ['BODY_LIMIT', '1mb', /BODY_LIMIT must be integer/],
    ['BODY_LIMIT', '100', /BODY_LIMIT must be >= 1024/],
    ['MAX_CONNECTIONS', '10', /MAX_CONNECTIONS must be >= 16/],
    ['MAX_CONNECTIONS', 'lots', /MAX_CONNECTIONS must be integer/],
    ['DATABASE_URL', 'mysql://x', /DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/],
    ['DATABASE_URL', 'sqlite:./data.db', /DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/],
    ['PUBLIC_BASE_URL', 'https://api.example.com', /PUBLIC_BASE_URL must be an http:\/\/ or https:\/\/ URL ending in \/v1/],
    ['PUBLIC_BASE_URL', 'https://api.example.com/v1/', /PUBLIC_BASE_URL must be an http:\/\/ or https:\/\/ URL ending in \/v1/],
    ['PUBLIC_BASE_URL', 'api.example.com/v1', /PUBLIC_BASE_URL must be an http:\/\/ or https:\/\/ URL ending in \/v1/],
    ['STAGING_BASE_URL', 'https://staging.example.com/v2', /STAGING_BASE_URL must be an http:\/\/ or https:\/\/ URL ending in \/v1/],
    // A length counts characters (code points), by a helper of Ajv's that the compiled validator imports.
    ['S3_REGION', 'x'.repeat(65), /S3_REGION must NOT have more than 64 characters/],
  ]
  for (const [variable, value, message] of cases) {
    test(`${variable}=${value}`, () => {
      assert.throws(
        () => loadConfig({}, { [variable]: value }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError, `not a ConfigError: ${String(error)}`)
          assert.equal(error.name, 'ConfigError')
          assert.match(error.message, /^Invalid configuration: /)
          assert.match(error.message, message)
          return true
        },
      )
    })
  }

  test('several invalid variables are all named', () => {
    assert.throws(
      () => loadConfig({}, { PORT: 'abc', LOG_LEVEL: 'loud' }),
      (error: unknown) => error instanceof ConfigError && /PORT/.test(error.message) && /LOG_LEVEL/.test(error.message),
    )
  })
})

describe('configuration errors in words', () => {
  // Every variable with a pattern, taken from the schema itself: a new one without words fails here.
  const patterned = Object.entries(EnvSchema.properties as Record<string, { pattern?: string }>).filter(([, schema]) => schema.pattern)
  test('there are variables with patterns to check', () => assert.ok(patterned.length >= 10, String(patterned.length)))
  for (const [name, schema] of patterned) {
    test(`${name}: an invalid value is described, not matched against a regular expression`, () => {
      assert.throws(
        () => loadConfig({}, { [name]: 'not valid \u0001 at all' }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError)
          assert.match(error.message, new RegExp(`^Invalid configuration: ${name} must be [a-z0-9]`))
          assert.doesNotMatch(error.message, /pattern|\^|\$|\\x|\[\\/, error.message)
          assert.ok(!error.message.includes(schema.pattern!), error.message)
          return true
        },
      )
    })
  }
})

describe('loadConfig custom domains', () => {
  test('the DNS target defaults to the platform domain', () => {
    const config = loadConfig({}, { PLATFORM_DOMAIN: 'stores.example.com' })
    assert.equal(config.platformDnsTarget, 'stores.example.com')
  })

  test('invalid values stop start-up naming the variable', () => {
    for (const [name, value] of [
      ['PLATFORM_DOMAIN', 'Stores.Example.com'],
      ['PLATFORM_DOMAIN', 'localhost'],
      ['PLATFORM_DNS_TARGET', 'https://edge.example.net'],
      ['DNS_RESOLVERS', 'dns.google'],
      ['ADMIN_TOKEN', 'short'],
      ['HTTPS_PORT', '70000'],
      ['CERTIFICATE_ENCRYPTION_KEY', 'not-a-key'],
      ['ACME_CAA_DOMAINS', 'Lets Encrypt'],
    ]) {
      assert.throws(() => loadConfig({}, { [name as string]: value }), new RegExp(name as string), `${name}=${value}`)
    }
  })
})


describe('secrets of the configuration', () => {
  test('configuredSecrets finds the passwords of connection URLs however they are broken, and the tokens and keys', () => {
    const env = {
      DATABASE_URL: 'postgres://adoption:se#cr/et@127.0.0.1:5432/x?sslmode=require&password=other%23pw',
      REDIS_URL: 'redis://:r3dis%40pw@127.0.0.1:6379',
      ADMIN_TOKEN: 'a'.repeat(40),
    }
    const secrets = configuredSecrets({}, env)
    for (const secret of ['se#cr/et', 'other%23pw', 'other#pw', 'r3dis%40pw', 'r3dis@pw', env.ADMIN_TOKEN, env.DATABASE_URL, env.REDIS_URL]) assert.ok(secrets.includes(secret), secret)
    assert.deepEqual(configuredSecrets({ DATABASE_URL: 'postgres://u:flag-pw@h/x' }, {}).includes('flag-pw'), true, 'a flag counts too')
  })

  test('redactedUrl masks the password and password-like query parameters', () => {
    assert.equal(redactedUrl('postgres://u:pw@h:5432/x?sslmode=require&password=pw2&sslpassword=pw3'), 'postgres://u:***@h:5432/x?sslmode=require&password=***&sslpassword=***')
    assert.equal(redactedUrl('postgres://u:pw#x@h/x'), '(a URL that cannot be read)')
  })
})
