import type { CatalogFault } from './types'
import { overrideStore, rewriteJson } from './kit'

/** Subscriptions (§4.2 subscribe, unsubscribe, list subscribers; §2.5) and tags (§4.2). */

export const SUBSCRIPTION_FAULTS: readonly CatalogFault[] = [
  {
    name: 'subscriptions-sub-id-renamed',
    area: 'subscriptions',
    clause: 'subscriptions.subscribe.response',
    description: 'subscribe answers subscriptionId (the §2.5 field name) instead of subId',
    consequences: [{ clause: 'http.no-extra-fields', reason: 'the renamed field is an undocumented one' }],
    install: (app) => rewriteJson(app, 'subscriptions.subscribe', ({ subId, ...rest }) => ({ ...rest, subscriptionId: subId })),
  },
  {
    name: 'subscriptions-unsubscribe-keeps',
    area: 'subscriptions',
    clause: 'subscriptions.unsubscribe.removed',
    description: 'unsubscribe reports the subscriptions cancelled but leaves them in place',
    consequences: [
      { clause: 'items.permission.subscribers', reason: 'the check needs an unsubscribed user: with the fault the user stays a subscriber and may publish' },
      {
        clause: 'subscriptions.unsubscribe.count',
        reason: 'the check compares the stated count with how many subscriptions left the list; with the fault none leaves',
      },
    ],
    wrapStore: (store) =>
      overrideStore(store, {
        removeSubscriptions: (inner) => (channelId, userId) => inner.listSubscriptions(channelId).filter((s) => s.userId === userId).length,
      }),
  },
  {
    name: 'subscriptions-unsubscribe-no-count',
    area: 'subscriptions',
    clause: 'subscriptions.unsubscribe.count',
    description: 'the unsubscribe message says "unsubscribed" without the number of subscriptions cancelled',
    install: (app) => rewriteJson(app, 'subscriptions.unsubscribe', (body) => ({ ...body, message: 'unsubscribed' })),
  },
]

export const TAG_FAULTS: readonly CatalogFault[] = [
  {
    name: 'tags-not-stored',
    area: 'tags',
    clause: 'tags.add.visible',
    description: 'add tags answers 200 and stores no tag',
    consequences: [{ clause: 'private.tags-personal', reason: 'the check adds tags to a private channel (its own act) and reads them back' }],
    wrapStore: (store) => overrideStore(store, { addTags: () => () => 0 }),
  },
  {
    name: 'tags-get-bare-array',
    area: 'tags',
    clause: 'tags.get.shape',
    description: 'get tags answers the bare array of tags, without channelName',
    install: (app) => rewriteJson(app, 'tags.get', (body) => body.tags),
  },
  {
    name: 'tags-delete-one-clears-all',
    area: 'tags',
    clause: 'tags.delete-one.removes',
    description: 'delete one tag removes every tag of the channel',
    consequences: [
      { clause: 'private.tags-personal', reason: 'the check deletes one tag of a private channel and expects the others kept' },
      {
        clause: 'tags.add.visible',
        reason: 'the race check adds one tag while it deletes another; whichever lands first, the delete clears the tag added beside it',
      },
    ],
    wrapStore: (store) =>
      overrideStore(store, {
        removeTag: (inner) => (channelId, tag, at) => inner.getChannel(channelId)?.tags.includes(tag) === true && inner.clearTags(channelId, at) > 0,
      }),
  },
]
