/**
 * The input model (helpers/spec/models.ts, docs/coverage.md): each free-text field of §4 run through each
 * class of value that breaks real implementations (separators, look-alike escapes, slashes, quotes, non-ASCII,
 * emoji, values past a 255-character column, 20,000 characters).
 *
 * The spec states no alphabet nor length for any of these fields, so a server may refuse a value (recorded
 * under http.input-refused). What it accepted it must keep: read back unchanged, found by a search for its
 * exact value, deleted by it. A 5xx is never an answer to a valid request (http.valid-request-answered).
 */
import type { Api } from '../helpers/http/api'
import type { Exchange } from '../helpers/http/client'
import { check, describe, type ChannelFactory } from '../helpers/kit/check'
import { ensure, isSuccess, show } from '../helpers/kit/expect'
import { pastGateway } from '../helpers/kit/gateway'
import { ALSO, steps, type Judge } from '../helpers/kit/judge'
import { eventually } from '../helpers/kit/poll'
import { mustSearchAnswer200, uniqueToken } from '../helpers/kit/setup'
import {
  DEVICE_CLASSES,
  FIELD_CLASSES,
  PATH_REFUSABLE,
  NAME_CLASSES,
  inputTitle,
  textClass,
  type DeviceClassId,
  type TextClass,
  type NameClassId,
} from '../helpers/spec/models'
import { answered, brief, isServerError, channelRecord, fetched, hasTag, namedChannel, searchAccepted, tagList } from './support/model'
import { match, pointer, sameText, type Matcher } from './support/match'
import { itemIdKey, nameKey } from './support/read'

/** A search page that lists the channel `name` (in any case). */
const listing = (name: string): Matcher => match.contains('/results', name, { key: nameKey, anyCase: true, what: 'the channel' })

/** A fetched list that holds the item published with content ref `ref`. */
const published = (ref: string): Matcher =>
  match.contains('', ref, { key: (i) => (i as { content?: { ref?: unknown } } | null)?.content?.ref, what: 'the published item' })

/** Creates a channel with `description` of class `cls`; its name, or undefined when the server refused the value (recorded). */
async function describedChannel(a: Api, channels: ChannelFactory, judge: Judge, cls: TextClass, description: string): Promise<string | undefined> {
  const name = channels.name()
  channels.track(a, name)
  const made = answered(await a.createChannel({ channelName: name, description }), `create with a description of ${cls.what}`)
  if (isSuccess(made)) return name
  judge.observe(`create with a description of ${cls.what}: status ${made.status}`, ALSO.inputRefused)
  return undefined
}

describe('POST /channels description (§4.2 create channel, §2.3): input classes', () => {
  for (const k of FIELD_CLASSES.description) {
    const cls = textClass(k)
    check('channels.create.fields-stored', inputTitle.description(k), async ({ a, channels, fake, judge }) => {
      const description = cls.value(uniqueToken(fake))
      const name = await describedChannel(a, channels, judge, cls, description)
      if (!name) return
      const { ch, ex } = await channelRecord(a, name)
      judge.match(ch, match.equal('/description', description, 'as created'), ex)
    })

    if (k === 'long-20000') continue // a search URL of 60 kB: a 414 is a server's or a proxy's right
    check('channels.search.by-description', inputTitle.descriptionSearch(k), async ({ a, channels, fake, judge }) => {
      const description = cls.value(uniqueToken(fake))
      const name = await describedChannel(a, channels, judge, cls, description)
      if (!name) return
      // A description stored otherwise than given is fields-stored's deviation: a search for the given value is then blocked by it.
      const { ch, ex: got } = await channelRecord(a, name)
      steps.descriptionStored.match(ch, match.when('set-up: GET after create', match.equal('/description', description, 'as created')), got)
      const ex = await searchAccepted(a, { description }, name, judge, `a description of ${cls.what}`)
      if (!ex) return
      mustSearchAnswer200(ex)
      judge.response(ex, { status: 200 })
      judge.match(ex.json, match.when(`search by the exact description ${brief(description)}`, listing(name)), ex)
    })
  }
})

