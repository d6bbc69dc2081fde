/**
 * §4, §5.4: every endpoint except sign-in requires `Authorization: Bearer <ACCESS_TOKEN>`. For each of the
 * 22 other endpoints and each kind of bad credential (no header, a malformed header, a made-up bearer token)
 * one check: the call is not 2xx (MUST; 401 is a SHOULD), and a state-changing call changed nothing, read back
 * with A's token. The calls aim at real resources (a channel A created in the check, an item A published, a
 * message A sent), so a server that looks the resource up before checking the token cannot pass by 404ing.
 */
import type { Faker } from '@faker-js/faker'
import type { Api } from '../helpers/http/api'
import { check, describe, type ChannelFactory } from '../helpers/kit/check'
import type { Exchange } from '../helpers/http/client'
import { ensure, isSuccess } from '../helpers/kit/expect'
import { ALSO, type Judge, steps } from '../helpers/kit/judge'
import { match, type Matcher } from './support/match'
import { eventually } from '../helpers/kit/poll'
import { aroundNow } from '../helpers/kit/window'
import type { RunAccount } from '../helpers/http/run-context'
import { mustAddTags, mustSignInAnotherDevice, uniqueToken } from '../helpers/kit/setup'
import { registerSecret, swapCase } from '../helpers/http/redact'

// ── bad credentials ────────────────────────────────────────────────────────────────────────────────────

interface BadCaller {
  what: string
  api: Api
}

interface CredentialKind {
  title: string
  callers(anon: Api, fake: Faker): BadCaller[]
}

const hex32 = (fake: Faker): string => uniqueToken(fake, 32)

const KINDS: readonly CredentialKind[] = [
  {
    title: 'without a token',
    callers: (anon) => [{ what: 'no Authorization header', api: anon }],
  },
  {
    title: 'with a malformed Authorization header',
    callers: (anon, fake) => [
      { what: 'Authorization: Bearer (no token)', api: anon.withAuthorization('Bearer') },
      {
        what: 'Authorization: Basic <made-up credentials>',
        api: anon.withAuthorization(`Basic ${Buffer.from(`ct-${fake.string.alphanumeric(8)}:${fake.string.alphanumeric(16)}`).toString('base64')}`),
      },
      { what: 'Authorization: Token abc', api: anon.withAuthorization('Token abc') },
    ],
  },
  {
    title: 'with a made-up bearer token',
    callers: (anon, fake) => [{ what: 'a made-up bearer token', api: anon.withToken(hex32(fake)) }],
  },
]

// ── endpoints ──────────────────────────────────────────────────────────────────────────────────────────

interface Fx {
  a: Api
  users: { A: RunAccount; B: RunAccount; C: RunAccount }
  channels: ChannelFactory
  fake: Faker
}

interface Probe {
  /** The call under test, made by a caller without a valid token. */
  call(api: Api): Promise<Exchange>
  /**
   * State the call must leave alone, read with A's token before and after the refused calls, polled until
   * `done` holds: before, until the set-up shows (`ready`); after, until it equals what was read before.
   */
  snapshot?(done: (text: string) => boolean): Promise<{ text: string; ex: Exchange }>
  /** The set-up is visible in a snapshot (reads may lag the writes); default: any readable answer. */
  ready?(text: string): boolean
  /** A read-back after the refused calls whose expected answer the set-up already fixes; fails `judge`. */
  verify?(judge: Judge): Promise<void>
}

interface Endpoint {
  label: string
  section: string
  /** Changes state when it succeeds: the check also reads back that nothing changed. */
  changes: boolean
  prepare(fx: Fx): Promise<Probe>
}

/**
 * Set-up and read-backs with A's valid token are steps judged under their own clause (`steps`, helpers/kit/judge.ts):
 * a failure there blocks the check, it never fails auth.token-required.
 */
function unchanged(judge: Judge, value: unknown, matcher: Matcher, ex?: Exchange): void {
  judge.match(value, match.when('a refused call changed state', matcher), ex)
}

/** A tag no other check or run uses: one token of 16 random hex digits, containing no other test tag. */
const tagName = (fake: Faker): string => uniqueToken(fake)

