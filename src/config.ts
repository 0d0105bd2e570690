import path from 'node:path'
import { isIP } from 'node:net'
import type { ErrorObject, ValidateFunction } from 'ajv'
import ipaddr from 'ipaddr.js'
import { Type, type Static } from 'typebox'
import { validate } from './config-validator.js'

/**
 * The service's configuration: parsed once at boot into a frozen object.
 * This is the only module that reads `process.env`.
 */
export interface Config {
  readonly port: number
  readonly host: string
  readonly dataDir: string
  /** Absent: an SQLite file in `dataDir`. */
  readonly databaseUrl: string | undefined
  /** PostgreSQL: connections per instance. */
  readonly databasePoolSize: number
  /** PostgreSQL: longest a statement may run, and longest wait for a connection, in milliseconds. */
  readonly databaseTimeoutMs: number
  readonly environment: Environment
  readonly publicBaseUrl: string
  readonly stagingBaseUrl: string
  readonly logLevel: LogLevel
  readonly bodyLimit: number
  /** Connections open at once per listener; more are closed as soon as they are accepted. */
  readonly maxConnections: number
  /** Absent: rate-limit counters and bans live in this process. */
  readonly redisUrl: string | undefined
  /** Namespace of every Redis key, so several deployments can share one server. */
  readonly redisKeyPrefix: string
  /** Longest wait for one Redis command before falling back to the in-process limiter. */
  readonly redisTimeoutMs: number
  /** Fastify's trustProxy: whether (or which) proxies' X-Forwarded-For gives the client address. */
  readonly trustProxy: boolean | number | string
  /** Custom domains and host routing: each project is served at `<slug>.<platformDomain>`. Absent: no host routing. */
  readonly platformDomain: string | undefined
  /** The name customers point their CNAME (or ALIAS/ANAME) records at; defaults to `platformDomain`. */
  readonly platformDnsTarget: string | undefined
  /** DNS servers (`ip` or `ip:port`) that domain verification and CAA checks ask; empty: the system's. */
  readonly dnsResolvers: readonly string[]
  /** Bearer token of the operator's admin API (`/admin/v1`); absent: the admin API is disabled. */
  readonly adminToken: string | undefined
  /** Port of the HTTPS listener that serves custom domains with their certificates (SNI); absent: none. */
  readonly httpsPort: number | undefined
  /** ACME directory of the certificate authority. */
  readonly acmeDirectoryUrl: string
  /** Contact address given to the certificate authority, if any. */
  readonly acmeEmail: string | undefined
  /** A PEM file of extra CA certificates trusted for the ACME directory's own HTTPS (a private CA). */
  readonly acmeCaFile: string | undefined
  /** Issuer domain names of the CA, as CAA records name it (`issue "letsencrypt.org"`). */
  readonly acmeCaaDomains: readonly string[]
  /** 32-byte key (base64 or hex) that encrypts certificate and ACME account private keys; absent: no certificates. */
  readonly certificateEncryptionKey: string | undefined
  /** How often each instance looks for due domain checks and certificate work. */
  readonly domainWorkerIntervalMs: number
  /** Serialized /v1 read answers kept per instance, in bytes (an estimate); 0: no response cache. */
  readonly responseCacheBytes: number
  /** 32-byte key (base64 or hex) that seals webhook signing secrets; absent: CERTIFICATE_ENCRYPTION_KEY, else no webhooks. */
  readonly webhookEncryptionKey: string | undefined
  /** Keys that sealed webhook secrets before `webhookEncryptionKey`: they still open them (a rotation of the key). */
  readonly webhookPreviousEncryptionKeys: readonly string[]
  /** Networks (CIDR) webhooks may reach although they are private, loopback or link-local; plain http only to these. */
  readonly webhookAllowedNetworks: readonly string[]
  /** Longest one webhook attempt may take, from connecting to the end of the answer. */
  readonly webhookTimeoutMs: number
  /** How often each instance looks for due webhook deliveries (new events are also sent at once). */
  readonly webhookWorkerIntervalMs: number
  /** How long webhook events and finished deliveries are kept: the event list, recovery and replay reach this far back. */
  readonly webhookRetentionDays: number
  /** The bucket photos are kept in; absent: files under `dataDir`/media. */
  readonly s3Bucket: string | undefined
  /** An S3-compatible endpoint (MinIO, R2…); absent: AWS S3 itself. */
  readonly s3Endpoint: string | undefined
  readonly s3Region: string
  /** Path-style bucket addresses; default: on with an endpoint (what S3-compatible stores expect), off on AWS. */
  readonly s3ForcePathStyle: boolean
  /** Prefix of every key in the bucket, so several deployments can share one. */
  readonly s3Prefix: string
  /** Where photos are served from, without a trailing slash; default: PUBLIC_BASE_URL's origin + `/media`. */
  readonly mediaBaseUrl: string
  /** Largest photo upload, in bytes. */
  readonly photoMaxBytes: number
  /** Memory for the bytes of small media files per instance; 0: none kept. */
  readonly mediaCacheBytes: number
  /** Largest photo, in pixels (width × height), read from its header before it is decoded. */
  readonly photoMaxPixels: number
  /** Photos processed at once per instance; more wait their turn. */
  readonly photoProcessingConcurrency: number
  /** How often each instance sweeps stored photo files that no photo names (a crash's leftovers). */
  readonly photoSweepIntervalMs: number
}

