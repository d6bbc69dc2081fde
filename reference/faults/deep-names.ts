import type { FastifyReply, FastifyRequest } from 'fastify'
import { callerOf } from '../auth'
import { personal, resolveChannel } from '../channel-address'
import type { ServerContext } from '../context'
import { WIDE_CHANNEL_NAMES } from '../variants/channels'
import { call, type RouteHandler } from './deep-common'
import { rewriteJson, wrapHandler } from './kit'
import type { CatalogFault } from './types'

/**
 * Deep faults behind a channel's name: each server accepts wide names (any characters but "#", "/" and control
 * characters, up to 256: a choice §2.3 leaves open, the variant channel-names-wide), and one endpoint mishandles
 * names of one class, as a router or a table of its own would. Get, search, summary and delete by such a name
 * work; only that endpoint, for that class, does not.
 */

/** The variant every fault of this file is built on. */
const WIDE = ['channel-names-wide'] as const

const wide = (ctx: ServerContext): void => {
  ctx.channelNames = WIDE_CHANNEL_NAMES
}

const channelParam = (request: FastifyRequest): string => (request.params as { channel: string }).channel

/** Wraps the handler of route `id` so that, for a channel segment `when` picks, `instead` answers. */
function forNames(
  app: Parameters<NonNullable<CatalogFault['install']>>[0],
  id: string,
  when: (raw: string) => boolean,
  instead: (request: FastifyRequest, reply: FastifyReply, original: () => Promise<unknown>) => unknown,
): void {
  wrapHandler(
    app,
    id,
    (original) =>
      async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
        const next = () => call(original, this, request, reply) as Promise<unknown>
        return when(channelParam(request)) ? instead(request, reply, next) : next()
      } as RouteHandler,
  )
}

const publishPlusAsSpace: CatalogFault = {
  name: 'names-publish-plus-as-space',
  clause: 'items.publish.response',
  area: 'items',
  depth: 'deep',
  builtOn: WIDE,
  description: 'publish decodes "+" in the channel segment as a space (form decoding of a path), so a publish to a name holding "+" answers 404',
  install(app, ctx) {
    wide(ctx)
    forNames(
      app,
      'items.publish',
      (raw) => raw.includes('+'),
      (request) => {
        const { user } = callerOf(request)
        return resolveChannel(ctx, user.userId, channelParam(request).replace(/\+/g, ' '))
      },
    )
  },
}

const subscriptionsNameCut: CatalogFault = {
  name: 'names-subscriptions-name-cut-64',
  clause: 'subscriptions.subscribe.listed',
  area: 'subscriptions',
  depth: 'deep',
  builtOn: WIDE,
  description: "list subscribers answers each subscription's channelName cut to 64 characters (a column of its own), so a longer name is not the channel's",
  install(app, ctx) {
    wide(ctx)
    rewriteJson(app, 'subscriptions.list', (body) =>
      Array.isArray(body) ? body.map((s) => (s && typeof s.channelName === 'string' ? { ...s, channelName: s.channelName.slice(0, 64) } : s)) : body,
    )
  },
}

const tagsAddNonAscii: CatalogFault = {
  name: 'names-tags-add-ascii-index',
  clause: 'tags.add.visible',
  area: 'tags',
  depth: 'deep',
  builtOn: WIDE,
  description: 'add tags looks the channel up through an ASCII-only index: for a name holding non-ASCII letters it answers 200 and stores nothing',
  install(app, ctx) {
    wide(ctx)
    forNames(
      app,
      'tags.add',
      // eslint-disable-next-line no-control-regex
      (raw) => /[^\u0000-\u007f]/.test(raw),
      (request) => {
        const { user } = callerOf(request)
        resolveChannel(ctx, user.userId, channelParam(request))
        return { message: 'tags added', code: 200 }
      },
    )
  },
}

const ownerCheckSpace: CatalogFault = {
  name: 'names-delete-owner-check-space',
  clause: 'channels.delete.owner-only',
  area: 'channels',
  depth: 'deep',
  builtOn: WIDE,
  description: 'delete looks the owner up by the name up to its first space, finds none for a name holding a space, and lets anyone delete it',
  install(app, ctx) {
    wide(ctx)
    forNames(
      app,
      'channels.delete',
      (raw) => raw.includes(' '),
      (request) => {
        const { user } = callerOf(request)
        const query = request.query as { personal?: boolean }
        const channel = resolveChannel(ctx, user.userId, channelParam(request), personal(query.personal ?? false))
        ctx.store.deleteChannel(channel.channelId)
        return { code: 200, message: `channel ${channel.name} deleted` }
      },
    )
  },
}

const addressNameCut: CatalogFault = {
  name: 'names-address-name-cut-64',
  clause: 'private.other-user-address',
  area: 'private',
  depth: 'deep',
  builtOn: WIDE,
  description: 'a <user_id>#<name> address resolves the name cut to 64 characters, so a private channel with a longer name cannot be reached through it',
  install(app, ctx) {
    wide(ctx)
    forNames(
      app,
      'channels.getByName',
      (raw) => raw.includes('#') && raw.length - raw.indexOf('#') - 1 > 64,
      (request) => {
        const raw = channelParam(request)
        const { user } = callerOf(request)
        return resolveChannel(ctx, user.userId, raw.slice(0, raw.indexOf('#') + 1 + 64))
      },
    )
  },
}

const deleteItemsEmoji: CatalogFault = {
  name: 'names-delete-items-emoji-noop',
  clause: 'items.delete.removes',
  area: 'items',
  depth: 'deep',
  builtOn: WIDE,
  description:
    'delete items by id on a channel whose name holds an emoji answers 200 for each id and deletes nothing (the name is stored in a 3-byte UTF-8 column)',
  install(app, ctx) {
    wide(ctx)
    forNames(
      app,
      'items.deleteById',
      (raw) => /\p{Extended_Pictographic}/u.test(raw),
      (request) => {
        const { user } = callerOf(request)
        resolveChannel(ctx, user.userId, channelParam(request))
        const ids = ([] as string[]).concat((request.query as { id?: string | string[] }).id ?? [])
        return Object.fromEntries(ids.map((id) => [id, 200]))
      },
    )
  },
}

const summaryCountComma: CatalogFault = {
  name: 'names-summary-count-comma',
  clause: 'channels.summary.count',
  area: 'channels',
  depth: 'deep',
  builtOn: WIDE,
  description: 'the summary of a channel whose name holds "," counts 0 items (the count query splits the name at the comma)',
  install(app, ctx) {
    wide(ctx)
    rewriteJson(app, 'channels.summary', (body) =>
      body && typeof body.channelName === 'string' && body.channelName.includes(',') ? { ...body, publishedItemCount: 0 } : body,
    )
  },
}

export const DEEP_NAME_FAULTS: readonly CatalogFault[] = [
  publishPlusAsSpace,
  subscriptionsNameCut,
  tagsAddNonAscii,
  ownerCheckSpace,
  addressNameCut,
  deleteItemsEmoji,
  summaryCountComma,
]
