/**
 * The frame model (helpers/spec/models.ts FRAME_MODEL, docs/coverage.md): a change leaves every aspect of its own
 * channel that it does not touch as it was. §4.2 gives each call one thing it changes: subscribe and unsubscribe the
 * caller's subscription, add and delete tags the channel's tags, publish and the item deletes its items; none of them
 * names the record's created fields (description, maxItems, publishPermission, privateChannel: §2.3, set by the
 * create), nor what the server set once (creator and creationDate, §2.3: channels.record.fixed, creationDate compared as
 * the instant it names), nor any other aspect. So for each aspect the check furnishes one channel with every aspect (a description,
 * maxItems and publishPermission of its own, two tags, two items, A and B subscribed), reads that aspect, makes each
 * change that does not touch it in turn, and wants the aspect as it was after each (polled: reads may lag). Deleting
 * the channel is left out: it removes every aspect with the channel (§4.2 delete channel). The channel's findability
 * is an aspect too: none of those calls names search, so the public channel stays found by a search for its exact
 * name and for its exact description (§4.2 search), judged only as listed (other clients may copy both). What each call answers is
 * the endpoint checks' business; only a 5xx is judged here (http.valid-request-answered).
 */
import type { Api } from '../helpers/http/api'
import type { Exchange } from '../helpers/http/client'
import { check, describe, type CheckFixtures } from '../helpers/kit/check'
import { isSuccess } from '../helpers/kit/expect'
import { steps } from '../helpers/kit/judge'
import { eventually } from '../helpers/kit/poll'
import { mustAddTags, mustSubscribe, uniqueToken } from '../helpers/kit/setup'
import { aroundNow } from '../helpers/kit/window'
import { parseTimestamp } from '../helpers/spec/schemas'
import { frameTitle, FRAME_CHANGES, FRAME_TOUCHES, type FrameAspect, type FrameChange } from '../helpers/spec/models'
import { answered, channelRecord, itemsOf, listsName, publishFound } from './support/model'
import { match, type Matcher } from './support/match'
import { bodyOf, userIdsOf } from './support/read'

/** The fixtures a frame check uses. */
type Fx = Pick<CheckFixtures, 'a' | 'b' | 'c' | 'users' | 'channels' | 'fake' | 'judge'>

/** The furnished channel: its name and description, its two tags, its two items (ref and id), and the run's users. */
interface Furnished {
  name: string
  description: string
  tags: [string, string]
  items: { ref: string; itemId: string }[]
  ours: string[]
}

/**
 * One public channel of A with every aspect: a description, maxItems and publishPermission other than the defaults,
 * two tags, two items published by A (the owner may publish under `owner`), A subscribed by its create (the default)
 * and B by its own subscribe.
 */
async function furnish(fx: Fx): Promise<Furnished> {
  const description = `frame ${uniqueToken(fx.fake)}`
  const name = await fx.channels.create(fx.a, {
    description,
    maxItems: 10,
    publishPermission: 'owner',
    subscribeOnCreate: true,
  })
  await channelRecord(fx.a, name)
  // B subscribes first: the aspects furnished after it are there before any change the checks judge.
  await mustSubscribe(fx.b, name)
  const tags: [string, string] = [uniqueToken(fx.fake), uniqueToken(fx.fake)]
  await mustAddTags(fx.a, name, tags)
  const items = []
  for (let i = 0; i < 2; i++) {
    const ref = uniqueToken(fx.fake)
    items.push({ ref, itemId: (await publishFound(fx.a, name, { ref }, ref)).itemId })
  }
  return { name, description, tags, items, ours: [fx.users.A.userId, fx.users.B.userId, fx.users.C.userId] }
}

