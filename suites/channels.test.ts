/**
 * §4.2 channels (create, search, get by name, summary, delete), §2.3 Channel, §2.4 Channel summary.
 * Each check makes its own channels; search checks find them by a unique name, description or tag and poll,
 * since a deployment may index a new channel a moment after creating it. Statuses follow the spec: search,
 * get by name and summary state "Response 200", delete "status 200", create gives only a body (2xx).
 */
import type { Faker } from '@faker-js/faker'
import type { Api } from '../helpers/http/api'
import type { CreateChannelBody } from '../helpers/http/api'
import { check, describe, type ChannelFactory, type CheckFixtures } from '../helpers/kit/check'
import { searchTitle, SEARCH_FILTERS, type SearchFilter } from '../helpers/spec/models'
import type { Exchange } from '../helpers/http/client'
import { checkJsonContentType, ensure, isSuccess, recordErrorBody, show } from '../helpers/kit/expect'
import { eventually } from '../helpers/kit/poll'
import { sentTogether } from '../helpers/kit/together'

import { acceptedOfRace, mustAddTags, mustPublish, mustSearchAnswer200, mustSubscribe, uniqueToken } from '../helpers/kit/setup'
import { parseTimestamp } from '../helpers/spec/schemas'
import { ALSO, type Judge, steps } from '../helpers/kit/judge'
import { match, sameText, type Matcher } from './support/match'
import { asBody, bodiesOf, bodyOf, everything, nameKey, resultNamed, resultNames, userIdsOf, type Body } from './support/read'

/** A public channel's three search values (§4.2 search). */
type Searched = Record<SearchFilter, string>
/** The step that finds a channel by one filter alone, charged to that filter's clause. */
const FILTER_STEP: Readonly<Record<SearchFilter, Judge>> = { channelName: steps.foundByName, description: steps.foundByDescription, tag: steps.foundByTag }

/** Searches until every wanted name is in the results (or the time runs out); returns the last answer (mustSearchAnswer200). */
async function searchUntil(api: Api, params: Parameters<Api['searchChannels']>[0], wanted: string[]): Promise<Exchange> {
  const ex = await eventually(
    () => api.searchChannels(params),
    (ex) => isSuccess(ex) && wanted.every((n) => resultNames(ex).includes(n)),
  )
  mustSearchAnswer200(ex)
  return ex
}

/**
 * GET by name, 200 and a JSON object, judged under the given clause, its body read against the Channel schema:
 * a field the schema finds missing or mistyped fails channels.get.shape, and a check whose judgement was about
 * that field ends blocked by it. Polled: a deployment may serve reads from a replica that learns of a new
 * channel a moment after its create answered.
 */
async function getChannel(api: Api, name: string, judge: Judge): Promise<{ ch: Body; ex: Exchange }> {
  const ex = await eventually(
    () => api.getChannel(name),
    (e) => e.status === 200,
  )
  const ch = judge.match(judge.response<Body>(ex, { status: 200, schema: 'channel' }), match.object('a Channel object'), ex)
  return { ch, ex }
}

/** Subscriptions of a channel: 200 and an array, judged under the given clause; polled until `settled` holds. */
async function subscriberIds(
  api: Api,
  name: string,
  judge: Judge,
  settled: (ids: unknown[]) => boolean = () => true,
): Promise<{ ids: unknown[]; ex: Exchange }> {
  const ex = await eventually(
    () => api.subscriptions(name),
    (e) => e.status === 200 && Array.isArray(e.json) && settled(userIdsOf(e)),
  )
  const list = judge.match(judge.response(ex, { status: 200 }), match.array('an array of Subscription'), ex)
  return { ids: list.map((s) => (s && typeof s === 'object' ? asBody(s)?.userId : undefined)), ex }
}

/** Set-up steps (helpers/kit/setup.ts): a failure blocks the check, charged to tags.add.response or items.publish.response. */
const addTags = (api: Api, name: string, tags: string[], personal = false): Promise<void> => mustAddTags(api, name, tags, personal)

async function publish(api: Api, name: string, n: number): Promise<void> {
  await mustPublish(api, name, { content: { text: `item ${n}`, n: String(n) }, messageType: 'normal', contentType: 'text/plain' })
}

/** An ISO 8601 timestamp (any form the schemas accept) as epoch ms; undefined when it is not one. */
function instant(text: unknown): { ms: number } | undefined {
  const t = typeof text === 'string' ? parseTimestamp(text) : undefined
  return t ? { ms: t.ms } : undefined
}

/**
 * How far a time may seem to precede another and still count as "not before" it: the spec states no
 * precision for item times, and a server that keeps them in whole seconds (written as `.000`) reports a
 * publish up to a second "before" a creation date kept to the millisecond. A time that really goes back (the
 * epoch, a fixed value, an earlier publish) is off by far more.
 */
const PRECISION_SLACK_MS = 1000

/** a ≥ b, within the precision slack. */
function notBefore(a: { ms: number }, b: { ms: number }): boolean {
  return a.ms + PRECISION_SLACK_MS >= b.ms
}

/**
 * Creates a channel whose name or kind the spec does not promise to accept (names: "not shown", §2.3; a
 * private and a public channel of one name); true when made. A refusal is recorded at INFO and the check
 * that needed the channel passes: only what the server accepted is judged.
 */
async function createOptional(api: Api, channels: ChannelFactory, judge: Judge, body: CreateChannelBody, what: string): Promise<boolean> {
  channels.track(api, body.channelName, body.privateChannel === true)
  const ex = await api.createChannel(body)
  if (isSuccess(ex)) return true
  judge.observe(`${what} (${body.channelName}): create answered ${ex.status}, so the check has nothing to judge`, ALSO.nameAlphabet)
  return false
}

/** A time field not before `b` (within the precision slack); `what` says what `b` is. */
function notBeforeAt(b: { ms: number }, what: string): Matcher {
  return match.that(
    '/lastPublishedTime',
    (v) => {
      const t = instant(v)
      return t !== undefined && notBefore(t, b)
    },
    `not before ${what}`,
  )
}

/** A search page listing the channel `name` (by its exact name). */
const listing = (name: string): Matcher => match.contains('/results', name, { key: nameKey })

/** A search page (`ex`) that lists none but the channels `names` (`what` says which those are). */
function noneBut(ex: Exchange, names: string[], what: string): Matcher {
  const others = resultNames(ex).filter((n) => !names.includes(n))
  return match.derived(`/results names besides ${what}`, others, match.size('', 0))
}

/** A search page (`ex`) that lists every one of the three tagged channels `names` and nothing else (`context` names the search). */
function theseOnly(ex: Exchange, names: string[], context: string): Matcher[] {
  return [
    match.when(context, match.containsAll('/results', names, { key: nameKey, what: 'the 3 tagged channels' })),
    match.when(context, noneBut(ex, names, 'the 3 tagged channels')),
  ]
}

/** a is later than b (the checks space what they compare more than a second apart, so any precision tells). */
function later(a: { ms: number }, b: { ms: number }): boolean {
  return a.ms > b.ms
}

/**
 * The composite creator of §2.3 (user id, separator, user-name and domain part, "/", device id), as matchers of
 * /creator in turn: the first that fails says what is wrong. The user-name and domain part holds no "/"; the
 * device id, any value at sign-in (§4.1), may.
 */
