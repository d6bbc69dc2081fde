/**
 * The neighbours model (§2.3 addressing, §4.2): channels whose names meet each keep their own state. An address
 * names one channel (§2.3: "a public channel or the caller's own private channel is addressed by its plain name.
 * Another user's private channel is addressed as `<user_id>#<channel_name>`"; `personal` picks the caller's
 * own private channel), so a call through it changes and reads that channel only. Three families of neighbours,
 * where a server that keys its records by name, or by a name's start, mixes them up:
 * - prefix: public channels named `n`, `nm` and `nmz` (one a prefix of the next), the middle one the target;
 * - two owners: A's private `n` and B's private `n`, either made first; A calls by the plain name, B by `<A's id>#n`
 *   (every read B is served through it holds A's channel's values);
 * - twins: A's public `n` and A's private `n`; A calls with personal=true, B by `<A's id>#n`.
 * For each kind of change (delete, subscribe and unsubscribe, tags, publish, item deletes) the check furnishes
 * the world with that aspect, reads each neighbour's state, makes the change on the target, and wants every
 * neighbour's state as it was (polled: reads may lag). The target's own reads hold none of the neighbours'
 * unique values. A neighbour the server refuses to create (a name taken across the service, say) leaves the
 * check with nothing to judge, and says so. What the call answers is the endpoint checks' business; only a
 * 5xx is judged here (http.valid-request-answered).
 */
import type { Faker } from '@faker-js/faker'
import type { Api, CreateChannelBody } from '../helpers/http/api'
import type { Exchange } from '../helpers/http/client'
import type { RunAccount } from '../helpers/http/run-context'
import { check, describe, type ChannelFactory } from '../helpers/kit/check'
import { isSuccess } from '../helpers/kit/expect'
import { ALSO, steps, type Judge } from '../helpers/kit/judge'
import { eventually } from '../helpers/kit/poll'
import { mustAddTags, mustSubscribe, uniqueToken } from '../helpers/kit/setup'
import { aroundNow } from '../helpers/kit/window'
import { answered, callThrough, hasTag, itemsOf, publishFound, readThrough, tagList, type AddressRead, type CallValues } from './support/model'
import { match } from './support/match'
import { bodyOf, userIdsOf } from './support/read'

/** What a check furnishes and compares: the channel record, its tags, its items, its subscribers. */
type Aspect = 'record' | 'tags' | 'items' | 'subscribers'

/** The changes a call can make to a channel, each with the aspect it touches. */
type Change = 'deleteChannel' | 'subscribe' | 'unsubscribe' | 'addTags' | 'deleteTag' | 'deleteTags' | 'publishItem' | 'deleteItems' | 'deleteAllItems'
const TOUCHES: Readonly<Record<Change, Aspect>> = {
  deleteChannel: 'record',
  subscribe: 'subscribers',
  unsubscribe: 'subscribers',
  addTags: 'tags',
  deleteTag: 'tags',
  deleteTags: 'tags',
  publishItem: 'items',
  deleteItems: 'items',
  deleteAllItems: 'items',
}
const LABEL: Readonly<Record<Change, string>> = {
  deleteChannel: 'DELETE /channels/{name}',
  subscribe: 'PUT /channels/{name}/subscribe',
  unsubscribe: 'PUT /channels/{name}/unsubscribe',
  addTags: 'POST /channels/{name}/tags',
  deleteTag: 'DELETE /channels/{name}/tags/{tag}',
  deleteTags: 'DELETE /channels/{name}/tags',
  publishItem: 'POST /channels/{name}/items',
  deleteItems: 'DELETE /channels/{name}/items',
  deleteAllItems: 'DELETE /channels/{name}/items/all',
}

/** A channel of the world: its plain name, who reads its state back and by which address, its unique values. */
interface Spot {
  name: string
  /** The caller that reads this channel's state, and the address it uses (unambiguous for that caller). */
  reader: Api
  address: string
  description: string
  /** A tag of its own; every channel of a world also carries the world's shared tag. */
  tag: string
  ref: string
  itemId: string
  /** The users the check subscribed to it and waits to see listed before it reads the state. */
  subscribed: string[]
}

interface World {
  target: Spot
  neighbours: Spot[]
  /** A tag every channel of the world carries (a change of one channel's tag must not reach the others'). */
  shared: string
  /**
   * The run's users (A, B, C): a subscriber list is compared on them alone, since other clients may subscribe to a
   * public channel at any time (§4.2 subscribe is open to every caller).
   */
  ours: string[]
}

interface Fx {
  a: Api
  b: Api
  c: Api
  users: { A: RunAccount; B: RunAccount; C: RunAccount }
  channels: ChannelFactory
  fake: Faker
  judge: Judge
}

/**
 * A check's function over `run`: vitest gives a check the fixtures its function's first parameter names
 * (helpers/kit/check.ts), so they are named once, here; `run` has them one by one and together as `fx`.
 */
const withFx =
  (run: (fixtures: Fx & { fx: Fx }) => Promise<void>) =>
  async ({ a, b, c, users, channels, fake, judge }: Fx): Promise<void> => {
    const fx: Fx = { a, b, c, users, channels, fake, judge }
    return run({ ...fx, fx })
  }

const token = (fx: Fx): string => uniqueToken(fx.fake)

/** A spot's values, made up front; `furnish` puts those of one aspect on the server. */
function spot(fx: Fx, name: string, reader: Api, address = name): Spot {
  return { name, reader, address, description: `ct ${token(fx)}`, tag: token(fx), ref: token(fx), itemId: '', subscribed: [] }
}

/**
 * Puts an aspect's values on a channel. Tags are added by its owner (`personal` for a private channel) and read
 * back by its reader; items are published and found by its reader (anyone may publish by default), so a public
 * channel whose owner also has a private twin of that name is never reached by the owner's ambiguous plain name.
 */
async function furnish(owner: Api, s: Spot, aspect: Aspect, shared: string, personal: boolean): Promise<void> {
  if (aspect === 'tags') {
    if (s.reader === owner && s.address === s.name) return mustAddTags(owner, s.name, [shared, s.tag], personal)
    steps.addTags.response(answered(await owner.addTags(s.name, [shared, s.tag], personal), `add tags to ${s.name}`), { status: '2xx' })
    const { tags, ex } = await tagList(s.reader, s.address, (t) => hasTag(t, shared) && hasTag(t, s.tag))
    steps.tagsStored.match(
      tags,
      match.when(
        `set-up: the tags of ${s.address} after adding two`,
        match.containsAll(
          '',
          [shared, s.tag].map((t) => t.toLowerCase()),
          { key: (t) => String(t).toLowerCase() },
        ),
      ),
      ex,
    )
  }
  if (aspect === 'items') s.itemId = (await publishFound(s.reader, s.address, { ref: s.ref }, s.ref)).itemId
}

