import { rewriteJson } from '../faults/kit'
import { parseTimestamp } from '../time'
import type { Variant } from './types'

/**
 * Timestamps written in other ISO 8601 forms than the reference's (`…54.123+0000` for channels, `…54.123Z`
 * elsewhere). §2 says only "ISO 8601 strings"; §2.3 states millisecond precision and a numeric UTC offset
 * for channel timestamps; §2.4 says lastPublishedTime is UTC. Each variant keeps what is stated and
 * changes what is not. The instants are never changed, only how they are written.
 */

type Offset = 'Z' | '+hh' | '+hhmm' | '+hh:mm'

/** The instant `ms` at UTC offset `minutes`, with `digits` fraction digits (0: none) and the offset as `style`. */
function write(ms: number, minutes: number, digits: number, style: Offset): string {
  const local = new Date(Math.floor(ms) + minutes * 60_000).toISOString() // yyyy-mm-ddThh:mm:ss.sssZ, shifted
  const fraction = digits === 0 ? '' : `.${(local.slice(20, 23) + String(Math.round((ms % 1) * 1e6)).padStart(6, '0')).slice(0, digits)}`
  const sign = minutes < 0 ? '-' : '+'
  const hh = String(Math.floor(Math.abs(minutes) / 60)).padStart(2, '0')
  const mm = String(Math.abs(minutes) % 60).padStart(2, '0')
  const zone = style === 'Z' ? 'Z' : style === '+hh' ? `${sign}${hh}` : style === '+hhmm' ? `${sign}${hh}${mm}` : `${sign}${hh}:${mm}`
  return `${local.slice(0, 19)}${fraction}${zone}`
}

/** Rewrites a reference timestamp (any zone the reference writes); anything else passes unchanged. */
const restyle =
  (minutes: number, digits: number, style: Offset) =>
  (text: unknown): unknown => {
    if (typeof text !== 'string') return text
    const ms = parseTimestamp(text)
    return ms === undefined ? text : write(ms, minutes, digits, style)
  }

interface Styles {
  channel: (t: unknown) => unknown
  summary: (t: unknown) => unknown
  delivery: (t: unknown) => unknown
}

/** Applies the three styles to every timestamp the API answers with. */
function install(app: Parameters<NonNullable<Variant['install']>>[0], s: Styles): void {
  const channel = (c: any) => (c && typeof c === 'object' ? { ...c, creationDate: s.channel(c.creationDate), modifiedDate: s.channel(c.modifiedDate) } : c)
  rewriteJson(app, 'channels.getByName', channel)
  rewriteJson(app, 'channels.search', (page) => (Array.isArray(page?.results) ? { ...page, results: page.results.map(channel) } : page))
  rewriteJson(app, 'channels.summary', (sum) => ({ ...sum, lastPublishedTime: s.summary(sum.lastPublishedTime) }))
  rewriteJson(app, 'messages.status', (records) =>
    Array.isArray(records)
      ? records.map((r) => ({ ...r, queuedAt: s.delivery(r.queuedAt), receivedAt: r.receivedAt === null ? null : s.delivery(r.receivedAt) }))
      : records,
  )
}

/** The ISO 8601 basic format (20151110T192254,123Z): no separators, a decimal comma. */
const basic = (text: unknown): unknown => {
  if (typeof text !== 'string') return text
  const ms = parseTimestamp(text)
  return ms === undefined ? text : write(ms, 0, 3, 'Z').replace(/[-:]/g, '').replace('.', ',')
}

export const TIMESTAMP_VARIANTS: readonly Variant[] = [
  {
    name: 'timestamps-colon-offset',
    area: 'channels',
    description: 'every timestamp carries the offset as +00:00: channel dates, lastPublishedTime and delivery times',
    reading: '§2.3 asks for "a numeric UTC offset", §2.4 for UTC, §2 for ISO 8601: +00:00 is all three',
    install: (app) => install(app, { channel: restyle(0, 3, '+hh:mm'), summary: restyle(0, 3, '+hh:mm'), delivery: restyle(0, 3, '+hh:mm') }),
  },
  {
    name: 'timestamps-local-offset',
    area: 'channels',
    description: "channel dates and delivery times are written at the server's local offset +02:00; lastPublishedTime in UTC as +00",
    reading: '§2.3 states a numeric UTC offset, not offset zero; §2.7 states no zone at all; only §2.4 says UTC, and +00 is UTC in ISO 8601',
    install: (app) => install(app, { channel: restyle(120, 3, '+hh:mm'), summary: restyle(0, 3, '+hh'), delivery: restyle(120, 3, '+hh:mm') }),
  },
  {
    name: 'timestamps-other-precision',
    area: 'channels',
    description: 'channel dates with an hour-only offset (+00); lastPublishedTime in whole seconds (Z); delivery times with 6 fraction digits and -0530',
    reading: 'precision is stated only for channel timestamps (milliseconds); ±hh is a numeric offset in ISO 8601; §2.7 states neither zone nor precision',
    install: (app) => install(app, { channel: restyle(0, 3, '+hh'), summary: restyle(0, 0, 'Z'), delivery: restyle(-330, 6, '+hhmm') }),
  },
  {
    name: 'timestamps-basic-format',
    area: 'messages',
    description: 'delivery times in the ISO 8601 basic format with a decimal comma (20151110T192254,123Z)',
    reading: '§2 "Timestamps are ISO 8601 strings" and §2.7 states no form for queuedAt and receivedAt: the basic format is ISO 8601 (a SHOULD at most)',
    install: (app) => install(app, { channel: (t) => t, summary: (t) => t, delivery: basic }),
  },
]

