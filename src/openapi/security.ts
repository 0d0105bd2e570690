/**
 * The names of the security schemes in the OpenAPI documents. The document builders declare the
 * schemes; the authentication scopes (src/auth) stamp the requirements on their routes.
 */

/** The public API: `Authorization: Bearer <API key>`. */
export const API_KEY_SECURITY = 'bearerAuth'
/** The admin API: `Authorization: Bearer <ADMIN_TOKEN>`. */
export const ADMIN_SECURITY = 'adminToken'
/** The admin API: the session cookie set by signIn. */
export const SESSION_SECURITY = 'sessionCookie'