export type Environment = 'production' | 'staging'
export type LogLevel = (typeof LOG_LEVELS)[number]

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
/** A lowercase DNS name of at least two labels, without a trailing dot. */
const HOSTNAME_PATTERN = '^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'
const HOSTNAME_WORDS = 'a lowercase DNS name of two or more labels, without a trailing dot (e.g. stores.example.com)'

export const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  DATA_DIR: Type.String({ minLength: 1, default: './data' }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://', description: 'a postgres:// or postgresql:// URL' })),
  DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
  DATABASE_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 600000, default: 5000 }),
  ENVIRONMENT: Type.Enum(['production', 'staging'], { default: 'production' }),
  PUBLIC_BASE_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+/v1$', description: 'an http:// or https:// URL ending in /v1' })),
  STAGING_BASE_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+/v1$', description: 'an http:// or https:// URL ending in /v1' })),
  LOG_LEVEL: Type.Enum(LOG_LEVELS, { default: 'info' }),
  BODY_LIMIT: Type.Integer({ minimum: 1024, maximum: 104857600, default: 1048576 }),
  MAX_CONNECTIONS: Type.Integer({ minimum: 16, maximum: 1000000, default: 10000 }),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://', description: 'a redis:// or rediss:// URL' })),
  REDIS_KEY_PREFIX: Type.String({ pattern: '^[A-Za-z0-9:_.-]{0,64}$', default: 'adoption-store:', description: 'up to 64 letters, digits and : _ . -' }),
  REDIS_TIMEOUT_MS: Type.Integer({ minimum: 10, maximum: 10000, default: 250 }),
  TRUST_PROXY: Type.String({
    pattern: '^(true|false|[0-9]{1,2}|[0-9A-Fa-f.:/, ]+)$',
    default: 'false',
    description: 'true, false, a hop count (0-99), or comma-separated proxy addresses and CIDR ranges',
  }),
  PLATFORM_DOMAIN: Type.Optional(Type.String({ pattern: HOSTNAME_PATTERN, description: HOSTNAME_WORDS })),
  PLATFORM_DNS_TARGET: Type.Optional(Type.String({ pattern: HOSTNAME_PATTERN, description: HOSTNAME_WORDS })),
  DNS_RESOLVERS: Type.Optional(Type.String({ pattern: '^[0-9A-Fa-f.:\\[\\], ]+$', description: 'comma-separated IP addresses, each with an optional :port' })),
  ADMIN_TOKEN: Type.Optional(Type.String({ pattern: '^[\\x21-\\x7e]{32,512}$', description: '32 to 512 printable ASCII characters, without spaces (e.g. openssl rand -hex 32)' })),
  HTTPS_PORT: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
  ACME_DIRECTORY_URL: Type.String({ pattern: '^https?://[^\\s]+$', default: 'https://acme-v02.api.letsencrypt.org/directory', description: 'an http:// or https:// URL' }),
  ACME_EMAIL: Type.Optional(Type.String({ pattern: '^[^\\s@]+@[^\\s@]+$', description: 'an email address' })),
  ACME_CA_FILE: Type.Optional(Type.String({ minLength: 1 })),
  ACME_CAA_DOMAINS: Type.String({ pattern: '^[a-z0-9.-]+(,[a-z0-9.-]+)*$', default: 'letsencrypt.org', description: 'comma-separated lowercase domain names, without spaces' }),
  CERTIFICATE_ENCRYPTION_KEY: Type.Optional(Type.String({ pattern: '^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$', description: '32 bytes as 64 hex or 44 base64 characters (e.g. openssl rand -hex 32)' })),
  DOMAIN_WORKER_INTERVAL_MS: Type.Integer({ minimum: 100, maximum: 3600000, default: 15000 }),
  RESPONSE_CACHE: Type.Enum(['on', 'off'], { default: 'on' }),
  RESPONSE_CACHE_MAX_BYTES: Type.Integer({ minimum: 0, maximum: 17179869184, default: 33554432 }),
  WEBHOOK_ENCRYPTION_KEY: Type.Optional(Type.String({ pattern: '^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$', description: '32 bytes as 64 hex or 44 base64 characters (e.g. openssl rand -hex 32)' })),
  WEBHOOK_PREVIOUS_ENCRYPTION_KEYS: Type.Optional(
    Type.String({ pattern: '^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)(,([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=))*$', description: 'comma-separated keys of 32 bytes, each as 64 hex or 44 base64 characters' }),
  ),
  WEBHOOK_ALLOWED_NETWORKS: Type.Optional(Type.String({ pattern: '^[0-9A-Fa-f.:/, ]+$', description: 'comma-separated CIDR ranges, e.g. 10.0.0.0/8,127.0.0.1/32' })),
  WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60000, default: 10000 }),
  WEBHOOK_WORKER_INTERVAL_MS: Type.Integer({ minimum: 50, maximum: 3600000, default: 1000 }),
  WEBHOOK_RETENTION_DAYS: Type.Integer({ minimum: 1, maximum: 365, default: 30 }),
  S3_BUCKET: Type.Optional(Type.String({ pattern: '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$', description: 'an S3 bucket name: 3 to 63 lowercase letters, digits, dots and hyphens' })),
  S3_ENDPOINT: Type.Optional(Type.String({ pattern: '^https?://[^\\s/]+/?$', description: 'an http:// or https:// URL of the S3-compatible server, without a path (e.g. http://127.0.0.1:9000)' })),
  S3_REGION: Type.String({ minLength: 1, maxLength: 64, default: 'us-east-1' }),
  S3_FORCE_PATH_STYLE: Type.Optional(Type.Enum(['true', 'false'])),
  S3_PREFIX: Type.String({ pattern: '^([A-Za-z0-9._-]+/)*$', default: '', description: 'empty, or folder names each ending in / (e.g. adoption-store/)' }),
  MEDIA_BASE_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+[^/]$', description: 'an http:// or https:// URL without a trailing slash' })),
  PHOTO_MAX_BYTES: Type.Integer({ minimum: 1024, maximum: 104857600, default: 20971520 }),
  MEDIA_CACHE_MAX_BYTES: Type.Integer({ minimum: 0, maximum: 17179869184, default: 33554432 }),
  PHOTO_MAX_PIXELS: Type.Integer({ minimum: 10000, maximum: 268402689, default: 50000000 }),
  PHOTO_PROCESSING_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 64, default: 1 }),
  PHOTO_SWEEP_INTERVAL_MS: Type.Integer({ minimum: 1000, maximum: 86400000, default: 3600000 }),
})

