/** Blind round 15 (docs/detection.md), inputs: correct servers that choose differently where the spec leaves the choice open. */
import type { FastifyRequest } from 'fastify'
import { fail } from '../errors'
import { addRouteHook, overrideStore } from '../faults/kit'
import type { Variant } from './types'

/**
 * Channel names are case-sensitive in addresses: a path names a channel only when it spells the name exactly as
 * it was created ("NewsFeed" is not reached as "newsfeed", which answers 404). Creating a name that differs from
 * an existing channel's only in case is still refused (409), as the reference does, so no two channels of one
 * namespace differ only in case.
 */
const exactCaseNames: Variant = {
  name: 'r15av-channels-exact-case-names',
  area: 'channels',
  description:
    'channel addresses match the name exactly (case-sensitive): "NewsFeed" is not found as "newsfeed" (404); a create differing only in case from an existing name is still 409',
  reading:
    '§2.3 "Constraints on channel names (length, allowed characters): not shown." and "a public channel or the caller\'s own private channel is addressed by its plain name": the spec never says names match ignoring case; a channel addressed by the name it was created with is always found',
  wrapStore: (store) =>
    overrideStore(store, {
      findPublicChannel: (inner) => (name) => {
        const channel = inner.findPublicChannel(name)
        return channel && channel.name === name ? channel : undefined
      },
      findPrivateChannel: (inner) => (ownerId, name) => {
        const channel = inner.findPrivateChannel(ownerId, name)
        return channel && channel.name === name ? channel : undefined
      },
    }),
}

/**
 * Fetch by date range takes sort_order only as the spec spells it, ASC or DESC in upper case; any other value
 * ("asc", "desc", "Descending") is refused with 400 instead of being read ignoring case.
 */
const sortOrderExact: Variant = {
  name: 'r15av-items-fetch-sort-order-upper-case-only',
  area: 'items',
  description: 'fetch accepts sort_order ASC or DESC exactly as spelled; "asc", "desc" or any other spelling is refused (400)',
  reading:
    '§4.2 Fetch items by date range: "sort_order=<ASC|DESC>" names two values in upper case; "Defaults and requiredness of since, until, sort_order, offset and size: not shown" leaves other spellings to the server',
  install(app) {
    addRouteHook(app, 'items.fetch', 'preHandler', async (request: FastifyRequest) => {
      const order = (request.query as { sort_order?: string }).sort_order
      if (order !== undefined && order !== 'ASC' && order !== 'DESC') throw fail('BAD_REQUEST', 'sort_order must be ASC or DESC')
    })
  },
}

export const ROUND15_INPUT_VARIANTS: readonly Variant[] = [exactCaseNames, sortOrderExact]