function item(fake: Faker) {
  return { content: { text: `ct ${fake.lorem.words(3)}`, ref: hex32(fake) }, messageType: 'text', contentType: 'application/json' }
}

/**
 * A publishes one item to `name`; its itemId, found by its unique content value in A's fetch (the spec does
 * not say that publish's messageId is the itemId). Polled: a deployment may store the item a moment later.
 */
async function publishOne(a: Api, name: string, fake: Faker): Promise<string> {
  const body = item(fake)
  steps.publish.response(await a.publish(name, body), { status: '2xx' })
  // All five fetch parameters (their requiredness and defaults are not stated), near the server's now.
  const range = aroundNow()
  const itemIdOf = (ex: Exchange): unknown => {
    const items = (ex.json as { items?: unknown } | undefined)?.items
    return Array.isArray(items) ? items.find((i) => i?.content?.ref === body.content.ref)?.itemId : undefined
  }
  const ex = await eventually(
    () => a.fetchItems(name, range),
    (e) => isSuccess(e) && typeof itemIdOf(e) === 'string',
  )
  const id = itemIdOf(ex)
  ensure(
    typeof id === 'string',
    steps.fetchItems,
    `set-up: A's fetch after the publish (status ${ex.status}) shows no item with the published content and a string itemId`,
    ex,
  )
  return id
}

/**
 * State read with A's token as comparable text, polled until `done` holds: a deployment may serve reads from a
 * replica that lags the writes. `toText` gives undefined for an answer it cannot read; one that never reads
 * fails the set-up step's clause `step`.
 */
async function readState(
  what: string,
  step: Judge,
  read: () => Promise<Exchange>,
  toText: (ex: Exchange) => string | undefined,
  done: (text: string) => boolean,
): Promise<{ text: string; ex: Exchange }> {
  const ex = await eventually(read, (e) => {
    const text = isSuccess(e) ? toText(e) : undefined
    return text !== undefined && done(text)
  })
  step.response(ex, { status: '2xx' })
  const text = toText(ex)
  ensure(
    text !== undefined,
    step,
    match.explain(
      ex,
      match.when(
        `set-up: ${what}`,
        match.that('/json', (json) => toText({ ...ex, json }) !== undefined, 'an answer it can read'),
      ),
    ),
    ex,
  )
  return { text, ex }
}

async function tagsOf(a: Api, name: string, done: (tags: string[]) => boolean = () => true): Promise<{ tags: string[]; ex: Exchange }> {
  const toText = (e: Exchange): string | undefined => {
    const tags = (e.json as { tags?: unknown } | undefined)?.tags
    return Array.isArray(tags) ? JSON.stringify(tags.map(String)) : undefined
  }
  const { text, ex } = await readState(
    "A's read-back of the tags",
    steps.getTags,
    () => a.getTags(name),
    toText,
    (t) => done(JSON.parse(t) as string[]),
  )
  return { tags: JSON.parse(text) as string[], ex }
}

/** A refused tag deletion changed nothing: every tag the channel had is still there (polled: reads may lag the add). */
async function expectTagsKept(judge: Judge, a: Api, name: string, tags: string[]): Promise<void> {
  const after = await tagsOf(a, name, (got) => tags.every((t) => got.includes(t)))
  unchanged(judge, after, match.containsAll('/tags', tags), after.ex)
}

/**
 * The run's own accounts' subscriptions to a channel as a sorted, comparable text. Only theirs: on a shared
 * server other clients may subscribe to a public channel at any moment, and a refused call of the run's
 * could not have changed their subscriptions.
 */
function subscriptionsText(a: Api, name: string, users: Fx['users'], done: (text: string) => boolean): Promise<{ text: string; ex: Exchange }> {
  const own = [users.A.userId, users.B.userId, users.C.userId]
  const toText = (e: Exchange): string | undefined => {
    if (!Array.isArray(e.json)) return undefined
    const rows = (e.json as Record<string, unknown>[])
      .filter((s) => own.includes(String(s?.userId)))
      .map((s) => `${String(s?.userId)}|${String(s?.subscriptionId)}|${String(s?.deviceId)}`)
      .sort()
    return JSON.stringify(rows)
  }
  return readState("A's read-back of the subscriptions", steps.listSubscriptions, () => a.subscriptions(name), toText, done)
}