/** One aspect of a channel's state as its reader sees it, as comparable JSON (a refusal reads as its status). */
async function stateOf(s: Spot, aspect: Aspect, ours: readonly string[]): Promise<{ state: unknown; ex: Exchange }> {
  const { reader, address } = s
  switch (aspect) {
    case 'record': {
      const ex = answered(await reader.getChannel(address), `GET /channels/${address}`)
      return { state: isSuccess(ex) ? { description: bodyOf(ex)?.description } : { status: ex.status }, ex }
    }
    case 'tags': {
      const ex = answered(await reader.getTags(address), `GET /channels/${address}/tags`)
      const tags = bodyOf(ex)?.tags
      return { state: isSuccess(ex) && Array.isArray(tags) ? { tags: tags.map((t) => String(t).toLowerCase()).sort() } : { status: ex.status }, ex }
    }
    case 'items': {
      const ex = answered(await reader.fetchItems(address, aroundNow({ size: 50 })), `GET /channels/${address}/items/fetch`)
      return {
        state: isSuccess(ex)
          ? {
              refs: itemsOf(ex)
                .map((i) => i.content?.ref ?? i.itemId)
                .sort(),
            }
          : { status: ex.status },
        ex,
      }
    }
    case 'subscribers': {
      const ex = answered(await reader.subscriptions(address), `GET /channels/${address}/subscriptions`)
      const listed = new Set(userIdsOf(ex).map(String))
      return { state: isSuccess(ex) && Array.isArray(ex.json) ? { userIds: ours.filter((id) => listed.has(id)) } : { status: ex.status }, ex }
    }
  }
}

/** Whether a state read shows what the set-up made on the spot. */
function settled(n: Spot, aspect: Aspect, state: unknown): boolean {
  const st = state as { status?: number; userIds?: string[] }
  // A 404 may be a read that lags the spot's create (it is polled on; a server that hides the spot keeps answering 404).
  if (st.status === 404) return false
  if (aspect === 'record') return st.status === undefined
  if (aspect === 'subscribers') return n.subscribed.every((id) => st.userIds?.includes(id))
  // A tag list read before the change shows the spot's own tag once it is stored (or is refused): reads may lag.
  if (aspect === 'tags') return st.status !== undefined || ((state as { tags?: string[] }).tags?.includes(n.tag.toLowerCase()) ?? false)
  return true
}

/** The neighbours' states before a change, each polled until it shows the set-up (reads may lag). */
async function before(world: World, aspect: Aspect): Promise<unknown[]> {
  return Promise.all(
    world.neighbours.map(async (n) => {
      // Polled until it shows what the set-up made (a record answered, the users subscribed listed): reads may lag.
      const { state, ex } = await eventually(
        () => stateOf(n, aspect, world.ours),
        ({ state: st }) => settled(n, aspect, st),
      )
      // A neighbour must hold what was put on it before anything is judged: a fetch or a tag list that already shows
      // another channel's values is the deviation of that view's own clause (a step), not of the change to come.
      const own = (m: Parameters<typeof match.when>[1]) => match.when(`set-up: ${n.address}, a neighbour, before the change`, m)
      if (aspect === 'items' && Array.isArray((state as { refs?: unknown }).refs))
        steps.fetchItems.match(state, own(n.itemId ? match.equal('/refs', [n.ref], 'its own item only') : match.size('/refs', 0)), ex)
      if (aspect === 'tags' && Array.isArray((state as { tags?: unknown }).tags))
        steps.tagsStored.match(state, own(match.equal('/tags', [world.shared, n.tag].map((t) => t.toLowerCase()).sort(), 'its own two tags only')), ex)
      return state
    }),
  )
}

/** After a change on the target, each neighbour's state must be what it was (polled until it is, or time runs out). */
async function judgeUnchanged(world: World, aspect: Aspect, was: unknown[], what: string, judge: Judge): Promise<void> {
  for (const [i, n] of world.neighbours.entries()) {
    const want = JSON.stringify(was[i])
    let last: { state: unknown; ex: Exchange } | undefined
    await eventually(
      async () => (last = await stateOf(n, aspect, world.ours)),
      (r) => JSON.stringify(r.state) === want,
    )
    judge.match(last!.state, match.when(`${n.address}, a neighbour, after ${what}`, match.same('', was[i])), last!.ex)
  }
}

/** What a change on the target sends (callThrough): a `fresh` tag or ref of the call's own, the shared tag, the target's item. */
function valuesOf(w: World, fresh: string): CallValues {
  return {
    newTag: fresh,
    tag: w.shared,
    item: { content: { ref: fresh }, messageType: 'text', contentType: 'application/json' },
    itemIds: [w.target.itemId || fresh],
  }
}

/**
 * The neighbours' unique values: none of them may show in an answer about the target. Tokens the check made (16
 * hex digits), never the server's item ids: a server's small decimal ids (`"71"`) turn up inside other text.
 */
function markersOf(w: World): string[] {
  return w.neighbours.flatMap((n) => [n.description, n.tag, n.ref]).filter(Boolean)
}

/** An answer about the target holds none of the neighbours' values. */
function judgeOwnAnswer(ex: Exchange, w: World, what: string, judge: Judge): void {
  const leaked = markersOf(w).filter((m) => ex.text.includes(m))
  judge.match(leaked, match.when(`${what}: values of a neighbour in the answer`, match.size('', 0)), ex)
}

/**
 * B's GET of `address` (<A's id>#n) must not answer with a neighbour's record: an address that resolves to another
 * channel is private.other-user-address' deviation, and every change made through it would land there too; so
 * it is a step, and the check of a change is blocked by it. A refusal is the server's choice (who may read is
 * not stated).
 */
async function mustResolveAddress(b: Api, address: string, w: World): Promise<void> {
  const ex = answered(await b.getChannel(address), `B's GET of ${address}`)
  if (!isSuccess(ex)) return
  const leaked = markersOf(w).filter((m) => ex.text.includes(m))
  steps.addressResolves.match(leaked, match.when(`set-up: B's GET of ${address}: values of another channel of that name`, match.size('', 0)), ex)
}

/** The run's users' ids, on which a world compares its subscriber lists (World.ours). */
const oursOf = (fx: Fx): string[] => [fx.users.A.userId, fx.users.B.userId, fx.users.C.userId]

/**
 * `owner`'s channel of a name another channel of the world already has (`body`), tracked for deletion: true when it is
 * made. A second channel of one name is not stated to be allowed: a refusal is observed as `refusal` and the status,
 * then `after`, and the check has nothing to judge.
 */
async function madeBeside(
  fx: Fx,
  owner: Api,
  body: CreateChannelBody,
  what: string,
  refusal: string,
  after = ', so the check has nothing to judge',
): Promise<boolean> {
  fx.channels.track(owner, body.channelName, body.privateChannel === true)
  const made = answered(await owner.createChannel(body), what)
  if (!isSuccess(made)) fx.judge.observe(`${refusal}: create answered ${made.status}${after}`, ALSO.createDuplicate)
  return isSuccess(made)
}