function creatorForm(userId: string, whose: string): Matcher[] {
  const rest = (c: unknown) => String(c).slice(userId.length + 1)
  return [
    match.type('/creator', 'string'),
    match.startsWith('/creator', userId, `${whose} user id`),
    match.that(
      '/creator',
      (c) => {
        const separator = String(c).charAt(userId.length)
        return separator !== '' && !/[A-Za-z0-9/]/.test(separator)
      },
      'a separator character after the user id',
    ),
    match.that('/creator', (c) => rest(c).indexOf('/') > 0, 'a non-empty user-name and domain part after the separator, then "/"'),
    match.that('/creator', (c) => rest(c).slice(rest(c).indexOf('/') + 1).length > 0, 'a non-empty device id after "/"'),
  ]
}

/** The device id part of a creator that has the composite form (creatorForm). */
function devicePart(creator: string, userId: string): string {
  const rest = creator.slice(userId.length + 1)
  return rest.slice(rest.indexOf('/') + 1)
}

/** A timestamp field: ISO 8601 in any form the schemas accept. */
const timestamp = (at: string): Matcher => match.that(at, (v) => instant(v) !== undefined, 'an ISO 8601 timestamp')

/** The subscribers' user ids of a channel, under the label `subscriptions' /userId`. */
const subscribers = (ids: unknown[], m: Matcher): Matcher => match.derived("subscriptions' /userId", ids, m)

describe('POST /channels (§4.2 create channel)', () => {
  check('channels.create.response', 'answers {code, message} with a 2xx', async ({ a, channels, judge }) => {
    const name = channels.name()
    // Tracked before it is sent: a lost or failed answer must not hide a channel the server made (cleanup takes a 404).
    channels.track(a, name)
    const ex = await a.createChannel({ channelName: name })
    judge.response(ex, { status: '2xx', schema: 'code-message' })
  })

  check('channels.create.status', 'records the success status of create', async ({ a, channels, judge }) => {
    const name = channels.name()
    channels.track(a, name)
    const ex = await a.createChannel({ channelName: name })
    const code = bodyOf(ex)?.code
    judge.observe(`status ${ex.status}; body code ${show(code)}`)
  })

  check('channels.create.default-max-items', 'defaults maxItems to -1', async ({ a, channels, judge }) => {
    const name = await channels.create(a)
    const { ch, ex } = await getChannel(a, name, judge)
    judge.match(ch, match.equal('/maxItems', -1), ex)
  })

  check('channels.create.default-public', 'defaults privateChannel to false', async ({ a, b, channels, judge }) => {
    const name = await channels.create(a)
    const { ch, ex } = await getChannel(a, name, judge)
    judge.match(ch, match.equal('/privateChannel', false), ex)
    // Public: another user reaches it by the plain name (§2.3).
    const other = await getChannel(b, name, judge)
    judge.match(other.ch, match.when("B's GET by plain name", match.equal('/name', name)), other.ex)
  })

  check('channels.create.default-permission', 'defaults publishPermission to anyone, in get and in search', async ({ a, channels, judge }) => {
    const name = await channels.create(a)
    const { ch, ex } = await getChannel(a, name, judge)
    judge.match(ch, match.when('get-by-name', match.equal('/publisherPermission', 'anyone')), ex)
    const found = await searchUntil(a, { channelName: name }, [name])
    judge.response(found, { status: 200 })
    const hit = resultNamed(found, name)
    ensure(hit, judge, `search channelName=${name}: not in /results`, found)
    judge.match(hit, match.when('search result', match.equal('/publishPermission', 'anyone')), found)
  })

  check('channels.create.default-subscribe', 'subscribes the creator when subscribeOnCreate is left out', async ({ a, users, channels, judge }) => {
    const name = await channels.create(a)
    const { ids, ex } = await subscriberIds(a, name, judge, (ids) => ids.includes(users.A.userId))
    judge.match(ex.json, subscribers(ids, match.contains('', users.A.userId, { what: 'the creator' })), ex)
  })

  check('channels.create.no-subscribe', 'leaves the creator unsubscribed with subscribeOnCreate false', async ({ a, users, channels, judge }) => {
    const name = await channels.create(a, { subscribeOnCreate: false })
    const { ids, ex } = await subscriberIds(a, name, judge)
    judge.match(ex.json, subscribers(ids, match.lacks('', users.A.userId, { what: 'the creator' })), ex)
  })

  for (const permission of ['subscribers', 'owner'] as const) {
    check('channels.create.fields-stored', `stores maxItems, description and publishPermission ${permission}`, async ({ a, channels, fake, judge }) => {
      const given = {
        maxItems: permission === 'owner' ? 7 : 12,
        description: fake.lorem.sentence(),
        publishPermission: permission,
        privateChannel: false,
        subscribeOnCreate: true,
      }
      const name = await channels.create(a, given)
      const { ch, ex } = await getChannel(a, name, judge)
      judge.match(
        ch,
        [
          match.equal('/maxItems', given.maxItems),
          match.equal('/description', given.description),
          match.equal('/publisherPermission', permission),
          match.equal('/privateChannel', false),
        ],
        ex,
      )
    })
  }

  check(
    'channels.create.fields-stored',
    'stores a maxItems at the 32-bit integer limit as given, when create accepts it',
    async ({ a, channels, skip, judge }) => {
      const maxItems = 2_147_483_647
      const name = channels.name()
      channels.track(a, name)
      const ex = await a.createChannel({ channelName: name, maxItems })
      // No maximum of maxItems is shown, so a server may refuse a value this large; one it accepts it keeps.
      if (!isSuccess(ex)) return skip(`create with maxItems ${maxItems} answered ${ex.status}`)
      const { ch, ex: got } = await getChannel(a, name, judge)
      judge.match(ch, match.equal('/maxItems', maxItems, 'as created'), got)
    },
  )

  check('channels.create.fields-stored', 'keeps maxItems and publishPermission as created after tags are added', async ({ a, channels, fake, judge }) => {
    const given = { maxItems: 9, publishPermission: 'subscribers' as const }
    const name = await channels.create(a, given)
    // Adding tags is the one change the spec gives a channel; none of its words touches maxItems or publishPermission.
    await addTags(a, name, [uniqueToken(fake)])
    const { ch, ex } = await getChannel(a, name, judge)
    const asCreated = [match.equal('/maxItems', given.maxItems, 'as created'), match.equal('/publisherPermission', given.publishPermission, 'as created')]
    judge.match(
      ch,
      asCreated.map((m) => match.when('after adding a tag', m)),
      ex,
    )
  })

  check('channels.create.duplicate', 'records the answer to a second create with the same name', async ({ a, channels, judge }) => {
    const name = await channels.create(a)
    // A second channel of that name, should the server make one, is deleted too (cleanup takes a 404).
    channels.track(a, name)
    const ex = await a.createChannel({ channelName: name })
    if (!isSuccess(ex)) recordErrorBody(ex)
    const body = bodyOf(ex)
    judge.observe(
      `second create of the same name: status ${ex.status}; body ${body && typeof body === 'object' ? `code ${show(body.code)}, message ${show(body.message)}` : show(ex.text.slice(0, 80))}`,
    )
  })

  check('channels.create.response', 'answers {code, message} with a 2xx for a private channel', async ({ a, channels, judge }) => {
    const name = channels.name()
    channels.track(a, name, true)
    const ex = await a.createChannel({ channelName: name, privateChannel: true })
    judge.response(ex, { status: '2xx', schema: 'code-message' })
  })

  check(
    'channels.create.no-subscribe',
    'leaves the creator of a private channel unsubscribed with subscribeOnCreate false',
    async ({ a, users, channels, judge }) => {
      const name = await channels.create(a, { privateChannel: true, subscribeOnCreate: false })
      // The owner's plain name reaching its private channel is private.own-plain-name's: a step here.
      const { ids, ex } = await subscriberIds(a, name, steps.ownPlainName)
      judge.match(ex.json, subscribers(ids, match.lacks('', users.A.userId, { what: 'the creator' })), ex)
    },
  )
})

