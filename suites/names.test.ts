/**
 * The name-route model (helpers/spec/models.ts NAME_ROUTE_MODEL, docs/coverage.md section 8): a channel whose
 * name holds each class of character or length is reached by every endpoint that addresses a channel by name
 * (§4.2 paths), not only by get, search, summary and delete (suites/inputs.test.ts). A router that decodes one
 * path differently from another, or a table whose channel-name column is shorter than the channel's, shows
 * only on the endpoints that go through it.
 *
 * The spec shows no alphabet nor length for names (§2.3): a refused create is recorded and that class skipped.
 * One check per class and endpoint, each on a channel of its own.
 */
import type { Faker } from '@faker-js/faker'
import type { Api } from '../helpers/http/api'
import type { RunAccount } from '../helpers/http/run-context'
import { check, describe, type ChannelFactory } from '../helpers/kit/check'
import { isSuccess } from '../helpers/kit/expect'
import { ALSO, steps, type Judge } from '../helpers/kit/judge'
import { eventually } from '../helpers/kit/poll'
import { mustAddTags, mustSubscribe, uniqueToken } from '../helpers/kit/setup'
import { NAME_CLASSES, NAME_ROUTE_CLASSES, nameRouteTitle, type NameClassId } from '../helpers/spec/models'
import { answered, brief, channelRecord, fetched, hasTag, namedChannel, subscribersOf, tagList } from './support/model'
import { publishSeries, storedIds } from './support/items'
import { match, sameText } from './support/match'
import { judgeAddressRead } from './support/private'
import { bodyOf } from './support/read'

interface Named {
  /** The channel's name (of the class). */
  name: string
  /** How the class reads in a message: "a channel whose name holds a space". */
  what: string
}

/** A's channel (with `extra`) whose name is of class `k`, or undefined when the server refused the name (recorded). */
async function named(a: Api, channels: ChannelFactory, judge: Judge, k: NameClassId, extra: { privateChannel?: boolean } = {}): Promise<Named | undefined> {
  const cls = NAME_CLASSES[k]
  const name = await namedChannel(a, channels, judge, cls, extra)
  return name ? { name, what: `a channel whose name holds ${cls.what}` } : undefined
}

/** Two tags unique to the check, added by the name and read back (set-up steps). */
async function twoTags(a: Api, name: string, fake: Faker): Promise<[string, string]> {
  const tags: [string, string] = [uniqueToken(fake), uniqueToken(fake)]
  await mustAddTags(a, name, tags, false)
  return tags
}

const subscribedAs = (user: RunAccount) => (ids: unknown[]) => ids.includes(user.userId)