describe('POST /channels channelName (§4.2 create channel, §2.3): input classes × get, search, summary, delete', () => {
  // One check per view, each under the view's own clause: a name an index or a column cuts short fails the view
  // that reads through that index or column, and only it.
  for (const k of Object.keys(NAME_CLASSES) as NameClassId[]) {
    const cls = NAME_CLASSES[k]
    check('channels.get.matches-create', inputTitle.name(k), async ({ a, channels, judge }) => {
      const name = await namedChannel(a, channels, judge, cls)
      if (!name) return
      const ex = answered(await eventually(() => a.getChannel(name), isSuccess), `GET a channel whose name holds ${cls.what}`)
      const ch = judge.response<Record<string, unknown> | undefined>(ex, { status: 200 })
      judge.match(
        ch,
        match.that('/name', (n) => typeof n === 'string' && sameText(n, name), `${brief(name)} in any case: an accepted name reaches its channel`),
        ex,
      )
    })

    check('channels.search.by-name', inputTitle.nameSearch(k), async ({ a, channels, judge }) => {
      const name = await namedChannel(a, channels, judge, cls)
      if (!name) return
      const found = await searchAccepted(a, { channelName: name }, name, judge, `a name holding ${cls.what}`)
      if (!found) return
      judge.match(found.json, match.when(`search by the exact name ${brief(name)}`, listing(name)), found)
    })

    check('channels.summary.shape', inputTitle.nameSummary(k), async ({ a, channels, judge }) => {
      const name = await namedChannel(a, channels, judge, cls)
      if (!name) return
      const ex = answered(await eventually(() => a.summary(name), isSuccess), `summary of a channel whose name holds ${cls.what}`)
      // Status and name only: lastPublishedTime is not defined before a publish (§2.4), so the schema is not this check's.
      const body = judge.response<Record<string, unknown> | undefined>(ex, { status: 200 })
      judge.match(
        body,
        match.that('/channelName', (n) => typeof n === 'string' && sameText(n, name), `${brief(name)} in any case`),
        ex,
      )
    })

    check('channels.delete.removes', inputTitle.nameDelete(k), async ({ a, channels, judge }) => {
      const name = await namedChannel(a, channels, judge, cls)
      if (!name) return
      await channelRecord(a, name)
      steps.deleteChannel.response(answered(await a.deleteChannel(name), 'delete by that name'), { status: '2xx' })
      const gone = await eventually(
        () => a.getChannel(name),
        (e) => !isSuccess(e),
      )
      judge.match(gone, match.when(`GET ${brief(name)} after its delete`, match.status('refusal', 'the channel is gone')), gone)
    })
  }
})