describe('GET /channels/{channel_name} (§4.2 get channel by name)', () => {
  check('channels.get.shape', 'answers 200 and a Channel', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a, { description: fake.lorem.sentence() })
    const ex = await eventually(
      () => a.getChannel(name),
      (e) => e.status === 200,
    )
    judge.response(ex, { status: 200, schema: 'channel' })
  })

  check('channels.get.publisher-permission', 'names the permission publisherPermission, with the value created', async ({ a, channels, judge }) => {
    const name = await channels.create(a, { publishPermission: 'owner' })
    const { ch, ex } = await getChannel(a, name, judge)
    ensure('publisherPermission' in ch, judge, `/publisherPermission: missing; got keys ${Object.keys(ch).join(', ')}`, ex)
    judge.match(ch, match.equal('/publisherPermission', 'owner'), ex)
  })

  check('channels.get.matches-create', 'returns the created name and description', async ({ a, channels, fake, judge }) => {
    const description = fake.lorem.sentence()
    const name = await channels.create(a, { description })
    const { ch, ex } = await getChannel(a, name, judge)
    judge.match(ch, match.equal('/name', name), ex)
    judge.match(ch, match.equal('/description', description), ex)
  })

  check('channels.get.creator', 'gives a creator of user id, separator, user-name and domain part, slash, device id', async ({ a, users, channels, judge }) => {
    const name = await channels.create(a)
    const { ch, ex } = await getChannel(a, name, judge)
    judge.match(ch, creatorForm(users.A.userId, "A's"), ex)
    const device = devicePart(ch.creator as string, users.A.userId)
    const problem = match.derived('/creator device part', device, match.equal('', users.A.deviceId, 'the device id A signed in with'))(ch)
    judge.should(problem === undefined, problem ?? `/creator device part: ${show(device)}, the device id A signed in with`, ALSO.creatorDevice)
  })

  check('channels.get.max-payload-size', 'records the maxPayloadSize it gives', async ({ a, channels, judge }) => {
    const name = await channels.create(a)
    const { ch } = await getChannel(a, name, steps.getChannel)
    judge.observe(`/maxPayloadSize = ${show(ch.maxPayloadSize)} (spec sample: 2097152)`)
  })

  check('channels.get.unknown', 'refuses an unknown channel name', async ({ a, channels, judge }) => {
    const ex = await a.getChannel(channels.name())
    judge.refused(ex, { status: 404, clause: ALSO.notFound404 })
  })

  check('channels.get.matches-create', 'returns a channel whose name holds ".", "_" and upper case by that name', async ({ a, channels, fake, judge }) => {
    const name = `${channels.name()}.Dot_X`
    const description = uniqueToken(fake)
    if (!(await createOptional(a, channels, judge, { channelName: name, description }, 'a name with ".", "_" and upper case'))) return
    judge.observe(`a name with ".", "_" and upper case (${name}) is accepted`, ALSO.nameAlphabet)
    const { ch, ex } = await getChannel(a, name, judge)
    const created = [match.that('/name', (n) => sameText(n, name), `${show(name)} in any case`), match.equal('/description', description, 'as created')]
    judge.match(
      ch,
      created.map((m) => match.when(`GET ${name}`, m)),
      ex,
    )
  })

  check('channels.get.unknown', "refuses an unknown name that is the start of an existing channel's name", async ({ a, channels, judge }) => {
    const base = channels.name()
    // Letters only after the generated name: an alphabet every server takes (names: "not shown").
    const longer = `${base}longer`
    await channels.create(a, { channelName: longer })
    await getChannel(a, longer, judge)
    const ex = await a.getChannel(base)
    judge.refused(ex, { status: 404, clause: ALSO.notFound404 })
  })

  check('channels.get.creator', 'gives the composite creator for a private channel too', async ({ a, users, channels, judge }) => {
    const name = await channels.create(a, { privateChannel: true })
    // The owner's plain name reaching its private channel is private.own-plain-name's: a step here.
    const { ch, ex } = await getChannel(a, name, steps.ownPlainName)
    judge.match(ch, creatorForm(users.A.userId, "the owner's"), ex)
  })
})

