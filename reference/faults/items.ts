import type { FastifyReply, FastifyRequest } from 'fastify'
import type { PublishPermission } from '../model'
import type { CatalogFault } from './types'
import { ownerCheckMissing, permissionSeenAs, routeScope, setQuery } from './common'
import { addRouteHook, overrideStore, rewriteJson } from './kit'

/** Items (§4.2 publish, get by id, fetch, delete; §2.6 Published item; §2.3 maxItems, publishPermission). */

/** A publishPermission read as another while items are published (the check of the first is broken). */
function publishPermissionAs(from: PublishPermission, to: PublishPermission): Pick<CatalogFault, 'wrapStore' | 'install'> {
  const publishing = routeScope()
  return {
    wrapStore: (store) => permissionSeenAs(store, publishing.active, from, to),
    install: (app) => publishing.install(app, 'items.publish'),
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c]!)

/** Rewrites every item of the get-by-id and fetch answers. */
function rewriteItems(edit: (item: Record<string, any>) => Record<string, unknown>): CatalogFault['install'] {
  return (app) => {
    for (const id of ['items.getById', 'items.fetch']) rewriteJson(app, id, (page) => ({ ...page, items: page.items.map(edit) }))
  }
}

export const ITEM_FAULTS: readonly CatalogFault[] = [
  // ── publish ─────────────────────────────────────────────────────────────────────────────────────────
  {
    name: 'items-publish-200',
    area: 'items',
    clause: 'items.publish.response',
    description: 'publish answers 200 instead of 201',
    install: (app) =>
      rewriteJson(app, 'items.publish', (body, _request, reply) => {
        reply.code(200)
        return body
      }),
  },
  {
    // Publishing is the set-up of most item, permission and authorization checks: with it refused they are
    // blocked, charged to this one clause, never failed under their own.
    name: 'items-publish-refused',
    area: 'items',
    clause: 'items.publish.response',
    description: 'publish answers 403 to every caller, the owner included, and stores nothing',
    consequences: [
      { clause: 'private.own-plain-name', reason: "the check publishes to the owner's private channel by the plain name as one of the paths it judges" },
      { clause: 'items.permission.owner', reason: 'the owner of a publishPermission owner channel is refused its publish too' },
      { clause: 'items.permission.anyone', reason: 'a user who may publish to a publishPermission anyone channel is refused too' },
    ],
    install: (app) =>
      addRouteHook(app, 'items.publish', 'preHandler', async (_request: FastifyRequest, reply: FastifyReply) => {
        await reply.code(403).send({ code: 'FORBIDDEN', message: 'publishing is not allowed' })
        return reply
      }),
  },
  {
    name: 'items-content-html-escaped',
    area: 'items',
    clause: 'items.content-intact',
    description: 'content strings are HTML-escaped on the way in (an input "sanitizer"): & < > " \' come back as entities',
    wrapStore: (store) =>
      overrideStore(store, {
        addItem: (inner) => (item, maxItems) =>
          inner.addItem(
            { ...item, content: Object.fromEntries(Object.entries(item.content).map(([k, v]) => [k, typeof v === 'string' ? escapeHtml(v) : v])) },
            maxItems,
          ),
      }),
  },
  {
    name: 'items-publisher-is-owner',
    area: 'items',
    clause: 'items.publisher',
    description: 'an item records the channel owner as its publisher, whoever published it',
    consequences: [
      { clause: 'items.permission.anyone', reason: 'the check reads back that the stored item names its publisher, B' },
      { clause: 'items.permission.subscribers', reason: 'the check reads back that the stored item names its publisher, C' },
    ],
    wrapStore: (store) =>
      overrideStore(store, {
        addItem: (inner) => (item, maxItems) =>
          inner.addItem({ ...item, publisherId: inner.getChannel(item.channelId)?.ownerId ?? item.publisherId }, maxItems),
      }),
  },
  {
    name: 'items-channel-name-null',
    area: 'items',
    clause: ['items.get.shape', 'items.fetch.shape'],
    description: 'published items answer channelName null',
    install: rewriteItems((item) => ({ ...item, channelName: null })),
  },
  {
    name: 'items-max-items-ignored',
    area: 'items',
    clause: 'items.max-items',
    description: 'publish never evicts: a channel keeps more items than its maxItems',
    wrapStore: (store) => overrideStore(store, { addItem: (inner) => (item) => inner.addItem(item, -1) }),
  },
  // ── publishPermission ───────────────────────────────────────────────────────────────────────────────
  {
    name: 'items-owner-permission-ignored',
    area: 'items',
    clause: 'items.permission.owner',
    description: 'publishPermission owner is not enforced: anyone may publish',
    ...publishPermissionAs('owner', 'anyone'),
  },
  {
    name: 'items-subscribers-permission-ignored',
    area: 'items',
    clause: 'items.permission.subscribers',
    description: 'publishPermission subscribers is not enforced: anyone may publish',
    ...publishPermissionAs('subscribers', 'anyone'),
  },
  // ── get by id and fetch ─────────────────────────────────────────────────────────────────────────────
  {
    name: 'items-get-drops-last-id',
    area: 'items',
    clause: 'items.get.by-ids',
    description: 'get items by id leaves out the last id asked for (an off-by-one loop)',
    install: (app) =>
      addRouteHook(app, 'items.getById', 'preHandler', async (request: FastifyRequest) => {
        const { id } = request.query as { id: string[] }
        setQuery(request, 'id', id.slice(0, -1))
      }),
  },
  {
    name: 'items-fetch-ignores-range',
    area: 'items',
    clause: 'items.fetch.range',
    description: 'fetch ignores since and until: every item comes back',
    install: (app) =>
      addRouteHook(app, 'items.fetch', 'preHandler', async (request: FastifyRequest) => {
        setQuery(request, 'since', undefined)
        setQuery(request, 'until', undefined)
      }),
  },
  {
    name: 'items-fetch-ignores-order',
    area: 'items',
    clause: 'items.fetch.order',
    description: 'fetch ignores sort_order: items always come oldest first',
    consequences: [{ clause: 'items.fetch.offset', reason: 'the check pages with sort_order DESC, which is ignored' }],
    install: (app) => addRouteHook(app, 'items.fetch', 'preHandler', async (request: FastifyRequest) => setQuery(request, 'sort_order', 'ASC')),
  },
  // ── delete ──────────────────────────────────────────────────────────────────────────────────────────
  {
    name: 'items-delete-keeps',
    area: 'items',
    clause: 'items.delete.removes',
    description: 'delete items by id answers 200 for each id and deletes nothing',
    wrapStore: (store) => overrideStore(store, { deleteItem: (inner) => (channelId, itemId) => inner.getItem(channelId, itemId) !== undefined }),
  },
  {
    name: 'items-delete-all-any-user',
    area: 'items',
    clause: 'items.delete-all.owner-only',
    description: 'delete all items has no owner check: any user empties any channel',
    install: (app, ctx) => ownerCheckMissing(app, ctx, 'items.deleteAll'),
  },
]
