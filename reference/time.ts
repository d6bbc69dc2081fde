/**
 * Timestamp formats. The spec shows channel timestamps with milliseconds and a numeric offset and the
 * summary's lastPublishedTime "in UTC"; the exact forms below are the server's choices.
 */

/** `2015-11-10T19:22:54.123+0000`: channel creationDate / modifiedDate. */
export function formatOffsetTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '+0000')
}

/** `2015-11-10T19:22:54.123Z`: summary lastPublishedTime, delivery queuedAt / receivedAt. */
export function formatUtcTime(ms: number): string {
  return new Date(ms).toISOString()
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:(Z)|([+-])(\d{2}):?(\d{2}))$/

/**
 * Parses an ISO 8601 date-time with seconds and a zone (`Z` or a numeric offset, with or without colon),
 * strictly: no date-only forms, no out-of-range fields, no local time. Returns epoch milliseconds, with the
 * sub-millisecond fraction kept, so range bounds compare exactly; undefined when it is not such a string.
 *
 * A space where the offset's `+` belongs is read as `+`: an unencoded `+` in a query string arrives as a
 * space, and that mistake has only one meaning here.
 */
export function parseTimestamp(text: string): number | undefined {
  const m = TIMESTAMP.exec(text.replace(/ (\d{2}:?\d{2})$/, '+$1'))
  if (!m) return undefined
  const [, y, mo, d, h, mi, s, frac, z, sign, oh, om] = m
  const year = Number(y)
  const month = Number(mo)
  const day = Number(d)
  const hour = Number(h)
  const minute = Number(mi)
  const second = Number(s)
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined
  if (hour > 23 || minute > 59 || second > 59) return undefined
  let offsetMinutes = 0
  if (!z) {
    const offH = Number(oh)
    const offM = Number(om)
    if (offH > 23 || offM > 59) return undefined
    offsetMinutes = (sign === '-' ? -1 : 1) * (offH * 60 + offM)
  }
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day) // setUTCFullYear, unlike Date.UTC, keeps years 0-99 as given
  date.setUTCHours(hour, minute, second, 0)
  const fractionMs = frac ? Number(`0.${frac}`) * 1000 : 0
  return date.getTime() - offsetMinutes * 60_000 + fractionMs
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!
}
