import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Clock } from '../clock.js'
import type { Config } from '../config.js'
import type { Db } from '../db/database.js'
import type { Outbox } from '../webhooks/outbox.js'
import { PASSWORD_COST, type ScryptCost } from './passwords.js'
import { sessionsRoutes } from './sessions.routes.js'
import { SessionsService } from './sessions.service.js'
import { SignInThrottle } from './sign-in-throttle.js'
import { usersRoutes } from './users.routes.js'
import { UsersService } from './users.service.js'

export interface AccountsDeps {
  db: Db
  clock: Clock
  /** What a new password hash costs; default: scrypt at OWASP's minimum (PASSWORD_COST). */
  passwordCost?: ScryptCost | undefined
  /** What the sessions tell the dashboard is configured. */
  config: Pick<Config, 'platformDomain' | 'webhookEncryptionKey' | 'certificateEncryptionKey' | 'webhookAllowedNetworks'>
  /** Where changes of who has access to a project write their user.added and user.removed events. */
  outbox: Pick<Outbox, 'write'>
}

/** The accounts that sign in to the dashboard, wired: their users, their sessions, their admin routes. */
export interface Accounts {
  users: UsersService
  sessions: SessionsService
  routes: {
    /** `/users`: the operators' user operations. */
    users: FastifyPluginAsyncTypebox
    /** `/session` and `/account`: signing in, out, and one's own password. */
    sessions: FastifyPluginAsyncTypebox
  }
}

export function createAccounts({ db, clock, config, outbox, passwordCost = PASSWORD_COST }: AccountsDeps): Accounts {
  // One throttle for both: a password reset forgives its user's failed sign-ins.
  const throttle = new SignInThrottle(db, clock)
  const users = new UsersService({ db, clock, throttle, passwordCost, outbox })
  const sessions = new SessionsService({ db, clock, throttle, passwordCost, config })
  return {
    users,
    sessions,
    routes: { users: (app) => usersRoutes(app, { users }), sessions: (app) => sessionsRoutes(app, { sessions }) },
  }
}
