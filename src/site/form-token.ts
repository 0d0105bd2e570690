import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

/**
 * The enquiry form's token: `<issued ms>.<HMAC-SHA256>` over the visitor's cookie value, the
 * project, the animal and the time the form was shown. A token is good only with the cookie it
 * was made for (a page of another site cannot read the cookie, so it cannot forge the pair), on
 * the form it was made for, and within its lifetime; the signed time also tells how long the form
 * took to fill (people take seconds, scripts milliseconds).
 */
export const FORM_TOKEN_TTL_MS = 2 * 60 * 60_000

export type TokenCheck = { ok: true; issuedAt: number } | { ok: false; reason: 'forged' | 'expired' }

export function newCookieValue(): string {
  return randomBytes(18).toString('base64url')
}

export function signFormToken(secret: string, cookie: string, form: string, issuedAt: number): string {
  return `${issuedAt}.${mac(secret, cookie, form, issuedAt)}`
}

export function checkFormToken(secret: string, cookie: string | undefined, form: string, token: string | undefined, now: number): TokenCheck {
  if (!cookie || !token) return { ok: false, reason: 'forged' }
  const match = /^(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(token)
  if (!match) return { ok: false, reason: 'forged' }
  const issuedAt = Number(match[1])
  const expected = Buffer.from(mac(secret, cookie, form, issuedAt))
  const given = Buffer.from(match[2]!)
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { ok: false, reason: 'forged' }
  if (issuedAt > now + 60_000 || now - issuedAt > FORM_TOKEN_TTL_MS) return { ok: false, reason: 'expired' }
  return { ok: true, issuedAt }
}

function mac(secret: string, cookie: string, form: string, issuedAt: number): string {
  return createHmac('sha256', secret).update(`${cookie}\n${form}\n${issuedAt}`).digest('base64url')
}