describe('GET /channels (§4.2 search public channels)', () => {
  check('channels.search.shape', 'answers 200 and {total, results} of Channels', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a, { description: fake.lorem.sentence() })
    const ex = await searchUntil(a, { channelName: name }, [name])
    const page = judge.match(judge.response<Body>(ex, { status: 200 }), match.object('{total, results}'), ex)
    checkJsonContentType(ex)
    judge.match(page, [match.integer('/total', 0), match.that('/results', Array.isArray, 'an array of Channel')], ex)
    const extra = Object.keys(page).filter((k) => k !== 'total' && k !== 'results')
    judge.should(
      extra.length === 0,
      extra.length ? `channel-search-page: undocumented ${show(extra)}` : 'channel-search-page: no undocumented properties',
      ALSO.noExtraFields,
    )
    ensure(resultNames(ex).includes(name), judge, `/results: no channel ${show(name)}; a page with a result is needed to judge the shape`, ex)
    judge.match(
      page,
      match.that('/total', (t) => (t as number) >= page.results.length, `at least the ${page.results.length} results on the page`),
      ex,
    )
    // The check's own channel is judged strictly; others (channels this run did not make) only as a SHOULD.
    judge.elements(ex, page.results, {
      schema: 'channel-search-item',
      others: ALSO.searchOtherResults,
      pointer: '/results',
      own: (r) => asBody(r)?.name === name,
    })
  })

  check('channels.search.publish-permission', 'names the permission publishPermission in results, with the value created', async ({ a, channels, judge }) => {
    const name = await channels.create(a, { publishPermission: 'subscribers' })
    const ex = await searchUntil(a, { channelName: name }, [name])
    judge.response(ex, { status: 200 })
    const hit = resultNamed(ex, name)
    ensure(hit, judge, `/results: no channel ${show(name)}`, ex)
    ensure('publishPermission' in hit, judge, `/results/…/publishPermission: missing; got keys ${Object.keys(hit).join(', ')}`, ex)
    judge.match(hit, match.when('search result', match.equal('/publishPermission', 'subscribers')), ex)
  })

  check('channels.search.by-name', 'finds a channel by its exact name', async ({ a, channels, judge }) => {
    const name = await channels.create(a)
    const ex = await searchUntil(a, { channelName: name }, [name])
    judge.response(ex, { status: 200 })
    judge.match(ex.json, match.when(`channelName=${name}`, listing(name)), ex)
  })

  check('channels.search.by-description', 'finds a channel by its exact description', async ({ a, channels, fake, judge }) => {
    const description = uniqueToken(fake)
    const name = await channels.create(a, { description })
    const ex = await searchUntil(a, { description }, [name])
    judge.response(ex, { status: 200 })
    judge.match(ex.json, match.when(`description=${description}`, listing(name)), ex)
  })

  check('channels.search.by-tag', 'returns exactly the channels carrying a tag', async ({ a, channels, fake, judge }) => {
    const tag = uniqueToken(fake)
    const [t1, t2, plain] = [await channels.create(a), await channels.create(a), await channels.create(a)]
    await addTags(a, t1!, [tag])
    await addTags(a, t2!, [tag])
    const ex = await searchUntil(a, { tag }, [t1!, t2!])
    judge.response(ex, { status: 200 })
    const tagged = [
      match.containsAll('/results', [t1!, t2!], { key: nameKey, what: 'both tagged channels' }),
      match.lacks('/results', plain!, { key: nameKey, what: 'which does not carry the tag' }),
      match.exactly('/results', [t1!, t2!], { key: nameKey }),
    ]
    judge.match(
      ex.json,
      tagged.map((m) => match.when(`tag=${tag}`, m)),
      ex,
    )
  })

  check(
    'channels.search.by-tag',
    'returns none of the channels whose only tag holds the tag searched for inside a longer one',
    async ({ a, channels, fake, judge }) => {
      // Matching rules are "not shown" for channelName and description only (§4.2): a tag is carried or not.
      const tag = uniqueToken(fake)
      const [exact, longer, earlier] = [await channels.create(a), await channels.create(a), await channels.create(a)]
      await addTags(a, exact!, [tag])
      await addTags(a, longer!, [`${tag}room`])
      await addTags(a, earlier!, [`news${tag}`])
      const ex = await searchUntil(a, { tag }, [exact!])
      judge.response(ex, { status: 200 })
      judge.match(ex.json, match.when(`tag=${tag}; the others carry ${tag}room and news${tag}`, match.exactly('/results', [exact!], { key: nameKey })), ex)
    },
  )

  check('channels.search.by-tag', 'lets each of two repeated tags take part, as all tags or as any tag', async ({ a, channels, fake, judge }) => {
    const [t1, t2] = [uniqueToken(fake), uniqueToken(fake)]
    const [both, only1, only2, neither] = [await channels.create(a), await channels.create(a), await channels.create(a), await channels.create(a)]
    await addTags(a, both, [t1, t2])
    await addTags(a, only1, [t1])
    await addTags(a, only2, [t2])
    await addTags(a, neither, [uniqueToken(fake)])
    // size 10 asked for: the default page size is not shown, and any-tag matching finds three.
    await searchUntil(a, { tag: t1, size: 10 }, [both, only1])
    await searchUntil(a, { tag: t2, size: 10 }, [both, only2])
    // Whether repeated tags mean all of them or any of them is not shown; either way the channel carrying both
    // matches, and the two tags are alike: one tag's channel matches exactly when the other's does.
    const ex = await searchUntil(a, { tag: [t1, t2], size: 10 }, [both])
    judge.response(ex, { status: 200 })
    const got = resultNames(ex)
    const alike = (names: unknown) => (names as string[]).includes(only1) === (names as string[]).includes(only2)
    const repeated = [
      match.contains('/results', both, { key: nameKey, what: 'which carries both tags' }),
      match.derived(
        '/results names',
        got,
        match.that('', alike, `both or neither of ${show(only1)} and ${show(only2)} (one tag each): the repeated tags alike`),
      ),
      match.lacks('/results', neither, { key: nameKey, what: 'which carries neither tag' }),
    ]
    judge.match(
      ex.json,
      repeated.map((m) => match.when('tag=t1&tag=t2', m)),
      ex,
    )
  })

  /**
   * The search filters given together (§4.2 lists channelName, description and tag in one query): each given filter
   * narrows the results. Two public channels X and Y, each with a name, a description and a tag of its own; for the
   * filter F judged and each other filter G, F and G of X find X, and F of Y with G of X does not list X (it satisfies
   * G, not F). X and Y are first found by each filter alone (steps), so the combined search meets an index that holds
   * them. Y never carried X's values nor X Y's, so no lagging read can list X there. Only X is judged: on a shared
   * server other clients may copy a channel's name and description.
   */
  const narrows =
    (f: SearchFilter) =>
    async ({ a, channels, fake, judge }: Pick<CheckFixtures, 'a' | 'channels' | 'fake' | 'judge'>): Promise<void> => {
      const both: Searched[] = []
      // Y is made after X: the fixture's names end in a growing number, so Y's name is never held inside X's.
      for (let i = 0; i < 2; i++) {
        const description = `combo ${uniqueToken(fake)}`
        const name = await channels.create(a, { description })
        const tag = uniqueToken(fake)
        await addTags(a, name, [tag])
        both.push({ channelName: name, description, tag })
      }
      const [x, y] = both as [Searched, Searched]
      for (const g of SEARCH_FILTERS.filter((o) => o !== f)) {
        const alone = await searchUntil(a, { [g]: x[g], size: 50 }, [x.channelName])
        FILTER_STEP[g].match(alone.json, match.when(`set-up: ${g}=${x[g]} alone`, listing(x.channelName)), alone)
        const own = await searchUntil(a, { [f]: y[f], size: 50 }, [y.channelName])
        FILTER_STEP[f].match(own.json, match.when(`set-up: ${f}=${y[f]} alone`, listing(y.channelName)), own)
        const found = await searchUntil(a, { [f]: x[f], [g]: x[g], size: 50 }, [x.channelName])
        judge.response(found, { status: 200 })
        judge.match(found.json, match.when(`${f}=${x[f]}&${g}=${x[g]}, both of one channel`, listing(x.channelName)), found)
        const ex = await a.searchChannels({ [f]: y[f], [g]: x[g], size: 50 })
        judge.response(ex, { status: 200 })
        const what = `whose ${g} is given but whose ${f} is another channel's`
        judge.match(ex.json, match.when(`${f}=${y[f]}&${g}=${x[g]}`, match.lacks('/results', x.channelName, { key: nameKey, what })), ex)
      }
    }

  check('channels.search.by-tag', searchTitle.combined('tag'), narrows('tag'))
  check('channels.search.by-name', searchTitle.combined('channelName'), narrows('channelName'))
  check('channels.search.by-description', searchTitle.combined('description'), narrows('description'))

  /**
   * One filter given twice with one value (channelName=n&channelName=n, …). Whichever reading a server gives a
   * repeated parameter (the first, the last, any of them, all of them), the channel holding that value satisfies
   * it, so the search lists it. §4.2 says tag may repeat, so a tag given twice is answered 200; channelName and
   * description are not said to repeat, so a refusal of theirs is recorded (http.input-refused) and only an answer
   * is judged. The channel is first found by the filter given once (a step).
   */
  const twice =
    (f: SearchFilter) =>
    async ({ a, channels, fake, judge }: Pick<CheckFixtures, 'a' | 'channels' | 'fake' | 'judge'>): Promise<void> => {
      const description = `twice ${uniqueToken(fake)}`
      const name = await channels.create(a, { description })
      const tag = uniqueToken(fake)
      await addTags(a, name, [tag])
      const x: Searched = { channelName: name, description, tag }
      const once = await searchUntil(a, { [f]: x[f], size: 50 }, [name])
      FILTER_STEP[f].match(once.json, match.when(`set-up: ${f}=${x[f]} once`, listing(name)), once)
      const ex = await eventually(
        () => a.searchChannels({ [f]: [x[f], x[f]], size: 50 }),
        (e) => !isSuccess(e) || resultNames(e).includes(name),
      )
      if (f !== 'tag' && !isSuccess(ex)) {
        judge.observe(`search with ${f} given twice: status ${ex.status}; ${f} is not said to repeat (§4.2)`, ALSO.inputRefused)
        return
      }
      judge.response(ex, { status: 200 })
      judge.match(ex.json, match.when(`${f}=${x[f]}&${f}=${x[f]}, the value of one channel given twice`, listing(name)), ex)
    }

  check('channels.search.by-tag', searchTitle.twice('tag'), twice('tag'))
  check('channels.search.by-name', searchTitle.twice('channelName'), twice('channelName'))
  check('channels.search.by-description', searchTitle.twice('description'), twice('description'))

  /** Three public channels sharing a fresh tag, indexed for search. */
  /** Three new channels carrying one new tag, and the tag search listing exactly them (channels.search.by-tag's to judge). */
  async function threeTagged(a: Api, channels: ChannelFactory, fake: Faker): Promise<{ tag: string; names: string[] }> {
    const tag = uniqueToken(fake)
    const names: string[] = []
    for (let i = 0; i < 3; i++) names.push(await channels.create(a))
    for (const n of names) await addTags(a, n, [tag])
    const ex = await searchUntil(a, { tag, size: 10 }, names)
    steps.foundByTag.response(ex, { status: 200 })
    // Pages and totals of the tag search can be judged only when the tag finds the three and nothing else.
    steps.foundByTag.match(ex.json, theseOnly(ex, names, `set-up: tag=${tag}&size=10`), ex)
    return { tag, names }
  }

  check('channels.search.size', 'returns at most size results', async ({ a, channels, fake, judge }) => {
    const { tag } = await threeTagged(a, channels, fake)
    const ex = await a.searchChannels({ tag, size: 2 })
    const page = judge.response<Body>(ex, { status: 200 })
    const sized = [match.atMost('/results', 2), match.atLeast('/results', 1, 'up to 2 of the 3 matching channels')]
    judge.match(
      page,
      sized.map((m) => match.when(`tag=${tag}&size=2`, m)),
      ex,
    )
  })

  check('channels.search.offset', 'skips offset results: 3, 2 and 0 of 3 matches for offset 0, 1 and 3', async ({ a, channels, fake, judge }) => {
    const { tag, names } = await threeTagged(a, channels, fake)
    // The spec defines no order of results, so offset is judged by how many results are left, not which.
    for (const [offset, want] of [
      [0, 3],
      [1, 2],
      [3, 0],
    ] as const) {
      const ex = await a.searchChannels({ tag, offset, size: 10 })
      const page = judge.response<Body>(ex, { status: 200 })
      const left = [match.that('/results', Array.isArray, 'an array'), match.derived('/results names', resultNames(ex), match.size('', want))]
      judge.match(
        page,
        left.map((m) => match.when(`tag=${tag}&offset=${offset}&size=10 (3 carry the tag)`, m)),
        ex,
      )
    }
    const first = await a.searchChannels({ tag, offset: 0, size: 2 })
    const second = await a.searchChannels({ tag, offset: 2, size: 2 })
    // Together the two pages hold each of the three once (no overlap, none left out).
    const pages = `tag=${tag}: offset=0&size=2 (status ${first.status}) then offset=2&size=2 (status ${second.status})`
    const together = [...resultNames(first), ...resultNames(second)]
    const problem = match.when(pages, match.derived('/results names', together, match.exactly('', names, { what: 'each of the 3 once' })))(undefined)
    judge.should(
      isSuccess(first) && isSuccess(second) && problem === undefined,
      problem ?? `${pages}: /results names hold each of the 3 once`,
      ALSO.searchOffsetPages,
    )
  })

  check('channels.search.total', 'gives a total that counts every match on every page', async ({ a, channels, fake, judge }) => {
    const { tag } = await threeTagged(a, channels, fake)
    for (const params of [{ tag }, { tag, offset: 0, size: 1 }, { tag, offset: 2, size: 2 }]) {
      const ex = await a.searchChannels(params)
      const page = judge.response<Body>(ex, { status: 200 })
      judge.match(page, match.when(`${new URLSearchParams(params as any)}`, match.equal('/total', 3, 'channels carrying the tag')), ex)
      const len = resultNames(ex).length
      judge.match(
        page,
        match.that('/total', (t) => (t as number) >= len, `at least the ${len} results on the page`),
        ex,
      )
    }
  })

  check('channels.search.public-only', 'never shows a private channel, by name or by tag', async ({ a, channels, fake, judge }) => {
    const tag = uniqueToken(fake)
    const secret = await channels.create(a, { privateChannel: true })
    const open = await channels.create(a)
    await addTags(a, secret, [tag], true)
    await addTags(a, open, [tag])
    // The public twin shows the tag has been indexed before the private one's absence is judged.
    const byTag = await searchUntil(a, { tag }, [open])
    judge.response(byTag, { status: 200 })
    const secretLeft = match.lacks('/results', secret, { key: nameKey, what: 'the private channel' })
    judge.match(byTag.json, match.when(`tag=${tag}`, secretLeft), byTag)
    const byName = await a.searchChannels({ channelName: secret })
    judge.response(byName, { status: 200 })
    judge.match(byName.json, match.when(`channelName=${secret}`, secretLeft), byName)
    for (const ex of [byTag, byName]) {
      const results = bodyOf(ex)?.results
      const priv = Array.isArray(results)
        ? bodiesOf(results)
            .filter((r) => r.privateChannel === true)
            .map((r) => r.name)
        : []
      judge.match(ex.json, match.derived('/results names with privateChannel true', priv, match.size('', 0)), ex)
    }
  })

  check('channels.search.defaults', 'records the page size when no size is given', async ({ a, judge }) => {
    const ex = await a.searchChannels({})
    const body = bodyOf(ex)
    judge.observe(
      `no parameters: status ${ex.status}; ${Array.isArray(body?.results) ? `${body!.results.length} results, total ${show(body!.total)}` : `body ${show(body)}`}`,
    )
    const big = await a.searchChannels({ size: 100000 })
    const bigBody = bodyOf(big)
    judge.observe(
      `size=100000: status ${big.status}; ${Array.isArray(bigBody?.results) ? `${bigBody!.results.length} results, total ${show(bigBody!.total)}` : 'no results array'}`,
    )
  })

  check('channels.search.defaults', 'records how several tags combine', async ({ a, channels, fake, judge }) => {
    const [t1, t2] = [uniqueToken(fake), uniqueToken(fake)]
    const both = await channels.create(a)
    const only1 = await channels.create(a)
    const only2 = await channels.create(a)
    await addTags(a, both, [t1, t2])
    await addTags(a, only1, [t1])
    await addTags(a, only2, [t2])
    await searchUntil(a, { tag: t2 }, [both, only2])
    const ex = await a.searchChannels({ tag: [t1, t2] })
    const got = resultNames(ex)
    const has = (n: string) => got.includes(n)
    const meaning =
      has(both) && !has(only1) && !has(only2)
        ? 'all tags (AND)'
        : has(both) && has(only1) && has(only2)
          ? 'any tag (OR)'
          : `neither: ${got.length} result(s), listing [both, only1, only2] = [${has(both)}, ${has(only1)}, ${has(only2)}]`
    judge.observe(`tag=t1&tag=t2: status ${ex.status}; matches ${meaning}`)
  })

  check('channels.search.defaults', 'records how channelName matches a fragment', async ({ a, channels, judge }) => {
    const name = await channels.create(a)
    await searchUntil(a, { channelName: name }, [name])
    const prefix = name.slice(0, -1)
    const inner = name.slice(3, -2)
    const byPrefix = await a.searchChannels({ channelName: prefix, size: 1000 })
    const byInner = await a.searchChannels({ channelName: inner, size: 1000 })
    const byUpper = await a.searchChannels({ channelName: name.toUpperCase() })
    judge.observe(
      `channelName matching: prefix finds it ${resultNames(byPrefix).includes(name)} (status ${byPrefix.status}), inner fragment ${resultNames(byInner).includes(name)} (status ${byInner.status}), other case ${resultNames(byUpper).includes(name)} (status ${byUpper.status})`,
    )
  })

  check('channels.search.by-name', 'finds a channel whose name holds upper case by that exact name', async ({ a, channels, judge }) => {
    const name = `${channels.name()}-Up`
    if (!(await createOptional(a, channels, judge, { channelName: name }, 'a name with upper case'))) return
    const ex = await eventually(
      () => a.searchChannels({ channelName: name, offset: 0, size: 10 }),
      (e) => isSuccess(e) && resultNames(e).some((n) => sameText(n, name)),
    )
    mustSearchAnswer200(ex)
    judge.response(ex, { status: 200 })
    judge.match(ex.json, match.when(`channelName=${name}`, match.contains('/results', name, { key: nameKey, anyCase: true })), ex)
  })

  check('channels.search.by-description', 'finds a channel by an exact description of two words', async ({ a, channels, fake, judge }) => {
    const description = `${uniqueToken(fake)} ${uniqueToken(fake)}`
    const name = await channels.create(a, { description })
    const ex = await searchUntil(a, { description, offset: 0, size: 10 }, [name])
    judge.response(ex, { status: 200 })
    judge.match(ex.json, match.when(`description=${description}`, listing(name)), ex)
  })

  check('channels.search.offset', "pages the search it is given, not the caller's search before it", async ({ a, channels, fake, judge }) => {
    const [t1, t2] = [uniqueToken(fake), uniqueToken(fake)]
    const first = [await channels.create(a), await channels.create(a)]
    const second = [await channels.create(a), await channels.create(a)]
    for (const n of first) await addTags(a, n, [t1])
    for (const n of second) await addTags(a, n, [t2])
    await searchUntil(a, { tag: t1, offset: 0, size: 10 }, first)
    await searchUntil(a, { tag: t2, offset: 0, size: 10 }, second)
    // A first page of one search, then the second page of another: offset counts within the search it comes with.
    judge.response(await a.searchChannels({ tag: t1, offset: 0, size: 1 }), { status: 200 })
    const ex = await a.searchChannels({ tag: t2, offset: 1, size: 1 })
    judge.response<Body>(ex, { status: 200 })
    const secondPage = [match.derived('/results names', resultNames(ex), match.size('', 1)), noneBut(ex, second, `the second search's ${show(second)}`)]
    judge.match(
      ex.json,
      secondPage.map((m) => match.when(`tag=${t2}&offset=1&size=1 after a search for tag=${t1}`, m)),
      ex,
    )
  })

  check('channels.search.size', 'returns all three matches with size=3 and with size=4', async ({ a, channels, fake, judge }) => {
    const tag = uniqueToken(fake)
    const names = [await channels.create(a), await channels.create(a), await channels.create(a)]
    for (const n of names) await addTags(a, n, [tag])
    const found = await searchUntil(a, { tag, offset: 0, size: 10 }, names)
    // The three must be what the tag finds before pages of them can be judged (channels.search.by-tag's to judge).
    steps.foundByTag.match(found.json, theseOnly(found, names, `set-up: tag=${tag}&size=10`), found)
    for (const size of [3, 4]) {
      const ex = await a.searchChannels({ tag, offset: 0, size })
      judge.response<Body>(ex, { status: 200 })
      // A channel without the tag on the page is channels.search.by-tag's deviation, whenever the server shows it.
      const page = `tag=${tag}&offset=0&size=${size}`
      steps.foundByTag.match(ex.json, match.when(page, noneBut(ex, names, 'the channels carrying the tag')), ex)
      judge.match(ex.json, match.when(page, match.containsAll('/results', names, { key: nameKey, what: 'the 3 matches' })), ex)
    }
  })

  check('channels.search.size', 'returns one result with size=1 out of three matches', async ({ a, channels, fake, judge }) => {
    const tag = uniqueToken(fake)
    const names = [await channels.create(a), await channels.create(a), await channels.create(a)]
    for (const n of names) await addTags(a, n, [tag])
    await searchUntil(a, { tag, offset: 0, size: 10 }, names)
    const ex = await a.searchChannels({ tag, offset: 0, size: 1 })
    const page = judge.response<Body>(ex, { status: 200 })
    judge.match(page, match.when(`tag=${tag}&offset=0&size=1 (3 match)`, match.size('/results', 1)), ex)
  })
})

