import { type Kysely, sql } from 'kysely'
import { idColumn, isPostgres } from './portable.js'

// Frozen: this migration has run on deployed databases. Change the schema in a new migration.

/**
 * Adoption records outlive their animal: removing an animal used to delete its orders with it
 * (`orders.pet_id` referenced `pets.id` ON DELETE CASCADE), delivered adoptions included. The
 * reference is dropped: `pet_id` stays the id of the animal (ids are never reused), and
 * `pet_name` keeps its name once it is removed. And `pets.name_folded`, the name in lower case as
 * the service folds it (`String#toLowerCase`), makes the admin name search match the same rows on
 * both dialects (SQLite's `lower()` folds ASCII only, PostgreSQL's follows the server's locale).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    // The name PostgreSQL gave the inline reference of migration 0003 (`<table>_<column>_fkey`).
    await sql`alter table orders drop constraint orders_pet_id_fkey`.execute(db)
    await db.schema.alterTable('orders').addColumn('pet_name', 'varchar(100)').execute()
  } else {
    // SQLite cannot drop a constraint: the table is rebuilt in one transaction, as SQLite's own
    // procedure for other schema changes says, keeping its rows, ids, indexes and triggers.
    await db.transaction().execute(rebuildSqliteOrders)
  }
  // The open-order check of a removal, and the copy of the name onto an animal's orders.
  await db.schema.createIndex('orders_project_pet_idx').on('orders').columns(['project_id', 'pet_id']).execute()

  await db.schema.alterTable('pets').addColumn('name_folded', 'text').execute()
  await backfillFoldedNames(db)
}

async function rebuildSqliteOrders(trx: Kysely<unknown>): Promise<void> {
  // The indexes and triggers on the table (the cache generation triggers of 0007), re-created as
  // they are, and the AUTOINCREMENT counter, so that no id of a deleted order is given again.
  const { rows: attached } = await sql<{ sql: string }>`
    select sql from sqlite_master where tbl_name = 'orders' and type in ('index', 'trigger') and sql is not null`.execute(trx)
  const { rows: sequence } = await sql<{ seq: number }>`select seq from sqlite_sequence where name = 'orders'`.execute(trx)

  await trx.schema
    .createTable('orders_rebuilt')
    .addColumn('id', ...idColumn(trx))
    .addColumn('project_id', 'bigint', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('pet_id', 'bigint', (col) => col.notNull())
    .addColumn('status', 'varchar(16)', (col) => col.notNull())
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('updated_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('pet_name', 'varchar(100)')
    .execute()
  await sql`
    insert into orders_rebuilt (id, project_id, pet_id, status, created_at, updated_at)
    select id, project_id, pet_id, status, created_at, updated_at from orders`.execute(trx)
  await trx.schema.dropTable('orders').execute()
  await trx.schema.alterTable('orders_rebuilt').renameTo('orders').execute()
  for (const { sql: statement } of attached) await sql.raw(statement).execute(trx)
  const [last] = sequence
  if (last) await sql`update sqlite_sequence set seq = max(seq, cast(${last.seq} as integer)) where name = 'orders'`.execute(trx)
}

async function backfillFoldedNames(db: Kysely<unknown>): Promise<void> {
  for (let after = 0; ; ) {
    const { rows } = await sql<{ id: number; name: string }>`select id, name from pets where id > ${after} order by id limit 500`.execute(db)
    for (const { id, name } of rows) await sql`update pets set name_folded = ${name.toLowerCase()} where id = ${id}`.execute(db)
    const last = rows[rows.length - 1]
    if (!last) return
    after = Number(last.id)
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('pets').dropColumn('name_folded').execute()
  await db.schema.dropIndex('orders_project_pet_idx').execute()
  // Orders of removed animals have nothing to refer to: they go, as the cascade would have taken them.
  await sql`delete from orders where not exists (select 1 from pets where pets.id = orders.pet_id)`.execute(db)
  await db.schema.alterTable('orders').dropColumn('pet_name').execute()
  // SQLite keeps the rebuilt table without the reference: putting it back means another rebuild,
  // and the code of earlier versions never removes an animal, so it cannot tell the difference.
  if (isPostgres(db)) {
    await sql`alter table orders add constraint orders_pet_id_fkey foreign key (pet_id) references pets (id) on delete cascade`.execute(db)
  }
}