/** The items of a channel with the given ids as a sorted, comparable text. */
function itemsText(a: Api, name: string, ids: string[], done: (text: string) => boolean): Promise<{ text: string; ex: Exchange }> {
  const toText = (e: Exchange): string | undefined => {
    const body = e.json as { totalCount?: unknown; items?: { itemId?: unknown }[] } | undefined
    return Array.isArray(body?.items) ? JSON.stringify({ totalCount: body.totalCount, items: body.items.map((i) => String(i?.itemId)).sort() }) : undefined
  }
  return readState("A's read-back of the items", steps.getItems, () => a.getItems(name, ids), toText, done)
}

/**
 * The channel summary's item count: what a publish changes. Not lastPublishedTime: what it says of a channel
 * with no items is not stated (a server may give the current time, which moves on its own).
 */
function summaryText(a: Api, name: string, done: (text: string) => boolean): Promise<{ text: string; ex: Exchange }> {
  const toText = (e: Exchange): string | undefined => {
    const count = (e.json as { publishedItemCount?: unknown } | undefined)?.publishedItemCount
    return count === undefined ? undefined : JSON.stringify({ publishedItemCount: count })
  }
  return readState("A's read-back of the summary", steps.summary, () => a.summary(name), toText, done)
}

/**
 * A sends a direct message to B; the message id of the first sentList entry, else of an unsentList entry that
 * has one. A server with no push-capable device of B's sends nothing and the unsentList's element shape is not
 * stated: then an id no message has, which still shows whether the status endpoint answers a caller without
 * a valid token (a 2xx to one fails whatever the id).
 */
async function sentMessageId(a: Api, users: Fx['users'], fake: Faker): Promise<string> {
  const ex = await a.sendToUserIds({ receipt: false, recipientUserIds: [users.B.userId], content: { text: `ct ${fake.lorem.words(2)}` } })
  steps.send.response(ex, { status: '2xx' })
  const body = ex.json as { sentList?: unknown; unsentList?: unknown } | undefined
  const entries = [body?.sentList, body?.unsentList].flatMap((l) => (Array.isArray(l) ? l : []))
  const id = entries
    .map((e) => (e !== null && typeof e === 'object' ? (e as { messageId?: unknown }).messageId : undefined))
    .find((m) => typeof m === 'string' && m.length > 0)
  return typeof id === 'string' ? id : uniqueToken(fake, 32)
}

/** An endpoint called on a channel A made in the check: `probe` gets the fixtures and the channel's name. */
function onChannel(label: string, section: string, changes: boolean, probe: (fx: Fx, name: string) => Promise<Probe>): Endpoint {
  return { label, section, changes, prepare: async (fx) => probe(fx, await fx.channels.create(fx.a)) }
}

/** A read of a channel A made. */
const channelRead = (label: string, section: string, call: (api: Api, name: string) => Promise<Exchange>): Endpoint =>
  onChannel(label, section, false, async (_, name) => ({ call: (api) => call(api, name) }))

/** A deletion of tags of a channel A made with two: a refused call keeps both. */
function tagDeletion(label: string, section: string, call: (api: Api, name: string, tags: string[]) => Promise<Exchange>): Endpoint {
  return onChannel(label, section, true, async ({ a, fake }, name) => {
    const tags = [tagName(fake), tagName(fake)]
    await mustAddTags(a, name, tags, false)
    return { call: (api) => call(api, name, tags), verify: (judge) => expectTagsKept(judge, a, name, tags) }
  })
}

/** A deletion of items of a channel A made with one item: a refused call leaves the item there. */
function itemDeletion(label: string, section: string, call: (api: Api, name: string, id: string) => Promise<Exchange>): Endpoint {
  return onChannel(label, section, true, async ({ a, fake }, name) => {
    const id = await publishOne(a, name, fake)
    return { call: (api) => call(api, name, id), snapshot: (done) => itemsText(a, name, [id], done), ready: (text) => text.includes(id) }
  })
}