/** One aspect of the channel as its owner reads it, as comparable JSON (a refusal reads as its status). */
async function stateOf(a: Api, f: Furnished, aspect: FrameAspect): Promise<{ state: unknown; ex: Exchange }> {
  switch (aspect) {
    case 'record': {
      const ex = answered(await a.getChannel(f.name), `GET /channels/${f.name}`)
      const ch = bodyOf(ex)
      // get-by-name names the permission publisherPermission (§2.3); either key is read.
      const state = isSuccess(ex)
        ? {
            description: ch?.description,
            maxItems: ch?.maxItems,
            publishPermission: ch?.publisherPermission ?? ch?.publishPermission,
            privateChannel: ch?.privateChannel,
          }
        : { status: ex.status }
      return { state, ex }
    }
    case 'fixed': {
      // What the server set once (§2.3), as written: creationDate is compared as the instant it names (sameFixed).
      const ex = answered(await a.getChannel(f.name), `GET /channels/${f.name}`)
      const ch = bodyOf(ex)
      return { state: isSuccess(ex) ? { creator: ch?.creator, creationDate: ch?.creationDate } : { status: ex.status }, ex }
    }
    case 'tags': {
      const ex = answered(await a.getTags(f.name), `GET /channels/${f.name}/tags`)
      const tags = bodyOf(ex)?.tags
      return { state: isSuccess(ex) && Array.isArray(tags) ? { tags: tags.map((t) => String(t).toLowerCase()).sort() } : { status: ex.status }, ex }
    }
    case 'items': {
      const ex = answered(await a.fetchItems(f.name, aroundNow({ size: 50 })), `GET /channels/${f.name}/items/fetch`)
      const refs = itemsOf(ex)
        .map((i) => i.content?.ref ?? i.itemId)
        .map(String)
        .sort()
      return { state: isSuccess(ex) ? { refs } : { status: ex.status }, ex }
    }
    case 'searchName':
    case 'searchDescription': {
      // Judged only that the channel is listed: on a shared server other clients may copy its name and description.
      const params = aspect === 'searchName' ? { channelName: f.name } : { description: f.description }
      const ex = answered(await a.searchChannels({ ...params, offset: 0, size: 50 }), `GET /channels?${Object.keys(params)[0]}=…`)
      return { state: isSuccess(ex) ? { listed: listsName(ex, f.name) } : { status: ex.status }, ex }
    }
    case 'subscribers': {
      // Compared on the run's users alone: other clients may subscribe to a public channel at any time.
      const ex = answered(await a.subscriptions(f.name), `GET /channels/${f.name}/subscriptions`)
      const listed = new Set(userIdsOf(ex).map(String))
      return { state: isSuccess(ex) && Array.isArray(ex.json) ? { userIds: f.ours.filter((id) => listed.has(id)) } : { status: ex.status }, ex }
    }
  }
}

/** creationDate as the instant it names (undefined when it names none). */
const instantOf = (v: unknown): number | undefined => (typeof v === 'string' ? parseTimestamp(v)?.ms : undefined)

/**
 * creator and creationDate as the first read showed them: one instant in any form (another offset, say) passes, so
 * a server that writes it differently from one read to the next reads the same.
 */
function fixedAs(was: { creator?: unknown; creationDate?: unknown }): Matcher[] {
  return [
    match.equal('/creator', was.creator, "the owner's first GET's"),
    (state: unknown) => {
      const got = instantOf((state as { creationDate?: unknown } | undefined)?.creationDate)
      return got !== undefined && got === instantOf(was.creationDate)
        ? undefined
        : match.equal('/creationDate', was.creationDate, "the owner's first GET's")(state)
    },
  ]
}

/** How the fixed aspect's failure names a change (no path in it: a reproducer reads the line after it). */
const FIXED_LABEL: Readonly<Record<FrameChange, string>> = {
  subscribe: "C's subscribe",
  unsubscribe: "B's unsubscribe",
  addTags: 'an add of a tag',
  deleteTag: 'a delete of one tag',
  deleteTags: 'a delete of all tags',
  publishItem: 'a publish',
  deleteItems: 'a delete of an item by id',
  deleteAllItems: 'a delete of all items',
}

/** How a failure names the aspect. */
const ASPECT_LABEL: Readonly<Record<FrameAspect, string>> = {
  record: 'record',
  fixed: 'creator and creationDate',
  tags: 'tags',
  items: 'items',
  subscribers: 'subscribers',
  searchName: 'listing in a search for its exact name',
  searchDescription: 'listing in a search for its exact description',
}

/** Whether the state shows what the set-up made (reads may lag behind it). */
function settled(f: Furnished, aspect: FrameAspect, state: unknown): boolean {
  const st = state as { status?: number; tags?: string[]; refs?: string[]; userIds?: string[]; listed?: boolean }
  if (aspect === 'record' || aspect === 'fixed') return st.status === undefined
  if (aspect === 'searchName' || aspect === 'searchDescription') return st.listed === true
  if (aspect === 'tags') return f.tags.every((t) => st.tags?.includes(t.toLowerCase()))
  if (aspect === 'items') return f.items.every((i) => st.refs?.includes(i.ref))
  return [f.ours[0]!, f.ours[1]!].every((id) => st.userIds?.includes(id))
}

/**
 * The aspect must show what the set-up made before a change is judged: a read that never does is the deviation of
 * that view's own clause (a step), not of the change to come.
 */