// ── the three families ────────────────────────────────────────────────────────────────────────────────

/** Public `n`, `nm` (the target) and `nmz`, all A's; read back by A. */
async function prefixWorld(fx: Fx, aspect: Aspect): Promise<World> {
  const base = fx.channels.name()
  const spots = [base, `${base}m`, `${base}mz`].map((name) => spot(fx, name, fx.a))
  for (const s of spots) await fx.channels.create(fx.a, { channelName: s.name, description: s.description })
  const w: World = { target: spots[1]!, neighbours: [spots[0]!, spots[2]!], shared: token(fx), ours: oursOf(fx) }
  for (const s of spots) await furnish(fx.a, s, aspect, w.shared, false)
  return w
}

/**
 * A's private `n` (the target, addressed by A by the plain name) and B's private `n` (read back by B). Undefined,
 * with an observation, when the server refuses B's channel of a name A's private channel has.
 */
async function twoOwnersWorld(fx: Fx, aspect: Aspect, theirsPublic = false): Promise<World | undefined> {
  const name = fx.channels.name()
  const target = spot(fx, name, fx.a)
  const theirs = spot(fx, name, fx.b)
  const kind = theirsPublic ? 'public' : 'private'
  await fx.channels.create(fx.a, { channelName: name, description: target.description, privateChannel: true })
  const shared = token(fx)
  // Beside B's public channel, A's plain name may mean that one (a reading: variant plain-name-public-first), so A
  // furnishes its own first, while the name is its alone.
  if (theirsPublic) await furnish(fx.a, target, aspect, shared, true)
  const body = { channelName: name, description: theirs.description, privateChannel: !theirsPublic }
  if (!(await madeBeside(fx, fx.b, body, `B's ${kind} channel`, `B's ${kind} channel named like A's private ${name}`))) return undefined
  const w: World = { target, neighbours: [theirs], shared, ours: oursOf(fx) }
  if (!theirsPublic) await furnish(fx.a, target, aspect, w.shared, true)
  await furnish(fx.b, theirs, aspect, w.shared, !theirsPublic)
  return w
}

/**
 * A's public `n` (read back by B, whose plain name means the public one) and A's private `n` (the target). The
 * private twin gets its tags with personal=true and no item (publish takes no personal flag, and A's plain name
 * is ambiguous here). Undefined, with an observation, when the server refuses the twin.
 */
async function twinsWorld(fx: Fx, aspect: Aspect): Promise<World | undefined> {
  const name = fx.channels.name()
  const pub = spot(fx, name, fx.b)
  const target = spot(fx, name, fx.a)
  const shared = token(fx)
  await fx.channels.create(fx.a, { channelName: name, description: pub.description })
  // Furnished by its owner while the plain name still names it alone; read back by B from then on.
  const alone = { ...pub, reader: fx.a }
  await furnish(fx.a, alone, aspect, shared, false)
  pub.itemId = alone.itemId
  const body = { channelName: name, description: target.description, privateChannel: true }
  if (!(await madeBeside(fx, fx.a, body, "A's private twin", `a private channel named like the owner's public ${name}`))) return undefined
  const w: World = { target, neighbours: [pub], shared, ours: oursOf(fx) }
  if (aspect === 'tags') steps.addTags.response(answered(await fx.a.addTags(name, [w.shared, target.tag], true), "the twin's tags"), { status: '2xx' })
  return w
}

/**
 * B subscribed to every channel of the world, C to the neighbours only: a subscriber list tells them apart.
 * False when a neighbour's reader may not list its subscribers (who may is not stated): nothing of them is judged.
 */
async function subscribeAround(fx: Fx, w: World, targetAddressForB: string): Promise<boolean> {
  for (const n of w.neighbours) {
    await mustSubscribe(fx.b, n.reader === fx.b ? n.address : n.name)
    await mustSubscribe(fx.c, n.reader === fx.b ? n.address : n.name)
    n.subscribed.push(fx.users.B.userId, fx.users.C.userId)
  }
  answered(await fx.b.subscribe(targetAddressForB), "B's subscribe to the target")
  for (const n of w.neighbours) {
    const ex = answered(
      await eventually(
        () => n.reader.subscriptions(n.address),
        (e) => !isSuccess(e) || userIdsOf(e).includes(fx.users.B.userId),
      ),
      `GET /channels/${n.address}/subscriptions`,
    )
    if (!isSuccess(ex)) {
      fx.judge.observe(`the subscribers of ${n.address}, read by a user who is not its owner: status ${ex.status}, so they are not compared`)
      return false
    }
    steps.subscribedListed.match(
      userIdsOf(ex),
      match.when(`set-up: the subscribers of ${n.address}`, match.contains('', fx.users.B.userId, { what: "B's user id" })),
      ex,
    )
  }
  return true
}

/**
 * A subscribe that lands on the wrong channel shows only where its caller was not subscribed: `other` is subscribed
 * to every neighbour (so their lists are read with someone on them), the caller to none. Then `caller` subscribes
 * to the target through `address`, and each neighbour's list must be as it was. False when a neighbour's reader may
 * not list its subscribers (who may is not stated): nothing is judged then.
 */
async function subscribeFromNowhere(fx: Fx, w: World, caller: Api, other: { api: Api; userId: string }, address: string): Promise<boolean> {
  for (const n of w.neighbours) {
    await mustSubscribe(other.api, n.reader === fx.b ? n.address : n.name)
    n.subscribed.push(other.userId)
  }
  for (const n of w.neighbours) {
    const ex = answered(
      await eventually(
        () => n.reader.subscriptions(n.address),
        (e) => !isSuccess(e) || userIdsOf(e).includes(other.userId),
      ),
      `GET /channels/${n.address}/subscriptions`,
    )
    if (!isSuccess(ex)) {
      fx.judge.observe(`the subscribers of ${n.address}, read by a user who is not its owner: status ${ex.status}, so they are not compared`)
      return false
    }
  }
  await changeAlone(fx, w, ['subscribe'], caller, address, undefined, false)
  return true
}

// ── the checks ────────────────────────────────────────────────────────────────────────────────────────

/** The changes' endpoints, for a check's title. */
const labels = (changes: readonly Change[]): string => changes.map((c) => LABEL[c]).join(', ')

/** The read of each aspect (readTarget). */
const READ_OF: Readonly<Record<Aspect, AddressRead>> = { record: 'getChannel', tags: 'getTags', items: 'fetchItems', subscribers: 'listSubscribers' }

/** The target's own read after a change of `aspect`, judged to hold none of the neighbours' values. */
const readTarget = (api: Api, address: string, aspect: Aspect): Promise<Exchange> => readThrough(READ_OF[aspect], api, address)