type Env = Static<typeof EnvSchema>

/** Values given on the command line; each overrides its environment variable. */
export type ConfigOverrides = Partial<Record<keyof Env, string | number>>

export class ConfigError extends Error {
  override name = 'ConfigError'
}

/**
 * Parses configuration from an environment (default `process.env`) and command-line overrides.
 * Throws a ConfigError naming the offending variable.
 */
export function loadConfig(overrides: ConfigOverrides = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const data: Record<string, unknown> = {}
  for (const key of Object.keys(EnvSchema.properties)) {
    const value = overrides[key as keyof Env] ?? env[key]
    // An empty variable means "not set", as in most shells' `VAR= command`.
    if (value !== undefined && value !== '') data[key] = value
  }
  const parsed = parseEnv(data)
  checkConnectionUrl('DATABASE_URL', parsed.DATABASE_URL)
  checkConnectionUrl('REDIS_URL', parsed.REDIS_URL)
  if (parsed.HTTPS_PORT !== undefined && parsed.HTTPS_PORT !== 0 && parsed.HTTPS_PORT === parsed.PORT) {
    throw new ConfigError(`Invalid configuration: HTTPS_PORT is ${parsed.HTTPS_PORT}, the port of PORT too: the HTTPS listener needs a port of its own (e.g. HTTPS_PORT=8443)`)
  }
  return configFrom(parsed)
}

