/**
 * The mutation × view model (helpers/spec/models.ts, docs/coverage.md): the cells no endpoint's own checks
 * visit. Every write must be reflected by every read that shows what it changed (search by name, tag and
 * description; summary; items by id and by fetch; tags; subscribers), a refused write must change nothing,
 * and one channel's, user's or search's state must not leak into another's.
 *
 * Reads may lag a write (nothing promises read-after-write consistency): a view is polled until it shows the
 * change, and a view that must no longer show something is polled until it does not. The summary's count is
 * judged only where a count of kept items and a count of publishes agree (no removal in between).
 */
import type { Api } from '../helpers/http/api'
import type { Exchange } from '../helpers/http/client'
import { check, describe, type ChannelFactory } from '../helpers/kit/check'
import { ensure, isSuccess, show } from '../helpers/kit/expect'
import { ALSO, steps, type Judge } from '../helpers/kit/judge'
import { eventually } from '../helpers/kit/poll'
import { mustAddTags, mustSubscribe, uniqueToken } from '../helpers/kit/setup'
import { answered, channelRecord, fetched, itemsOf, listsName, publishFound, searchFor, tagList } from './support/model'
import { nameKey, userIdsOf } from './support/read'
import { match, type Matcher } from './support/match'

/**
 * A creates a channel and deletes it; B creates one of the same name. The name, or undefined when B's create
 * was refused (a server may keep a deleted name reserved: recorded).
 */
async function takenOverByB(a: Api, b: Api, channels: ChannelFactory, judge: Judge): Promise<string | undefined> {
  const name = channels.name()
  channels.track(a, name)
  steps.createChannel.response(answered(await a.createChannel({ channelName: name }), 'A creates'), { status: '2xx' })
  await channelRecord(a, name)
  steps.deleteChannel.response(answered(await a.deleteChannel(name), 'A deletes'), { status: '2xx' })
  await mustBeGone(a, name)
  channels.track(b, name)
  const again = answered(await b.createChannel({ channelName: name }), 'B creates the same name')
  if (isSuccess(again)) return name
  judge.observe(`B's create of a name A had deleted: status ${again.status} (a server may keep a name reserved)`, ALSO.createDuplicate)
  return undefined
}

/** A step: the deleted channel is no longer returned (polled), before a check builds on its absence. */
async function mustBeGone(api: Api, name: string): Promise<void> {
  const gone = await eventually(
    () => api.getChannel(name),
    (e) => !isSuccess(e),
  )
  ensure(!isSuccess(gone), steps.channelGone, `set-up: ${name} is still returned after its delete (status ${gone.status})`, gone)
}

describe('a new channel: summary, tags and items (§4.2, §2.4)', () => {
  check('channels.summary.count', 'counts no item of a new channel as 0', async ({ a, channels, judge }) => {
    const name = await channels.create(a)
    const ex = answered(await eventually(() => a.summary(name), isSuccess), 'summary of a new channel')
    const body = judge.response<{ publishedItemCount?: unknown } | undefined>(ex, { status: 200 })
    judge.match(body, match.equal('/publishedItemCount', 0, 'for a channel nothing was published to'), ex)
  })

  check('tags.delete-all.removes', 'gives a new channel no tags', async ({ a, channels, judge }) => {
    const name = await channels.create(a)
    const { tags, ex } = await tagList(a, name, () => true)
    judge.match(ex.json, match.derived('/tags of a new channel', tags, match.size('', 0)), ex)
  })

  check('items.fetch.range', 'returns no item of a new channel', async ({ a, channels, judge }) => {
    const name = await channels.create(a)
    const { items, ex } = await fetched(a, name, () => true)
    judge.match(ex.json, match.derived('/items of a new channel', items, match.size('', 0)), ex)
  })
})

describe('delete channel × search (§4.2 delete channel, search public channels)', () => {
  check('channels.delete.removes', 'no longer finds a deleted channel by name, tag or description', async ({ a, channels, fake, judge }) => {
    const name = channels.name()
    const [tag, description] = [uniqueToken(fake), `ct ${uniqueToken(fake)}`]
    channels.track(a, name)
    steps.createChannel.response(answered(await a.createChannel({ channelName: name, description }), 'create'), { status: '2xx' })
    await mustAddTags(a, name, [tag], false)
    for (const params of [{ channelName: name }, { tag }, { description }]) await searchFor(a, params, name)
    judge.response(answered(await a.deleteChannel(name), 'delete'), { status: '2xx' })
    for (const params of [{ channelName: name }, { tag }, { description }]) {
      const ex = answered(await searchFor(a, params, name, false), `search ${show(params)}`)
      ensure(isSuccess(ex) && !listsName(ex, name), judge, `search ${show(params)} after the delete: status ${ex.status}, ${name} is still listed`, ex)
    }
  })
})