/**
 * Makes `changes` one after another on the target through `address` as `actor`, and after each wants every
 * neighbour unchanged; `readsOwn` also wants the target's own read of that aspect to hold no neighbour's value.
 */
async function changeAlone(
  fx: Fx,
  w: World,
  changes: readonly Change[],
  actor: Api,
  address: string,
  personal: boolean | undefined,
  readsOwn: boolean,
): Promise<void> {
  for (const op of changes) {
    const aspect = TOUCHES[op]
    const was = await before(w, aspect)
    const what = `${LABEL[op]} on ${address}${personal ? '?personal=true' : ''}`
    answered(await callThrough(op, actor, address, valuesOf(w, token(fx)), personal), what)
    await judgeUnchanged(w, aspect, was, what, fx.judge)
    if (readsOwn && op !== 'deleteChannel') {
      const ex = answered(await readTarget(actor, address, aspect), `the target's read after ${what}`)
      if (isSuccess(ex)) judgeOwnAnswer(ex, w, `${address} read after ${what}`, fx.judge)
    }
  }
}

/** The aspects a group of changes needs furnished: what they touch (deleting a channel is judged on its record). */
const aspectsOf = (changes: readonly Change[]): Aspect[] => [...new Set(changes.map((c) => TOUCHES[c]))]

/**
 * One check for each kind of change, each under the clause a change of that kind answers to when it reaches a
 * neighbour: `title` names the check, `run` makes the changes and judges the neighbours.
 */
function everyKind(title: (changes: readonly Change[]) => string, run: (changes: readonly Change[]) => (fx: Fx) => Promise<void>): void {
  check('channels.delete.only-named', title(['deleteChannel']), run(['deleteChannel']))
  check('subscriptions.subscribe.listed', title(['subscribe', 'unsubscribe']), run(['subscribe', 'unsubscribe']))
  check('tags.add.visible', title(['addTags']), run(['addTags']))
  check('tags.delete-one.removes', title(['deleteTag']), run(['deleteTag']))
  check('tags.delete-all.removes', title(['deleteTags']), run(['deleteTags']))
  check('items.fetch.range', title(['publishItem']), run(['publishItem']))
  check('items.delete.removes', title(['deleteItems', 'deleteAllItems']), run(['deleteItems', 'deleteAllItems']))
}

describe('prefix neighbours: public n, nm and nmz; the owner changes nm (§2.3, §4.2)', () => {
  /** The owner's changes to nm, each in turn, with n and nmz as they were after each. */
  const onNm = (changes: readonly Change[]) =>
    withFx(async ({ fx, a, b, c }) => {
      const [aspect] = aspectsOf(changes)
      const w = await prefixWorld(fx, aspect!)
      if (aspect === 'subscribers') await subscribeAround(fx, w, w.target.name)
      for (const op of changes) {
        // B unsubscribes (subscribed to all three), C subscribes (subscribed to the neighbours only), A makes the rest.
        const actor = op === 'unsubscribe' ? b : op === 'subscribe' ? c : a
        await changeAlone(fx, w, [op], actor, w.target.name, undefined, true)
      }
    })
  const nm = (changes: readonly Change[]) => `changes channel nm and neither n nor nmz by ${labels(changes)}`
  everyKind(nm, onNm)

  check(
    'subscriptions.subscribe.listed',
    'subscribes B to channel nm and to neither n nor nmz, which B was not on, by PUT /channels/{name}/subscribe',
    withFx(async ({ fx, b, c, users }) => {
      const w = await prefixWorld(fx, 'subscribers')
      await subscribeFromNowhere(fx, w, b, { api: c, userId: users.C.userId }, w.target.name)
    }),
  )

  check(
    'channels.summary.count',
    'counts the items of channel nm only, not those of n and nmz',
    withFx(async ({ fx, a, judge }) => {
      const w = await prefixWorld(fx, 'items')
      // A second item in each neighbour, so that a count that takes them in differs from the target's 1.
      for (const n of w.neighbours) await publishFound(a, n.name, { ref: `${n.ref}2` }, `${n.ref}2`)
      // Polled past 0: a summary may lag the publish.
      const ex = answered(
        await eventually(
          () => a.summary(w.target.name),
          (e) => isSuccess(e) && bodyOf(e)?.publishedItemCount !== 0,
        ),
        `GET /channels/${w.target.name}/summary`,
      )
      const body = steps.summary.response(ex, { status: '2xx' })
      judge.match(body, match.when(`summary of ${w.target.name}, one item published; n and nmz hold two each`, match.equal('/publishedItemCount', 1)), ex)
    }),
  )
})

/**
 * The two owners' world furnished for `changes`; for subscriber changes B is subscribed to its own channel (by its
 * create, by default, or here), which every change to A's channel must leave.
 */
async function twoOwnersFor(fx: Fx, changes: readonly Change[]): Promise<World | undefined> {
  const [aspect] = aspectsOf(changes)
  const w = await twoOwnersWorld(fx, aspect!)
  if (w && aspect === 'subscribers') {
    answered(await fx.b.subscribe(w.neighbours[0]!.address), "B's subscribe to its own channel")
    w.neighbours[0]!.subscribed.push(fx.users.B.userId)
  }
  return w
}

/**
 * A on its own channel `name`'s list (its create may have subscribed it already: the answer is not judged), read back
 * by A: A's user id once listed, undefined when it never is (then a read through the address is not judged on it).
 */
async function ownerSubscribed(fx: Fx, name: string): Promise<string | undefined> {
  answered(await fx.a.subscribe(name), `A's subscribe to ${name}`)
  const listed = answered(
    await eventually(
      () => fx.a.subscriptions(name),
      (e) => isSuccess(e) && userIdsOf(e).includes(fx.users.A.userId),
    ),
    `A's GET /channels/${name}/subscriptions`,
  )
  return isSuccess(listed) && userIdsOf(listed).includes(fx.users.A.userId) ? fx.users.A.userId : undefined
}

/**
 * A's own get by id of its item `itemId` in `name`, a step: a get by id that leaves items out is that clause's
 * deviation, not the address's.
 */
async function ownItemById(fx: Fx, name: string, itemId: string): Promise<void> {
  const own = answered(
    await eventually(
      () => fx.a.getItems(name, [itemId]),
      (e) => isSuccess(e) && itemsOf(e).some((i) => i.itemId === itemId),
    ),
    `A's GET /channels/${name}/items?id=${itemId}`,
  )
  steps.getItems.response(own, { status: '2xx' })
  steps.itemsById.match(
    itemsOf(own),
    match.when(
      `set-up: A's get by id of its item`,
      match.contains('', itemId, { key: (i) => (i as { itemId?: unknown }).itemId, what: "A's item asked for by id" }),
    ),
    own,
  )
}