/**
 * A connection URL its driver could not read would be printed by it (a TypeError carries its
 * input, a stack trace shows it), password included; one that parses with its password cut off
 * (an unescaped # after digits reads as a port and a fragment) would be shown by every message
 * that names it. Each is refused here, by its name and what is wrong, never its value.
 */
function checkConnectionUrl(name: 'DATABASE_URL' | 'REDIS_URL', value: string | undefined): void {
  if (value === undefined) return
  const refuse = (what: string) => new ConfigError(`Invalid configuration: ${name} ${what} (its value is not shown: it may hold a password)`)
  const reserved = refuse(
    'cannot be read as a URL of user, password, host, port and database: a character that URLs reserve in its user name or password (# / ? @ : [ ] or a space) must be percent-encoded (# as %23, / as %2F, ? as %3F, @ as %40, : as %3A)',
  )
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw reserved
  }
  // What follows the host never holds an @ or a fragment: those are a password cut short.
  if (url.hash !== '' || value.includes('#') || `${url.pathname}${url.search}`.includes('@')) throw reserved
  try {
    decodeURIComponent(url.username)
    decodeURIComponent(url.password)
  } catch {
    throw refuse('has a % in its user name or password that does not start an escape: write a % as %25')
  }
}

/** A connection URL as a message may show it: its password, and any password-like query parameter, masked. */
export function redactedUrl(value: string): string {
  try {
    const url = new URL(value)
    if (url.password) url.password = '***'
    for (const key of [...url.searchParams.keys()]) if (/pass|secret|token/i.test(key)) url.searchParams.set(key, '***')
    return url.toString()
  } catch {
    return '(a URL that cannot be read)'
  }
}

/**
 * The secret values of the configuration as given (environment and command-line overrides),
 * whether or not they are valid: what an unexpected failure's message must not show. Connection
 * URLs count whole, and their passwords alone, as written and decoded.
 */