describe('delete and re-create × get, search, delete (§4.2, §2.3, §5.5)', () => {
  check('channels.search.by-tag', "does not find a channel made again under a deleted name by the old channel's tag", async ({ a, channels, fake, judge }) => {
    const name = channels.name()
    const tag = uniqueToken(fake)
    channels.track(a, name)
    steps.createChannel.response(answered(await a.createChannel({ channelName: name }), 'create'), { status: '2xx' })
    await mustAddTags(a, name, [tag], false)
    await searchFor(a, { tag }, name)
    steps.deleteChannel.response(answered(await a.deleteChannel(name), 'delete'), { status: '2xx' })
    await mustBeGone(a, name)
    steps.createChannel.response(answered(await a.createChannel({ channelName: name }), 'create again'), { status: '2xx' })
    await channelRecord(a, name)
    const ex = answered(await searchFor(a, { tag }, name, false), 'search by the old tag')
    ensure(isSuccess(ex) && !listsName(ex, name), judge, `search by the deleted channel's tag ${show(tag)}: the new channel ${name} is listed`, ex)
  })

  check('channels.get.creator', 'names the new owner of a name another user deleted and re-created', async ({ a, b, users, channels, judge }) => {
    const name = await takenOverByB(a, b, channels, judge)
    if (!name) return
    const { ch, ex } = await channelRecord(b, name)
    judge.match(ch, match.startsWith('/creator', users.B.userId, "B's user id: the channel is B's"), ex)
  })

  check('channels.delete.owner-only', 'refuses the first owner a delete of its old name another user re-created', async ({ a, b, channels, judge }) => {
    const name = await takenOverByB(a, b, channels, judge)
    if (!name) return
    const del = answered(await a.deleteChannel(name), "A deletes B's channel")
    judge.match(del, match.when(`A's DELETE of ${name}, now B's`, match.status('refusal')), del)
    const still = answered(await eventually(() => b.getChannel(name), isSuccess), "B's channel after A's delete")
    judge.match(still, match.when(`B's channel ${name} after A's refused delete`, match.status('2xx', 'the channel kept')), still)
  })
})

describe('tags × search by tag (§4.2 add, delete one and delete all tags)', () => {
  check('channels.search.by-tag', 'no longer finds a channel by a tag deleted from it', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const [x, y] = [uniqueToken(fake), uniqueToken(fake)]
    await mustAddTags(a, name, [x, y], false)
    await searchFor(a, { tag: x }, name)
    steps.deleteTag.response(answered(await a.deleteTag(name, x, false), 'delete one tag'), { status: '2xx' })
    const left = await tagList(a, name, (t) => !t.includes(x))
    ensure(!left.tags.includes(x), steps.tagGone, `set-up: get tags still lists ${show(x)} after its delete: ${show(left.tags)}`, left.ex)
    const ex = answered(await searchFor(a, { tag: x }, name, false), 'search by the deleted tag')
    ensure(isSuccess(ex) && !listsName(ex, name), judge, `search by ${show(x)}, deleted from ${name}: the channel is still listed`, ex)
  })

  check('channels.search.by-tag', 'no longer finds a channel by any of its tags after delete all tags', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const [x, y] = [uniqueToken(fake), uniqueToken(fake)]
    await mustAddTags(a, name, [x, y], false)
    await searchFor(a, { tag: y }, name)
    steps.deleteTags.response(answered(await a.deleteTags(name, false), 'delete all tags'), { status: '2xx' })
    const left = await tagList(a, name, (t) => t.length === 0)
    ensure(left.tags.length === 0, steps.tagsCleared, `set-up: get tags lists ${show(left.tags)} after delete all tags`, left.ex)
    for (const tag of [x, y]) {
      const ex = answered(await searchFor(a, { tag }, name, false), `search by ${tag}`)
      ensure(isSuccess(ex) && !listsName(ex, name), judge, `search by ${show(tag)} after delete all tags: ${name} is still listed`, ex)
    }
  })

  check('channels.search.by-tag', 'finds a second channel that took a tag after a search for it', async ({ a, channels, fake, judge }) => {
    const [first, second] = [await channels.create(a), await channels.create(a)]
    const tag = uniqueToken(fake)
    await mustAddTags(a, first, [tag], false)
    await searchFor(a, { tag }, first)
    await mustAddTags(a, second, [tag], false)
    const ex = answered(
      await eventually(
        () => a.searchChannels({ tag, offset: 0, size: 50 }),
        (e) => isSuccess(e) && listsName(e, first) && listsName(e, second),
      ),
      'search by the tag again',
    )
    judge.match(ex.json, match.when(`search by ${show(tag)}`, match.containsAll('/results', [first, second], { key: nameKey, anyCase: true })), ex)
  })
})

