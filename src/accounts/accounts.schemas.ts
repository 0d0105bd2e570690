import { Type } from 'typebox'
import { StringEnum } from '../http/schemas.js'
import { MAX_PASSWORD_LENGTH } from './passwords.js'
import { USER_ROLES } from '../db/schema.js'

export const SignInSchema = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254, description: 'The email the account was created with; case does not matter', examples: ['ops@example.com'] }),
    password: Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH, description: 'The password' }),
  },
  { additionalProperties: false, description: 'Credentials', examples: [{ email: 'ops@example.com', password: 'correct horse battery staple' }] },
)

export const SessionSchema = Type.Object(
  {
    user: Type.Object(
      {
        email: Type.String({ description: 'The signed-in user, lowercase' }),
        role: StringEnum(USER_ROLES, { description: '`operator`: every project and every action; `owner`: only their projects, no plan changes, no new projects' }),
        projects: Type.Array(Type.String(), { description: "Slugs of the projects the user may see: an owner's own, every project for an operator" }),
      },
      { additionalProperties: false },
    ),
    csrfToken: Type.String({ description: 'Send it as the header `X-CSRF-Token` with every POST, PUT, PATCH and DELETE made with the session cookie' }),
  },
  { additionalProperties: false, description: 'The signed-in session' },
)
