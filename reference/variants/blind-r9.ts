import type { FastifyRequest, RouteOptions } from 'fastify'
import { channelSearchView } from '../views'
import { overrideStore, rewriteJson, wrapHandler } from '../faults/kit'
import type { Variant } from './types'

/** Blind round 9: correct servers that choose differently where the spec leaves the choice open. */

const lower = (s: string) => s.toLowerCase()

const searchNewestFirst: Variant = {
  name: 'r9v-search-newest-first',
  area: 'channels',
  description: 'channel search orders its matches newest channel first (a stable order, so pages still do not overlap)',
  reading: '§4.2 search: "Matching rules ... defaults and maximum of size: not shown"; no order of results is stated anywhere.',
  install(app, ctx) {
    wrapHandler(
      app,
      'channels.search',
      () =>
        (async (request: FastifyRequest) => {
          const {
            channelName,
            description,
            tag = [],
            offset,
            size,
          } = request.query as {
            channelName?: string
            description?: string
            tag?: string[]
            offset: number
            size: number
          }
          const matches = ctx.store
            .listPublicChannels()
            .filter(
              (c) =>
                (channelName === undefined || lower(c.name).includes(lower(channelName))) &&
                (description === undefined || lower(c.description).includes(lower(description))) &&
                tag.every((t) => c.tags.includes(t)),
            )
            .sort((a, b) => b.createdAt - a.createdAt || (a.channelId < b.channelId ? -1 : a.channelId > b.channelId ? 1 : 0))
          return { total: matches.length, results: matches.slice(offset, offset + size).map((c) => channelSearchView(ctx, c)) }
        }) as unknown as RouteOptions['handler'],
    )
  },
}

const subscribersNewestFirst: Variant = {
  name: 'r9v-subscribers-newest-first',
  area: 'subscriptions',
  description: 'list subscribers answers the most recent subscription first',
  reading: '§4.2 list subscribers: "Response 200: array of Subscription"; no order is stated.',
  wrapStore(store) {
    return overrideStore(store, {
      listSubscriptions: (inner) => (channelId) => [...inner.listSubscriptions(channelId)].reverse(),
    })
  },
}

const tagsSorted: Variant = {
  name: 'r9v-tags-sorted',
  area: 'tags',
  description: "get tags answers the channel's tags in code-point order instead of the order they were added",
  reading: '§4.2 get tags: "{channelName (string), tags (array of string)}"; the order of tags is not stated.',
  install(app) {
    rewriteJson(app, 'tags.get', (body) => (Array.isArray(body?.tags) ? { ...body, tags: [...body.tags].sort() } : body))
  },
}

const usersByName: Variant = {
  name: 'r9v-users-by-name',
  area: 'users',
  description: 'list all users and unsorted user searches answer users ordered by userName (ignoring case) instead of creation order',
  reading:
    '§4.1 list all users: "array of User"; search: sorting follows search-engine conventions whose parameter names are not shown; no default order is stated.',
  wrapStore(store) {
    return overrideStore(store, {
      listUsers: (inner) => (clientId) =>
        [...inner.listUsers(clientId)].sort((a, b) => (lower(a.userName) < lower(b.userName) ? -1 : lower(a.userName) > lower(b.userName) ? 1 : 0)),
    })
  },
}

export const R9_VARIANTS: readonly Variant[] = [searchNewestFirst, subscribersNewestFirst, tagsSorted, usersByName]