describe('items × views: a refused publish, eviction, deletes, and ids of another channel (§4.2, §2.3)', () => {
  check(
    'items.permission.owner',
    'stores nothing for a refused publish: fetch and the summary count stay as they were',
    async ({ a, b, channels, fake, judge }) => {
      const name = await channels.create(a, { publishPermission: 'owner' })
      const [mine, theirs] = [uniqueToken(fake), uniqueToken(fake)]
      await publishFound(a, name, { ref: mine }, mine)
      const countOf = (e: Exchange): unknown => (e.json as { publishedItemCount?: unknown } | undefined)?.publishedItemCount
      // The count after A's one publish, whatever it is: channels.summary.count judges its value, this check that it stays.
      const first = answered(
        await eventually(
          () => a.summary(name),
          (e) => isSuccess(e) && typeof countOf(e) === 'number' && (countOf(e) as number) >= 1,
        ),
        'summary',
      )
      steps.summary.response(first, { status: '2xx' })
      const refused = answered(await b.publish(name, { content: { ref: theirs }, messageType: 'text', contentType: 'text/plain' }), "B's publish")
      judge.match(refused, match.when("B's publish to a channel whose publishPermission is owner", match.status('refusal')), refused)
      const { items, ex } = await fetched(a, name, (list) => list.some((i) => i.content?.ref === mine))
      ensure(!items.some((i) => i.content?.ref === theirs), judge, `fetch after B's refused publish: B's item ${show(theirs)} is stored`, ex)
      const sum = answered(await a.summary(name), 'summary')
      judge.match(sum.json, match.when("after B's refused publish", match.equal('/publishedItemCount', countOf(first), 'as before it')), sum)
    },
  )

  check('items.max-items', 'returns at most 2 of 3 items by id in a channel with maxItems 2', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a, { maxItems: 2 })
    const refs = [uniqueToken(fake), uniqueToken(fake), uniqueToken(fake)]
    const ids: string[] = []
    for (const ref of refs) ids.push((await publishFound(a, name, { ref }, ref)).itemId)
    const ex = answered(await a.getItems(name, ids), 'get the three items by id')
    if (!isSuccess(ex)) {
      // The answer to an id the server no longer has is not shown (§4.2): a refusal tells nothing here.
      judge.observe(`get by the ids of 3 items, one evicted by maxItems 2: status ${ex.status}`, ALSO.getUnknownId)
      return
    }
    const got = itemsOf(ex)
    judge.match(ex.json, match.when('by id from a channel with maxItems 2', match.derived('/items', got, match.atMost('', 2))), ex)
  })

  check('items.delete.removes', 'no longer fetches a deleted item', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const [gone, kept] = [uniqueToken(fake), uniqueToken(fake)]
    const { itemId } = await publishFound(a, name, { ref: gone }, gone)
    await publishFound(a, name, { ref: kept }, kept)
    judge.response(answered(await a.deleteItems(name, [itemId]), 'delete one item'), { status: '2xx' })
    const { items, ex } = await fetched(a, name, (list) => !list.some((i) => i.itemId === itemId))
    ensure(!items.some((i) => i.itemId === itemId), judge, `fetch after deleting ${itemId}: it is still listed`, ex)
    ensure(
      items.some((i) => i.content?.ref === kept),
      judge,
      `fetch after deleting ${itemId}: the other item (ref ${show(kept)}) is gone too`,
      ex,
    )
  })

  check('items.delete-all.empties', 'returns no deleted item by its id', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const ref = uniqueToken(fake)
    const { itemId } = await publishFound(a, name, { ref }, ref)
    judge.response(answered(await a.deleteAllItems(name, false), 'delete all items'), { status: '2xx' })
    const ex = answered(
      await eventually(
        () => a.getItems(name, [itemId]),
        (e) => !isSuccess(e) || itemsOf(e).length === 0,
      ),
      'get the deleted item by id',
    )
    if (!isSuccess(ex)) {
      judge.observe(`get by the id of a deleted item: status ${ex.status}`, ALSO.getUnknownId)
      return
    }
    ensure(itemsOf(ex).length === 0, judge, `/items: the item ${itemId} comes back by id after delete all items`, ex)
  })

  check('items.get.by-ids', "returns none of another channel's items for their ids", async ({ a, channels, fake, judge }) => {
    const [here, there] = [await channels.create(a), await channels.create(a)]
    const [mine, theirs] = [uniqueToken(fake), uniqueToken(fake)]
    await publishFound(a, here, { ref: mine }, mine)
    const { itemId } = await publishFound(a, there, { ref: theirs }, theirs)
    const ex = answered(await a.getItems(here, [itemId]), "get another channel's item id")
    if (!isSuccess(ex)) {
      judge.observe(`get by an id of another channel's item: status ${ex.status}`, ALSO.getUnknownId)
      return
    }
    const leaked = itemsOf(ex).filter((i) => i.content?.ref === theirs)
    ensure(leaked.length === 0, judge, `GET ${here} items?id=${itemId}: returned the item of ${there}; an item belongs to its channel`, ex)
  })

  check('items.delete.removes', "keeps another channel's item whose id is sent to this channel", async ({ a, channels, fake, judge }) => {
    const [here, there] = [await channels.create(a), await channels.create(a)]
    const theirs = uniqueToken(fake)
    const { itemId } = await publishFound(a, there, { ref: theirs }, theirs)
    answered(await a.deleteItems(here, [itemId]), "delete another channel's item id")
    // Any answer is the server's (the id is unknown here); the other channel's item must be untouched.
    const { items, ex } = await fetched(a, there, (list) => list.some((i) => i.itemId === itemId))
    ensure(
      items.some((i) => i.itemId === itemId),
      judge,
      `fetch of ${there} after a delete of its item's id through ${here}: the item is gone`,
      ex,
    )
  })
})

