/**
 * An adoption fee as people type it (`150.00` US dollars) and as the API keeps it (`15000`, in
 * the currency's minor unit). How many decimals a currency has is the runtime's ICU data's
 * answer, the same data the service checks currency codes against.
 */

/** Every ISO 4217 code the runtime knows, in alphabetical order. */
export const CURRENCIES: readonly string[] = Intl.supportedValuesOf('currency')

/** The decimals of a currency's amounts: 2 for USD and EUR, 0 for JPY, 3 for KWD. */
export function decimalsOf(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2
}

/** `15000` USD as `150.00`: the minor units written in major units, with every decimal. */
export function majorOf(amount: number, currency: string): string {
  const decimals = decimalsOf(currency)
  if (decimals === 0) return String(amount)
  const digits = String(amount).padStart(decimals + 1, '0')
  return `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`
}

/**
 * `150`, `150.5` or `150.00` USD as `15000`: read digit by digit, never through a float. Undefined
 * when the text is not an amount of this currency (a sign, a letter, more decimals than it has).
 */
export function minorOf(text: string, currency: string): number | undefined {
  const decimals = decimalsOf(currency)
  const match = /^(\d+)(?:\.(\d*))?$/.exec(text.trim())
  if (!match?.[1]) return undefined
  const fraction = match[2] ?? ''
  if (fraction.length > decimals) return undefined
  const amount = Number(match[1] + fraction.padEnd(decimals, '0'))
  return Number.isSafeInteger(amount) ? amount : undefined
}

/** What the field says about an amount it cannot read, for the form's own check. */
export function amountHint(currency: string): string {
  const decimals = decimalsOf(currency)
  return decimals === 0 ? `a whole number of ${currency}, e.g. 150` : `an amount in ${currency} with up to ${decimals} decimals, e.g. 150.${'0'.repeat(decimals)}`
}