export function configuredSecrets(overrides: ConfigOverrides = {}, env: NodeJS.ProcessEnv = process.env): string[] {
  const value = (key: keyof Env) => {
    const given = overrides[key] ?? env[key]
    return given === undefined || given === '' ? undefined : String(given)
  }
  const secrets: string[] = []
  for (const key of ['ADMIN_TOKEN', 'CERTIFICATE_ENCRYPTION_KEY', 'WEBHOOK_ENCRYPTION_KEY', 'WEBHOOK_PREVIOUS_ENCRYPTION_KEYS'] as const) {
    const given = value(key)
    if (given) secrets.push(given, ...given.split(','))
  }
  for (const key of ['DATABASE_URL', 'REDIS_URL'] as const) {
    const given = value(key)
    if (!given) continue
    secrets.push(given)
    // The password as written, however the URL is broken: between the scheme's user and the last @.
    const userInfo = /^[a-z]+:\/\/([^@]*)@/i.exec(given)?.[1] ?? /^[a-z]+:\/\/(.*)@/i.exec(given)?.[1]
    const password = userInfo?.includes(':') ? userInfo.slice(userInfo.indexOf(':') + 1) : undefined
    if (password) secrets.push(password, safeDecode(password))
    for (const match of given.matchAll(/[?&][^=&#]*(?:pass|secret|token)[^=&#]*=([^&#]*)/gi)) if (match[1]) secrets.push(match[1], safeDecode(match[1]))
  }
  // Longest first, so a secret that contains another is removed whole.
  return [...new Set(secrets)].filter((secret) => secret.length >= 4).sort((a, b) => b.length - a.length)
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

/** Builds a Config from explicit values; what tests and embedding programs use. */
export function defineConfig(values: Partial<Config> = {}): Config {
  return configFrom(parseEnv({}), values)
}

function configFrom(env: Env, values: Partial<Config> = {}): Config {
  const port = values.port ?? env.PORT
  return Object.freeze({
    port,
    host: env.HOST,
    dataDir: path.resolve(env.DATA_DIR),
    databaseUrl: env.DATABASE_URL,
    databasePoolSize: env.DATABASE_POOL_SIZE,
    databaseTimeoutMs: env.DATABASE_TIMEOUT_MS,
    environment: env.ENVIRONMENT,
    publicBaseUrl: env.PUBLIC_BASE_URL ?? `http://localhost:${port}/v1`,
    stagingBaseUrl: env.STAGING_BASE_URL ?? `http://staging.localhost:${port}/v1`,
    logLevel: env.LOG_LEVEL,
    bodyLimit: env.BODY_LIMIT,
    maxConnections: env.MAX_CONNECTIONS,
    redisUrl: env.REDIS_URL,
    redisKeyPrefix: env.REDIS_KEY_PREFIX,
    redisTimeoutMs: env.REDIS_TIMEOUT_MS,
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    platformDomain: env.PLATFORM_DOMAIN,
    platformDnsTarget: values.platformDnsTarget ?? env.PLATFORM_DNS_TARGET ?? values.platformDomain ?? env.PLATFORM_DOMAIN,
    dnsResolvers: parseResolvers(env.DNS_RESOLVERS),
    adminToken: env.ADMIN_TOKEN,
    httpsPort: env.HTTPS_PORT,
    acmeDirectoryUrl: env.ACME_DIRECTORY_URL,
    acmeEmail: env.ACME_EMAIL,
    acmeCaFile: env.ACME_CA_FILE,
    acmeCaaDomains: splitList(env.ACME_CAA_DOMAINS),
    certificateEncryptionKey: env.CERTIFICATE_ENCRYPTION_KEY,
    domainWorkerIntervalMs: env.DOMAIN_WORKER_INTERVAL_MS,
    responseCacheBytes: env.RESPONSE_CACHE === 'off' ? 0 : env.RESPONSE_CACHE_MAX_BYTES,
    webhookEncryptionKey: env.WEBHOOK_ENCRYPTION_KEY,
    webhookPreviousEncryptionKeys: env.WEBHOOK_PREVIOUS_ENCRYPTION_KEYS?.split(',') ?? [],
    webhookAllowedNetworks: parseNetworks(env.WEBHOOK_ALLOWED_NETWORKS),
    webhookTimeoutMs: env.WEBHOOK_TIMEOUT_MS,
    webhookWorkerIntervalMs: env.WEBHOOK_WORKER_INTERVAL_MS,
    webhookRetentionDays: env.WEBHOOK_RETENTION_DAYS,
    s3Bucket: env.S3_BUCKET,
    s3Endpoint: env.S3_ENDPOINT?.replace(/\/$/, ''),
    s3Region: env.S3_REGION,
    s3ForcePathStyle: env.S3_FORCE_PATH_STYLE === undefined ? env.S3_ENDPOINT !== undefined : env.S3_FORCE_PATH_STYLE === 'true',
    s3Prefix: env.S3_PREFIX,
    mediaBaseUrl: env.MEDIA_BASE_URL ?? `${new URL(values.publicBaseUrl ?? env.PUBLIC_BASE_URL ?? `http://localhost:${port}/v1`).origin}/media`,
    photoMaxBytes: env.PHOTO_MAX_BYTES,
    mediaCacheBytes: env.MEDIA_CACHE_MAX_BYTES,
    photoMaxPixels: env.PHOTO_MAX_PIXELS,
    photoProcessingConcurrency: env.PHOTO_PROCESSING_CONCURRENCY,
    photoSweepIntervalMs: env.PHOTO_SWEEP_INTERVAL_MS,
    ...values,
  })
}

/** CIDR ranges, each checked: a typo must stop the start, not quietly block or allow. */
function parseNetworks(value: string | undefined): string[] {
  const networks = splitList(value)
  for (const network of networks) {
    if (!ipaddr.isValidCIDR(network)) throw new ConfigError(`Invalid configuration: WEBHOOK_ALLOWED_NETWORKS must be comma-separated CIDR ranges (e.g. 10.0.0.0/8); "${network}" is not one`)
  }
  return networks
}

/** What node:dns `setServers` takes: IP addresses, each with an optional port (IPv6 in brackets then). */
function parseResolvers(value: string | undefined): string[] {
  const resolvers = splitList(value)
  for (const resolver of resolvers) {
    const [, address = resolver, port] = /^\[([^\]]+)\](?::(\d+))?$/.exec(resolver) ?? /^([^:]+)(?::(\d+))?$/.exec(resolver) ?? []
    if (isIP(address) === 0 || (port !== undefined && !(Number(port) >= 1 && Number(port) <= 65535))) {
      throw new ConfigError(
        `Invalid configuration: DNS_RESOLVERS must be comma-separated IP addresses, each with an optional :port (e.g. 1.1.1.1,9.9.9.9:53 or [2606:4700:4700::1111]:53); "${resolver}" is not one`,
      )
    }
  }
  return resolvers
}

function splitList(value: string | undefined): string[] {
  return (value ?? '').split(',').map((item) => item.trim()).filter(Boolean)
}

/** `true`/`false`, a hop count, or a comma-separated list of proxy addresses and CIDR ranges. */
function parseTrustProxy(value: string): boolean | number | string {
  if (value === 'true') return true
  if (value === 'false') return false
  return /^[0-9]+$/.test(value) ? Number(value) : value
}

/**
 * EnvSchema's validator (with the options below), compiled ahead of time: src/config-validator.ts,
 * written by `npm run config:validator`. The schema is the service's own, so it is checked against
 * the JSON Schema meta-schema by the tests (config.test.ts), not here.
 */
const validateEnv = validate as ValidateFunction<Env>

/** The variables as the service reads them: text converted to the declared types, defaults filled in, every offending variable reported. */
function parseEnv(data: Record<string, unknown>): Env {
  const env = { ...data }
  if (!validateEnv(env)) throw new ConfigError(`Invalid configuration: ${describeEnvError(validateEnv.errors ?? [])}`)
  return env
}

/** Options of the environment's validator; additional properties are removed. */
export const ENV_VALIDATION = { allErrors: true, coerceTypes: true, useDefaults: true, removeAdditional: true, allowUnionTypes: true, validateSchema: false } as const

/** One line naming each offending variable and what it must be, in words: never a regular expression. */
function describeEnvError(details: ErrorObject[]): string {
  const properties = EnvSchema.properties as Record<string, { description?: string }>
  return details
    .map(({ instancePath, keyword, message, params }) => {
      const name = instancePath.slice(1)
      const words = properties[name]?.description
      if (keyword === 'pattern' && words) return `${name} must be ${words}`
      const allowed = params.allowedValues ? ` (${params.allowedValues.join(', ')})` : ''
      return `${name} ${message ?? 'is invalid'}${allowed}`
    })
    .join('; ')
}
