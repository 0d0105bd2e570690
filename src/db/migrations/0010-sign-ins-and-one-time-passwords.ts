import type { Kysely } from 'kysely'

// Frozen: this migration has run on deployed databases. Change the schema in a new migration.

export async function up(db: Kysely<unknown>): Promise<void> {
  // When the user last signed in, for operators' lists; written by each sign-in.
  await db.schema.alterTable('users').addColumn('last_signed_in_at', 'varchar(32)').execute()
  // Set while the stored password is a one-time password (generated at creation or by a reset)
  // that its user has not replaced yet: it opens no session, it only lets them choose their own
  // at sign-in, until this instant. Null once they chose their own.
  await db.schema.alterTable('users').addColumn('one_time_password_expires_at', 'varchar(32)').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('one_time_password_expires_at').execute()
  await db.schema.alterTable('users').dropColumn('last_signed_in_at').execute()
}