const ENDPOINTS: readonly Endpoint[] = [
  // §4.1 user service
  {
    label: 'GET /user/all',
    section: '§4.1 list all users',
    changes: false,
    prepare: async () => ({ call: (api) => api.listUsers() }),
  },
  {
    label: 'GET /user/query',
    section: '§4.1 search users',
    changes: false,
    prepare: async ({ users }) => ({ call: (api) => api.searchUsers(`userIdentifier:${users.B.userId}`) }),
  },
  // §4.2 channels
  {
    label: 'POST /channels',
    section: '§4.2 create channel',
    changes: true,
    prepare: async ({ a, channels, fake }) => {
      const name = channels.name()
      return {
        call: (api) => api.createChannel({ channelName: name, description: `ct ${fake.lorem.words(2)}` }),
        verify: async (judge) => {
          const ex = await a.getChannel(name)
          if (isSuccess(ex)) channels.track(a, name)
          unchanged(judge, ex, match.when(`GET /channels/${name} with A's token`, match.status('refusal', 'the refused create made no channel')), ex)
        },
      }
    },
  },
  {
    label: 'GET /channels',
    section: '§4.2 search public channels',
    changes: false,
    prepare: async ({ channels }) => {
      const name = channels.name()
      return { call: (api) => api.searchChannels({ channelName: name, offset: 0, size: 10 }) }
    },
  },
  channelRead('GET /channels/{name}', '§4.2 get channel by name', (api, name) => api.getChannel(name)),
  channelRead('GET /channels/{name}/summary', '§4.2 channel summary', (api, name) => api.summary(name)),
  {
    label: 'DELETE /channels/{name}',
    section: '§4.2 delete channel',
    changes: true,
    prepare: async ({ a, channels }) => {
      const name = await channels.create(a)
      return {
        call: (api) => api.deleteChannel(name, false),
        verify: async (judge) => {
          // Polled: reads may lag the create; a channel the refused delete removed never comes back.
          const ex = await eventually(() => a.getChannel(name), isSuccess)
          unchanged(
            judge,
            ex,
            match.when(`GET /channels/${name} with A's token`, match.status('2xx', 'the channel the refused delete named is still there')),
            ex,
          )
        },
      }
    },
  },
  {
    label: 'PUT /channels/{name}/subscribe',
    section: '§4.2 subscribe',
    changes: true,
    prepare: async ({ a, users, channels }) => {
      const name = await channels.create(a, { subscribeOnCreate: false })
      return { call: (api) => api.subscribe(name), snapshot: (done) => subscriptionsText(a, name, users, done) }
    },
  },
  {
    label: 'PUT /channels/{name}/unsubscribe',
    section: '§4.2 unsubscribe',
    changes: true,
    prepare: async ({ a, users, channels }) => {
      const name = await channels.create(a, { subscribeOnCreate: true })
      return {
        call: (api) => api.unsubscribe(name),
        snapshot: (done) => subscriptionsText(a, name, users, done),
        ready: (text) => text.includes(users.A.userId),
      }
    },
  },
  channelRead('GET /channels/{name}/subscriptions', '§4.2 list subscribers', (api, name) => api.subscriptions(name)),
  {
    label: 'POST /channels/{name}/tags',
    section: '§4.2 add tags',
    changes: true,
    prepare: async ({ a, channels, fake }) => {
      const name = await channels.create(a)
      const tag = tagName(fake)
      return {
        call: (api) => api.addTags(name, [tag], false),
        verify: async (judge) => {
          const { tags, ex } = await tagsOf(a, name)
          unchanged(judge, { tags }, match.lacks('/tags', tag, { what: 'the tag of the refused call' }), ex)
        },
      }
    },
  },
  channelRead('GET /channels/{name}/tags', '§4.2 get tags', (api, name) => api.getTags(name)),
  tagDeletion('DELETE /channels/{name}/tags/{tag}', '§4.2 delete one tag', (api, name, tags) => api.deleteTag(name, tags[0]!, false)),
  tagDeletion('DELETE /channels/{name}/tags', '§4.2 delete all tags', (api, name) => api.deleteTags(name, false)),
  // §4.2 items
  {
    label: 'POST /channels/{name}/items',
    section: '§4.2 publish item',
    changes: true,
    prepare: async ({ a, channels, fake }) => {
      const name = await channels.create(a)
      return { call: (api) => api.publish(name, item(fake)), snapshot: (done) => summaryText(a, name, done) }
    },
  },
  {
    label: 'GET /channels/{name}/items',
    section: '§4.2 get items by id',
    changes: false,
    prepare: async ({ a, channels, fake }) => {
      const name = await channels.create(a)
      const id = await publishOne(a, name, fake)
      return { call: (api) => api.getItems(name, [id]) }
    },
  },
  {
    label: 'GET /channels/{name}/items/fetch',
    section: '§4.2 fetch items by date range',
    changes: false,
    prepare: async ({ a, channels }) => {
      const name = await channels.create(a)
      const range = aroundNow()
      return { call: (api) => api.fetchItems(name, range) }
    },
  },
  itemDeletion('DELETE /channels/{name}/items', '§4.2 delete items by id', (api, name, id) => api.deleteItems(name, [id])),
  itemDeletion('DELETE /channels/{name}/items/all', '§4.2 delete all items', (api, name) => api.deleteAllItems(name, false)),
  // §4.3 direct messages, §4.4 push: only to the run's own account B
  {
    label: 'POST /messages/send_to_user_ids',
    section: '§4.3 send to user ids',
    changes: false,
    prepare: async ({ users, fake }) => ({
      call: (api) => api.sendToUserIds({ receipt: false, recipientUserIds: [users.B.userId], content: { text: `ct ${fake.lorem.words(2)}` } }),
    }),
  },
  {
    label: 'GET /messages/{messageId}',
    section: '§4.3 get delivery status',
    changes: false,
    prepare: async ({ a, users, fake }) => {
      const id = await sentMessageId(a, users, fake)
      return { call: (api) => api.deliveryStatus(id) }
    },
  },
  {
    label: 'POST /push/user/{recipientUserId}',
    section: '§4.4 push to user',
    changes: false,
    prepare: async ({ users, fake }) => ({
      call: (api) => api.pushToUser(users.B.userId, { action: 'WAKEUP', name: `ct-auth-${fake.string.alphanumeric(8)}`, payload: { title: 'ct', body: 'ct' } }),
    }),
  },
]

