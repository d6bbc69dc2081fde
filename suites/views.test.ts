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
import { check, describe, type ChannelFactory, type CheckFixtures } from '../helpers/kit/check'
import { ensure, isSuccess, show } from '../helpers/kit/expect'
import { ALSO, steps, type Judge } from '../helpers/kit/judge'
import { eventually } from '../helpers/kit/poll'
import type { RunAccount } from '../helpers/http/run-context'
import { mustAddTags, mustBePrivate, mustPublish, mustSearchAnswer200, mustSubscribe, uniqueToken } from '../helpers/kit/setup'
import { aroundNow } from '../helpers/kit/window'
import { tagPairTitle, viewTitle } from '../helpers/spec/models'
import { answered, channelRecord, fetched, itemsOf, listsName, publishFound, resultNames, searchFor, tagList, type StoredItem } from './support/model'
import { nameKey, userIdsOf } from './support/read'
import { match, sameText, type Matcher } from './support/match'

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

describe('delete channel × search total (§4.2 search: total)', () => {
  check('channels.search.total', 'no longer counts a deleted channel in total', async ({ a, channels, fake, judge }) => {
    const tag = uniqueToken(fake)
    const [kept, gone] = [await channels.create(a), await channels.create(a)]
    for (const name of [kept, gone]) await mustAddTags(a, name, [tag], false)
    await searchFor(a, { tag }, gone)
    steps.deleteChannel.response(answered(await a.deleteChannel(gone), 'delete'), { status: '2xx' })
    await mustBeGone(a, gone)
    // Polled: a search index may lag the delete, in its results and its total alike.
    const totalOf = (e: Exchange) => (e.json as { total?: unknown } | undefined)?.total
    const ex = answered(
      await eventually(
        () => a.searchChannels({ tag, offset: 0, size: 50 }),
        (e) => isSuccess(e) && !listsName(e, gone) && totalOf(e) === 1,
      ),
      'search by the tag after the delete',
    )
    mustSearchAnswer200(ex)
    // A search that lists channels without the tag is channels.search.by-tag's deviation: a step, which blocks this check.
    steps.foundByTag.match(
      resultNames(ex),
      match.when(
        `tag=${tag}`,
        match.that('', (names) => Array.isArray(names) && names.every((n) => sameText(n, kept)), `only ${kept}, the channel carrying the tag`),
      ),
      ex,
    )
    const page = judge.response(ex, { status: 200 })
    judge.match(page, match.when(`tag=${tag} after deleting ${gone}; only ${kept} carries it`, match.equal('/total', 1)), ex)
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

describe('delete and re-create × a former subscriber subscribing again (§4.2 subscribe, §2.5)', () => {
  check('subscriptions.subscribe.listed', viewTitle.recreateResubscribe, async ({ a, b, users, channels, judge }) => {
    const name = channels.name()
    channels.track(a, name)
    steps.createChannel.response(answered(await a.createChannel({ channelName: name, subscribeOnCreate: false }), 'create'), { status: '2xx' })
    await mustSubscribe(b, name)
    await eventually(
      () => a.subscriptions(name),
      (e) => isSuccess(e) && userIdsOf(e).includes(users.B.userId),
    )
    steps.deleteChannel.response(answered(await a.deleteChannel(name), 'delete'), { status: '2xx' })
    await mustBeGone(a, name)
    steps.createChannel.response(answered(await a.createChannel({ channelName: name, subscribeOnCreate: false }), 'create again'), { status: '2xx' })
    await channelRecord(a, name)
    // B's subscription was to the deleted channel: to the new one, B's subscribe is a first one.
    const sub = answered(await b.subscribe(name), "B's subscribe to the channel made again")
    judge.response(sub, { status: '2xx' })
    const ex = answered(
      await eventually(
        () => a.subscriptions(name),
        (e) => isSuccess(e) && userIdsOf(e).includes(users.B.userId),
      ),
      'subscriptions of the channel made again',
    )
    judge.match(
      ex.json,
      match.when(
        `${name} deleted while B was subscribed, created again, then B's subscribe (status ${sub.status})`,
        match.derived('/userId of each subscription', userIdsOf(ex), match.contains('', users.B.userId, { what: 'B, who subscribed to the new channel' })),
      ),
      ex,
    )
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

  // The view read before the change as well as after: a search that answered "none" for a tag must find the
  // channel once the tag is added (a per-tag answer kept from the first search is the deviation).
  check('channels.search.by-tag', 'finds a channel by a tag added to it after a search for that tag found nothing', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const tag = uniqueToken(fake)
    const none = answered(await a.searchChannels({ tag, offset: 0, size: 50 }), 'search by the tag before it is added')
    steps.searchAnswered.response(none, { status: '2xx' })
    await mustAddTags(a, name, [tag], false)
    // Another page size than the first search's: an answer kept for the same URL (an HTTP cache) is not this check's.
    const ex = answered(await searchFor(a, { tag, size: 49 }, name), 'search by the tag after it was added')
    judge.match(
      ex.json,
      match.when(`search by ${show(tag)}, added after a search for it`, match.containsAll('/results', [name], { key: nameKey, anyCase: true })),
      ex,
    )
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

describe('undone and done again × views (§4.2): a tag, all tags, all items, a channel', () => {
  /** A channel with the tags [x, y], x deleted one at a time or by delete all tags (steps), then x added again. */
  async function tagAddedAgain(a: Api, channels: ChannelFactory, token: () => string, how: 'one' | 'all'): Promise<{ name: string; x: string }> {
    const name = await channels.create(a)
    const [x, y] = [token(), token()]
    await mustAddTags(a, name, [x, y], false)
    if (how === 'one') {
      steps.deleteTag.response(answered(await a.deleteTag(name, x, false), 'delete one tag'), { status: '2xx' })
      const left = await tagList(a, name, (t) => !t.includes(x))
      steps.tagGone.match(left, match.when(`set-up: after deleting ${show(x)}`, match.lacks('/tags', x, { what: 'the deleted tag' })), left.ex)
    } else {
      steps.deleteTags.response(answered(await a.deleteTags(name, false), 'delete all tags'), { status: '2xx' })
      const left = await tagList(a, name, (t) => t.length === 0)
      steps.tagsCleared.match(left, match.when('set-up: after delete all tags', match.size('/tags', 0)), left.ex)
    }
    steps.addTags.response(answered(await a.addTags(name, [x], false), 'add the deleted tag again'), { status: '2xx' })
    return { name, x }
  }

  for (const how of ['one', 'all'] as const) {
    const after = how === 'one' ? 'after it was deleted' : 'after delete all tags'
    check('tags.add.visible', `lists a tag added again ${after}`, async ({ a, channels, fake, judge }) => {
      const { name, x } = await tagAddedAgain(a, channels, () => uniqueToken(fake), how)
      const again = await tagList(a, name, (t) => t.includes(x))
      judge.match(again, match.when(`get tags after adding ${show(x)} again`, match.contains('/tags', x, { what: 'the tag added again' })), again.ex)
    })

    check('channels.search.by-tag', `finds a channel by a tag added again ${after}`, async ({ a, channels, fake, judge }) => {
      const { name, x } = await tagAddedAgain(a, channels, () => uniqueToken(fake), how)
      // The tag listed again is tags.add.visible's: a step, so a tag never stored again blocks this check.
      const again = await tagList(a, name, (t) => t.includes(x))
      steps.tagsStored.match(again, match.when(`set-up: after adding ${show(x)} again`, match.contains('/tags', x)), again.ex)
      const ex = answered(await searchFor(a, { tag: x }, name), 'search by the tag added again')
      judge.match(ex.json, match.when(`search by ${show(x)}, added again to ${name}`, match.contains('/results', name, { key: nameKey, anyCase: true })), ex)
    })
  }

  /**
   * Two tag changes in a row: each ordered pair of (add a new tag, delete one tag, delete all tags) on a channel with
   * the tags [t1, t2]. The model follows each tag: added by an add, gone after a delete that names it (one tag: t1,
   * or t2 when t1 is already deleted one at a time) or after delete all tags while it was there. Each tag is judged
   * under the clause of the last change that names it, so a first change's effect the second undoes is the first's
   * deviation; a tag neither names stays, under the second change's clause. The tag list is compared as a set (a
   * server may sort tags or keep them in any order; case is not judged). The first change's effect is waited for
   * (a step) before the second: reads may lag. A delete of a tag or of tags the channel no longer has may be
   * refused (not shown): only its answer's 5xx is judged.
   */
  type TagChange = 'add' | 'deleteOne' | 'deleteAll'
  const TAG_CHANGES: readonly TagChange[] = ['add', 'deleteOne', 'deleteAll']
  // No path in these: a reproducer reads the failure line after its context.
  const TAG_CHANGE_LABEL: Readonly<Record<TagChange, string>> = {
    add: 'an add of a new tag',
    deleteOne: 'a delete of one tag',
    deleteAll: 'a delete of all tags',
  }

  /** The tags [t1, t2, the first add's, the second add's] and, for each, whether the pair leaves it and which change named it last. */
  function tagPairModel(pair: readonly [TagChange, TagChange], tags: readonly string[]) {
    const present = new Set([tags[0]!, tags[1]!])
    const last = new Map<string, TagChange>()
    const targets: (string | undefined)[] = []
    pair.forEach((op, i) => {
      if (op === 'add') {
        present.add(tags[2 + i]!)
        last.set(tags[2 + i]!, 'add')
        targets.push(tags[2 + i])
      } else if (op === 'deleteOne') {
        const t = last.get(tags[0]!) === 'deleteOne' ? tags[1]! : tags[0]!
        present.delete(t)
        last.set(t, 'deleteOne')
        targets.push(t)
      } else {
        for (const t of present) last.set(t, 'deleteAll')
        present.clear()
        targets.push(undefined)
      }
    })
    const universe = tags.filter((t, i) => i < 2 || pair[i - 2] === 'add')
    return { present, targets, judgedBy: (t: string): TagChange => last.get(t) ?? pair[1], universe }
  }

  const lower = (list: readonly string[]) => list.map((t) => String(t).toLowerCase())

  async function tagPair(fx: Pick<CheckFixtures, 'a' | 'channels' | 'fake' | 'judge'>, own: TagChange, pair: readonly [TagChange, TagChange]): Promise<void> {
    const { a, channels, fake, judge } = fx
    const tags = [uniqueToken(fake), uniqueToken(fake), uniqueToken(fake), uniqueToken(fake)]
    const model = tagPairModel(pair, tags)
    const name = await channels.create(a)
    await mustAddTags(a, name, [tags[0]!, tags[1]!], false)
    const start = await tagList(a, name, (t) => [tags[0]!, tags[1]!].every((x) => lower(t).includes(x.toLowerCase())))
    steps.tagsStored.match(lower(start.tags), match.when('set-up: get tags before the changes', match.containsAll('', [tags[0]!, tags[1]!])), start.ex)
    const what = pair.map((op) => TAG_CHANGE_LABEL[op]).join(', then ')
    for (const [i, op] of pair.entries()) {
      const target = model.targets[i]
      const ex =
        op === 'add' ? await a.addTags(name, [target!], false) : op === 'deleteOne' ? await a.deleteTag(name, target!, false) : await a.deleteTags(name, false)
      answered(ex, `${TAG_CHANGE_LABEL[op]} on ${name}`)
      if (i > 0) {
        // A delete of what the first change already removed may be refused (not shown); an add, and a delete of what is there, is a step.
        const had = op === 'deleteOne' ? !(pair[0] === 'deleteAll') : op === 'deleteAll' ? pair[0] !== 'deleteAll' : true
        if (!had) continue
      }
      if (op === 'add') steps.addTags.response(ex, { status: '2xx' })
      if (op === 'deleteOne') steps.deleteTag.response(ex, { status: '2xx' })
      if (op === 'deleteAll') steps.deleteTags.response(ex, { status: '2xx' })
      if (i === 0) {
        // The first change shows before the second is made (reads may lag): its view's step.
        const shows = (t: string[]) =>
          op === 'add' ? lower(t).includes(target!.toLowerCase()) : op === 'deleteOne' ? !lower(t).includes(target!.toLowerCase()) : t.length === 0
        const seen = await tagList(a, name, shows)
        const step = op === 'add' ? steps.tagsStored : op === 'deleteOne' ? steps.tagGone : steps.tagsCleared
        const m =
          op === 'add'
            ? match.contains('', target!.toLowerCase(), { what: 'the tag added' })
            : op === 'deleteOne'
              ? match.lacks('', target!.toLowerCase(), { what: 'the deleted tag' })
              : match.size('', 0)
        step.match(lower(seen.tags), match.when(`set-up: get tags after ${TAG_CHANGE_LABEL[op]}`, m), seen.ex)
      }
    }
    const want = model.universe.filter((t) => model.present.has(t)).map((t) => t.toLowerCase())
    const left = await tagList(a, name, (t) => {
      const got = new Set(lower(t))
      return model.universe.every((x) => got.has(x.toLowerCase()) === model.present.has(x))
    })
    const got = { tags: lower(left.tags) }
    const mine = model.universe.filter((t) => model.judgedBy(t) === own)
    judge.match(
      got,
      mine.map((t) =>
        match.when(
          `get tags after ${what} (the tags left: ${show(want)})`,
          model.present.has(t)
            ? match.contains('/tags', t.toLowerCase(), { what: `a tag ${TAG_CHANGE_LABEL[model.judgedBy(t)]} left` })
            : match.lacks('/tags', t.toLowerCase(), { what: `a tag ${TAG_CHANGE_LABEL[model.judgedBy(t)]} removed` }),
        ),
      ),
      left.ex,
    )
  }

  /** The ordered pairs in which `own` names a tag last (or is the second change, for the tags neither names). */
  const pairsOf = (own: TagChange): [TagChange, TagChange][] =>
    TAG_CHANGES.flatMap((x) => TAG_CHANGES.map((y): [TagChange, TagChange] => [x, y])).filter((pair) => {
      const tags = ['t1', 't2', 'n1', 'n2']
      const model = tagPairModel(pair, tags)
      return model.universe.some((t) => model.judgedBy(t) === own)
    })

  for (const [own, clauseTitle] of [
    ['add', tagPairTitle.add],
    ['deleteOne', tagPairTitle.deleteOne],
    ['deleteAll', tagPairTitle.deleteAll],
  ] as const) {
    const body = async ({ a, channels, fake, judge }: Pick<CheckFixtures, 'a' | 'channels' | 'fake' | 'judge'>) => {
      for (const pair of pairsOf(own)) await tagPair({ a, channels, fake, judge }, own, pair)
    }
    if (own === 'add') check('tags.add.visible', clauseTitle, body)
    if (own === 'deleteOne') check('tags.delete-one.removes', clauseTitle, body)
    if (own === 'deleteAll') check('tags.delete-all.removes', clauseTitle, body)
  }

  check('items.fetch.range', 'fetches an item published after delete all items, and none of the deleted', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const [gone, kept] = [uniqueToken(fake), uniqueToken(fake)]
    await publishFound(a, name, { ref: gone }, gone)
    steps.deleteAllItems.response(answered(await a.deleteAllItems(name, false), 'delete all items'), { status: '2xx' })
    const empty = await fetched(a, name, (list) => list.length === 0)
    steps.itemsEmptied.match(empty.items, match.when('set-up: fetch after delete all items', match.size('', 0)), empty.ex)
    answered(await a.publish(name, { content: { ref: kept }, messageType: 'text', contentType: 'application/json' }), 'publish after delete all items')
    const { items, ex } = await fetched(a, name, (list) => list.some((i) => i.content?.ref === kept))
    const refOf = (i: unknown) => (i as StoredItem | null)?.content?.ref
    judge.match(
      items,
      [
        match.when('fetch after publishing again', match.contains('', kept, { key: refOf, what: 'the item published after delete all items' })),
        match.when('fetch after publishing again', match.lacks('', gone, { key: refOf, what: 'the deleted item' })),
      ],
      ex,
    )
  })

  /**
   * A's channel `name`, made with `first` as description, deleted (steps) and made again with `second`; both creates
   * are the channels fixture's (a gateway's 502/503/504 on one is looked into there).
   */
  async function madeAgain(a: Api, channels: ChannelFactory, first: string, second: string, privateChannel = false): Promise<string> {
    const name = await channels.create(a, { description: first, privateChannel })
    await channelRecord(a, name)
    steps.deleteChannel.response(answered(await a.deleteChannel(name, privateChannel || undefined), 'delete'), { status: '2xx' })
    await mustBeGone(a, name)
    await channels.create(a, { channelName: name, description: second, privateChannel })
    return name
  }

  check('channels.create.fields-stored', 'stores the description of a channel created again under a deleted name', async ({ a, channels, fake, judge }) => {
    const [first, second] = [`ct ${uniqueToken(fake)}`, `ct ${uniqueToken(fake)}`]
    const name = await madeAgain(a, channels, first, second)
    const ex = answered(
      await eventually(
        () => a.getChannel(name),
        (e) => isSuccess(e) && (e.json as { description?: unknown } | undefined)?.description === second,
      ),
      'GET the channel made again',
    )
    const ch = steps.getChannel.response<unknown>(ex, { status: '2xx' })
    judge.match(ch, match.when('GET after the delete and the create again', match.equal('/description', second, 'as created again')), ex)
  })

  check('channels.search.by-description', 'finds a channel created again under a deleted name by its new description', async ({ a, channels, fake, judge }) => {
    const [first, second] = [`ct ${uniqueToken(fake)}`, `ct ${uniqueToken(fake)}`]
    const name = await madeAgain(a, channels, first, second)
    await channelRecord(a, name)
    // What the first channel was described as belongs to a channel that is gone: the name is found by what it says now.
    const ex = answered(await searchFor(a, { description: second }, name), 'search by the description made again')
    judge.match(
      ex.json,
      match.when(`search by ${show(second)}, the description of ${show(name)} made again`, match.contains('/results', name, { key: nameKey, anyCase: true })),
      ex,
    )
  })

  check('channels.search.by-name', 'finds a channel created again under a deleted name by its name', async ({ a, channels, fake, judge }) => {
    const name = channels.name()
    channels.track(a, name)
    steps.createChannel.response(answered(await a.createChannel({ channelName: name }), 'create'), { status: '2xx' })
    await searchFor(a, { channelName: name }, name)
    steps.deleteChannel.response(answered(await a.deleteChannel(name), 'delete'), { status: '2xx' })
    await mustBeGone(a, name)
    await searchFor(a, { channelName: name }, name, false)
    steps.createChannel.response(answered(await a.createChannel({ channelName: name, description: `ct ${uniqueToken(fake)}` }), 'create again'), {
      status: '2xx',
    })
    await channelRecord(a, name)
    const ex = answered(await searchFor(a, { channelName: name }, name), 'search by the name made again')
    judge.match(ex.json, match.when(`search by ${show(name)}, made again`, match.contains('/results', name, { key: nameKey, anyCase: true })), ex)
  })
})

describe("another user's reads through the channel's address, before and after the owner's change (§2.3, §4.2)", () => {
  /**
   * A's channel, public or private, and the address B reaches it by: the plain name, or <user_id>#<name> for a
   * private one (§2.3). Who may read another user's private channel is not stated: a refusal is recorded.
   */
  async function readByB(
    a: Api,
    b: Api,
    userA: RunAccount,
    channels: ChannelFactory,
    judge: Judge,
    privateChannel: boolean,
    read: (api: Api, address: string) => Promise<Exchange>,
    description?: string,
  ): Promise<{ name: string; address: string } | undefined> {
    const name = channels.name()
    channels.track(a, name, privateChannel)
    steps.createChannel.response(answered(await a.createChannel({ channelName: name, privateChannel, description }), 'A creates'), { status: '2xx' })
    if (privateChannel) await mustBePrivate(a, name)
    else await channelRecord(a, name)
    const address = privateChannel ? `${userA.userId}#${name}` : name
    // Polled past 404: reads may lag the create. A refusal is the server's choice for another user's private channel.
    const first = answered(
      await eventually(
        () => read(b, address),
        (e) => e.status !== 404,
      ),
      `B's first read of ${address}`,
    )
    if (isSuccess(first)) return { name, address }
    if (!privateChannel) steps.getChannel.response(first, { status: '2xx' })
    judge.observe(`B's read of A's private channel through ${address}: status ${first.status}, so the check has nothing to judge`, ALSO.otherUserRead)
    return undefined
  }

  /**
   * B's `read` again after A's change, polled until it `shows` the change (`what` names it): undefined when B is
   * refused, observed as `refused` and the status (who may read another user's private channel is not stated).
   */
  async function readAgain(
    read: () => Promise<Exchange>,
    shows: (e: Exchange) => boolean,
    what: string,
    refused: string,
    judge: Judge,
  ): Promise<Exchange | undefined> {
    const ex = answered(await eventually(read, (e) => !isSuccess(e) || shows(e)), what)
    if (!isSuccess(ex)) judge.observe(`${refused}: status ${ex.status}`, ALSO.otherUserRead)
    return isSuccess(ex) ? ex : undefined
  }

  for (const privateChannel of [true, false]) {
    const through = privateChannel ? 'through <user_id>#<name> after the owner deletes the private channel' : 'after the owner deletes the public channel'
    check('channels.delete.removes', `no longer answers another user's GET ${through}`, async ({ a, b, users, channels, judge }) => {
      const got = await readByB(a, b, users.A, channels, judge, privateChannel, (api, address) => api.getChannel(address))
      if (!got) return
      steps.deleteChannel.response(answered(await a.deleteChannel(got.name, privateChannel || undefined), 'A deletes by the plain name'), { status: '2xx' })
      await mustBeGone(a, got.name)
      const gone = answered(
        await eventually(
          () => b.getChannel(got.address),
          (e) => !isSuccess(e),
        ),
        `B's GET of ${got.address} after the delete`,
      )
      judge.match(gone, match.when(`B's GET of ${got.address}, deleted by its owner`, match.status('refusal', 'the channel is gone')), gone)
    })
  }

  check(
    'channels.delete.removes',
    'never shows another user through <user_id>#<name> the record of a deleted private channel made again',
    async ({ a, b, users, channels, fake, judge }) => {
      const [first, second] = [`ct ${uniqueToken(fake)}`, `ct ${uniqueToken(fake)}`]
      const got = await readByB(a, b, users.A, channels, judge, true, (api, address) => api.getChannel(address), first)
      if (!got) return
      steps.deleteChannel.response(answered(await a.deleteChannel(got.name, true), 'A deletes by the plain name'), { status: '2xx' })
      await mustBeGone(a, got.name)
      steps.createChannel.response(
        answered(await a.createChannel({ channelName: got.name, privateChannel: true, description: second }), 'A creates the name again'),
        { status: '2xx' },
      )
      await mustBePrivate(a, got.name)
      const descriptionOf = (e: Exchange) => (e.json as { description?: unknown } | undefined)?.description
      const ex = answered(
        await eventually(
          () => b.getChannel(got.address),
          (e) => !isSuccess(e) || descriptionOf(e) !== first,
        ),
        `B's GET of ${got.address} after the delete and the create again`,
      )
      if (!isSuccess(ex)) return judge.observe(`B's read of the private channel made again: status ${ex.status}`, ALSO.otherUserRead)
      judge.match(
        ex.json,
        match.when(
          `B's GET of ${got.address}, deleted and made again`,
          match.that('/description', (d) => d !== first, `not the deleted channel's ${show(first)}`),
        ),
        ex,
      )
    },
  )

  check(
    'tags.add.visible',
    "shows another user through <user_id>#<name> a tag added after that user's first read",
    async ({ a, b, users, channels, fake, judge }) => {
      const got = await readByB(a, b, users.A, channels, judge, true, (api, address) => api.getTags(address))
      if (!got) return
      const tag = uniqueToken(fake)
      await mustAddTags(a, got.name, [tag], true)
      const tagsIn = (e: Exchange): unknown => (e.json as { tags?: unknown } | undefined)?.tags
      const ex = await readAgain(
        () => b.getTags(got.address),
        (e) => Array.isArray(tagsIn(e)) && (tagsIn(e) as unknown[]).includes(tag),
        `B's get tags of ${got.address} after A's add`,
        `B's second read of the tags of ${got.address}`,
        judge,
      )
      if (!ex) return
      judge.match(
        ex.json,
        match.when(`B's get tags of ${got.address} after A added ${show(tag)}`, match.contains('/tags', tag, { what: 'the tag A added' })),
        ex,
      )
    },
  )

  check(
    'items.fetch.range',
    "fetches for another user through <user_id>#<name> an item published after that user's first fetch",
    async ({ a, b, users, channels, fake, judge }) => {
      const got = await readByB(a, b, users.A, channels, judge, true, (api, address) => api.fetchItems(address, aroundNow({ size: 50 })))
      if (!got) return
      const ref = uniqueToken(fake)
      await publishFound(a, got.name, { ref }, ref)
      const ex = await readAgain(
        () => b.fetchItems(got.address, aroundNow({ size: 50 })),
        (e) => itemsOf(e).some((i) => i.content?.ref === ref),
        `B's fetch of ${got.address} after A's publish`,
        `B's second fetch of ${got.address}`,
        judge,
      )
      if (!ex) return
      const refOf = (i: unknown) => (i as StoredItem | null)?.content?.ref
      judge.match(itemsOf(ex), match.when(`B's fetch of ${got.address} after A's publish`, match.contains('', ref, { key: refOf, what: "A's item" })), ex)
    },
  )

  check(
    'channels.summary.count',
    "counts for another user through <user_id>#<name> an item published after that user's first summary",
    async ({ a, b, users, channels, fake, judge }) => {
      const got = await readByB(a, b, users.A, channels, judge, true, (api, address) => api.summary(address))
      if (!got) return
      const ref = uniqueToken(fake)
      await publishFound(a, got.name, { ref }, ref)
      const countOf = (e: Exchange): unknown => (e.json as { publishedItemCount?: unknown } | undefined)?.publishedItemCount
      const ex = await readAgain(
        () => b.summary(got.address),
        (e) => countOf(e) === 1,
        `B's summary of ${got.address} after A's publish`,
        `B's second summary of ${got.address}`,
        judge,
      )
      if (!ex) return
      judge.match(
        ex.json,
        match.when(`B's summary of ${got.address} after A's one publish`, match.equal('/publishedItemCount', 1, 'the one item published')),
        ex,
      )
    },
  )
})

describe('a removal × the pages of a view (§4.2 offset and size of fetch items and search public channels)', () => {
  /**
   * offset skips and size counts what the view holds now: after a removal, the removed are neither returned nor
   * counted. Judged without any order (none is stated for ties, and search states none at all). size: a page of
   * the holdings' count is the holdings, each once; a page one smaller holds that many of them. offset: an offset
   * one short of the count leaves one of them; an offset of the count leaves none. A removal the view still shows
   * is the removal's own deviation (a step), and so is a search that never lists a channel made for it.
   */
  interface Pages {
    kept: string[]
    gone: string[]
    label: string
    /** The page at offset and size, as the ids (or names) it lists. */
    page(offset: number, size: number): Promise<{ ids: unknown[]; ex: Exchange }>
  }

  const onlyKept = (p: Pages, n: number) =>
    match.that(
      '',
      (got) => Array.isArray(got) && got.every((id) => p.kept.includes(id as string)),
      `${n} of ${show(p.kept)}, none of ${show(p.gone)} (${p.label})`,
    )

  async function judgeSize(p: Pages, judge: Judge): Promise<void> {
    const n = p.kept.length
    const whole = await p.page(0, n)
    judge.match(
      whole.ex.json,
      match.when(`offset=0&size=${n}`, match.derived('ids', whole.ids, match.exactly('', p.kept, { what: `each of the ${n} held once (${p.label})` }))),
      whole.ex,
    )
    const part = await p.page(0, n - 1)
    judge.match(
      part.ex.json,
      [match.derived('ids', part.ids, match.size('', n - 1)), match.derived('ids', part.ids, onlyKept(p, n - 1))].map((m) =>
        match.when(`offset=0&size=${n - 1}`, m),
      ),
      part.ex,
    )
  }

  async function judgeOffset(p: Pages, judge: Judge): Promise<void> {
    const n = p.kept.length
    const last = await p.page(n - 1, n)
    judge.match(
      last.ex.json,
      [match.derived('ids', last.ids, match.size('', 1)), match.derived('ids', last.ids, onlyKept(p, 1))].map((m) =>
        match.when(`offset=${n - 1}&size=${n}`, m),
      ),
      last.ex,
    )
    const past = await p.page(n, n)
    judge.match(past.ex.json, match.when(`offset=${n}&size=${n}`, match.derived('ids', past.ids, match.size('', 0))), past.ex)
  }

  const fetchPage = (a: Api, name: string) => async (offset: number, size: number) => {
    const ex = answered(await a.fetchItems(name, aroundNow({ sort_order: 'ASC', offset, size })), `fetch offset=${offset}&size=${size}`)
    return { ids: itemsOf(ex).map((i) => i.itemId), ex }
  }

  /** Four items, two deleted by id (the oldest and a middle one: a page cut before the deleted are dropped comes back short). */
  async function afterDeletes({ a, channels, fake }: Pick<CheckFixtures, 'a' | 'channels' | 'fake'>): Promise<Pages> {
    const name = await channels.create(a)
    const itemIds: string[] = []
    for (const ref of [0, 1, 2, 3].map(() => uniqueToken(fake))) itemIds.push((await publishFound(a, name, { ref }, ref)).itemId)
    const gone = [itemIds[0]!, itemIds[2]!]
    steps.deleteItems.response(answered(await a.deleteItems(name, gone), 'delete by id'), { status: '2xx' })
    const kept = [itemIds[1]!, itemIds[3]!]
    const { items, ex } = await fetched(a, name, (held) => !held.some((i) => gone.includes(i.itemId)))
    // The two not named must stay (a delete that takes more is the delete's deviation too).
    steps.itemsGone.match(
      items.map((i) => i.itemId),
      match.when('a wide fetch after the delete by id', match.containsAll('', kept, { what: 'the items not named by the delete' })),
      ex,
    )
    steps.itemsGone.match(
      items.map((i) => i.itemId),
      match.when(
        'a wide fetch after the delete by id',
        match.that('', (ids) => Array.isArray(ids) && !ids.some((id) => gone.includes(id as string)), `none of ${show(gone)}`),
      ),
      ex,
    )
    return { kept, gone, label: 'after 2 of 4 items were deleted by id', page: fetchPage(a, name) }
  }

  /** Four items into a channel with maxItems 2: the two a wide fetch shows (which ones is not stated, items.max-items.eviction). */
  async function afterEviction({ a, channels, fake, judge }: Pick<CheckFixtures, 'a' | 'channels' | 'fake' | 'judge'>): Promise<Pages | undefined> {
    const name = await channels.create(a, { maxItems: 2 })
    const refs = [0, 1, 2, 3].map(() => uniqueToken(fake))
    for (const ref of refs) await mustPublish(a, name, { content: { ref }, messageType: 'text', contentType: 'application/json' })
    // Polled until the newest publish shows among at most two (a read replica may still be applying the publishes;
    // a channel that keeps the oldest never shows it, and the poll's bound then reads the final state).
    const { items, ex } = await fetched(a, name, (held) => held.length <= 2 && held.some((i) => i.content?.ref === refs[3]))
    const kept = items.filter((i) => refs.includes(i.content?.ref as string)).map((i) => i.itemId)
    // More than two kept is items.max-items' deviation; fewer leaves no page of two to judge.
    steps.maxItemsKept.match(kept, match.when('a wide fetch of a channel with maxItems 2', match.atMost('', 2)), ex)
    if (kept.length < 2) {
      judge.observe(`a channel with maxItems 2 keeps ${kept.length} of 4 items published: no page of two to judge`)
      return undefined
    }
    return { kept, gone: [], label: 'the 2 a wide fetch shows of 4 items published into a channel with maxItems 2', page: fetchPage(a, name) }
  }

  /**
   * Four channels of one tag, two deleted. A tag, not a description: on a shared service another client may copy a
   * new channel's name and description (the tags come later), and a tag is the search value the suite alone adds.
   */
  async function afterChannelDeletes({ a, channels, fake }: Pick<CheckFixtures, 'a' | 'channels' | 'fake'>): Promise<Pages> {
    const tag = uniqueToken(fake)
    const names: string[] = []
    for (let i = 0; i < 4; i++) names.push(await channels.create(a))
    for (const name of names) await mustAddTags(a, name, [tag], false)
    for (const name of names) {
      const ex = answered(await searchFor(a, { tag }, name), `search tag=${tag}`)
      steps.foundByTag.match(resultNames(ex), match.when(`tag=${tag}`, match.contains('', name, { what: 'a channel carrying the tag' })), ex)
    }
    const gone = [names[0]!, names[2]!]
    for (const name of gone) steps.deleteChannel.response(answered(await a.deleteChannel(name), `delete ${name}`), { status: '2xx' })
    // Polled: an index may lag the deletes. Still listed after that is the delete's deviation; a channel no delete
    // named that is gone too, the delete's as well.
    const ex = answered(
      await eventually(
        () => a.searchChannels({ tag, offset: 0, size: 50 }),
        (e) => isSuccess(e) && !gone.some((n) => listsName(e, n)),
      ),
      'search after the deletes',
    )
    const kept = names.filter((n) => !gone.includes(n))
    // Only these four carry the tag (a token): a search that lists others is search by tag's deviation.
    steps.foundByTag.match(
      resultNames(ex),
      match.when(
        `tag=${tag}`,
        match.that('', (l) => Array.isArray(l) && l.every((n) => names.includes(n as string)), `only channels of ${show(names)}`),
      ),
      ex,
    )
    steps.onlyNamed.match(
      resultNames(ex),
      match.when(`tag=${tag} after the deletes`, match.containsAll('', kept, { what: 'the channels no delete named' })),
      ex,
    )
    steps.channelGone.match(
      resultNames(ex),
      match.when(
        `tag=${tag} after the deletes`,
        match.that('', (l) => Array.isArray(l) && !gone.some((n) => l.includes(n)), `none of ${show(gone)}`),
      ),
      ex,
    )
    return {
      kept,
      gone,
      label: 'after 2 of 4 channels of one tag were deleted',
      page: async (offset, size) => {
        const page = answered(await a.searchChannels({ tag, offset, size }), `search offset=${offset}&size=${size}`)
        return { ids: resultNames(page), ex: page }
      },
    }
  }

  check('items.fetch.size', viewTitle.fetchSizeAfterDelete, async ({ a, channels, fake, judge }) => judgeSize(await afterDeletes({ a, channels, fake }), judge))
  check('items.fetch.offset', viewTitle.fetchPagesAfterDelete, async ({ a, channels, fake, judge }) =>
    judgeOffset(await afterDeletes({ a, channels, fake }), judge),
  )
  check('items.fetch.size', viewTitle.fetchSizeAfterEviction, async ({ a, channels, fake, judge }) => {
    const pages = await afterEviction({ a, channels, fake, judge })
    if (pages) await judgeSize(pages, judge)
  })
  check('items.fetch.offset', viewTitle.fetchPagesAfterEviction, async ({ a, channels, fake, judge }) => {
    const pages = await afterEviction({ a, channels, fake, judge })
    if (pages) await judgeOffset(pages, judge)
  })
  check('channels.search.size', viewTitle.searchSizeAfterDelete, async ({ a, channels, fake, judge }) =>
    judgeSize(await afterChannelDeletes({ a, channels, fake }), judge),
  )
  check('channels.search.offset', viewTitle.searchPagesAfterDelete, async ({ a, channels, fake, judge }) =>
    judgeOffset(await afterChannelDeletes({ a, channels, fake }), judge),
  )
})
