/**
 * The concurrent-pairs model (helpers/spec/models.ts RACE_PAIRS, docs/coverage.md): two writes to one channel
 * in flight at the same time. The spec states what each write does, and nothing that lets one undo another:
 * each write answered 2xx must leave what it states (a published item stored, a deleted item or tag gone, an
 * unsubscribed user no longer listed, at most maxItems items kept), whichever of the two the server ran first.
 * What depends on that order (an item published while all items are deleted, a tag added while all tags are
 * deleted) is not judged; what holds in either order is.
 *
 * A write may be refused while another is in flight (a conflict, a rate limit): only writes answered 2xx are
 * judged, and reads are polled (nothing promises read-after-write consistency). The writes of a pair leave
 * together (helpers/kit/together.ts: the run's pace would otherwise start them milliseconds apart under load);
 * where one write meets a stream of others, the stream goes one write at a time while it is in flight. Bursts
 * are bounded: a few requests, no loops.
 */
import type { Faker } from '@faker-js/faker'
import type { Api } from '../helpers/http/api'
import type { Exchange } from '../helpers/http/client'
import { check, describe, type ChannelFactory, type CheckFixtures } from '../helpers/kit/check'
import { ensure } from '../helpers/kit/expect'
import { steps, type Judge } from '../helpers/kit/judge'
import { acceptedOfRace, mustAddTags, mustSubscribe, uniqueToken } from '../helpers/kit/setup'
import { sentTogether, together } from '../helpers/kit/together'
import { raceTitle, readRaceTitle } from '../helpers/spec/models'
import type { SchemaName } from '../helpers/spec/schemas'
import { answered, deliveredAs, fetched, itemsOf, publishFound, subscribersOf, tagList, type StoredItem } from './support/model'
import { asBody, userIdKey } from './support/read'
import { match, type Matcher } from './support/match'
import { publishSeries, wide } from './support/items'

/** Awaited together later; a transport error of one stays the check's, not an unhandled rejection meanwhile. */
const held = <T>(p: Promise<T>): Promise<T> => (p.catch(() => undefined), p)

/**
 * Sends `other` together with the first of `stream` (helpers/kit/together.ts), then the rest of `stream` one
 * after another, each as soon as the one before is answered, while `other` may still be in flight: whatever a
 * server's timing, a write of the stream meets `other`, and no two writes of the stream are ever in flight at
 * once (so a server that mishandles two of them at once is not blamed here for what `other` is judged on).
 */
async function meanwhile(stream: readonly (() => Promise<Exchange>)[], other: () => Promise<Exchange>): Promise<{ stream: Exchange[]; other: Exchange }> {
  const [last, first] = sentTogether([other, stream[0]!]).map(held)
  const answers = [await first!]
  for (const send of stream.slice(1)) answers.push(await send())
  return { stream: answers, other: await last! }
}

/** A publish of `content` as JSON, the request only (the check judges its answer). */
const publishing = (api: Api, name: string, content: Record<string, unknown>) => () =>
  api.publish(name, { content, messageType: 'text', contentType: 'application/json' })

const refOf = (i: StoredItem): unknown => i.content?.ref

/** The content refs of a fetch's items, under the label the matchers name. */
const refsIn = (items: StoredItem[]) => items.map(refOf)

/** B subscribes while C unsubscribes: each write is the other user's, so neither may undo the other; `side` is the one judged. */
async function subscribeWhileUnsubscribe(
  side: 'subscribe' | 'unsubscribe',
  { a, b, c, users, channels, judge }: Pick<CheckFixtures, 'a' | 'b' | 'c' | 'users' | 'channels' | 'judge'>,
): Promise<void> {
  const name = await channels.create(a, { subscribeOnCreate: false })
  await mustSubscribe(c, name)
  await subscribersOf(a, name, (ids) => ids.includes(users.C.userId))
  // B subscribes while C unsubscribes: each write is the other user's, so neither may undo the other.
  const [joined, leaving] = await together([() => b.subscribe(name), () => c.unsubscribe(name)])
  answered(joined, "B's subscribe")
  answered(leaving, "C's unsubscribe")
  const during = "after B's subscribe and C's unsubscribe, sent at once"
  if (side === 'subscribe') {
    // Both writes are steps here: what is judged is the list after them.
    steps.unsubscribe.response(leaving, { status: '2xx' })
    steps.subscribe.response(joined, { status: '2xx' })
    const { ex } = await subscribersOf(a, name, (ids) => ids.includes(users.B.userId))
    judge.match(ex.json, match.when(during, match.contains('', users.B.userId, { key: userIdKey, what: 'B, who subscribed' })), ex)
  } else {
    steps.subscribe.response(joined, { status: '2xx' })
    steps.unsubscribe.response(leaving, { status: '2xx' })
    const { ex } = await subscribersOf(a, name, (ids) => !ids.includes(users.C.userId))
    judge.match(ex.json, match.when(during, match.lacks('', users.C.userId, { key: userIdKey, what: 'C, who unsubscribed' })), ex)
  }
}