// ── the checks ─────────────────────────────────────────────────────────────────────────────────────────

/** A call with credentials that are not a live token's: refused (not 2xx), naming `what` was sent; 401 is the convention. */
function refusedAsUnauthorised(ex: Exchange, what: string, judge: Judge): void {
  judge.match(ex, match.when(what, match.status('refusal')), ex)
  judge.refused(ex, { status: 401, clause: ALSO.tokenRequired401 })
}

async function judgeEndpoint(endpoint: Endpoint, kind: CredentialKind, fx: Fx & { anon: Api; judge: Judge }): Promise<void> {
  const { judge } = fx
  const probe = await endpoint.prepare(fx)
  const before = probe.snapshot ? await probe.snapshot(probe.ready ?? (() => true)) : undefined
  for (const { what, api } of kind.callers(fx.anon, fx.fake)) {
    const ex = await probe.call(api)
    refusedAsUnauthorised(ex, what, judge)
  }
  if (probe.verify) await probe.verify(judge)
  if (probe.snapshot && before) {
    // Polled until it reads as before: reads may lag, and a change the refused call made never goes away.
    const after = await probe.snapshot((text) => text === before.text)
    ensure(after.text === before.text, judge, `a refused call changed state: read back with A's token: before ${before.text}, after ${after.text}`, after.ex)
  }
}

for (const endpoint of ENDPOINTS) {
  describe(`${endpoint.label} (${endpoint.section})`, () => {
    for (const kind of KINDS) {
      const title = `refuses ${endpoint.label} ${kind.title}${endpoint.changes ? ', changing nothing' : ''}`
      check('auth.token-required', title, async ({ a, anon, users, channels, fake, judge }) => {
        await judgeEndpoint(endpoint, kind, { a, anon, users, channels, fake, judge })
      })
    }
  })
}

// ── deep checks: a path form the token check may miss ──────────────────────────────────────────────────

describe('authorization in depth: a trailing slash (§4, §5.4)', () => {
  check('auth.token-required', 'refuses get channel and fetch items without a token when the path ends with "/"', async ({ a, anon, run, channels, judge }) => {
    const name = await channels.create(a)
    const base = `${run.target.messageApiPath}/channels/${encodeURIComponent(name)}`
    for (const path of [`${base}/`, `${base}/items/fetch/`]) {
      // Any refusal will do: a server may take the slash for another, unknown path (404).
      judge.refused(await anon.send({ method: 'GET', path }))
    }
  })
})

