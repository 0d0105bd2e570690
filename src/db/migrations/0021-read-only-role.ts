import { type Kysely, sql } from 'kysely'
import { isPostgres } from './portable.js'

// Frozen: this migration has run on deployed databases. Change the schema in a new migration.

/** The role `viewer`: a member of projects, like an owner, who may see them and change nothing. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await allowRoles(db, ['operator', 'owner', 'viewer'])
}

/** Viewers have no place in the older schema: their accounts (sessions, memberships) are deleted. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from users where role = 'viewer'`.execute(db)
  await allowRoles(db, ['operator', 'owner'])
}

async function allowRoles(db: Kysely<unknown>, roles: string[]): Promise<void> {
  const check = sql`role in (${sql.join(roles.map((role) => sql.lit(role)))})`
  if (isPostgres(db)) {
    await sql`alter table users drop constraint users_role_check`.execute(db)
    await sql`alter table users add constraint users_role_check check (${check})`.execute(db)
    return
  }
  // SQLite cannot change a CHECK constraint: the table is rebuilt. The migration runs in a
  // transaction, where foreign_keys cannot be turned off, and dropping `users` deletes the rows
  // that reference it (ON DELETE CASCADE): sessions and memberships are kept aside and put back,
  // and the references are checked at commit, once `users` is back under its name.
  await sql`pragma defer_foreign_keys = on`.execute(db)
  await sql`create temporary table kept_sessions as select * from sessions`.execute(db)
  await sql`create temporary table kept_user_projects as select * from user_projects`.execute(db)
  const { rows } = await sql<{ seq: number }>`select seq from sqlite_sequence where name = 'users'`.execute(db)
  await sql`
    create table users_rebuilt (
      id integer not null primary key autoincrement,
      email varchar(254) not null unique,
      password_hash varchar(255) not null,
      role varchar(16) not null,
      created_at varchar(32) not null,
      disabled_at varchar(32),
      last_signed_in_at varchar(32),
      one_time_password_expires_at varchar(32),
      constraint users_role_check check (${check})
    )`.execute(db)
  const columns = sql`id, email, password_hash, role, created_at, disabled_at, last_signed_in_at, one_time_password_expires_at`
  await sql`insert into users_rebuilt (${columns}) select ${columns} from users`.execute(db)
  await sql`drop table users`.execute(db)
  await sql`alter table users_rebuilt rename to users`.execute(db)
  // AUTOINCREMENT: the ids of deleted users are not given again.
  if (rows[0]) await sql`update sqlite_sequence set seq = max(seq, ${rows[0].seq}) where name = 'users'`.execute(db)
  await sql`insert into sessions select * from kept_sessions`.execute(db)
  await sql`insert into user_projects select * from kept_user_projects`.execute(db)
  await sql`drop table kept_sessions`.execute(db)
  await sql`drop table kept_user_projects`.execute(db)
}