/** A adds one tag while deleting another; `side` is the write judged. */
async function addWhileDelete(side: 'add' | 'delete', { a, channels, fake, judge }: Pick<CheckFixtures, 'a' | 'channels' | 'fake' | 'judge'>): Promise<void> {
  const name = await channels.create(a)
  const [x, y] = [uniqueToken(fake), uniqueToken(fake)]
  await mustAddTags(a, name, [x], false)
  const [add, del] = await together([() => a.addTags(name, [y], false), () => a.deleteTag(name, x, false)])
  answered(add, `add ${y}`)
  answered(del, `delete ${x}`)
  const during = `after adding ${y} and deleting ${x} at once`
  if (side === 'add') {
    // Both writes are steps here: what is judged is the tag list after them.
    steps.deleteTag.response(del, { status: '2xx' })
    steps.addTags.response(add, { status: '2xx' })
    const { ex } = await tagList(a, name, (t) => t.includes(y))
    judge.match(ex.json, match.when(during, match.contains('/tags', y, { what: 'the tag added' })), ex)
  } else {
    steps.addTags.response(add, { status: '2xx' })
    steps.deleteTag.response(del, { status: '2xx' })
    const { ex } = await tagList(a, name, (t) => !t.includes(x))
    judge.match(ex.json, match.when(during, match.lacks('/tags', x, { what: 'the tag deleted' })), ex)
  }
}

describe('publish × delete items by id, delete by id × delete by id, publish × delete all items (§4.2)', () => {
  check('items.delete.removes', raceTitle.publishDeleteById, async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const kept = uniqueToken(fake)
    await publishFound(a, name, { ref: kept }, kept)
    const doomed: string[] = []
    for (const ref of [uniqueToken(fake), uniqueToken(fake), uniqueToken(fake)]) doomed.push((await publishFound(a, name, { ref }, ref)).itemId)
    // Three rounds, each a delete of one item with publishes meeting it: which of a pair a server handles first
    // varies, and each round is another chance for a publish to land inside the delete.
    const stored: string[] = []
    for (const itemId of doomed) {
      const refs = [uniqueToken(fake), uniqueToken(fake)]
      const { stream, other } = await meanwhile(
        refs.map((ref) => publishing(a, name, { ref })),
        () => a.deleteItems(name, [itemId]),
      )
      judge.response(answered(other, 'delete one item by id'), { status: '2xx' })
      stored.push(
        ...acceptedOfRace(
          refs,
          stream.map((e) => answered(e, 'a publish racing the delete')),
          steps.publish,
        ),
      )
    }
    const want = [kept, ...stored]
    const { items, ex } = await fetched(a, name, (list) => !list.some((i) => doomed.includes(i.itemId)) && want.every((r) => list.some((i) => refOf(i) === r)))
    const after = `fetch after 3 deletes by id, each raced by publishes (${stored.length} answered 2xx)`
    judge.match(
      ex.json,
      [
        ...doomed.map((id) => match.when(after, match.lacks('/items', id, { key: (i) => (i as StoredItem).itemId, what: 'a deleted item' }))),
        match.when(after, match.derived('/items refs', refsIn(items), match.containsAll('', want, { what: 'the item kept and every publish answered 2xx' }))),
      ],
      ex,
    )
  })

  check('items.delete.removes', raceTitle.deleteByIdTwice, async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const refs = [uniqueToken(fake), uniqueToken(fake), uniqueToken(fake), uniqueToken(fake)]
    const ids: string[] = []
    for (const ref of refs) ids.push((await publishFound(a, name, { ref }, ref)).itemId)
    const doomed = ids.slice(0, 3)
    const answers = await together(doomed.map((id) => () => a.deleteItems(name, [id])))
    const deleted = acceptedOfRace(
      doomed,
      answers.map((e) => answered(e, 'one of three deletes sent at once')),
      judge,
    )
    const { items, ex } = await fetched(a, name, (list) => deleted.every((id) => !list.some((i) => i.itemId === id)))
    const after = `fetch after ${deleted.length} deletes by id answered 2xx, sent at once`
    const itemIds = items.map((i) => i.itemId)
    judge.match(
      ex.json,
      [
        ...deleted.map((id) => match.when(after, match.derived('/items itemIds', itemIds, match.lacks('', id, { what: 'a deleted item' })))),
        match.when(after, match.derived('/items refs', refsIn(items), match.contains('', refs[3], { what: 'the item no delete named' }))),
      ],
      ex,
    )
  })

  check('items.delete-all.empties', raceTitle.publishDeleteAll, async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const old = uniqueToken(fake)
    const { itemId } = await publishFound(a, name, { ref: old }, old)
    const { other } = await meanwhile(
      [1, 2, 3, 4].map(() => publishing(a, name, { ref: uniqueToken(fake) })),
      () => a.deleteAllItems(name, false),
    )
    judge.response(answered(other, 'delete all items'), { status: '2xx' })
    // Publishes that raced the delete may be kept or not (which ran first is the server's); the item published before it is gone.
    const { items, ex } = await fetched(a, name, (list) => !list.some((i) => i.itemId === itemId))
    judge.match(
      ex.json,
      match.when(
        'fetch after delete all items that publishes raced',
        match.derived(
          '/items itemIds',
          items.map((i) => i.itemId),
          match.lacks('', itemId, { what: 'the item published before the delete' }),
        ),
      ),
      ex,
    )
  })
})