/**
 * The summary's lastPublishedTime after A's first publish to its channel `name`, then after a later publish by
 * `publisher` (A itself, or another user where publishPermission is anyone, the default): the later publish moves it
 * forward (§2.4: the time of the last publish, whoever published).
 */
async function judgeMovesForward(a: Api, publisher: Api, by: string, name: string, judge: Judge): Promise<void> {
  await publish(a, name, 1)
  // Polled until the summary counts the publish: before it, the time is the server's own choice.
  const counted = (e: Exchange, n: number): boolean => Number(bodyOf(e)?.publishedItemCount) >= n
  const first = await eventually(
    () => a.summary(name),
    (e) => isSuccess(e) && counted(e, 1) && instant(bodyOf(e)?.lastPublishedTime) !== undefined,
  )
  const t1 = instant(judge.response<Body>(first, { status: 200 })?.lastPublishedTime)
  ensure(t1, judge, match.explain(bodyOf(first), timestamp('/lastPublishedTime')), first)
  const movedOn = (e: Exchange, n: number): boolean => {
    const t = instant(bodyOf(e)?.lastPublishedTime)
    return isSuccess(e) && counted(e, n) && t !== undefined && later(t, t1)
  }
  // A time with a fraction of a second tells a server that keeps finer times than seconds: a publish a moment
  // later may already move it. When it does not (its times may still be coarser than they look), or the
  // time is on a whole second, the publish that is judged comes 1.1 s after the one before: a later second
  // even where the server keeps whole seconds.
  let published = 1
  if (t1.ms % 1000 !== 0) {
    await new Promise((r) => setTimeout(r, 50))
    await publish(publisher, name, ++published)
    const soon = await eventually(
      () => a.summary(name),
      (e) => movedOn(e, published),
      { timeoutMs: 2000 },
    )
    if (movedOn(soon, published)) {
      judge.response<Body>(soon, { status: 200 })
      return
    }
  }
  await new Promise((r) => setTimeout(r, 1100))
  await publish(publisher, name, ++published)
  const second = await eventually(
    () => a.summary(name),
    (e) => movedOn(e, published),
  )
  const laterThanFirst = match.that(
    '/lastPublishedTime',
    (v) => {
      const t2 = instant(v)
      return t2 !== undefined && later(t2, t1)
    },
    `later than the first publish's ${show(bodyOf(first)?.lastPublishedTime)}`,
  )
  judge.match(judge.response<Body>(second, { status: 200 }), match.when(`after a publish ${by} 1.1 s after the one before`, laterThanFirst), second)
}