describe('POST /channels/{channel_name}/tags tags (§4.2 add tags): input classes', () => {
  for (const k of FIELD_CLASSES.tag) {
    const cls = textClass(k)
    check('tags.add.visible', inputTitle.tag(k), async ({ a, channels, fake, judge }) => {
      const name = await channels.create(a)
      const tag = cls.value(uniqueToken(fake))
      const other = uniqueToken(fake)
      const add = answered(await a.addTags(name, [tag, other], false), `add a tag of ${cls.what}`)
      if (!isSuccess(add)) {
        judge.observe(`add tags with a tag of ${cls.what}: status ${add.status}`, ALSO.inputRefused)
        return
      }
      const stored = await tagList(a, name, (t) => hasTag(t, tag))
      judge.match(stored, match.contains('/tags', tag, { anyCase: true, what: 'the accepted tag' }), stored.ex)
      const found = await searchAccepted(a, { tag }, name, judge, `a tag of ${cls.what}`)
      if (found) judge.match(found.json, match.when(`search by the tag ${brief(tag)}`, listing(name)), found)
    })

    check('tags.delete-one.removes', inputTitle.tagDelete(k), async ({ a, channels, fake, judge }) => {
      const name = await channels.create(a)
      const [tag, other] = [cls.value(uniqueToken(fake)), uniqueToken(fake)]
      const add = answered(await a.addTags(name, [tag, other], false), `add a tag of ${cls.what}`)
      if (!isSuccess(add)) {
        judge.observe(`add tags with a tag of ${cls.what}: status ${add.status}`, ALSO.inputRefused)
        return
      }
      const stored = await tagList(a, name, (t) => hasTag(t, tag) && hasTag(t, other))
      steps.tagsStored.match(
        stored,
        match.when(`set-up: after adding ${brief([tag, other])}`, match.containsAll('/tags', [tag, other], { anyCase: true })),
        stored.ex,
      )
      const del = answered(await a.deleteTag(name, tag, false), `delete one tag of ${cls.what}`)
      if (!isSuccess(del) && PATH_REFUSABLE.includes(k)) {
        // A path segment of such a value may be refused by a router before the server sees it: recorded.
        judge.observe(`delete one tag of ${cls.what} by its path: status ${del.status}`, ALSO.inputRefused)
        return
      }
      // Any other refusal leaves a tag the server accepted that no delete can remove.
      judge.response(del, { status: '2xx' })
      const after = await tagList(a, name, (t) => !hasTag(t, tag))
      const afterDelete = (m: Matcher) => match.when(`after deleting ${brief(tag)}`, m)
      judge.match(
        after,
        [
          afterDelete(match.lacks('/tags', tag, { anyCase: true, what: 'the deleted tag' })),
          afterDelete(match.contains('/tags', other, { anyCase: true, what: 'the other tag' })),
        ],
        after.ex,
      )
    })
  }

  check('tags.add.visible', 'keeps the tags a channel has when an empty list is added', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const kept = uniqueToken(fake)
    steps.addTags.response(answered(await a.addTags(name, [kept], false), 'add one tag'), { status: '2xx' })
    await tagList(a, name, (t) => t.includes(kept))
    const empty = answered(await a.addTags(name, [], false), 'add an empty list of tags')
    if (!isSuccess(empty)) judge.observe(`add tags with an empty list: status ${empty.status}`, ALSO.inputRefused)
    const after = await tagList(a, name, (t) => t.includes(kept))
    judge.match(after, match.when('after adding []', match.contains('/tags', kept, { what: 'the tag the channel had' })), after.ex)
  })

  check('tags.add.visible', 'stores every tag of a batch of 20', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const batch = Array.from({ length: 20 }, () => uniqueToken(fake))
    steps.addTags.response(answered(await a.addTags(name, batch, false), 'add 20 tags'), { status: '2xx' })
    const stored = await tagList(a, name, (t) => batch.every((x) => t.includes(x)))
    judge.match(stored, match.containsAll('/tags', batch, { what: 'the 20 added' }), stored.ex)
  })

  check('tags.delete-one.removes', 'removes a tag that was added twice in one list', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const [x, y] = [uniqueToken(fake), uniqueToken(fake)]
    const add = answered(await a.addTags(name, [x, x, y], false), 'add a list holding one tag twice')
    if (!isSuccess(add)) {
      judge.observe(`add tags with a tag twice in the list: status ${add.status}`, ALSO.inputRefused)
      return
    }
    const stored = await tagList(a, name, (t) => t.includes(x) && t.includes(y))
    steps.tagsStored.match(stored, match.when(`set-up: after adding ${show([x, x, y])}`, match.containsAll('/tags', [x, y])), stored.ex)
    judge.response(answered(await a.deleteTag(name, x, false), 'delete that tag'), { status: '2xx' })
    const after = await tagList(a, name, (t) => !t.includes(x))
    const afterDelete = (m: Matcher) => match.when(`after deleting ${show(x)}`, m)
    judge.match(
      after,
      [afterDelete(match.lacks('/tags', x, { what: 'added twice in one list' })), afterDelete(match.contains('/tags', y, { what: 'the other tag' }))],
      after.ex,
    )
  })
})