describe("two owners' private channels of one name: A's by the plain name, B's by <A's id>#n (§2.3)", () => {
  /** A's changes to its private n by the plain name (personal=true where the call takes it), B's private n as it was. */
  const onMine = (changes: readonly Change[]) =>
    withFx(async ({ fx, a }) => {
      const w = await twoOwnersFor(fx, changes)
      if (!w) return
      await changeAlone(fx, w, changes, a, w.target.name, true, true)
    })
  const mine = (changes: readonly Change[]) => `changes A's private channel n and not B's private n by ${labels(changes)} with personal=true`
  everyKind(mine, onMine)

  for (const theirs of ['private', 'public'] as const)
    check(
      'private.other-user-address',
      `reads A's private n, never B's own ${theirs} n, by <A's id>#n`,
      withFx(async ({ fx, b, users, judge }) => {
        const w = await twoOwnersWorld(fx, 'items', theirs === 'public')
        if (!w) return
        await furnish(b, w.neighbours[0]!, 'tags', w.shared, theirs === 'private')
        const address = `${users.A.userId}#${w.target.name}`
        // B's own channel holds its own values before anything is judged (a view that mixes them is its own deviation).
        await before(w, 'items')
        await before(w, 'tags')
        // Who may read another user's private channel is not stated: each answer is the server's, but what B reads
        // through A's address must not be B's own channel.
        for (const read of ['record', 'tags', 'items', 'subscribers'] as const) {
          const ex = answered(await readTarget(b, address, read), `B's read of ${address}`)
          if (isSuccess(ex)) judgeOwnAnswer(ex, w, `B's read of ${address}`, judge)
        }
        const summary = answered(await b.summary(address), `B's summary of ${address}`)
        if (isSuccess(summary))
          judge.match(bodyOf(summary), match.when(`B's summary of ${address}`, match.not('/userId', users.B.userId, "B's own user id")), summary)
      }),
    )

  check(
    'private.other-user-address',
    `answers every read of <A's id>#n that it serves with A's private n: its record, tags, items by fetch and by id, subscribers and summary, B holding its own private n`,
    withFx(async ({ fx, a, b, users, judge }) => {
      const w = await twoOwnersWorld(fx, 'items')
      if (!w) return
      const t = w.target
      // A's channel: its tags, a second item (its count, 2, is not B's 1) and A itself subscribed, each read back by A.
      await mustAddTags(a, t.name, [w.shared, t.tag], true)
      await publishFound(a, t.name, { ref: `${t.ref}2` }, `${t.ref}2`)
      const subscribed = await ownerSubscribed(fx, t.name)
      await furnish(b, w.neighbours[0]!, 'tags', w.shared, true)
      await before(w, 'items')
      await before(w, 'tags')
      await ownItemById(fx, t.name, t.itemId)
      // Who may read another user's private channel is not stated: a refusal is the server's; an answer is A's channel's.
      await readsHold(fx, b, `${users.A.userId}#${t.name}`, w, "B's read through A's address", judge, subscribed)
    }),
  )

  /** B's changes through <A's id>#n: whatever the server lets B do to A's channel, B's own private n stays as it was. */
  const onAddress = (changes: readonly Change[]) =>
    withFx(async ({ fx, b, users }) => {
      const w = await twoOwnersFor(fx, changes)
      if (!w) return
      await mustResolveAddress(b, `${users.A.userId}#${w.target.name}`, w)
      await changeAlone(fx, w, changes, b, `${users.A.userId}#${w.target.name}`, undefined, false)
    })
  const theirs = (changes: readonly Change[]) => `leaves B's own private n as it was when B calls ${labels(changes)} on <A's id>#n`
  everyKind(theirs, onAddress)
})

/**
 * B's private `n` made FIRST (read back by B), then A's private `n` (the target): a server that resolves a plain name
 * to the oldest private channel of that name reaches B's. A's own calls furnish its channel by the plain name
 * (personal=true where the call takes it), each judged under `judge` to reach A's channel: that is the owner's plain
 * name at work. Undefined, with an observation, when the server refuses A's channel of a name B's private channel has.
 */
async function secondOwnerWorld(fx: Fx, aspect: Aspect): Promise<World | undefined> {
  const name = fx.channels.name()
  const target = spot(fx, name, fx.a)
  const theirs = spot(fx, name, fx.b)
  const shared = token(fx)
  await fx.channels.create(fx.b, { channelName: name, description: theirs.description, privateChannel: true })
  // B furnishes its own while the name is its alone.
  await furnish(fx.b, theirs, aspect, shared, true)
  const body = { channelName: name, description: target.description, privateChannel: true }
  if (!(await madeBeside(fx, fx.a, body, "A's private channel, second of its name", `A's private channel named like B's older private ${name}`)))
    return undefined
  const w: World = { target, neighbours: [theirs], shared, ours: oursOf(fx) }
  await furnishOwn(fx, w, aspect)
  return w
}

/** A furnishes its target by the plain name; that the tags or the item reach it is the owner's plain name's matter. */
async function furnishOwn(fx: Fx, w: World, aspect: Aspect): Promise<void> {
  const { target: t, shared } = w
  if (aspect === 'tags') {
    steps.addTags.response(answered(await fx.a.addTags(t.name, [shared, t.tag], true), `A's add tags to ${t.name} with personal=true`), { status: '2xx' })
    const ex = answered(
      await eventually(
        () => fx.a.getTags(t.name),
        (e) => isSuccess(e) && [shared, t.tag].every((x) => hasTag(tagsIn(e), x)),
      ),
      `A's GET /channels/${t.name}/tags`,
    )
    const tags = steps.getTags.response(ex, { status: '2xx' })
    fx.judge.match(
      tags,
      match.when(
        `A's tags of ${t.name} by the plain name after adding two with personal=true`,
        match.containsAll(
          '/tags',
          [shared, t.tag].map((x) => x.toLowerCase()),
          { key: (x) => String(x).toLowerCase() },
        ),
      ),
      ex,
    )
  }
  if (aspect === 'items') {
    const made = answered(
      await fx.a.publish(t.name, { content: { ref: t.ref }, messageType: 'text', contentType: 'application/json' }),
      `A's publish to ${t.name}`,
    )
    steps.publish.response(made, { status: '2xx' })
    const ex = answered(
      await eventually(
        () => fx.a.fetchItems(t.name, aroundNow({ size: 50 })),
        (e) => isSuccess(e) && itemsOf(e).some((i) => i.content?.ref === t.ref),
      ),
      `A's GET /channels/${t.name}/items/fetch`,
    )
    steps.fetchItems.response(ex, { status: '2xx' })
    const items = itemsOf(ex)
    fx.judge.match(
      items,
      match.when(
        `A's fetch of ${t.name} by the plain name after its publish`,
        match.contains('', t.ref, { key: (i) => (i as { content?: { ref?: unknown } }).content?.ref, what: 'the ref of the item A published' }),
      ),
      ex,
    )
    t.itemId = items.find((i) => i.content?.ref === t.ref)?.itemId ?? ''
  }
}