describe('GET /channels/{channel_name}/summary (§4.2 channel summary)', () => {
  check('channels.summary.shape', 'answers 200 and a Channel summary', async ({ a, channels, judge }) => {
    const name = await channels.create(a)
    await publish(a, name, 1)
    const ex = await eventually(
      () => a.summary(name),
      (e) => e.status === 200,
    )
    const body = judge.response<Body>(ex, { status: 200, schema: 'channel-summary' })
    judge.match(body, match.equal('/channelName', name), ex)
  })

  check('channels.summary.count', 'counts three published items as 3', async ({ a, channels, judge }) => {
    const name = await channels.create(a)
    for (let i = 1; i <= 3; i++) await publish(a, name, i)
    const ex = await eventually(
      () => a.summary(name),
      (e) => bodyOf(e)?.publishedItemCount === 3,
    )
    const body = judge.response<Body>(ex, { status: 200 })
    judge.match(body, match.equal('/publishedItemCount', 3), ex)
  })

  check('channels.summary.count', 'counts eight publishes, five of them sent at once, as 8', async ({ a, channels, judge }) => {
    const name = await channels.create(a)
    for (let i = 1; i <= 3; i++) await publish(a, name, i)
    const racing = await Promise.all(
      [4, 5, 6, 7, 8].map((n) => a.publish(name, { content: { text: `item ${n}`, n: String(n) }, messageType: 'normal', contentType: 'text/plain' })),
    )
    // Only publishes answered with a 2xx count: racing writes may be refused (a conflict, a rate limit).
    const want = 3 + acceptedOfRace([4, 5, 6, 7, 8], racing, steps.publish).length
    const ex = await eventually(
      () => a.summary(name),
      (e) => bodyOf(e)?.publishedItemCount === want,
    )
    const body = judge.response<Body>(ex, { status: 200 })
    judge.match(body, match.equal('/publishedItemCount', want, `3 publishes, then ${want - 3} accepted of 5 sent at once`), ex)
  })

  check('channels.summary.last-published', 'gives a lastPublishedTime not before creation and not going back', async ({ a, channels, judge }) => {
    const name = await channels.create(a)
    const { ch, ex: getEx } = await getChannel(a, name, judge)
    const created = instant(ch.creationDate)
    ensure(created, judge, match.explain(ch, timestamp('/creationDate')), getEx)
    await publish(a, name, 1)
    // A deployment may update the summary a moment after the publish: poll until it counts the items and shows
    // a publish time not before `since` (before any publish, the time is the server's own choice: creation, now, anything).
    const countOf = (e: Exchange): number => Number(bodyOf(e)?.publishedItemCount ?? NaN)
    const summaryOnce = (count: number, since: { ms: number }): Promise<Exchange> =>
      eventually(
        () => a.summary(name),
        (e) => {
          const t = instant(bodyOf(e)?.lastPublishedTime)
          return isSuccess(e) && countOf(e) >= count && t !== undefined && notBefore(t, since)
        },
      )
    const ex1 = await summaryOnce(1, created)
    const s1 = judge.response<Body>(ex1, { status: 200 })
    const t1 = instant(s1?.lastPublishedTime)
    ensure(t1, judge, match.explain(s1, timestamp('/lastPublishedTime')), ex1)
    judge.match(s1, notBeforeAt(created, `the channel's creationDate ${show(ch.creationDate)}`), ex1)
    await publish(a, name, 2)
    const ex2 = await summaryOnce(2, t1)
    const s2 = judge.response<Body>(ex2, { status: 200 })
    judge.match(
      s2,
      [timestamp('/lastPublishedTime'), match.when('after a later publish', notBeforeAt(t1, `the time before it, ${show(s1.lastPublishedTime)}`))],
      ex2,
    )
  })

  check('channels.summary.last-published', 'moves lastPublishedTime forward for a publish a second after the first', async ({ a, channels, judge }) => {
    await judgeMovesForward(a, a, 'by the owner', await channels.create(a), judge)
  })

  // The publisher × the summary: B's publish to A's channel (publishPermission anyone, the default) is the last publish.
  check(
    'channels.summary.last-published',
    "moves lastPublishedTime forward for another user's publish a second after the owner's",
    async ({ a, b, channels, judge }) => {
      await judgeMovesForward(a, b, 'by another user', await channels.create(a), judge)
    },
  )
})