// ---------------------------------------------------------------- written in the blind rounds 5 to 12 (docs/detection.md)

/** `2015-11-10T19:22:54.123+0000` → the same instant at +05:30, with milliseconds. */
function atPlus0530(text: unknown): unknown {
  if (typeof text !== 'string') return text
  const ms = Date.parse(text.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'))
  if (Number.isNaN(ms)) return text
  return new Date(ms + 330 * 60_000).toISOString().replace(/Z$/, '+05:30')
}

/** `2015-11-10T20:22:54.123+01:00`: the same instant written in a zone one hour east of UTC. */
function plusOneHour(text: unknown): unknown {
  if (typeof text !== 'string') return text
  const ms = Date.parse(text.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'))
  if (Number.isNaN(ms)) return text
  return new Date(ms + 3_600_000).toISOString().replace(/Z$/, '+01:00')
}

function channelTimes<T extends Record<string, unknown>>(c: T): T {
  return { ...c, creationDate: plusOneHour(c.creationDate), modifiedDate: plusOneHour(c.modifiedDate) }
}

const r5vChannelTimesPlus0530: Variant = {
  name: 'r5v-channel-times-plus0530',
  area: 'channels',
  description: "channel creationDate and modifiedDate are given in the server's zone, +05:30, with milliseconds (e.g. 2026-11-27T07:02:03.456+05:30)",
  reading: '§2.3 creationDate "with millisecond precision and a numeric UTC offset": +05:30 is a numeric UTC offset; only lastPublishedTime is said to be UTC',
  install(app) {
    const shift = (c: any) => ({ ...c, creationDate: atPlus0530(c.creationDate), modifiedDate: atPlus0530(c.modifiedDate) })
    rewriteJson(app, 'channels.getByName', (body) => shift(body))
    rewriteJson(app, 'channels.search', (body) => ({ ...body, results: body.results.map(shift) }))
  },
}

const r6vChannelTimePlusOne: Variant = {
  name: 'r6v-channel-time-plus-one',
  area: 'channels',
  description: 'channel creationDate and modifiedDate are written in the server zone, +01:00 (e.g. 2026-11-27T03:04:05.678+01:00)',
  reading: '§2.3 creationDate "with millisecond precision and a numeric UTC offset"; the offset need not be zero (only the summary says "(UTC)")',
  install(app) {
    rewriteJson(app, 'channels.getByName', (body) => channelTimes(body))
    rewriteJson(app, 'channels.search', (body) => ({ ...body, results: body.results.map(channelTimes) }))
  },
}

/** creationDate / modifiedDate in the server's zone (+05:30), with milliseconds and a numeric offset. */
const r10vChannelDatesPlus0530: Variant = {
  name: 'r10v-channel-dates-plus-0530',
  area: 'channels',
  description: 'channel creationDate and modifiedDate are given in the server zone +05:30 ("2026-11-27T14:02:03.456+0530"), with milliseconds',
  reading:
    '§2.3 creationDate: "timestamp with millisecond precision and a numeric UTC offset"; which offset is not fixed (only the summary\'s lastPublishedTime is said to be UTC).',
  install(app) {
    const shift = (text: unknown): unknown => {
      if (typeof text !== 'string') return text
      const ms = Date.parse(text.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'))
      if (Number.isNaN(ms)) return text
      return new Date(ms + 330 * 60_000).toISOString().replace(/Z$/, '+0530')
    }
    const fix = (c: Record<string, unknown>) => ({ ...c, creationDate: shift(c.creationDate), modifiedDate: shift(c.modifiedDate) })
    rewriteJson(app, 'channels.getByName', (body) => fix(body))
    rewriteJson(app, 'channels.search', (body) => ({ ...body, results: (body.results as Record<string, unknown>[]).map(fix) }))
  },
}

/** Summary time with a numeric zero offset. */
const r12vSummaryTimeOffset: Variant = {
  name: 'r12v-summary-time-offset',
  area: 'channels',
  description: 'the summary lastPublishedTime is written with "+00:00" instead of "Z" (e.g. 2015-11-10T19:22:54.123+00:00)',
  reading: '§2.4 lastPublishedTime is a "timestamp (UTC)" and §2 "Timestamps are ISO 8601 strings"; +00:00 is the ISO 8601 notation of UTC as much as Z.',
  install(app) {
    rewriteJson(app, 'channels.summary', (body) =>
      typeof body?.lastPublishedTime === 'string' ? { ...body, lastPublishedTime: body.lastPublishedTime.replace(/Z$/, '+00:00') } : body,
    )
  },
}

export const BLIND_TIMESTAMP_VARIANTS: readonly Variant[] = [r5vChannelTimesPlus0530, r6vChannelTimePlusOne, r10vChannelDatesPlus0530, r12vSummaryTimeOffset]