describe('POST /channels/{channel_name}/items content (§4.2 publish item, §2.6): input classes', () => {
  for (const k of FIELD_CLASSES.content) {
    const cls = textClass(k)
    check('items.content-intact', inputTitle.content(k), async ({ a, channels, fake, judge }) => {
      const name = await channels.create(a)
      const ref = uniqueToken(fake)
      const value = cls.value(ref)
      const content = { ref, text: value }
      const made = answered(await a.publish(name, { content, messageType: 'text', contentType: 'application/json' }), `publish content of ${cls.what}`)
      if (!isSuccess(made)) {
        judge.observe(`publish with a content value of ${cls.what}: status ${made.status}`, ALSO.inputRefused)
        return
      }
      const { items, ex } = await fetched(a, name, (list) => list.some((i) => i.content?.ref === ref))
      const item = items.find((i) => i.content?.ref === ref)
      ensure(item, judge, match.explain(items, match.when('fetch', published(ref))), ex)
      judge.match(item, match.when('fetch', match.equal('/content/text', value, 'as published')), ex)
      const byId = answered(await a.getItems(name, [item.itemId]), 'get the item by id')
      const body = steps.getItems.response<unknown>(byId, { status: '2xx' })
      // An item the fetch holds and get by id leaves out is items.get.by-ids' deviation: the check is blocked by it.
      steps.itemsById.match(body, match.containsAll('/items', [item.itemId], { key: itemIdKey, what: 'the item the fetch holds' }), byId)
      judge.match(body, match.when('get by id', match.equal('/items/0/content/text', value, 'as published')), byId)
    })
  }

  const contents: [string, (ref: string) => Record<string, unknown>][] = [
    ['returns content of 60 keys unchanged', (ref) => Object.fromEntries([['ref', ref], ...Array.from({ length: 59 }, (_, i) => [`k${i}`, `v${i}`])])],
    [
      'returns content keys holding separators, non-ASCII and emoji unchanged',
      (ref) => ({ ref, 'a,b+c#d;e': '1', 'Grüße 東京': '2', '🚀 key': '3', 'x/y': '4' }),
    ],
    // A document store reserves "$" at the start of a key and "." inside one: a server on one must still keep them.
    ['returns content keys that start with "$" or hold a "." unchanged', (ref) => ({ ref, $price: '3', 'v.2': '4', $meta: 'x' })],
    [
      'returns string values that look like numbers, booleans and JSON as strings',
      (ref) => ({ ref, zip: '007', big: '12345678901234567890', flag: 'true', nil: 'null', json: '{"a":1}' }),
    ],
    ['returns an empty string value unchanged', (ref) => ({ ref, empty: '', space: ' ' })],
  ]
  for (const [title, make] of contents) {
    check('items.content-intact', title, async ({ a, channels, fake, judge }) => {
      const name = await channels.create(a)
      const ref = uniqueToken(fake)
      const content = make(ref)
      const made = answered(await a.publish(name, { content, messageType: 'text', contentType: 'application/json' }), 'publish')
      if (!isSuccess(made)) {
        judge.observe(`publish with ${title.replace(/^returns /, '').replace(/ unchanged$/, '')}: status ${made.status}`, ALSO.inputRefused)
        return
      }
      const { items, ex } = await fetched(a, name, (list) => list.some((i) => i.content?.ref === ref))
      const item = items.find((i) => i.content?.ref === ref)
      ensure(item, judge, match.explain(items, match.when('fetch', published(ref))), ex)
      const extra = Object.keys(item.content).filter((key) => !(key in content))
      judge.match(
        item,
        [
          ...Object.keys(content).map((key) => match.equal(pointer('content', key), content[key], 'as published')),
          match.derived('/content keys not published', extra, match.size('', 0)),
        ],
        ex,
      )
    })
  }
})

describe('GET {user}/user/query value (§4.1 search users): input classes', () => {
  // Matching follows "URI search conventions of a full-text search engine" (§4.1): such an engine splits a
  // value into terms, and a term may match an account's name, so only the shape of the answer is judged.
  for (const k of FIELD_CLASSES.userSearch) {
    const cls = textClass(k)
    check('users.search.shape', inputTitle.userSearch(k), async ({ a, fake, judge }) => {
      const value = cls.value(`zz${uniqueToken(fake)}`)
      const ex = answered(await a.searchUsers(`userName:${value}`), `search users for a value of ${cls.what}`)
      if (!isSuccess(ex)) {
        judge.observe(`user search for a value of ${cls.what}: status ${ex.status}`, ALSO.inputRefused)
        return
      }
      judge.match(judge.response<unknown>(ex, { status: '2xx' }), match.array('an array of User'), ex)
    })
  }
})

describe('POST {user}/user/session MMS-DEVICE-ID (§4.1 sign in, §5.2): input classes', () => {
  for (const k of Object.keys(DEVICE_CLASSES) as DeviceClassId[]) {
    check('signin.device-id.any-value', inputTitle.deviceId(k), async ({ anon, users, run, fake, judge }) => {
      const deviceId = DEVICE_CLASSES[k].value(`${run.namePrefix}${uniqueToken(fake)}`)
      const ex = answered(
        await anon.signIn({ userName: users.C.userName, password: users.C.password, clientId: run.clientId, deviceId }),
        `sign in with a device id of ${DEVICE_CLASSES[k].what}`,
      )
      const body = judge.response<{ access_token?: unknown } | undefined>(ex, { status: '2xx' })
      judge.match(body, match.nonEmptyString('/access_token'), ex)
    })
  }
})