/**
 * B's delete of A's channel `name`, refused (403 is the convention), and the channel still there for A; `who` names B
 * in the message.
 */
async function deleteRefusedKept(a: Api, b: Api, name: string, judge: Judge, who: string): Promise<void> {
  judge.refused(await b.deleteChannel(name), { status: 403, clause: ALSO.forbidden403 })
  // Polled: reads may lag the create; a channel B's delete removed never comes back, so the poll ends in a 404.
  const after = await eventually(
    () => a.getChannel(name),
    (e) => e.status === 200,
  )
  judge.match(after, match.when(`owner's GET after ${who}'s refused delete`, match.status(200, 'the channel still exists')), after)
}

describe('DELETE /channels/{channel_name} (§4.2 delete channel)', () => {
  check('channels.delete.status', 'answers 200 to the owner', async ({ a, channels, judge }) => {
    const name = await channels.create(a)
    const ex = await a.deleteChannel(name)
    judge.response(ex, { status: 200 })
  })

  check('channels.delete.removes', 'stays deleted when publishes race the delete', async ({ a, channels, judge }) => {
    const name = await channels.create(a)
    await publish(a, name, 1)
    const sent = (n: number) => a.publish(name, { content: { text: `item ${n}`, n: String(n) }, messageType: 'normal', contentType: 'text/plain' })
    // Publishes in flight while the delete runs: each may land before it or be refused after; none may bring the channel back.
    // A stream of publishes a few milliseconds apart, the delete leaving in its middle: whatever the server's timing
    // (and however busy the machine running the suite), some publish is in flight when the delete lands.
    const pause = () => new Promise((resolve) => setTimeout(resolve, 3))
    // Awaited together below; a transport error of one is still the check's, not an unhandled rejection meanwhile.
    const held = <T>(p: Promise<T>): Promise<T> => (p.catch(() => undefined), p)
    const publishes: Promise<unknown>[] = []
    let del: Promise<Exchange> | undefined
    for (let n = 2; n < 12; n++) {
      publishes.push(held(sent(n)))
      if (n === 5) {
        // The delete leaves together with two more publishes (helpers/kit/together.ts): under a busy run's pace it
        // would otherwise start alone, after the stream's publishes have all been answered.
        const [before, deleting, after] = sentTogether([() => sent(50), () => a.deleteChannel(name), () => sent(51)]).map((x) => held(x))
        publishes.push(before!, after!)
        del = deleting as Promise<Exchange>
      }
      await pause()
    }
    const [deleted] = await Promise.all([del!, ...publishes])
    const delAnswer = deleted as Exchange
    judge.response(delAnswer, { status: '2xx' })
    const ex = await eventually(
      () => a.getChannel(name),
      (e) => !isSuccess(e),
    )
    judge.match(
      ex,
      match.when(`GET after a delete answered ${delAnswer.status} while publishes raced it`, match.status('refusal', 'the channel stays deleted')),
      ex,
    )
  })

  check('channels.delete.removes', 'no longer returns a deleted channel', async ({ a, channels, judge }) => {
    const name = await channels.create(a)
    const del = await a.deleteChannel(name)
    judge.response(del, { status: '2xx' })
    const ex = await eventually(
      () => a.getChannel(name),
      (e) => !isSuccess(e),
    )
    judge.match(ex, match.when('GET after a successful delete', match.status('refusal', 'the channel is gone')), ex)
  })

  check('channels.delete.owner-only', 'refuses a non-owner and keeps the channel', async ({ a, b, channels, judge }) => {
    const name = await channels.create(a)
    await deleteRefusedKept(a, b, name, judge, 'B')
  })

  check('channels.delete.only-named', 'deleting a name with "_" keeps the owner\'s channel whose name has "-" there', async ({ a, channels, judge }) => {
    const base = channels.name()
    const [under, dash] = [`${base}_u`, `${base}-u`]
    if (!(await createOptional(a, channels, judge, { channelName: under }, 'a name with "_"'))) return
    if (!(await createOptional(a, channels, judge, { channelName: dash }, 'a name with "-"'))) return
    await getChannel(a, dash, judge)
    judge.response(await a.deleteChannel(under), { status: '2xx' })
    // Polled until the deleted one is gone (reads may lag), then the other must still be there.
    await eventually(
      () => a.getChannel(under),
      (e) => !isSuccess(e),
    )
    const kept = await a.getChannel(dash)
    const onlyUnder = (m: Matcher) => match.when(`GET ${dash} after deleting ${under} (only ${under} was deleted)`, m)
    judge.match(kept, onlyUnder(match.status(200)), kept)
    judge.match(bodyOf(kept), onlyUnder(match.that('/name', (n) => sameText(n, dash), `${show(dash)} in any case`)), kept)
  })

  check(
    'channels.delete.recreate-fresh',
    'a channel created again under a deleted name has none of the old items, tags and subscribers',
    async ({ a, b, users, channels, fake, judge }) => {
      const name = await channels.create(a, { subscribeOnCreate: false })
      const tag = uniqueToken(fake)
      await publish(a, name, 1)
      await addTags(a, name, [tag])
      await mustSubscribe(b, name)
      judge.response(await a.deleteChannel(name), { status: '2xx' })
      await eventually(
        () => a.getChannel(name),
        (e) => !isSuccess(e),
      )
      const again = await a.createChannel({ channelName: name, subscribeOnCreate: false })
      if (!isSuccess(again)) {
        judge.observe(`create again after a delete: status ${again.status}, so the check has nothing to judge`, ALSO.createDuplicate)
        return
      }
      const items = await eventually(
        () => a.fetchItems(name, everything()),
        (e) => isSuccess(e) && Array.isArray(bodyOf(e)?.items) && bodyOf(e)?.items.length === 0,
      )
      const list = judge.response<Body>(items, { status: '2xx' })
      judge.match(list, match.when('fetch on the new channel (the items were published to the deleted channel)', match.size('/items', 0)), items)
      const tags = await eventually(
        () => a.getTags(name),
        (e) => isSuccess(e) && Array.isArray(bodyOf(e)?.tags) && !bodyOf(e)?.tags.includes(tag),
      )
      const t = judge.response<Body>(tags, { status: '2xx' })
      const noOldTag = [match.type('/tags', 'array'), match.lacks('/tags', tag, { what: 'a tag of the deleted channel' })]
      judge.match(
        t,
        noOldTag.map((m) => match.when('get tags on the new channel', m)),
        tags,
      )
      const subs = await subscriberIds(a, name, judge, (ids) => !ids.includes(users.B.userId))
      judge.match(
        subs.ex.json,
        match.when(
          'list subscribers of the new channel',
          subscribers(subs.ids, match.lacks('', users.B.userId, { what: 'B, who subscribed to the deleted channel' })),
        ),
        subs.ex,
      )
    },
  )

  check('channels.delete.owner-only', 'refuses a subscribed non-owner and keeps the channel', async ({ a, b, users, channels, judge }) => {
    const name = await channels.create(a)
    await mustSubscribe(b, name)
    await subscriberIds(a, name, judge, (ids) => ids.includes(users.B.userId))
    await deleteRefusedKept(a, b, name, judge, 'the subscriber B')
  })

  // personal absent and personal=false alike: "`personal` defaults to false, meaning a public channel".
  for (const personal of [undefined, false] as const)
    check(
      'channels.delete.personal-default',
      `a delete ${personal === false ? 'with personal=false' : 'without personal'} removes the public channel and keeps the owner's private one of that name`,
      async ({ a, b, channels, judge }) => {
        const name = await channels.create(a)
        if (!(await createOptional(a, channels, judge, { channelName: name, privateChannel: true }, "a private channel named like the owner's public one")))
          return
        judge.response(await a.deleteChannel(name, personal), { status: '2xx' })
        // A deployment may show the delete a moment later: poll until the owner's plain name reaches the private one.
        const mine = await eventually(
          () => a.getChannel(name),
          (e) => e.status === 200 && bodyOf(e)?.privateChannel === true,
        )
        const privateKept = (m: Matcher) => match.when(`owner's GET ${name} after a delete without personal`, m)
        judge.match(mine, privateKept(match.status(200)), mine)
        judge.match(bodyOf(mine), privateKept(match.equal('/privateChannel', true, 'the private channel, which was not the one deleted')), mine)
        const other = await eventually(
          () => b.getChannel(name),
          (e) => !isSuccess(e) || bodyOf(e)?.privateChannel !== false,
        )
        const publicGone = match.anyOf(
          match.status('refusal', 'the public channel is gone'),
          match.not('/json/privateChannel', false, 'the deleted public channel'),
        )
        judge.match(other, match.when(`B's GET ${name} after the delete`, publicGone), other)
      },
    )
})