describe('publish × publish and send × send by different users (§2.6 publisher, §2.7 sender)', () => {
  check('items.publisher', raceTitle.publishThreeUsers, async ({ a, b, c, users, channels, fake, judge }) => {
    const name = await channels.create(a, { publishPermission: 'anyone' })
    const who = [
      [a, users.A],
      [b, users.B],
      [c, users.C],
    ] as const
    const refs = who.map(() => uniqueToken(fake))
    const answers = await together(who.map(([api], i) => publishing(api, name, { ref: refs[i]! })))
    const kept = acceptedOfRace(
      who.map(([, u], i) => ({ user: u, ref: refs[i]! })),
      answers.map((e) => answered(e, 'one of three publishes by three users sent at once')),
      steps.publish,
    )
    const during = `${kept.length} publishes by ${kept.map((k) => k.user.key).join(', ')} to one channel, sent at once and answered 2xx`
    // A publish answered 2xx that no read shows is items.max-items.unlimited's to judge: only the items stored are judged here.
    const { items, ex } = await fetched(a, name, (list) => kept.every((k) => list.some((i) => refOf(i) === k.ref)))
    const stored = kept.flatMap((k) => items.filter((i) => refOf(i) === k.ref).map((item) => ({ ...k, itemId: item.itemId })))
    if (stored.length === 0) return
    const byId = answered(
      await a.getItems(
        name,
        stored.map((k) => k.itemId),
      ),
      'get the published items by id',
    )
    steps.itemsById.response(byId, { status: '2xx' })
    for (const [view, got] of [
      ['fetch', ex],
      ['get by id', byId],
    ] as const) {
      // Each item found by its own content ref: two items answered under one id are items.get.by-ids' to judge.
      const list = itemsOf(got)
      for (const k of stored) {
        const at = list.findIndex((i) => refOf(i) === k.ref)
        ensure(
          at >= 0,
          view === 'fetch' ? steps.fetchItems : steps.itemsById,
          match.explain(
            got.json,
            match.contains('/items', k.ref, { key: (i) => refOf(i as StoredItem), what: `${k.user.key}'s item, asked for by its id ${k.itemId}` }),
          ),
          got,
        )
        judge.match(
          got.json,
          match.when(
            `${view} after ${during}: ${k.user.key}'s item`,
            match.equal(`/items/${at}/publisher/userId`, k.user.userId, 'the user whose token published it'),
          ),
          got,
        )
      }
    }
  })

  check('messages.status.agrees', raceTitle.sendThreeUsers, async ({ a, b, c, users, fake, judge }) => {
    // Each sends to the next: A to B, B to C, C to A.
    const who = [
      [a, users.A, users.B],
      [b, users.B, users.C],
      [c, users.C, users.A],
    ] as const
    const answers = await together(
      who.map(
        ([api, , to]) =>
          () =>
            api.sendToUserIds({ receipt: false, recipientUserIds: [to.userId], content: { text: 'ct', ref: uniqueToken(fake) } }),
      ),
    )
    const kept = acceptedOfRace(
      who.map((w, i) => [...w, answers[i]!] as const),
      answers.map((e) => answered(e, 'one of three sends by three users sent at once')),
      steps.send,
    )
    for (const [api, from, to, sent] of kept)
      await deliveredAs(api, sent, from.userId, judge, `${from.key}'s send to ${to.key}, sent at the same moment as ${kept.length - 1} other user(s)' sends`)
  })
})