describe('every endpoint that addresses a channel by name × classes of name (§4.2 paths, §2.3)', () => {
  for (const k of NAME_ROUTE_CLASSES) {
    check('subscriptions.subscribe.listed', nameRouteTitle.subscribe(k), async ({ a, b, users, channels, judge }) => {
      const n = await named(a, channels, judge, k)
      if (!n) return
      const { name, what } = n
      steps.subscribe.response(answered(await b.subscribe(name), `B subscribes to ${what}`), { status: '2xx' })
      const { ex } = await subscribersOf(a, name, subscribedAs(users.B))
      const subs = judge.match(ex.json, match.array(`an array of the subscriptions of ${what}`), ex)
      const mine = subs.map((s) => bodyOf({ json: s })).find((s) => s?.userId === users.B.userId)
      judge.match(
        mine,
        match.when(
          `B's subscription to ${what}`,
          match.that('/channelName', (n) => typeof n === 'string' && sameText(n, name), `${brief(name)} in any case`),
        ),
        ex,
      )
    })

    check('subscriptions.unsubscribe.removed', nameRouteTitle.unsubscribe(k), async ({ a, b, users, channels, judge }) => {
      const n = await named(a, channels, judge, k)
      if (!n) return
      const { name, what } = n
      await mustSubscribe(b, name)
      await subscribersOf(a, name, subscribedAs(users.B))
      steps.unsubscribe.response(answered(await b.unsubscribe(name), `B unsubscribes from ${what}`), { status: '2xx' })
      const { ids, ex } = await subscribersOf(a, name, (list) => !list.includes(users.B.userId))
      judge.match(ids, match.when(`subscribers of ${what} after B's unsubscribe`, match.lacks('', users.B.userId, { what: "B's user id" })), ex)
    })

    check('tags.add.visible', nameRouteTitle.addTags(k), async ({ a, channels, fake, judge }) => {
      const n = await named(a, channels, judge, k)
      if (!n) return
      const { name, what } = n
      const tags = [uniqueToken(fake), uniqueToken(fake)]
      steps.addTags.response(answered(await a.addTags(name, tags, false), `add tags to ${what}`), { status: '2xx' })
      const stored = await tagList(a, name, (t) => tags.every((tag) => hasTag(t, tag)))
      judge.match(stored, match.when(`tags of ${what}`, match.containsAll('/tags', tags, { anyCase: true })), stored.ex)
    })

    check('tags.delete-one.removes', nameRouteTitle.deleteTag(k), async ({ a, channels, fake, judge }) => {
      const n = await named(a, channels, judge, k)
      if (!n) return
      const { name, what } = n
      const [gone, kept] = await twoTags(a, name, fake)
      steps.deleteTag.response(answered(await a.deleteTag(name, gone, false), `delete one tag of ${what}`), { status: '2xx' })
      const stored = await tagList(a, name, (t) => !hasTag(t, gone))
      judge.match(
        stored,
        [match.lacks('/tags', gone, { anyCase: true, what: 'the deleted tag' }), match.contains('/tags', kept, { anyCase: true, what: 'the other tag' })].map(
          (m) => match.when(`tags of ${what} after deleting ${brief(gone)}`, m),
        ),
        stored.ex,
      )
    })

    check('tags.delete-all.removes', nameRouteTitle.deleteTags(k), async ({ a, channels, fake, judge }) => {
      const n = await named(a, channels, judge, k)
      if (!n) return
      const { name, what } = n
      await twoTags(a, name, fake)
      steps.deleteTags.response(answered(await a.deleteTags(name, false), `delete all tags of ${what}`), { status: '2xx' })
      const stored = await tagList(a, name, (t) => t.length === 0)
      judge.match(stored, match.when(`tags of ${what} after delete all tags`, match.size('/tags', 0)), stored.ex)
    })

    check('items.fetch.range', nameRouteTitle.publish(k), async ({ a, channels, fake, judge }) => {
      const n = await named(a, channels, judge, k)
      if (!n) return
      const { name, what } = n
      const ref = uniqueToken(fake)
      steps.publish.response(answered(await a.publish(name, { content: { ref }, messageType: 'text', contentType: 'text/plain' }), `publish to ${what}`), {
        status: '2xx',
      })
      const { items, ex } = await fetched(a, name, (list) => list.some((i) => i.content?.ref === ref))
      judge.match(
        items,
        match.when(
          `fetch of ${what}`,
          match.contains('', ref, { key: (i) => (i as { content?: { ref?: unknown } })?.content?.ref, what: 'the item published' }),
        ),
        ex,
      )
    })

    check('items.get.by-ids', nameRouteTitle.getItems(k), async ({ a, channels, fake, judge }) => {
      const n = await named(a, channels, judge, k)
      if (!n) return
      const { name, what } = n
      const [itemId] = await publishSeries(a, name, 1, fake, steps.fetchItems)
      const ex = answered(
        await eventually(
          () => a.getItems(name, [itemId!]),
          (e) => isSuccess(e) && JSON.stringify(e.json).includes(itemId!),
        ),
        `get an item of ${what} by id`,
      )
      steps.getItems.response(ex, { status: '2xx' })
      judge.match(
        ex.json,
        match.when(
          `items of ${what} by the id ${brief(itemId)}`,
          match.contains('/items', itemId, { key: (i) => bodyOf({ json: i })?.itemId, what: 'the item' }),
        ),
        ex,
      )
    })

    check('items.delete.removes', nameRouteTitle.deleteItems(k), async ({ a, channels, fake, judge }) => {
      const n = await named(a, channels, judge, k)
      if (!n) return
      const { name, what } = n
      const [gone, kept] = await publishSeries(a, name, 2, fake, steps.fetchItems)
      steps.deleteItems.response(answered(await a.deleteItems(name, [gone!]), `delete an item of ${what} by id`), { status: '2xx' })
      const { stored, ex } = await storedIds(a, name, steps.fetchItems, (e) => isSuccess(e) && !JSON.stringify(e.json).includes(gone!))
      judge.match(
        stored,
        [match.lacks('', gone, { what: 'the deleted item' }), match.contains('', kept, { what: 'the other item' })].map((m) =>
          match.when(`itemIds of ${what} after deleting ${brief(gone)}`, m),
        ),
        ex,
      )
    })

    check('items.delete-all.empties', nameRouteTitle.deleteAllItems(k), async ({ a, channels, fake, judge }) => {
      const n = await named(a, channels, judge, k)
      if (!n) return
      const { name, what } = n
      await publishSeries(a, name, 2, fake, steps.fetchItems)
      steps.deleteAllItems.response(answered(await a.deleteAllItems(name, false), `delete all items of ${what}`), { status: '2xx' })
      const { stored, ex } = await storedIds(
        a,
        name,
        steps.fetchItems,
        (e) => isSuccess(e) && Array.isArray((e.json as { items?: unknown[] })?.items) && (e.json as { items: unknown[] }).items.length === 0,
      )
      judge.match(stored, match.when(`items of ${what} after delete all items`, match.size('', 0)), ex)
    })

    check('channels.summary.count', nameRouteTitle.summaryCount(k), async ({ a, channels, fake, judge }) => {
      const n = await named(a, channels, judge, k)
      if (!n) return
      const { name, what } = n
      await publishSeries(a, name, 1, fake, steps.fetchItems)
      const ex = answered(
        await eventually(
          () => a.summary(name),
          (e) => isSuccess(e) && bodyOf(e)?.publishedItemCount === 1,
        ),
        `summary of ${what}`,
      )
      steps.summary.response(ex, { status: '2xx' })
      judge.match(bodyOf(ex), match.when(`summary of ${what} after one publish`, match.equal('/publishedItemCount', 1)), ex)
    })

    check('channels.delete.owner-only', nameRouteTitle.ownerOnly(k), async ({ a, b, channels, judge }) => {
      const n = await named(a, channels, judge, k)
      if (!n) return
      const { name, what } = n
      // Read first (a step): a channel the owner cannot get by this name is get's deviation, not the delete's.
      await channelRecord(a, name)
      const ex = await b.deleteChannel(name)
      judge.refused(ex, { status: 403, clause: ALSO.forbidden403 })
      const after = await eventually(
        () => a.getChannel(name),
        (e) => e.status === 200,
      )
      judge.match(after, match.when(`owner's GET of ${what} after B's refused delete`, match.status(200, 'the channel still exists')), after)
    })

    check('private.other-user-address', nameRouteTitle.address(k), async ({ a, b, users, channels, judge }) => {
      const n = await named(a, channels, judge, k, { privateChannel: true })
      if (n) await judgeAddressRead(a, b, `${users.A.userId}#${n.name}`, n.name, judge, `private ${n.what.slice(2)}`)
    })
  }
})