describe('refused delete × search, subscribe × other channels, private twins (§4.2, §2.3, §5.5)', () => {
  check('channels.delete.owner-only', 'keeps a channel findable by name after a refused delete', async ({ a, b, channels, judge }) => {
    const name = await channels.create(a, { privateChannel: false })
    await searchFor(a, { channelName: name }, name)
    const del = answered(await b.deleteChannel(name), "B's delete")
    judge.match(del, match.when(`B's DELETE of A's channel ${name}`, match.status('refusal')), del)
    const ex = answered(await searchFor(a, { channelName: name }, name), 'search after the refused delete')
    ensure(listsName(ex, name), judge, `search by name after B's refused delete: ${name} is not listed`, ex)
  })

  check('subscriptions.subscribe.listed', 'lists a subscriber only on the channel it subscribed to', async ({ a, b, users, channels, judge }) => {
    const [joined, other] = [await channels.create(a), await channels.create(a)]
    await mustSubscribe(b, joined)
    const listed = answered(
      await eventually(
        () => a.subscriptions(joined),
        (e) => isSuccess(e) && userIdsOf(e).includes(users.B.userId),
      ),
      'subscribers of the joined channel',
    )
    ensure(userIdsOf(listed).includes(users.B.userId), judge, `subscribers of ${joined}: B is not listed after subscribing`, listed)
    const ex = answered(await a.subscriptions(other), 'subscribers of the other channel')
    steps.listSubscriptions.response(ex, { status: '2xx' })
    ensure(!userIdsOf(ex).includes(users.B.userId), judge, `subscribers of ${other}: B is listed, but subscribed only to ${joined}`, ex)
  })

  check('private.own-plain-name', 'gives each of two users its own private channel of one name', async ({ a, b, users, channels, fake, judge }) => {
    const name = channels.name()
    const [mine, theirs] = [`ct ${uniqueToken(fake)}`, `ct ${uniqueToken(fake)}`]
    channels.track(a, name, true)
    steps.createChannel.response(answered(await a.createChannel({ channelName: name, privateChannel: true, description: mine }), 'A creates'), {
      status: '2xx',
    })
    channels.track(b, name, true)
    const twin = answered(
      await b.createChannel({ channelName: name, privateChannel: true, description: theirs }),
      'B creates a private channel of the same name',
    )
    if (!isSuccess(twin)) {
      judge.observe(`B's private channel of the name of A's private channel: status ${twin.status}`, ALSO.createDuplicate)
      return
    }
    for (const [who, api, want, userId] of [
      ['A', a, mine, users.A.userId],
      ['B', b, theirs, users.B.userId],
    ] as const) {
      const ex = answered(
        await eventually(
          () => api.getChannel(name),
          (e) => isSuccess(e) && (e.json as { description?: unknown })?.description === want,
        ),
        `${who} reads ${name}`,
      )
      const ch = ex.json as { description?: unknown; creator?: unknown } | undefined
      const itsOwn = (m: Matcher) => match.when(`${who}'s GET of its private ${name}`, m)
      judge.match(ex, itsOwn(match.status('2xx')), ex)
      judge.match(
        ch,
        [
          itsOwn(match.equal('/description', want, 'its own')),
          itsOwn(match.that('/creator', (c) => typeof c !== 'string' || c.startsWith(userId), `${who}'s, starting with ${show(userId)}`)),
        ],
        ex,
      )
    }
  })
})
