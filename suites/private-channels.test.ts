/**
 * §2.3 private channels and their addressing: the owner uses the plain name, another user
 * `<user_id>#<channel_name>` (the Api sends `#` as %23); §4.2 delete with personal=true.
 * Private channels made with `channels.create(owner, { privateChannel: true })` are deleted with personal=true.
 */
import type { Api } from '../helpers/http/api'
import { check, describe } from '../helpers/kit/check'
import type { Exchange } from '../helpers/http/client'
import { ensure, isSuccess, show } from '../helpers/kit/expect'
import { eventually } from '../helpers/kit/poll'

import { uniqueToken } from '../helpers/kit/setup'
import { ALSO, steps } from '../helpers/kit/judge'
import { bodyOf, everything, type Body } from './support/read'
import { match, type Matcher } from './support/match'
import { judgeAddressRead, judgeHiddenFromB, resolves } from './support/private'

/** The owner's GET by the plain name, polled until 200: reads may lag the create. */
function ownGet(owner: Api, name: string): Promise<Exchange> {
  return eventually(
    () => owner.getChannel(name),
    (e) => e.status === 200,
  )
}

describe('private channels (§2.3 addressing, §4.2 create and delete)', () => {
  check('private.create', 'creates a private channel with privateChannel true', async ({ a, channels, judge }) => {
    const name = await channels.create(a, { privateChannel: true })
    const ex = await ownGet(a, name)
    // Reading it back by the plain name is the owner's addressing, judged by private.own-plain-name: a set-up step here.
    const ch = steps.ownPlainName.response<Body>(ex, { status: 200 })
    judge.match(ch, match.when("owner's GET", match.equal('/privateChannel', true)), ex)
  })

  check('private.own-plain-name', 'lets the owner reach its private channel by the plain name', async ({ a, channels, fake, judge }) => {
    const description = fake.lorem.sentence()
    const name = await channels.create(a, { privateChannel: true, description })
    const ex = await ownGet(a, name)
    const ch = judge.response<Body>(ex, { status: 200 })
    judge.match(ch, match.equal('/name', name), ex)
    judge.match(ch, [match.equal('/description', description, 'as created'), match.equal('/privateChannel', true)], ex)
  })

  // The spec defines the address, not who may read through it: the address must resolve (not a bad name); a 2xx
  // must be A's channel; a refusal such as 403 (only the owner reads it) is the server's choice, and so is a 404
  // that hides the channel from B, if the owner's GET of the address reaches it (judgeHiddenFromB).
  check(
    'private.other-user-address',
    "resolves another user's <user_id>#<channel_name> to that private channel",
    async ({ a, b, users, channels, fake, judge }) => {
      const description = fake.lorem.sentence()
      const name = await channels.create(a, { privateChannel: true, description })
      const address = `${users.A.userId}#${name}`
      // Polled past 404: reads may lag the create. An address the server does not understand stays 404.
      const ex = await eventually(
        () => b.getChannel(address),
        (e) => e.status !== 404,
      )
      if (isSuccess(ex)) {
        const ch = bodyOf(ex) ?? {}
        judge.match(ch, match.equal('/name', name), ex)
        judge.match(ch, [match.equal('/description', description, "A's private channel's"), match.equal('/privateChannel', true)], ex)
        judge.observe(`B reads A's private channel through its address: status ${ex.status}`, ALSO.otherUserRead)
        return
      }
      judge.refused(ex)
      judge.match(ex, match.when(`B's GET of ${address}`, resolves("2xx, or a refusal that the channel is not B's to read, such as 403")), ex)
      if (ex.status === 404) return judgeHiddenFromB(a, address, name, judge)
      const unknown = await b.getChannel(`${users.A.userId}#${channels.name()}`)
      judge.observe(
        `B's GET of A's private channel through its address: status ${ex.status} (only its owner may read it); of an address naming no channel: status ${unknown.status}`,
        ALSO.otherUserRead,
      )
    },
  )

  check('private.plain-name-not-shared', 'does not give another user the private channel by its plain name', async ({ a, b, users, channels, judge }) => {
    const name = await channels.create(a, { privateChannel: true })
    // Seen by its owner first, so that B's refusal is not merely a read lagging the create.
    await ownGet(a, name)
    const ex = await b.getChannel(name)
    if (!isSuccess(ex)) return
    // A 2xx is acceptable only if it is some other channel of that name, not A's private one.
    const ch = bodyOf(ex)
    const notAs = (m: Matcher) => match.when(`B's GET by the plain name answered ${ex.status}, so it must not be A's private channel`, m)
    judge.match(
      ch,
      [
        notAs(match.not('/userId', users.A.userId, "A's user id")),
        notAs(
          match.that(
            '/creator',
            (c) => typeof c !== 'string' || !c.startsWith(users.A.userId),
            `a creator not starting with A's user id ${show(users.A.userId)}`,
          ),
        ),
        notAs(match.not('/privateChannel', true)),
      ],
      ex,
    )
  })

  check('private.delete-personal', "deletes the owner's private channel with personal=true", async ({ a, b, users, channels, judge }) => {
    const name = await channels.create(a, { privateChannel: true })
    // Reads may lag the create: the channel is seen before it is deleted, so "gone" afterwards means the delete.
    await ownGet(a, name)
    const del = await a.deleteChannel(name, true)
    judge.response(del, { status: '2xx' })
    const ex = await eventually(
      () => a.getChannel(name),
      (e) => !isSuccess(e),
    )
    judge.match(ex, match.when("owner's GET after the personal delete", match.status('refusal', 'the channel is gone')), ex)
    const other = await eventually(
      () => b.getChannel(`${users.A.userId}#${name}`),
      (e) => !isSuccess(e),
    )
    judge.match(other, match.when(`B's GET of ${users.A.userId}#${name} after the delete`, match.status('refusal')), other)
  })

  check(
    'channels.delete.owner-only',
    "refuses another user's delete of a private channel addressed as <user_id>#<channel_name>",
    async ({ a, b, users, channels, judge }) => {
      const name = await channels.create(a, { privateChannel: true })
      const address = `${users.A.userId}#${name}`
      // The owner's read-back by the plain name must work before it can show that B's delete left the channel.
      const before = await ownGet(a, name)
      steps.ownPlainName.match(
        before,
        match.when("set-up: the owner's GET by the plain name, to read back whether B's delete removed the channel", match.status(200)),
        before,
      )
      for (const personal of [false, true]) {
        const ex = await b.deleteChannel(address, personal)
        // No code is asked for: personal=false means a public channel, and a server may read it so and answer that
        // no public channel has this name (404); personal=true names a channel of the caller's own. The 403 for a
        // non-owner is asked of the plain form (channels.test.ts).
        judge.refused(ex)
        // Polled: reads may lag the create; a channel B's delete removed never comes back, so the poll ends in a 404.
        const after = await ownGet(a, name)
        judge.match(
          after,
          match.when(`owner's GET after B's refused delete of ${address} (personal=${personal})`, match.status(200, 'the channel still exists')),
          after,
        )
      }
    },
  )

  check('private.tags-personal', "adds, reads and deletes tags of the owner's private channel with personal=true", async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a, { privateChannel: true })
    const [x, y, z] = [0, 1, 2].map(() => uniqueToken(fake)) as [string, string, string]
    judge.response(await a.addTags(name, [x, y, z], true), { status: '2xx' })
    // Polled until the read shows the change just made: reads may lag the writes.
    const tagsOf = async (settled: (tags: unknown[]) => boolean): Promise<{ tags: unknown[]; ex: Exchange }> => {
      const tagsIn = (e: Exchange): unknown => bodyOf(e)?.tags
      const ex = await eventually(
        () => a.getTags(name),
        (e) => e.status === 200 && Array.isArray(tagsIn(e)) && settled(tagsIn(e) as unknown[]),
      )
      // A read by the plain name: reaching the owner's private channel that way is private.own-plain-name's to judge.
      const tags = steps.ownPlainName.response<Body | undefined>(ex, { status: 200 })?.tags
      ensure(Array.isArray(tags), steps.getTags, match.explain({ tags }, match.type('/tags', 'array')), ex)
      return { tags, ex }
    }
    const added = await tagsOf((t) => [x, y, z].every((v) => t.includes(v)))
    judge.match(added, match.when('after add with personal=true', match.containsAll('/tags', [x, y, z])), added.ex)
    judge.response(await a.deleteTag(name, x, true), { status: 200 })
    const one = await tagsOf((t) => !t.includes(x))
    const afterDelete = (m: Matcher) => match.when(`after delete of ${x} with personal=true`, m)
    judge.match(
      one,
      [afterDelete(match.lacks('/tags', x, { what: 'the deleted tag' })), afterDelete(match.contains('/tags', y, { what: 'a tag not deleted' }))],
      one.ex,
    )
    judge.response(await a.deleteTags(name, true), { status: 200 })
    const none = await tagsOf((t) => t.length === 0)
    judge.match(none, match.when('after delete all with personal=true', match.size('/tags', 0)), none.ex)
  })

  check(
    'private.own-plain-name',
    'lets the owner read summary, items, subscribers and tags of its private channel by the plain name',
    async ({ a, channels, judge }) => {
      const name = await channels.create(a, { privateChannel: true })
      // One item, so that the summary has a publish to report.
      // Publishing by the plain name is one of the owner's paths to its private channel: judged here.
      judge.response(await a.publish(name, { content: { text: 'ct private read paths' }, messageType: 'text', contentType: 'text/plain' }), { status: '2xx' })
      const reads: [string, () => Promise<Exchange>][] = [
        ['summary', () => a.summary(name)],
        ['fetch items', () => a.fetchItems(name, everything())],
        ['list subscribers', () => a.subscriptions(name)],
        ['get tags', () => a.getTags(name)],
      ]
      for (const [what, read] of reads) {
        // Polled: reads may lag the create and the publish.
        const ex = await eventually(read, isSuccess)
        judge.match(ex, match.when(`the owner's ${what} of its private channel by the plain name ${name}`, match.status('2xx')), ex)
      }
    },
  )

  check(
    'private.other-user-address',
    'lets another user reach a private channel whose name holds a dot as <user_id>#<channel_name>',
    async ({ a, b, users, channels, judge }) => {
      const name = `${channels.name()}.p`
      channels.track(a, name, true)
      const made = await a.createChannel({ channelName: name, privateChannel: true })
      if (!isSuccess(made)) {
        judge.observe(`a private channel name with "." (${name}): create answered ${made.status}, so the check has nothing to judge`, ALSO.nameAlphabet)
        return
      }
      await judgeAddressRead(a, b, `${users.A.userId}#${name}`, name, judge, 'a private channel whose name holds a dot')
    },
  )

  check(
    'private.delete-personal',
    "deletes the private channel with personal=true and keeps the owner's public one of that name",
    async ({ a, b, channels, judge }) => {
      const name = await channels.create(a)
      channels.track(a, name, true)
      const twin = await a.createChannel({ channelName: name, privateChannel: true })
      if (!isSuccess(twin)) {
        judge.observe(
          `a private channel named like the owner's public one: create answered ${twin.status}, so the check has nothing to judge`,
          ALSO.nameAlphabet,
        )
        return
      }
      judge.response(await a.deleteChannel(name, true), { status: '2xx' })
      // Polled: reads may lag the creates and the delete.
      const pub = await eventually(
        () => b.getChannel(name),
        (e) => e.status === 200 && bodyOf(e)?.privateChannel === false,
      )
      const publicKept = (m: Matcher) => match.when(`B's GET ${name} after the personal delete`, m)
      judge.match(pub, publicKept(match.status(200, 'the public channel, which was not the one deleted')), pub)
      judge.match(bodyOf(pub), publicKept(match.equal('/privateChannel', false, 'the public channel, which was not the one deleted')), pub)
      const mine = await eventually(
        () => a.getChannel(name),
        (e) => bodyOf(e)?.privateChannel !== true,
      )
      judge.match(
        bodyOf(mine),
        match.when(`owner's GET ${name} after the personal delete`, match.not('/privateChannel', true, 'the private channel, which was deleted')),
        mine,
      )
    },
  )
})
