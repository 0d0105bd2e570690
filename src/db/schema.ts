import type { Generated, Insertable, Selectable } from 'kysely'

/**
 * The one description of the database. Columns are snake_case; rows become API shapes in each
 * feature's `toXxx` function. Times are ISO-8601 UTC strings (`Date#toISOString`), which sort
 * and compare correctly as text on every dialect.
 */
export interface Database {
  projects: ProjectTable
  api_keys: ApiKeyTable
  pets: PetTable
  idempotency_keys: IdempotencyKeyTable
  api_key_bans: ApiKeyBanTable
  orders: OrderTable
}

export type Plan = 'free' | 'pro' | 'business' | 'enterprise'
export type PetStatus = 'available' | 'pending' | 'sold'
export type OrderStatus = 'placed' | 'approved' | 'delivered' | 'cancelled'

export interface ProjectTable {
  id: Generated<number>
  slug: string
  plan: Plan
  /** Only for the enterprise plan: its agreed limits. */
  per_minute: number | null
  per_day: number | null
  created_at: string
}

export interface ApiKeyTable {
  /** Public identifier, `key_<random>`; safe to show and log. */
  id: string
  project_id: number
  /** The first characters of the secret, to recognise a key in lists. */
  prefix: string
  /** SHA-256 of the whole secret, hex. The secret itself is never stored. */
  hash: string
  name: string | null
  created_at: string
  last_used_at: string | null
  expires_at: string | null
  revoked_at: string | null
}

export interface PetTable {
  id: Generated<number>
  project_id: number
  name: string
  category_id: number
  status: PetStatus
  created_at: string
}

export interface IdempotencyKeyTable {
  project_id: number
  key: string
  /** SHA-256 of the operation and its body, to tell a retry from a reuse. */
  request_hash: string
  state: 'in_flight' | 'done'
  response_status: number | null
  response_body: string | null
  created_at: string
}

export interface ApiKeyBanTable {
  key_id: string
  /** 0 for a first ban, +1 for each repeat; the length doubles with each level. */
  level: number
  banned_at: string
  until: string
}

/** A request to adopt one animal; its status moves the animal's (see orders.service.ts). */
export interface OrderTable {
  id: Generated<number>
  project_id: number
  pet_id: number
  status: OrderStatus
  created_at: string
  updated_at: string
}

export type ProjectRow = Selectable<ProjectTable>
export type ApiKeyRow = Selectable<ApiKeyTable>
export type PetRow = Selectable<PetTable>
export type NewPetRow = Insertable<PetTable>
export type IdempotencyKeyRow = Selectable<IdempotencyKeyTable>
export type ApiKeyBanRow = Selectable<ApiKeyBanTable>
export type OrderRow = Selectable<OrderTable>