const tagsIn = (e: Exchange): string[] => {
  const tags = bodyOf(e)?.tags
  return Array.isArray(tags) ? tags.map(String) : []
}

describe("two owners' private channels of one name, the owner's made second: A's by the plain name (§2.3)", () => {
  /** A's changes to its private n, made after B's, by the plain name (personal=true where the call takes it). */
  const onSecond = (changes: readonly Change[]) =>
    withFx(async ({ fx, a, b, users }) => {
      const [aspect] = aspectsOf(changes)
      const w = await secondOwnerWorld(fx, aspect!)
      if (!w) return
      if (aspect === 'subscribers') {
        answered(await b.subscribe(w.neighbours[0]!.address), "B's subscribe to its own channel")
        w.neighbours[0]!.subscribed.push(users.B.userId)
      }
      await changeAlone(fx, w, changes, a, w.target.name, true, true)
    })
  const second = (changes: readonly Change[]) => `changes A's private n, made after B's, and not B's older private n by ${labels(changes)} with personal=true`
  for (const changes of [
    ['deleteChannel'],
    ['subscribe', 'unsubscribe'],
    ['addTags'],
    ['deleteTag'],
    ['deleteTags'],
    ['publishItem'],
    ['deleteItems', 'deleteAllItems'],
  ] as Change[][])
    check('private.own-plain-name', second(changes), onSecond(changes))

  check(
    'private.own-plain-name',
    "reads A's private n, made after B's, by the plain name: A's record, tags, items and summary, none of B's",
    withFx(async ({ fx, a, b }) => {
      const w = await secondOwnerWorld(fx, 'items')
      if (!w) return
      await furnish(b, w.neighbours[0]!, 'tags', w.shared, true)
      await furnishOwn(fx, w, 'tags')
      await before(w, 'items')
      await before(w, 'tags')
      // Its get by id is get by id's own step: a get by id that leaves the item out cannot be told from a wrong channel.
      await readsHold(fx, a, w.target.name, w, "A's read of its own n by the plain name", steps.itemsById)
    }),
  )
})

/**
 * Every read of `address` by `api` whose answer is 2xx holds the target's own values (its description, its tags, its
 * item by fetch and by id, `ownerSubscribed` among its subscribers when given) and
 * none of the neighbours' (the summary: none of their values). Each read is polled until it holds them or is refused: reads may lag. A refusal is the
 * server's (who may read another user's private channel is not stated) and is not judged.
 */
async function readsHold(fx: Fx, api: Api, address: string, w: World, who: string, byId: Judge, ownerSubscribed?: string): Promise<void> {
  const t = w.target
  const reads: { what: string; call: () => Promise<Exchange>; holds: (e: Exchange) => boolean; m?: Parameters<typeof match.when>[1]; by?: Judge }[] = [
    {
      what: `GET /channels/${address}`,
      call: () => api.getChannel(address),
      holds: (e) => bodyOf(e)?.description === t.description,
      m: match.equal('/description', t.description, "the target's description"),
    },
    {
      what: `GET /channels/${address}/tags`,
      call: () => api.getTags(address),
      holds: (e) => [w.shared, t.tag].every((x) => hasTag(tagsIn(e), x)),
      m: match.containsAll(
        '/tags',
        [w.shared, t.tag].map((x) => x.toLowerCase()),
        { key: (x) => String(x).toLowerCase() },
      ),
    },
    {
      what: `GET /channels/${address}/items/fetch`,
      call: () => api.fetchItems(address, aroundNow({ size: 50 })),
      holds: (e) => itemsOf(e).some((i) => i.content?.ref === t.ref),
      m: match.contains('/items', t.ref, { key: (i) => (i as { content?: { ref?: unknown } }).content?.ref, what: "the ref of the target's item" }),
    },
    {
      what: `GET /channels/${address}/items?id=${t.itemId}`,
      call: () => api.getItems(address, [t.itemId]),
      holds: (e) => itemsOf(e).some((i) => i.itemId === t.itemId),
      m: match.contains('/items', t.itemId, { key: (i) => (i as { itemId?: unknown }).itemId, what: "the target's item asked for by id" }),
      by: byId,
    },
    // The summary is judged for the neighbours' values only: its count is channels.summary.count's to judge (a
    // count off by one is that clause's deviation, not the address's).
    {
      what: `GET /channels/${address}/summary`,
      call: () => api.summary(address),
      holds: () => true,
    },
  ]
  if (ownerSubscribed !== undefined)
    reads.push({
      what: `GET /channels/${address}/subscriptions`,
      call: () => api.subscriptions(address),
      holds: (e) => userIdsOf(e).includes(ownerSubscribed),
      m: match.that(
        '',
        (v) => Array.isArray(v) && v.some((s) => (s as { userId?: unknown })?.userId === ownerSubscribed),
        "the target's subscriber, its owner, listed",
      ),
    })
  for (const r of reads) {
    const ex = answered(await eventually(r.call, (e) => (isSuccess(e) ? r.holds(e) : e.status !== 404)), `${who}: ${r.what}`)
    if (!isSuccess(ex)) continue
    if (r.m) (r.by ?? fx.judge).match(ex.json, match.when(`${who}: ${r.what}`, r.m), ex)
    judgeOwnAnswer(ex, w, `${who}: ${r.what}`, fx.judge)
  }
}