describe('publish × publish at the maxItems bound (§2.3 maxItems)', () => {
  for (const [maxItems, held, racing] of [
    [1, 0, 2],
    [2, 1, 3],
  ] as const) {
    check('items.max-items', raceTitle.maxItemsBurst(maxItems, held, racing), async ({ a, channels, fake, judge }) => {
      const name = await channels.create(a, { maxItems })
      for (let i = 0; i < held; i++) {
        const ref = uniqueToken(fake)
        await publishFound(a, name, { ref }, ref)
      }
      const answers = await together(Array.from({ length: racing }, () => publishing(a, name, { ref: uniqueToken(fake) })))
      acceptedOfRace(
        answers.map((_, i) => i),
        answers.map((e) => answered(e, 'a publish of a burst')),
        steps.publish,
      )
      // Eviction may lag the publish: polled until the channel keeps at most maxItems (the last answer is judged).
      const { items, ex } = await fetched(a, name, (list) => list.length <= maxItems)
      judge.match(
        ex.json,
        match.when(
          `fetch after ${racing} publishes at once into maxItems ${maxItems} holding ${held}`,
          match.derived('/items', items, match.atMost('', maxItems)),
        ),
        ex,
      )
    })
  }
})

describe('unsubscribe × unsubscribe, subscribe × unsubscribe (§4.2 subscribe, unsubscribe)', () => {
  check('subscriptions.unsubscribe.removed', raceTitle.unsubscribeThree, async ({ a, b, c, users, channels, judge }) => {
    const name = await channels.create(a, { subscribeOnCreate: false })
    const who = [
      [a, users.A],
      [b, users.B],
      [c, users.C],
    ] as const
    for (const [api] of who) await mustSubscribe(api, name)
    await subscribersOf(a, name, (ids) => who.every(([, u]) => ids.includes(u.userId)))
    const answers = await together(
      who.map(
        ([api]) =>
          () =>
            api.unsubscribe(name),
      ),
    )
    const left = acceptedOfRace(
      who.map(([, u]) => u),
      answers.map((e) => answered(e, 'one of three unsubscribes sent at once')),
      steps.unsubscribe,
    )
    const { ex } = await subscribersOf(a, name, (list) => left.every((u) => !list.includes(u.userId)))
    judge.match(
      ex.json,
      left.map((u) =>
        match.when(`after ${left.length} unsubscribes at once answered 2xx`, match.lacks('', u.userId, { key: userIdKey, what: `${u.key}, who unsubscribed` })),
      ),
      ex,
    )
  })

  check('subscriptions.subscribe.listed', raceTitle.subscribeUnsubscribe('subscribe'), async ({ a, b, c, users, channels, judge }) =>
    subscribeWhileUnsubscribe('subscribe', { a, b, c, users, channels, judge }),
  )
  check('subscriptions.unsubscribe.removed', raceTitle.subscribeUnsubscribe('unsubscribe'), async ({ a, b, c, users, channels, judge }) =>
    subscribeWhileUnsubscribe('unsubscribe', { a, b, c, users, channels, judge }),
  )
})

