import { type Kysely, sql } from 'kysely'
import { idColumn } from './portable.js'

// Frozen: this migration has run on deployed databases. Change the schema in a new migration.

export async function up(db: Kysely<unknown>): Promise<void> {
  // A project's custom domains. A name belongs to at most one project. The domain's state (DNS
  // verification) and its certificate's state are kept side by side, each with its failure reason
  // and schedule; `lease_*` says which instance is working on the row until when.
  await db.schema
    .createTable('domains')
    .addColumn('id', ...idColumn(db))
    .addColumn('project_id', 'bigint', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'varchar(253)', (col) => col.notNull().unique())
    .addColumn('apex', 'integer', (col) => col.notNull())
    .addColumn('is_primary', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('redirect_to', 'varchar(253)')
    .addColumn('redirect_status', 'integer')
    .addColumn('state', 'varchar(16)', (col) => col.notNull())
    .addColumn('reason', 'text')
    .addColumn('checks', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('checks_since', 'varchar(32)', (col) => col.notNull())
    .addColumn('checked_at', 'varchar(32)')
    .addColumn('next_check_at', 'varchar(32)')
    .addColumn('verified_at', 'varchar(32)')
    .addColumn('cert_state', 'varchar(16)', (col) => col.notNull())
    .addColumn('cert_reason', 'text')
    .addColumn('cert_attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('cert_checked_at', 'varchar(32)')
    .addColumn('cert_next_at', 'varchar(32)')
    .addColumn('lease_holder', 'varchar(64)')
    .addColumn('lease_until', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .execute()
  await db.schema.createIndex('domains_project_idx').on('domains').columns(['project_id', 'id']).execute()
  await db.schema.createIndex('domains_next_check_idx').on('domains').column('next_check_at').execute()
  await db.schema.createIndex('domains_cert_next_idx').on('domains').column('cert_next_at').execute()
  // At most one primary domain per project.
  await sql`create unique index domains_primary_idx on domains (project_id) where is_primary = 1`.execute(db)

  // The certificate served for a domain; its private key is encrypted with the configured key.
  await db.schema
    .createTable('certificates')
    .addColumn('domain_id', 'bigint', (col) => col.primaryKey().references('domains.id').onDelete('cascade'))
    .addColumn('certificate_pem', 'text', (col) => col.notNull())
    .addColumn('private_key', 'text', (col) => col.notNull())
    .addColumn('not_before', 'varchar(32)', (col) => col.notNull())
    .addColumn('not_after', 'varchar(32)', (col) => col.notNull())
    .addColumn('renew_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('issued_at', 'varchar(32)', (col) => col.notNull())
    .execute()

  // HTTP-01 challenges in flight, answered by every instance for their own host only.
  await db.schema
    .createTable('acme_challenges')
    .addColumn('token', 'varchar(255)', (col) => col.primaryKey())
    .addColumn('domain_id', 'bigint', (col) => col.notNull().references('domains.id').onDelete('cascade'))
    .addColumn('host', 'varchar(253)', (col) => col.notNull())
    .addColumn('key_authorization', 'text', (col) => col.notNull())
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .execute()

  // One ACME account per certificate authority; its private key is encrypted.
  await db.schema
    .createTable('acme_accounts')
    .addColumn('directory_url', 'varchar(500)', (col) => col.primaryKey())
    .addColumn('private_key', 'text', (col) => col.notNull())
    .addColumn('account_url', 'varchar(500)')
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .execute()

  // A counter bumped with every change that affects host routing or certificates: instances
  // compare it to drop what they cached.
  await db.schema
    .createTable('routing_state')
    .addColumn('id', 'integer', (col) => col.primaryKey())
    .addColumn('generation', 'bigint', (col) => col.notNull())
    .execute()
  await sql`insert into routing_state (id, generation) values (1, 0)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['routing_state', 'acme_accounts', 'acme_challenges', 'certificates', 'domains']) {
    await db.schema.dropTable(table).execute()
  }
}
