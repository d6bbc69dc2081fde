/**
 * Typed reads of an answer's body that the suite files share: the body as an object to read fields from,
 * the names in a channel search page, the user ids in a subscription list, and the fetch range that holds
 * every item a check publishes. A field that is missing or of the wrong type is the schema's to judge; these
 * only read what is there.
 */
import type { FetchParams } from '../../helpers/http/api'
import type { Exchange } from '../../helpers/http/client'
import { aroundNow } from '../../helpers/kit/window'

/** A JSON object read field by field; what a field holds is checked where it is judged. */
export type Body = Record<string, any>

/** The value as an object to read fields from; undefined when it is not a JSON object (null, an array, a scalar). */
export function asBody(value: unknown): Body | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Body) : undefined
}

/** An answer's body as an object (see asBody). */
export const bodyOf = (ex: { json?: unknown }): Body | undefined => asBody(ex.json)

/** The elements of an array as objects ({} for an element that is not one); [] when it is not an array. */
export function bodiesOf(list: unknown): Body[] {
  return Array.isArray(list) ? list.map((e) => asBody(e) ?? {}) : []
}

/** Names of the channels in a search answer ([] when it is not a search page). */
export function resultNames(ex: Exchange): string[] {
  const results = bodyOf(ex)?.results
  return Array.isArray(results) ? results.map((r) => (r && typeof r === 'object' ? String((r as Body).name) : '')) : []
}

/** The search result named exactly `name`, if the page has one. */
export function resultNamed(ex: Exchange, name: string): Body | undefined {
  return bodiesOf(bodyOf(ex)?.results).find((r) => r.name === name)
}

/** The userId of every element of a subscription list (undefined for an element that has none). */
export const userIdsOf = (ex: { json?: unknown }): unknown[] => (Array.isArray(ex.json) ? ex.json.map((s) => asBody(s)?.userId) : [])

/** A fetch range near the server's now with a page larger than any check's channel holds. */
export const everything = (): FetchParams => aroundNow({ size: 100 })

/** The name of a search result as resultNames reads it, for a matcher's `key`. */
export const nameKey = (element: unknown): string => (element && typeof element === 'object' ? String((element as Body).name) : '')

/** The `userId` of a list element (a subscription), for a matcher's `key`; undefined where it has none. */
export const userIdKey = (element: unknown): unknown => asBody(element)?.userId

/** The `itemId` of a list element (a published item), for a matcher's `key`; undefined where it has none. */
export const itemIdKey = (element: unknown): unknown => asBody(element)?.itemId
