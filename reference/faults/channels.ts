import type { FastifyRequest } from 'fastify'
import type { CreateBody } from '../routes/channels'
import type { CatalogFault } from './types'
import { ownerCheckMissing, setQuery, withChannelLog } from './common'
import { addRouteHook, overrideStore, rewriteJson } from './kit'

/** Channels (§4.2 create, search, get by name, summary, delete; §2.3 Channel, §2.4 Channel summary). */

/** Edits the create-channel body after validation, before the handler reads it. */
function editCreateBody(edit: (body: CreateBody) => void): CatalogFault['install'] {
  return (app) => addRouteHook(app, 'channels.create', 'preHandler', async (request: FastifyRequest) => edit(request.body as CreateBody))
}

export const CHANNEL_FAULTS: readonly CatalogFault[] = [
  // ── create: defaults and stored fields ──────────────────────────────────────────────────────────────
  {
    name: 'channels-default-max-items-100',
    area: 'channels',
    clause: 'channels.create.default-max-items',
    description: 'create channel defaults maxItems to 100 instead of -1 (unlimited)',
    install: editCreateBody((body) => {
      body.maxItems ??= 100
    }),
  },
  {
    name: 'channels-default-private',
    area: 'channels',
    clause: 'channels.create.default-public',
    description: 'create channel defaults privateChannel to true',
    consequences: [
      {
        clause: 'channels.summary.shape',
        reason: "the neighbours' count checks make another user's public n without privateChannel: made private, it is not the channel their summary addresses",
      },
      {
        clause: 'items.fetch.range',
        reason:
          "the neighbours' count checks make another user's public n without privateChannel: made private, a fetch of that name by the owner of the twin does not reach it",
      },

      {
        clause: 'channels.delete.only-named',
        reason: 'the check deletes one of two channels it made without personal; made private, a delete without personal names no channel of the caller',
      },
      {
        clause: 'channels.create.default-permission',
        reason:
          'every check makes its channels without privateChannel and lets other users, search and owner-only rules act on them as on a public channel; made private, they are out of reach',
      },
      {
        clause: 'channels.delete.removes',
        reason:
          'every check makes its channels without privateChannel and lets other users, search and owner-only rules act on them as on a public channel; made private, they are out of reach',
      },
      {
        clause: 'channels.delete.status',
        reason:
          'every check makes its channels without privateChannel and lets other users, search and owner-only rules act on them as on a public channel; made private, they are out of reach',
      },
      {
        clause: 'channels.search.by-description',
        reason:
          'every check makes its channels without privateChannel and lets other users, search and owner-only rules act on them as on a public channel; made private, they are out of reach',
      },
      {
        clause: 'channels.search.by-name',
        reason:
          'every check makes its channels without privateChannel and lets other users, search and owner-only rules act on them as on a public channel; made private, they are out of reach',
      },
      {
        clause: 'channels.search.publish-permission',
        reason:
          'every check makes its channels without privateChannel and lets other users, search and owner-only rules act on them as on a public channel; made private, they are out of reach',
      },
      {
        clause: 'channels.search.shape',
        reason:
          'every check makes its channels without privateChannel and lets other users, search and owner-only rules act on them as on a public channel; made private, they are out of reach',
      },
      {
        clause: 'http.forbidden-403',
        reason:
          'every check makes its channels without privateChannel and lets other users, search and owner-only rules act on them as on a public channel; made private, they are out of reach',
      },
      {
        clause: 'items.delete-all.empties',
        reason:
          'every check makes its channels without privateChannel and lets other users, search and owner-only rules act on them as on a public channel; made private, they are out of reach',
      },
      {
        clause: 'items.delete-all.status',
        reason:
          'every check makes its channels without privateChannel and lets other users, search and owner-only rules act on them as on a public channel; made private, they are out of reach',
      },
      {
        clause: 'items.permission.anyone',
        reason:
          'every check makes its channels without privateChannel and lets other users, search and owner-only rules act on them as on a public channel; made private, they are out of reach',
      },
      {
        clause: 'items.publish.response',
        reason:
          'every check makes its channels without privateChannel and lets other users, search and owner-only rules act on them as on a public channel; made private, they are out of reach',
      },
      {
        clause: 'subscriptions.subscribe.response',
        reason:
          'every check makes its channels without privateChannel and lets other users, search and owner-only rules act on them as on a public channel; made private, they are out of reach',
      },
      {
        clause: 'tags.add.response',
        reason:
          'every check makes its channels without privateChannel and lets other users, search and owner-only rules act on them as on a public channel; made private, they are out of reach',
      },
    ],
    install: editCreateBody((body) => {
      body.privateChannel ??= true
    }),
  },
  {
    name: 'channels-default-permission-owner',
    area: 'channels',
    clause: 'channels.create.default-permission',
    description: 'create channel defaults publishPermission to owner instead of anyone',
    consequences: [
      {
        clause: 'items.publish.response',
        reason: "the neighbours' count checks publish as another user into a public channel made without publishPermission, which this fault makes owner-only",
      },
    ],
    install: editCreateBody((body) => {
      body.publishPermission ??= 'owner'
    }),
  },
  {
    name: 'channels-default-no-subscribe',
    area: 'channels',
    clause: 'channels.create.default-subscribe',
    description: 'create channel defaults subscribeOnCreate to false: the creator is not subscribed',
    install: editCreateBody((body) => {
      body.subscribeOnCreate ??= false
    }),
  },
  {
    name: 'channels-description-ignored',
    area: 'channels',
    clause: ['channels.create.fields-stored', 'channels.get.matches-create'],
    description: 'create channel does not store the description it is given',
    consequences: [
      { clause: 'channels.search.by-description', reason: 'the check creates its channel with a description and looks for that description' },
      { clause: 'private.other-user-address', reason: 'the check creates its channel with a description and looks for that description' },
      { clause: 'private.own-plain-name', reason: 'the check creates its channel with a description and looks for that description' },
    ],
    install: editCreateBody((body) => {
      delete body.description
    }),
  },
  // ── get by name ─────────────────────────────────────────────────────────────────────────────────────
  {
    name: 'channels-get-publish-permission',
    area: 'channels',
    clause: ['channels.get.publisher-permission', 'channels.get.shape'],
    description: 'get channel by name answers publishPermission (the create/search spelling) instead of publisherPermission',
    // The checks that read the permission back from get by name find it missing from the Channel schema: they
    // end blocked by channels.get.shape, not failed under their own clauses.
    consequences: [{ clause: 'http.no-extra-fields', reason: 'the renamed field is an undocumented one' }],
    install: (app) => rewriteJson(app, 'channels.getByName', ({ publisherPermission, ...channel }) => ({ ...channel, publishPermission: publisherPermission })),
  },
  {
    name: 'channels-date-no-offset',
    area: 'channels',
    clause: 'channels.get.shape',
    description: 'get channel by name gives creationDate and modifiedDate without their UTC offset',
    // The summary's lastPublishedTime is compared with get by name's creationDate: that check now reads the channel
    // against its schema and ends blocked by channels.get.shape.
    consequences: [
      { clause: 'http.timestamp-form', reason: 'a channel date without a zone is also a timestamp of an unusual form, which that SHOULD clause records' },
    ],
    install: (app) =>
      rewriteJson(app, 'channels.getByName', (channel) => ({
        ...channel,
        creationDate: String(channel.creationDate).replace(/(Z|[+-]\d{2}:?\d{2})$/, ''),
        modifiedDate: String(channel.modifiedDate).replace(/(Z|[+-]\d{2}:?\d{2})$/, ''),
      })),
  },
  // ── search ──────────────────────────────────────────────────────────────────────────────────────────
  {
    name: 'channels-search-publisher-permission',
    area: 'channels',
    clause: ['channels.search.publish-permission', 'channels.search.shape'],
    description: 'search results name the permission publisherPermission (the get-by-name spelling)',
    consequences: [
      { clause: 'channels.create.default-permission', reason: 'the default permission is read from search too, under the renamed field' },
      { clause: 'http.no-extra-fields', reason: 'the renamed field is an undocumented one' },
    ],
    install: (app) =>
      rewriteJson(app, 'channels.search', (page) => ({
        ...page,
        results: page.results.map(({ publishPermission, ...channel }: Record<string, unknown>) => ({ ...channel, publisherPermission: publishPermission })),
      })),
  },
  {
    name: 'channels-search-date-epoch',
    area: 'channels',
    clause: 'channels.search.shape',
    description: 'search results give creationDate and modifiedDate as epoch milliseconds, not ISO 8601 strings',
    install: (app) =>
      rewriteJson(app, 'channels.search', (page) => ({
        ...page,
        results: page.results.map((c: Record<string, string>) => ({
          ...c,
          creationDate: Date.parse(c.creationDate!.replace(/(\d{2})(\d{2})$/, '$1:$2')),
          modifiedDate: Date.parse(c.modifiedDate!.replace(/(\d{2})(\d{2})$/, '$1:$2')),
        })),
      })),
  },
  {
    name: 'channels-search-202',
    area: 'channels',
    clause: 'channels.search.shape',
    description: 'search answers 202 Accepted instead of 200',
    // Every search check meets the 202 first: it ends blocked by channels.search.shape (mustSearchAnswer200).
    install: (app) =>
      rewriteJson(app, 'channels.search', (page, _request, reply) => {
        reply.code(202)
        return page
      }),
  },
  {
    name: 'channels-search-ignores-size',
    area: 'channels',
    clause: 'channels.search.size',
    description: 'search ignores size: every match comes back',
    consequences: [{ clause: 'channels.search.offset-pages', reason: 'pages of a given size cannot be told apart when size is ignored' }],
    install: (app) => addRouteHook(app, 'channels.search', 'preHandler', async (request: FastifyRequest) => setQuery(request, 'size', 1000)),
  },
  {
    name: 'channels-search-ignores-offset',
    area: 'channels',
    clause: 'channels.search.offset',
    description: 'search ignores offset: every page starts at the first match',
    install: (app) => addRouteHook(app, 'channels.search', 'preHandler', async (request: FastifyRequest) => setQuery(request, 'offset', 0)),
  },
  {
    name: 'channels-search-ignores-tag',
    area: 'channels',
    clause: 'channels.search.by-tag',
    description: 'search ignores tag: channels without the tag match too',
    consequences: [{ clause: 'channels.search.offset', reason: 'the check pages through a tag search of its own channels' }],
    install: (app) => addRouteHook(app, 'channels.search', 'preHandler', async (request: FastifyRequest) => setQuery(request, 'tag', undefined)),
  },
  {
    name: 'channels-search-shows-private',
    area: 'channels',
    clause: 'channels.search.public-only',
    description: 'search lists private channels along with the public ones',
    wrapStore: (store) => withChannelLog(store, (logged, all) => overrideStore(logged, { listPublicChannels: () => () => all() })),
  },
  // ── summary ─────────────────────────────────────────────────────────────────────────────────────────
  {
    name: 'channels-summary-count-plus-one',
    area: 'channels',
    clause: 'channels.summary.count',
    description: 'channel summary counts one item more than the channel holds',
    install: (app) => rewriteJson(app, 'channels.summary', (s) => ({ ...s, publishedItemCount: s.publishedItemCount + 1 })),
  },
  // ── delete ──────────────────────────────────────────────────────────────────────────────────────────
  {
    name: 'channels-delete-204',
    area: 'channels',
    clause: 'channels.delete.status',
    description: 'delete channel answers 204 No Content instead of 200',
    install: (app) =>
      rewriteJson(app, 'channels.delete', (_body, _request, reply) => {
        reply.code(204)
        return undefined
      }),
  },
  {
    name: 'channels-delete-keeps',
    area: 'channels',
    clause: 'channels.delete.removes',
    description: 'delete channel answers 200 and deletes nothing',
    consequences: [
      {
        clause: 'channels.delete.personal-default',
        reason: 'the check reads that a delete without personal removed the public channel; the fault keeps every channel',
      },
      { clause: 'private.delete-personal', reason: 'deleting a private channel with personal=true keeps it too' },
    ],
    wrapStore: (store) => overrideStore(store, { deleteChannel: (inner) => (channelId) => inner.getChannel(channelId) !== undefined }),
  },
  {
    name: 'channels-delete-any-user',
    area: 'channels',
    clause: 'channels.delete.owner-only',
    description: 'delete channel has no owner check: any user deletes any channel',
    install: (app, ctx) => ownerCheckMissing(app, ctx, 'channels.delete'),
  },
]