describe('POST /messages/send_to_user_ids and POST /push/user/{id} (§4.3, §4.4): input classes', () => {
  for (const k of FIELD_CLASSES.messageContent) {
    const cls = textClass(k)
    check('messages.send.shape', inputTitle.messageContent(k), async ({ a, users, fake, judge }) => {
      const ex = answered(
        await a.sendToUserIds({ receipt: false, recipientUserIds: [users.B.userId], content: { text: cls.value(uniqueToken(fake)) } }),
        `send content of ${cls.what}`,
      )
      if (!isSuccess(ex)) {
        judge.observe(`send with content of ${cls.what}: status ${ex.status}`, ALSO.inputRefused)
        return
      }
      const body = judge.response<{ count?: { requested?: unknown } } | undefined>(ex, { status: '2xx', schema: 'send-result' })
      judge.match(body, match.equal('/count/requested', 1, 'B, one matched user'), ex)
    })
  }
  for (const k of FIELD_CLASSES.pushPayload) {
    const cls = textClass(k)
    check('push.shape', inputTitle.pushPayload(k), async ({ a, users, fake, judge }) => {
      const ex = answered(
        await a.pushToUser(users.B.userId, { action: 'WAKEUP', name: `ct-in-${uniqueToken(fake)}`, payload: { title: cls.value('ct'), body: 'ct' } }),
        `push a title of ${cls.what}`,
      )
      if (!isSuccess(ex)) {
        judge.observe(`push with a title of ${cls.what}: status ${ex.status}`, ALSO.inputRefused)
        return
      }
      judge.response(ex, { status: '2xx', schema: 'push-result' })
    })
  }
})

/**
 * Text in any language. §4 says bodies are JSON, whose text is Unicode, and states no alphabet for the values of a
 * message's content, an item's content or a push payload (only channel names have constraints "not shown"). A
 * server may refuse separators, markup, emoji or length (recorded above as refusals), but a value in another
 * language than English is the ordinary input of an ordinary user: refusing it refuses a valid request.
 */
describe('content and payload values in non-ASCII letters (§4 JSON bodies; §4.2, §4.3, §4.4)', () => {
  const words = textClass('non-ascii')

  check('messages.send.options', `accepts content of ${words.what}`, async ({ a, users, fake, judge }) => {
    const ex = await a.sendToUserIds({ receipt: false, recipientUserIds: [users.B.userId], content: { text: words.value(uniqueToken(fake)) } })
    judge.response(ex, { status: '2xx', schema: 'send-result' })
  })

  check('push.payload-keys', `accepts a title and body of ${words.what}`, async ({ a, users, fake, judge }) => {
    const text = words.value('ct')
    // title and body are the texts a user reads; sound and icon name resources, whose form is not shown.
    const payload = { title: text, body: text }
    // A visible push, the one whose title and body a user reads (whether WAKEUP is accepted is push.actions').
    const ex = await a.pushToUser(users.B.userId, { action: 'PUSH', name: `ct-words-${uniqueToken(fake)}`, payload })
    judge.response(ex, { status: '2xx', schema: 'push-result' })
  })

  check('items.publish.response', `answers 201 to a publish of content of ${words.what}`, async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const ex = await a.publish(name, { content: { ref: uniqueToken(fake), text: words.value('ct') }, messageType: 'text', contentType: 'application/json' })
    judge.response(ex, { status: 201, schema: 'publish-response' })
  })
})

describe('every text class through create, add tags and publish (§4.2): no server error', () => {
  check(
    'http.valid-request-answered',
    'answers a create, a tag add and a publish of every text class without a 5xx',
    async ({ a, channels, fake, judge, rec }) => {
      // A gateway's 502/503/504 judged nothing: its request is repeated (twice at most) and the server's own answer
      // judged. A repeat does no harm here: a second create of the name meets a 409, a tag added twice is one tag,
      // a second item is one more item.
      const send = async (call: () => Promise<Exchange>) => pastGateway(rec, await call(), call)
      const name = await channels.create(a)
      for (const k of FIELD_CLASSES.content) {
        const cls = textClass(k)
        const value = cls.value(uniqueToken(fake))
        const other = channels.name()
        channels.track(a, other)
        for (const [what, ex] of [
          [`create with a description of ${cls.what}`, await send(() => a.createChannel({ channelName: other, description: value }))],
          [`add a tag of ${cls.what}`, await send(() => a.addTags(name, [value], false))],
          [
            `publish content of ${cls.what}`,
            await send(() => a.publish(name, { content: { text: value }, messageType: 'text', contentType: 'application/json' })),
          ],
        ] as const) {
          // 502/503/504 are a gateway's (unjudged); any other 5xx answers a valid request with a server error.
          ensure(!isServerError(ex), judge, `${what}: status ${ex.status}, a server error for a valid request`, ex)
        }
      }
    },
  )
})
