import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { operatorOnly } from '../auth/admin-access.js'
import { changeOf } from '../audit/audit.http.js'
import { orThrow } from '../errors.js'
import { errorResponses } from '../openapi/responses.js'
import { NewUserSchema, UserParamsSchema, UserProjectsSchema, UsersSchema } from './accounts.schemas.js'
import { ONE_TIME_PASSWORD_TTL_MS, type User, type UsersService } from './users.service.js'

/** Every user operation is an operator's: checked before the body is read. */
const USERS = { tags: ['users'] } as const
const NO_STORE = { 'Cache-Control': { type: 'string', description: '`no-store`: the one-time password must not be kept by any cache' } } as const
const ENDS_SESSIONS = 'Their sessions end at once, on every instance (sessions are read from the database on every request).'
const OWN_AND_LAST = 'Refused with 403 `own_account` for your own account, and with 409 `last_operator` when it would leave no enabled operator.'

/** The dashboard's accounts (admin API, `/admin/v1`): operators only. */
export const usersRoutes: FastifyPluginAsyncTypebox<{ users: UsersService }> = async (app, { users }) => {
  app.addHook('onRequest', operatorOnly)

  app.get(
    '/users',
    {
      schema: {
        ...USERS,
        operationId: 'listUsers',
        summary: 'List users',
        description: 'Operators only. Every account, oldest first, with its role, projects, state and last sign-in. Passwords are never shown.',
        response: { 200: { description: 'The users', ...UsersSchema }, ...errorResponses(400, 401, 403, 404, 500, 503) },
      },
    },
    async () => users.listUsers(),
  )

  app.post(
    '/users',
    {
      schema: {
        ...USERS,
        operationId: 'createUser',
        'x-audit-action': 'user.created',
        summary: 'Create a user',
        description:
          'Operators only. The answer carries a generated one-time password (`password`), this once: hand it over safely. At their first sign-in the user chooses their own. An owner or a viewer (read-only: 403 `forbidden` on every change but signing out and their own password) needs `projects` (at least one); an operator takes none. A taken email (whatever its case) is 409 `email_taken`; an unknown project 404.',
        body: NewUserSchema,
        response: {
          201: { description: 'The user, with their one-time password', headers: { Location: { type: 'string', description: 'Path of the user' }, ...NO_STORE }, ...Type.Ref('UserWithPassword') },
          ...errorResponses(400, 401, 403, 404, 409, 413, 415, 500, 503),
        },
      },
    },
    async (request, reply) => {
      const { email, role, projects = [] } = request.body
      const { user, oneTimePassword } = orThrow(await users.createUser({ email, role, projects }, changeOf(request)))
      // Without a password given, the service generates one.
      if (oneTimePassword === undefined) throw new Error('A user created without a password has no one-time password.')
      return reply
        .code(201)
        .header('location', `/admin/v1/users/${user.id}`)
        .header('cache-control', 'no-store')
        .send({ ...user, password: oneTimePassword })
    },
  )

  app.get(
    '/users/:userId',
    {
      schema: {
        ...USERS,
        operationId: 'getUser',
        summary: 'Get a user',
        description: 'Operators only.',
        params: UserParamsSchema,
        response: { 200: { description: 'The user', ...Type.Ref('User') }, ...errorResponses(400, 401, 403, 404, 500, 503) },
      },
    },
    async (request) => orThrow(await users.getUser({ id: request.params.userId })).user,
  )

  app.post(
    '/users/:userId/disable',
    {
      schema: {
        ...USERS,
        operationId: 'disableUser',
        'x-audit-action': 'user.disabled',
        summary: 'Disable a user',
        description: `Operators only. The user can no longer sign in (they get the same 401 as a wrong password). ${ENDS_SESSIONS} ${OWN_AND_LAST} Disabling a disabled user changes nothing.`,
        params: UserParamsSchema,
        response: { 200: { description: 'The user, disabled', ...Type.Ref('User') }, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 500, 503) },
      },
    },
    async (request) => present(await users.disableUser({ id: request.params.userId }, changeOf(request))),
  )

  app.post(
    '/users/:userId/enable',
    {
      schema: {
        ...USERS,
        operationId: 'enableUser',
        'x-audit-action': 'user.enabled',
        summary: 'Enable a user',
        description: 'Operators only. A disabled user can sign in again, with the password they had. Enabling an enabled user changes nothing.',
        params: UserParamsSchema,
        response: { 200: { description: 'The user, enabled', ...Type.Ref('User') }, ...errorResponses(400, 401, 403, 404, 413, 415, 500, 503) },
      },
    },
    async (request) => present(await users.enableUser({ id: request.params.userId }, changeOf(request))),
  )

  app.delete(
    '/users/:userId',
    {
      schema: {
        ...USERS,
        operationId: 'deleteUser',
        'x-audit-action': 'user.deleted',
        summary: 'Delete a user',
        description: `Operators only. The account is gone (the audit log keeps its email in its entries). ${ENDS_SESSIONS} ${OWN_AND_LAST}`,
        params: UserParamsSchema,
        response: { 204: { description: 'Deleted', type: 'null' }, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 500, 503) },
      },
    },
    async (request, reply) => {
      orThrow(await users.deleteUser({ id: request.params.userId }, changeOf(request)))
      return reply.code(204).send(null)
    },
  )

  app.post(
    '/users/:userId/password-reset',
    {
      schema: {
        ...USERS,
        operationId: 'resetUserPassword',
        'x-audit-action': 'user.password_reset',
        summary: "Reset a user's password",
        description: `Operators only. Replaces the password with a one-time password, in the answer this once (never stored in clear, logged or recorded): it opens no session, only lets the user choose their own at sign-in, for ${ONE_TIME_PASSWORD_TTL_MS / 86_400_000} days. ${ENDS_SESSIONS} Your own password: 403 \`own_account\` (change it with changeOwnPassword).`,
        params: UserParamsSchema,
        response: {
          200: { description: 'The user, with their one-time password', headers: NO_STORE, ...Type.Ref('UserWithPassword') },
          ...errorResponses(400, 401, 403, 404, 413, 415, 500, 503),
        },
      },
    },
    async (request, reply) => {
      const { user, oneTimePassword } = orThrow(await users.resetPassword({ id: request.params.userId }, changeOf(request)))
      return reply.header('cache-control', 'no-store').send({ ...user, password: oneTimePassword })
    },
  )

  app.put(
    '/users/:userId/projects',
    {
      schema: {
        ...USERS,
        operationId: 'setUserProjects',
        'x-audit-action': 'user.projects_changed',
        summary: "Set an owner's or a viewer's projects",
        description:
          "Operators only. Replaces the owner's or viewer's projects with these (at least one); their sessions see the new set from the next request. An operator has no projects: 400. An unknown project: 404.",
        params: UserParamsSchema,
        body: UserProjectsSchema,
        response: { 200: { description: 'The user with their projects', ...Type.Ref('User') }, ...errorResponses(400, 401, 403, 404, 413, 415, 500, 503) },
      },
    },
    async (request) => present(await users.setProjects({ id: request.params.userId }, request.body.projects, changeOf(request))),
  )
}

function present(result: Awaited<ReturnType<UsersService['getUser']>>): User {
  return orThrow(result).user
}