// ── deep checks: a token altered in one character ──────────────────────────────────────────────────────

const KINDS_OF_CHARACTER = ['0123456789', 'abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ']

/**
 * The token with one letter or digit near position `at` (its middle by default) changed to the next of its kind
 * (case kept): no longer the token.
 */
function altered(token: string, at = Math.floor(token.length / 2)): string {
  const mid = at
  for (let d = 0; d < token.length; d++) {
    for (const i of [mid + d, mid - d]) {
      const ch = token[i]
      const kind = ch === undefined ? undefined : KINDS_OF_CHARACTER.find((k) => k.includes(ch))
      if (kind) return token.slice(0, i) + kind[(kind.indexOf(ch!) + 1) % kind.length] + token.slice(i + 1)
    }
  }
  return `${token}x`
}

describe('authorization in depth: a token altered in one character (§4, §5.4)', () => {
  check(
    'auth.token-required',
    'refuses list users and get channel with a real token altered in one character',
    async ({ a, anon, users, run, channels, judge }) => {
      const token = await mustSignInAnotherDevice(anon, users.C, run, 'alt')
      // Both the token and its near copy stay out of every report.
      const wrong = altered(token)
      registerSecret(token)
      registerSecret(wrong)
      const name = await channels.create(a)
      const api = anon.withToken(wrong)
      for (const ex of [await api.listUsers(), await api.getChannel(name)]) {
        refusedAsUnauthorised(ex, 'a token differing from an issued one in one character', judge)
      }
    },
  )

  // A server that compares only a token's start, or only its length, lets these through. The last character is left
  // alone: in a base64 signature its low bits may be padding that a decoder ignores.
  check(
    'auth.token-required',
    'refuses list users with a real token altered three quarters in or one before its end, lengthened or shortened',
    async ({ anon, users, run, judge }) => {
      const token = await mustSignInAnotherDevice(anon, users.C, run, 'alt2')
      registerSecret(token)
      const near: [string, string][] = [
        ['altered three quarters in', altered(token, Math.floor((token.length * 3) / 4))],
        ['altered one before its end', altered(token, token.length - 2)],
        ['with a character added', `${token}0`],
        ['with its last character removed', token.slice(0, -1)],
      ]
      for (const [how, wrong] of near) {
        registerSecret(wrong)
        refusedAsUnauthorised(await anon.withToken(wrong).listUsers(), `an issued token ${how}`, judge)
      }
    },
  )

  // A token is a string sent as issued (§2.2 "access_token | string | <ACCESS_TOKEN>"): one looked up without case
  // lets a string through that was never issued. Each form that leaves the token as it is (no letters, or already
  // all in that case) is skipped. A token of hex digits (a UUID among them) is a number written in either case: a
  // server that keeps it as one (a uuid column) finds it whatever the case, so such a token is not judged here.
  check(
    'auth.token-required',
    'refuses list users and get channel with a real token whose letters are in another case',
    async ({ a, anon, users, run, channels, judge }) => {
      const token = await mustSignInAnotherDevice(anon, users.C, run, 'alt3')
      registerSecret(token)
      const forms: [string, string][] = [
        ['with the case of its letters swapped', swapCase(token)],
        ['in capitals', token.toUpperCase()],
        ['in lower case', token.toLowerCase()],
      ]
      const cells = forms.filter(([, wrong], i) => wrong !== token && forms.findIndex(([, w]) => w === wrong) === i)
      if (cells.length === 0) return judge.observe('the issued token has no letters: no other case of it to send')
      if (/^[0-9a-f-]+$/i.test(token)) return judge.observe('the issued token is hex digits (a UUID or a hex string), a value either case writes: not judged')
      const name = await channels.create(a)
      for (const [how, wrong] of cells) {
        registerSecret(wrong)
        const api = anon.withToken(wrong)
        for (const ex of [await api.listUsers(), await api.getChannel(name)]) refusedAsUnauthorised(ex, `an issued token ${how}`, judge)
      }
    },
  )
})