describe('add tags × delete one tag, delete one × delete one, add × delete all (§4.2 tags)', () => {
  check('tags.add.visible', raceTitle.addDeleteTag('add'), async ({ a, channels, fake, judge }) => addWhileDelete('add', { a, channels, fake, judge }))
  check('tags.delete-one.removes', raceTitle.addDeleteTag('delete'), async ({ a, channels, fake, judge }) =>
    addWhileDelete('delete', { a, channels, fake, judge }),
  )

  check('tags.delete-one.removes', raceTitle.deleteTagThree, async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const tags = [uniqueToken(fake), uniqueToken(fake), uniqueToken(fake), uniqueToken(fake)]
    await mustAddTags(a, name, tags, false)
    const doomed = tags.slice(0, 3)
    const answers = await together(doomed.map((t) => () => a.deleteTag(name, t, false)))
    const deleted = acceptedOfRace(
      doomed,
      answers.map((e) => answered(e, 'one of three tag deletes sent at once')),
      steps.deleteTag,
    )
    const { ex } = await tagList(a, name, (t) => deleted.every((d) => !t.includes(d)))
    const after = `after ${deleted.length} tag deletes answered 2xx, sent at once`
    judge.match(
      ex.json,
      [
        ...deleted.map((d) => match.when(after, match.lacks('/tags', d, { what: 'a deleted tag' }))),
        match.when(after, match.contains('/tags', tags[3], { what: 'the tag no delete named' })),
      ],
      ex,
    )
  })

  check('tags.delete-all.removes', raceTitle.addDeleteAllTags, async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const [x, y] = [uniqueToken(fake), uniqueToken(fake)]
    await mustAddTags(a, name, [x], false)
    const [add, del] = await together([() => a.addTags(name, [y], false), () => a.deleteTags(name, false)])
    answered(add, `add ${y}`)
    judge.response(answered(del, 'delete all tags'), { status: '2xx' })
    // y may stay or go (which ran first is the server's); x, there before both, is gone in either order.
    const { ex } = await tagList(a, name, (t) => !t.includes(x))
    judge.match(ex.json, match.when(`after adding ${y} and deleting all tags at once`, match.lacks('/tags', x, { what: 'the tag there before both' })), ex)
  })
})

/**
 * One round of a read in flight with a write (READ_RACES): the read leaves first in the group, so a server that
 * reads in steps meets the write between them. Neither answer may be a server error; a read refused while the write
 * runs is recorded; a read answered 2xx has its operation's shape and holds only what `within` allows.
 */
async function readDuring(
  judge: Judge,
  what: string,
  read: () => Promise<Exchange>,
  write: () => Promise<Exchange>,
  schema: SchemaName | undefined,
  within: readonly Matcher[],
): Promise<void> {
  const [r, w] = await together([read, write])
  answered(w!, `${what}: the write`)
  answered(r!, `${what}: the read`)
  if (r!.status >= 400 && r!.status < 500) {
    judge.observe(`${what}: the read was refused while the write ran (status ${r!.status})`)
    return
  }
  const body = judge.response<unknown>(r!, schema ? { status: '2xx', schema } : { status: '2xx' })
  judge.match(
    body,
    within.map((m) => match.when(what, m)),
    r!,
  )
}

const onlyItems = (ids: readonly string[]): Matcher[] => [
  match.each(
    '/items',
    match.that('/itemId', (id) => ids.includes(id as string), 'one of the items published to the channel'),
  ),
]

