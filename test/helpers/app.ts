import { commandLineChange } from '../../src/audit/audit.js'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import type { ScryptCost } from '../../src/accounts/passwords.js'
import { type AppOptions, buildApp } from '../../src/app.js'
import type { Clock } from '../../src/clock.js'
import { type Config, defineConfig } from '../../src/config.js'
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../../src/db/database.js'
import type { Plan } from '../../src/db/schema.js'
import type { KeyRequest } from '../../src/keys/keys.service.js'
import { assertMatchesContract } from './contract.js'
import { copyMigratedSqlite, testDialect } from './databases.js'
import { testAppPostgresDatabase } from './postgres-pool.js'

/** A clock that stands still until a test moves it. */
export class ManualClock implements Clock {
  constructor(private ms = Date.UTC(2026, 10, 22, 12, 0, 0)) {}
  now(): number {
    return this.ms
  }
  set(ms: number): void {
    this.ms = ms
  }
  advance(ms: number): void {
    this.ms += ms
  }
}

export interface TestApp {
  app: FastifyInstance
  database: DatabaseHandle
  config: Config
  clock: Clock
  /** `inject`, and the response checked against the app's own OpenAPI document. */
  request(options: InjectOptions): Promise<LightMyRequestResponse>
  /** A new project with one key; answers its slug, id and the key's secret. */
  project(options?: ProjectOptions): Promise<{ slug: string; id: number; key: string }>
  /** Another key for an existing project. */
  key(project: string, options?: Omit<KeyRequest, 'project'>): Promise<{ id: string; secret: string }>
  /** Closes the app and builds a new one on the same data, as a process restart would. */
  restart(): Promise<TestApp>
  /** A second instance on the same data and configuration; the caller closes it (its `close` keeps the data). */
  sibling(): Promise<TestApp>
  close(): Promise<void>
}

interface ProjectOptions {
  plan?: Plan
  perMinute?: number
  perDay?: number
}

/**
 * What a password hash costs in test apps: scrypt at the smallest cost the service verifies, about
 * a hundredth of the service's own. The suites are about who may do what, not about scrypt's cost;
 * test/accounts.test.ts checks the service's own parameters, and the built server's tests use them.
 */
export const TEST_PASSWORD_COST: ScryptCost = { ln: 10, r: 8, p: 1 }

export interface TestAppOptions {
  clock?: Clock
  config?: Partial<Config>
  /** What a new password hash costs; default: TEST_PASSWORD_COST. */
  passwordCost?: ScryptCost
  /** A pino instance to capture the app's log lines; default: no logs. */
  logger?: AppOptions['logger']
  /** Custom domains' back ends (DNS, certificate authority); default: from configuration. */
  domains?: AppOptions['domains']
}

let counter = 0

/**
 * A fresh app on a fresh database: an SQLite file in a temporary directory, or a new PostgreSQL
 * database when the suite runs with TEST_DIALECT=postgres.
 */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'adoption-store-test-'))
  // A database the test names itself is used as it is.
  const named = options.config !== undefined && 'databaseUrl' in options.config
  // Migrated once and copied: the migration at start then finds nothing to do.
  const postgres = testDialect === 'postgres' && !named ? await testAppPostgresDatabase() : undefined
  const config = { databaseUrl: postgres?.url, ...options.config }
  if (config.databaseUrl === undefined) await copyMigratedSqlite(dataDir)
  const removeData = async () => {
    fs.rmSync(dataDir, { recursive: true, force: true })
    await postgres?.drop()
  }
  return startTestApp(dataDir, { ...options, config }, removeData)
}

async function startTestApp(
  dataDir: string,
  options: TestAppOptions,
  /** Present for the instance that owns the data: removes it when that instance closes. */
  removeData?: () => Promise<void>,
): Promise<TestApp> {
  const config = defineConfig({ dataDir, logLevel: 'silent', ...options.config })
  const clock = options.clock ?? new ManualClock()
  const database = openDatabase(config)
  await migrateToLatest(database.db)
  const app = await buildApp({ config, database, clock, logger: options.logger ?? false, domains: options.domains, passwordCost: options.passwordCost ?? TEST_PASSWORD_COST })
  await app.ready()
  // Fixtures are made through the app's own services, as an operator's changes are.
  const { projects, keys } = app.services

  return {
    app,
    database,
    config,
    clock,
    async request(injectOptions) {
      const response = await app.inject(injectOptions)
      assertMatchesContract(app, injectOptions, response)
      return response
    },
    async project({ plan = 'free', perMinute, perDay } = {}) {
      const slug = `project-${process.pid}-${++counter}`
      const created = await projects.create(slug, { plan, perMinute, perDay }, commandLineChange())
      if (!created.ok) throw new Error(created.message)
      const key = await keys.create({ project: slug }, commandLineChange())
      if (!key.ok) throw new Error(key.message)
      return { slug, id: created.project.id, key: key.secret }
    },
    async key(project, keyOptions = {}) {
      const key = await keys.create({ project, ...keyOptions }, commandLineChange())
      if (!key.ok) throw new Error(key.message)
      return { id: key.key.id, secret: key.secret }
    },
    async restart() {
      await app.close()
      return startTestApp(dataDir, { ...options, clock }, removeData)
    },
    async sibling() {
      return startTestApp(dataDir, { ...options, clock })
    },
    async close() {
      await app.close()
      await removeData?.()
    },
  }
}

export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` }
}