describe("one owner's public and private channel of one name: personal=true and <A's id>#n reach the private one (§2.3, §4.2)", () => {
  /** A's changes to its private n with personal=true, its public n as it was. */
  const onTwin = (changes: readonly Change[]) =>
    withFx(async ({ fx, a }) => {
      const [aspect] = aspectsOf(changes)
      const w = await twinsWorld(fx, aspect!)
      if (!w) return
      await changeAlone(fx, w, changes, a, w.target.name, true, false)
    })
  const twin = (changes: readonly Change[]) => `changes A's private n and not its public n by ${labels(changes)} with personal=true`
  check('private.tags-personal', twin(['addTags', 'deleteTag', 'deleteTags']), onTwin(['addTags', 'deleteTag', 'deleteTags']))
  check('items.delete.removes', twin(['deleteAllItems']), onTwin(['deleteAllItems']))
  check('private.delete-personal', twin(['deleteChannel']), onTwin(['deleteChannel']))

  /** B's changes through <A's id>#n: A's public n, which B reads by the plain name, stays as it was. */
  const throughAddress = (changes: readonly Change[]) =>
    withFx(async ({ fx, b, users }) => {
      const [aspect] = aspectsOf(changes)
      const w = await twinsWorld(fx, aspect!)
      if (!w) return
      const address = `${users.A.userId}#${w.target.name}`
      await mustResolveAddress(b, address, w)
      if (aspect === 'subscribers' && !(await subscribeAround(fx, w, address))) return
      await changeAlone(fx, w, changes, b, address, undefined, false)
    })
  const pub = (changes: readonly Change[]) => `leaves A's public n as it was when B calls ${labels(changes)} on <A's id>#n of its private twin`
  everyKind(pub, throughAddress)

  check(
    'subscriptions.subscribe.listed',
    "leaves A's public n as it was when B, on neither, subscribes through <A's id>#n of its private twin",
    withFx(async ({ fx, b, c, users }) => {
      const w = await twinsWorld(fx, 'subscribers')
      if (!w) return
      const address = `${users.A.userId}#${w.target.name}`
      await mustResolveAddress(b, address, w)
      await subscribeFromNowhere(fx, w, b, { api: c, userId: users.C.userId }, address)
    }),
  )

  check(
    'private.plain-name-not-shared',
    "gives another user A's public n by the plain name, never its private twin",
    withFx(async ({ fx, b, judge }) => {
      const w = await twinsWorld(fx, 'tags')
      if (!w) return
      // Here the target is the public channel B reads, and the private twin is the neighbour whose values must not show.
      const twin: World = { target: w.neighbours[0]!, neighbours: [w.target], shared: w.shared, ours: w.ours }
      for (const read of ['record', 'tags', 'items', 'subscribers'] as const) {
        const ex = answered(await readTarget(b, w.target.name, read), `B's read of ${w.target.name}`)
        if (isSuccess(ex)) judgeOwnAnswer(ex, twin, `B's read of ${w.target.name} by the plain name`, judge)
      }
    }),
  )
})

/**
 * The twins the other way round: a call without personal, or with personal=false, addresses A's PUBLIC n (§4.2:
 * "`personal` defaults to false, meaning a public channel"), so it changes the public one, which B reads by the plain
 * name, and leaves the private twin as it was (read by B through <A's id>#n where the server serves that; a refusal
 * is its choice). A's own plain name is ambiguous here, so it never reads anything back.
 */
describe("one owner's public and private channel of one name: personal absent or false reaches the public one (§4.2)", () => {
  /** What the change must show on the public n, read by B: a test of the state and its matcher. */
  const shows = (op: Change, w: World, fresh: string): { done: (state: unknown) => boolean; m: Parameters<typeof match.when>[1] } => {
    const tags = (st: unknown): string[] | undefined => (st as { tags?: string[] }).tags
    switch (op) {
      case 'addTags':
        return { done: (st) => !!tags(st)?.includes(fresh.toLowerCase()), m: match.contains('/tags', fresh.toLowerCase(), { what: 'the tag added' }) }
      case 'deleteTag':
        return {
          done: (st) => !!tags(st) && !tags(st)!.includes(w.shared.toLowerCase()),
          m: match.lacks('/tags', w.shared.toLowerCase(), { what: 'the tag deleted' }),
        }
      case 'deleteTags':
        return { done: (st) => tags(st)?.length === 0, m: match.size('/tags', 0) }
      default:
        return { done: (st) => (st as { refs?: string[] }).refs?.length === 0, m: match.size('/refs', 0) }
    }
  }
  const onPublic = (op: Change, personal: false | undefined) =>
    withFx(async ({ fx, a, b, users, judge }) => {
      const aspect = TOUCHES[op]
      const twins = await twinsWorld(fx, aspect)
      if (!twins) return
      const pub = twins.neighbours[0]!
      const w: World = {
        target: pub,
        neighbours: [{ ...twins.target, reader: b, address: `${users.A.userId}#${pub.name}` }],
        shared: twins.shared,
        ours: twins.ours,
      }
      const was = await before(w, aspect)
      const fresh = token(fx)
      const what = `A's ${LABEL[op]} on ${pub.name}${personal === false ? '?personal=false' : ' without personal'}`
      answered(await callThrough(op, a, pub.name, valuesOf(w, fresh), personal), what)
      const want = shows(op, w, fresh)
      const after = await eventually(
        () => stateOf(pub, aspect, w.ours),
        (r) => want.done(r.state),
      )
      judge.match(after.state, match.when(`B's read of ${pub.name}, the public channel, after ${what}`, want.m), after.ex)
      await judgeUnchanged(w, aspect, was, what, judge)
    })
  for (const personal of [undefined, false] as const) {
    const how = personal === false ? 'with personal=false' : 'without personal'
    const title = (op: Change) => `changes A's public n and not its private twin by ${LABEL[op]} ${how}`
    check('tags.add.visible', title('addTags'), onPublic('addTags', personal))
    check('tags.delete-one.removes', title('deleteTag'), onPublic('deleteTag', personal))
    check('tags.delete-all.removes', title('deleteTags'), onPublic('deleteTags', personal))
    check('items.delete-all.empties', title('deleteAllItems'), onPublic('deleteAllItems', personal))
  }
})

/**
 * A's private `n` furnished (tags, an item by fetch and by id, A subscribed) while the name is A's alone, then C's
 * public `n` with its own tags and item (C subscribed by its create, by default): B, who owns neither, reads A's
 * channel through <A's id>#n, and every read served holds A's channel, none of C's public one. Undefined, with an
 * observation, when the server refuses C's channel.
 */
async function besidePublicWorld(fx: Fx): Promise<{ w: World; subscribed?: string } | undefined> {
  const name = fx.channels.name()
  const target = spot(fx, name, fx.a)
  const theirs = spot(fx, name, fx.c)
  const shared = token(fx)
  await fx.channels.create(fx.a, { channelName: name, description: target.description, privateChannel: true })
  await mustAddTags(fx.a, name, [shared, target.tag], true)
  target.itemId = (await publishFound(fx.a, name, { ref: target.ref }, target.ref)).itemId
  const subscribed = await ownerSubscribed(fx, name)
  await ownItemById(fx, name, target.itemId)
  const body = { channelName: name, description: theirs.description }
  if (!(await madeBeside(fx, fx.c, body, "C's public channel", `C's public channel named like A's private ${name}`))) return undefined
  const w: World = { target, neighbours: [theirs], shared, ours: oursOf(fx) }
  await furnish(fx.c, theirs, 'items', shared, false)
  await furnish(fx.c, theirs, 'tags', shared, false)
  await before(w, 'items')
  await before(w, 'tags')
  return { w, subscribed }
}

