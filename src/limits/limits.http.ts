import { ApiError } from '../errors.js'
import { bindingWindow, type Decision } from './store.js'

/**
 * The rate-limit headers of a decision: the binding window, and both windows in the IETF draft
 * form. During a ban nothing is admitted until the ban ends, whatever the windows hold: every
 * window then reports no request left until the end of the ban, so a client that waits for the
 * announced reset never retries into the ban. The policy (`RateLimit-Policy`) does not change.
 */
export function rateLimitHeaders(decision: Decision): Record<string, string> {
  const binding = bindingWindow(decision.windows)
  const seconds = (at: number) => Math.max(0, Math.ceil((at - decision.now) / 1000))
  const policy = decision.windows.map((w) => `"${w.name}";q=${w.limit};w=${w.lengthMs / 1000}`).join(', ')
  if (decision.outcome === 'banned') {
    const untilBanEnds = seconds(decision.until)
    return {
      'x-ratelimit-limit': String(binding.limit),
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(Math.ceil(decision.until / 1000)),
      'ratelimit-policy': policy,
      ratelimit: decision.windows.map((w) => `"${w.name}";r=0;t=${untilBanEnds}`).join(', '),
    }
  }
  return {
    'x-ratelimit-limit': String(binding.limit),
    'x-ratelimit-remaining': String(binding.remaining),
    'x-ratelimit-reset': String(Math.ceil(binding.resetAt / 1000)),
    'ratelimit-policy': policy,
    ratelimit: decision.windows.map((w) => `"${w.name}";r=${w.remaining};t=${seconds(w.resetAt)}`).join(', '),
  }
}

/** The 429 for a refused decision, or nothing when the request may proceed. */
export function refusal(decision: Decision, who: { plan: string; publishable?: boolean } | 'address'): ApiError | undefined {
  if (decision.outcome === 'allowed') return undefined
  if (decision.outcome === 'banned') {
    const retryAfter = Math.max(1, Math.ceil((decision.until - decision.now) / 1000))
    return new ApiError(
      'api_key_banned',
      `This API key is banned until ${isoTime(decision.until)} for sending too many requests while rate limited. Retry after ${retryAfter} s, and back off after a 429.`,
      { 'retry-after': String(retryAfter), 'x-ratelimit-remaining': '0' },
    )
  }
  const binding = bindingWindow(decision.windows)
  const retryAfter = Math.max(1, Math.ceil((binding.resetAt - decision.now) / 1000))
  const per = `${thousands(binding.limit)} requests per ${binding.name}`
  const message =
    who === 'address'
      ? `Too many requests without a valid API key from your address: at most ${per}. Retry after ${retryAfter} s.`
      : `Rate limit exceeded: the ${who.plan} plan allows ${per} for this project${who.publishable ? "'s publishable keys together" : ''}${binding.name === 'day' ? ' (the day resets at 00:00 UTC)' : ''}. Retry after ${retryAfter} s; requests sent while limited can get the key temporarily banned.`
  return new ApiError('rate_limited', message, { 'retry-after': String(retryAfter), 'x-ratelimit-remaining': '0' })
}

/** 1000000 → "1,000,000", as `toLocaleString('en-US')` writes a count, at a tenth of its cost. */
function thousands(count: number): string {
  const digits = String(count)
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1)
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`
  return out
}

/** The ISO form of a ban's end: every refusal of a banned key names the same instant, so the last one is kept. */
let lastIso = { at: Number.NaN, text: '' }
function isoTime(at: number): string {
  if (lastIso.at !== at) lastIso = { at, text: new Date(at).toISOString() }
  return lastIso.text
}