function mustShowSetUp(f: Furnished, aspect: FrameAspect, state: unknown, ex: Exchange): void {
  const own = (m: Matcher) => match.when(`set-up: the channel's ${ASPECT_LABEL[aspect]} before any change`, m)
  if (aspect === 'record') steps.getChannel.match(state, own(match.absent('/status')), ex)
  if (aspect === 'fixed')
    steps.getChannel.match(
      state,
      [match.absent('/status'), match.that('/creationDate', (v) => typeof v === 'string' && parseTimestamp(v) !== undefined, 'an ISO 8601 timestamp')].map(own),
      ex,
    )
  if (aspect === 'tags')
    steps.tagsStored.match(
      state,
      own(
        match.containsAll(
          '/tags',
          f.tags.map((t) => t.toLowerCase()),
        ),
      ),
      ex,
    )
  if (aspect === 'items')
    steps.fetchItems.match(
      state,
      own(
        match.containsAll(
          '/refs',
          f.items.map((i) => i.ref),
        ),
      ),
      ex,
    )
  if (aspect === 'searchName') steps.foundByName.match(state, own(match.equal('/listed', true, 'the channel listed by a search for its exact name')), ex)
  if (aspect === 'searchDescription')
    steps.foundByDescription.match(state, own(match.equal('/listed', true, 'the channel listed by a search for its exact description')), ex)
  if (aspect === 'subscribers')
    steps.subscribedListed.match(state, own(match.containsAll('/userIds', [f.ours[0]!, f.ours[1]!], { what: "A's and B's user ids" })), ex)
}

/** The call of one change, made by the user the change is about (C subscribes, B unsubscribes, A the rest). */
function change(op: FrameChange, fx: Fx, f: Furnished, fresh: string): Promise<Exchange> {
  switch (op) {
    case 'subscribe':
      return fx.c.subscribe(f.name)
    case 'unsubscribe':
      return fx.b.unsubscribe(f.name)
    case 'addTags':
      return fx.a.addTags(f.name, [fresh])
    case 'deleteTag':
      return fx.a.deleteTag(f.name, f.tags[0])
    case 'deleteTags':
      return fx.a.deleteTags(f.name)
    case 'publishItem':
      return fx.a.publish(f.name, { content: { ref: fresh }, messageType: 'text', contentType: 'application/json' })
    case 'deleteItems':
      return fx.a.deleteItems(f.name, [f.items[0]!.itemId])
    case 'deleteAllItems':
      return fx.a.deleteAllItems(f.name)
  }
}

const LABEL: Readonly<Record<FrameChange, string>> = {
  subscribe: "C's PUT /channels/{name}/subscribe",
  unsubscribe: "B's PUT /channels/{name}/unsubscribe",
  addTags: 'POST /channels/{name}/tags',
  deleteTag: 'DELETE /channels/{name}/tags/{tag}',
  deleteTags: 'DELETE /channels/{name}/tags',
  publishItem: 'POST /channels/{name}/items',
  deleteItems: 'DELETE /channels/{name}/items?id=',
  deleteAllItems: 'DELETE /channels/{name}/items/all',
}

/** Furnishes the channel, reads `aspect`, then makes each change that does not touch it and wants it as it was. */
const frame =
  (aspect: FrameAspect) =>
  async ({ a, b, c, users, channels, fake, judge }: Fx): Promise<void> => {
    const fx: Fx = { a, b, c, users, channels, fake, judge }
    const f = await furnish(fx)
    const first = await eventually(
      () => stateOf(a, f, aspect),
      (r) => settled(f, aspect, r.state),
    )
    mustShowSetUp(f, aspect, first.state, first.ex)
    const was = first.state
    const want = JSON.stringify(was)
    for (const op of FRAME_CHANGES.filter((o) => !FRAME_TOUCHES[o].includes(aspect))) {
      const what = `${LABEL[op]} on ${f.name}`
      answered(await change(op, fx, f, uniqueToken(fake)), what)
      let last: { state: unknown; ex: Exchange } | undefined
      const same = aspect === 'fixed' ? fixedAs(was as { creator?: unknown; creationDate?: unknown }) : [match.same('', was)]
      await eventually(
        async () => (last = await stateOf(a, f, aspect)),
        (r) => (aspect === 'fixed' ? same.every((m) => m(r.state) === undefined) : JSON.stringify(r.state) === want),
      )
      const context = aspect === 'fixed' ? `the owner's GET after ${FIXED_LABEL[op]}` : `the channel's ${ASPECT_LABEL[aspect]}, after ${what}`
      judge.match(
        last!.state,
        same.map((m) => match.when(context, m)),
        last!.ex,
      )
    }
  }

describe('the frame of a change: one channel, each aspect a change does not touch stays as it was (§2.3, §4.2)', () => {
  check('channels.create.fields-stored', frameTitle.record, frame('record'))
  check('channels.record.fixed', frameTitle.fixed, frame('fixed'))
  check('tags.add.visible', frameTitle.tags, frame('tags'))
  check('items.fetch.range', frameTitle.items, frame('items'))
  check('subscriptions.subscribe.listed', frameTitle.subscribers, frame('subscribers'))
  check('channels.search.by-name', frameTitle.searchName, frame('searchName'))
  check('channels.search.by-description', frameTitle.searchDescription, frame('searchDescription'))
})