describe("A's private channel beside another user's public channel of that name, read by a third user through <A's id>#n (§2.3)", () => {
  check(
    'private.other-user-address',
    "answers every read of <A's id>#n that it serves with A's private n, never C's public n: its record, tags, items by fetch and by id, subscribers and summary",
    withFx(async ({ fx, b, users, judge }) => {
      const made = await besidePublicWorld(fx)
      if (!made) return
      await readsHold(fx, b, `${users.A.userId}#${made.w.target.name}`, made.w, "B's read through A's address", judge, made.subscribed)
      // C, subscribed to its own public n only, is not among the subscribers of A's private n.
      const ex = answered(await b.subscriptions(`${users.A.userId}#${made.w.target.name}`), "B's GET of A's subscribers")
      if (isSuccess(ex))
        judge.match(
          userIdsOf(ex),
          match.when(
            `B's GET /channels/${users.A.userId}#${made.w.target.name}/subscriptions`,
            match.lacks('', users.C.userId, { what: "C's user id, on the public n only" }),
          ),
          ex,
        )
    }),
  )
})

/** Where a channel's count shows: its summary's publishedItemCount (§2.4) or its fetch's totalCount (§4.2). */
type Count = 'summary' | 'fetch'

/**
 * The count of a channel with twins of its name holding items: each channel counts its own publishes. Polled until it
 * does (a read may lag); a read of another user's private channel through <user_id>#<name> may be refused (who may
 * read it is not stated), the owner's and a public channel's may not. A fetch's totalCount is judged when it is an
 * integer (its presence is items.fetch.shape's): whether it counts the range or the channel is not stated, but the
 * fetch's window holds every item of the channel, so either reading counts that channel's items only.
 */
async function countIs(fx: Fx, kind: Count, api: Api, address: string, want: number, who: string, mayRefuse: boolean): Promise<void> {
  const read = () => (kind === 'summary' ? api.summary(address) : api.fetchItems(address, aroundNow({ size: 50 })))
  const pointer = kind === 'summary' ? '/publishedItemCount' : '/totalCount'
  const counted = (e: Exchange): unknown => (bodyOf(e) as Record<string, unknown> | undefined)?.[pointer.slice(1)]
  const ex = answered(
    await eventually(read, (e) => (isSuccess(e) ? counted(e) === want : mayRefuse && e.status !== 404)),
    `${who}: GET /channels/${address}/${kind === 'summary' ? 'summary' : 'items/fetch'}`,
  )
  if (mayRefuse && !isSuccess(ex)) return
  const body = (kind === 'summary' ? steps.summary : steps.fetchItems).response(ex, { status: '2xx' })
  if (kind === 'fetch' && !Number.isInteger(counted(ex))) return
  fx.judge.match(body, match.when(`${who}: the ${kind} of ${address}`, match.equal(pointer, want, 'the items published to that channel')), ex)
}

describe('a channel with twins of its name holding items counts its own items: summary (§2.4) and fetch (§4.2)', () => {
  const refs = (fx: Fx, n: number): string[] => Array.from({ length: n }, () => token(fx))
  /** Items published by `api` to `address`, each found by its fetch. */
  const publishMany = async (api: Api, address: string, list: string[]): Promise<void> => {
    for (const ref of list) await publishFound(api, address, { ref }, ref)
  }
  const what = (kind: Count): string => (kind === 'summary' ? 'the summary counts' : "the fetch's totalCount counts")

  /**
   * A's private n holding 1 item, published to while A's plain name names it alone; then `owner`'s twin of that name
   * (private or public) holding 2 items from `publisher`. The name, or undefined when the twin's create was refused
   * (recorded: a second channel of one name is not stated to be allowed).
   */
  const withTwin = async (fx: Fx, owner: Api, twinPrivate: boolean, publisher: Api, what: string): Promise<string | undefined> => {
    const name = fx.channels.name()
    await fx.channels.create(fx.a, { channelName: name, privateChannel: true })
    await publishMany(fx.a, name, refs(fx, 1))
    const body = { channelName: name, ...(twinPrivate ? { privateChannel: true } : {}) }
    if (!(await madeBeside(fx, owner, body, what, `${what} named like A's private ${name}`, ''))) return undefined
    await publishMany(publisher, name, refs(fx, 2))
    return name
  }

  /** A count read: who reads it, by the plain name or through A's address <A's id>#n, the count it wants, and who it is for the messages. */
  type CountRead = [reader: 'a' | 'b' | 'c', by: 'plain name' | "A's address", want: number, who: string]
  /** A's private n (1 item) beside `owner`'s twin of that name (2 items from `publisher`), and the counts read there. */
  interface Twins {
    title: string
    owner: 'a' | 'b' | 'c'
    twinPrivate: boolean
    publisher: 'a' | 'b' | 'c'
    made: string
    reads: CountRead[]
  }
  const TWINS: readonly Twins[] = [
    {
      title: "the items of A's private n alone, not those of B's private n of that name",
      owner: 'b',
      twinPrivate: true,
      publisher: 'b',
      made: "B's private channel",
      reads: [
        ['a', 'plain name', 1, "A, its owner, by the plain name (B's private n holds 2)"],
        ['b', 'plain name', 2, "B, its owner, by the plain name (A's private n holds 1)"],
        ['b', "A's address", 1, "B through A's address (B's own n holds 2)"],
      ],
    },
    {
      // B publishes to A's public twin by the plain name, which means the public one to B (publishPermission defaults to anyone).
      title: "the items of A's public n and of its private twin each alone",
      owner: 'a',
      twinPrivate: false,
      publisher: 'b',
      made: "A's public twin",
      reads: [
        ['b', 'plain name', 2, "B by the plain name, the public n (A's private twin holds 1)"],
        ['b', "A's address", 1, "B through A's address, the private twin (the public n holds 2)"],
      ],
    },
    {
      title: "the items of A's private n alone, not those of C's public n of that name",
      owner: 'c',
      twinPrivate: false,
      publisher: 'c',
      made: "C's public channel",
      reads: [
        ['c', 'plain name', 2, "C, its owner, by the plain name (A's private n holds 1)"],
        ['b', 'plain name', 2, "B by the plain name, C's public n (A's private n holds 1)"],
        ['b', "A's address", 1, "B through A's address (C's public n holds 2)"],
      ],
    },
  ]
  /** A check's function: the twins of `t` made, then each of its reads wants its count in the `kind` read. */
  const countsOf = (kind: Count, t: Twins) =>
    withFx(async ({ fx, users }) => {
      const name = await withTwin(fx, fx[t.owner], t.twinPrivate, fx[t.publisher], t.made)
      if (!name) return
      // A read of another user's private channel through its address may be refused (who may read it is not stated).
      for (const [reader, by, want, who] of t.reads)
        await countIs(fx, kind, fx[reader], by === 'plain name' ? name : `${users.A.userId}#${name}`, want, who, by !== 'plain name')
    })
  for (const t of TWINS) check('channels.summary.count', `${what('summary')} ${t.title}`, countsOf('summary', t))
  for (const t of TWINS) check('items.fetch.range', `${what('fetch')} ${t.title}`, countsOf('fetch', t))
})