describe('a read in flight with a write on the same channel (§4.2): answered, with its shape, holding only the channel’s own', () => {
  /** A channel of A's with `n` items, all visible to a fetch; their ids in publish order. */
  async function withItems(a: Api, channels: ChannelFactory, n: number, fake: Faker): Promise<{ name: string; ids: string[] }> {
    const name = await channels.create(a)
    return { name, ids: await publishSeries(a, name, n, fake, steps.fetchItems) }
  }

  check('items.fetch.shape', readRaceTitle.fetchDeleteById, async ({ a, channels, fake, judge }) => {
    const { name, ids } = await withItems(a, channels, 4, fake)
    for (const [i, id] of ids.slice(0, 3).entries())
      await readDuring(
        judge,
        `fetch sent with the delete of item ${i + 1} of 4 by id`,
        () => a.fetchItems(name, wide()),
        () => a.deleteItems(name, [id]),
        'items-page',
        onlyItems(ids),
      )
  })

  check('items.get.shape', readRaceTitle.getDeleteById, async ({ a, channels, fake, judge }) => {
    const { name, ids } = await withItems(a, channels, 4, fake)
    // Each round asks for the items not yet deleted, one of them deleted meanwhile. What get by id answers for an id
    // it no longer holds is not shown (§4.2), so the answer's shape is not judged here: an element that names an
    // item names one of those asked for.
    for (const [i, id] of ids.slice(0, 3).entries()) {
      const asked = ids.slice(i)
      const named: Matcher[] = [
        match.that(
          '/items',
          (items) => Array.isArray(items) && items.every((it) => typeof asBody(it)?.itemId !== 'string' || asked.includes(asBody(it)!.itemId as string)),
          `items, each naming one of the ${asked.length} asked for`,
        ),
      ]
      await readDuring(
        judge,
        `get of items ${i + 1} to 4 by id sent with the delete of item ${i + 1}`,
        () => a.getItems(name, asked),
        () => a.deleteItems(name, [id]),
        undefined,
        named,
      )
    }
  })

  check('items.fetch.shape', readRaceTitle.fetchDeleteAll, async ({ a, channels, fake, judge }) => {
    const { name, ids } = await withItems(a, channels, 3, fake)
    await readDuring(
      judge,
      'fetch sent with the delete of all 3 items',
      () => a.fetchItems(name, wide()),
      () => a.deleteAllItems(name, false),
      'items-page',
      onlyItems(ids),
    )
  })

  check('items.fetch.shape', readRaceTitle.fetchPublish, async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const refs: string[] = []
    const ofRefs: Matcher[] = [
      match.each(
        '/items',
        match.that('/content/ref', (r) => refs.includes(r as string), 'the ref of an item published to the channel'),
      ),
    ]
    for (const round of [1, 2, 3]) {
      const ref = uniqueToken(fake)
      refs.push(ref)
      await readDuring(judge, `fetch sent with publish ${round} of 3`, () => a.fetchItems(name, wide()), publishing(a, name, { ref }), 'items-page', ofRefs)
    }
  })

  check('channels.summary.shape', readRaceTitle.summaryPublish, async ({ a, channels, fake, judge }) => {
    // One item first: what a summary says of a channel never published to is not stated (§2.4).
    const { name } = await withItems(a, channels, 1, fake)
    for (const round of [1, 2, 3])
      await readDuring(
        judge,
        `summary sent with publish ${round} of 3`,
        () => a.summary(name),
        publishing(a, name, { ref: uniqueToken(fake) }),
        'channel-summary',
        [],
      )
  })

  check('tags.get.shape', readRaceTitle.tagsDeleteTag, async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const tags = [uniqueToken(fake), uniqueToken(fake), uniqueToken(fake), uniqueToken(fake)]
    await mustAddTags(a, name, tags, false)
    await tagList(a, name, (t) => tags.every((x) => t.includes(x)))
    const ours: Matcher[] = [
      match.each(
        '/tags',
        match.that('', (t) => tags.includes(t as string), 'one of the tags added to the channel'),
      ),
    ]
    for (const [i, t] of tags.slice(0, 3).entries())
      await readDuring(
        judge,
        `get tags sent with the delete of tag ${i + 1} of 4`,
        () => a.getTags(name),
        () => a.deleteTag(name, t, false),
        'tags',
        ours,
      )
  })

  check('subscriptions.list.shape', readRaceTitle.subscriptionsUnsubscribe, async ({ a, b, c, users, channels, judge }) => {
    const name = await channels.create(a, { subscribeOnCreate: false })
    await mustSubscribe(b, name)
    await mustSubscribe(c, name)
    await subscribersOf(a, name, (ids) => ids.includes(users.B.userId) && ids.includes(users.C.userId))
    // Other clients may subscribe to a channel too (a shared deployment): the list's shape is judged, not who is in it.
    for (const [who, api] of [
      ['B', b],
      ['C', c],
    ] as const)
      await readDuring(
        judge,
        `A's list of subscriptions sent with ${who}'s unsubscribe`,
        () => a.subscriptions(name),
        () => api.unsubscribe(name),
        'subscription-list',
        [],
      )
  })

  check('channels.get.shape', readRaceTitle.getDeleteChannel, async ({ a, channels, judge }) => {
    const name = await channels.create(a)
    await readDuring(
      judge,
      `get-by-name of ${name} sent with its delete`,
      () => a.getChannel(name),
      () => a.deleteChannel(name),
      'channel',
      [],
    )
  })
})
