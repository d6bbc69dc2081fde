/**
 * §4.2 add, get, delete one and delete all tags of a channel. The owner A writes the tags of its own
 * public channel (personal=false); every change is read back with get tags.
 */
import type { Faker } from '@faker-js/faker'
import type { Api } from '../helpers/http/api'
import type { Exchange } from '../helpers/http/client'
import { check, describe } from '../helpers/kit/check'
import { ensure, isSuccess, show } from '../helpers/kit/expect'
import { eventually } from '../helpers/kit/poll'
import { acceptedOfRace, mustAddTags, uniqueToken } from '../helpers/kit/setup'
import { together } from '../helpers/kit/together'
import { ALSO, steps } from '../helpers/kit/judge'
import { match, sameText } from './support/match'

interface Tags {
  channelName: string
  tags: string[]
}

/** Two tags no other check or run uses, neither containing another test tag. */
function twoTags(fake: Faker): [string, string] {
  return [uniqueToken(fake), uniqueToken(fake)]
}

/**
 * The channel's tags, for the checks that read them: a 2xx with a tags array is tags.get.shape's to judge (a
 * step here). Polled until `settled` holds: reads may lag the change just made.
 */
async function tagsOf(api: Api, name: string, settled: (tags: string[]) => boolean): Promise<{ body: Tags; ex: Exchange }> {
  const tagsIn = (e: Exchange): unknown => (e.json as Partial<Tags> | undefined)?.tags
  const ex = await eventually(
    () => api.getTags(name),
    (e) => isSuccess(e) && Array.isArray(tagsIn(e)) && settled(tagsIn(e) as string[]),
  )
  const body = steps.getTags.response<Partial<Tags> | undefined>(ex, { status: '2xx' })
  ensure(Array.isArray(body?.tags), steps.getTags, match.explain(body, match.type('/tags', 'array')), ex)
  return { body: body as Tags, ex }
}

/** Adds the tags and reads them back: a set-up step, charged to tags.add.response and tags.add.visible (helpers/kit/setup.ts). */
async function added(api: Api, name: string, tags: string[]): Promise<void> {
  await mustAddTags(api, name, tags, false)
}

describe('POST /channels/{channel_name}/tags (§4.2 add tags)', () => {
  check('tags.add.response', 'answers 200 with code and message', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const ex = await a.addTags(name, twoTags(fake), false)
    judge.response(ex, { status: 200, schema: 'code-message' })
  })

  check('tags.add.visible', 'stores the added tags, which get tags returns', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const [x, y] = twoTags(fake)
    await added(a, name, [x, y])
    const { body, ex } = await tagsOf(a, name, (t) => t.includes(x) && t.includes(y))
    judge.match(body, match.containsAll('/tags', [x, y]), ex)
  })

  check('tags.add.visible', 'stores the new tag of an accepted batch that repeats a tag the channel has', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const [x, y] = twoTags(fake)
    await added(a, name, [x])
    const again = await a.addTags(name, [x, y], false)
    if (!isSuccess(again)) {
      // A batch holding a tag that is there already may be refused whole (the spec shows no error): nothing was added then.
      judge.observe(`adding ${show([x, y])} when ${show(x)} is there already: status ${again.status}`, ALSO.tagsAddRepeat)
      return
    }
    const { body, ex } = await tagsOf(a, name, (t) => t.includes(x) && t.includes(y))
    judge.match(body, match.when(`after an add of ${show([x, y])} answered ${again.status}`, match.containsAll('/tags', [x, y])), ex)
  })

  check('tags.add.visible', 'keeps the tags of two adds sent at the same time', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const [x, y] = twoTags(fake)
    // Sent together (helpers/kit/together.ts): under a busy run's pace they would otherwise leave milliseconds apart.
    const answers = await together([() => a.addTags(name, [x], false), () => a.addTags(name, [y], false)])
    // Each add that was answered with a 2xx must have stored its tag.
    const kept = acceptedOfRace([x, y], answers, steps.addTags)
    const { body, ex } = await tagsOf(a, name, (t) => kept.every((k) => t.includes(k)))
    judge.match(body, match.when('each added by one of two concurrent 2xx adds', match.containsAll('/tags', kept)), ex)
  })
})

describe('GET /channels/{channel_name}/tags (§4.2 get tags)', () => {
  check('tags.get.shape', 'answers 200 with the channel name and an array of tags', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const tags = twoTags(fake)
    await added(a, name, tags)
    const ex = await eventually(
      () => a.getTags(name),
      (e) => {
        const got = (e.json as Partial<Tags> | undefined)?.tags
        return e.status === 200 && Array.isArray(got) && tags.every((t) => got.includes(t))
      },
    )
    const body = judge.response<Tags>(ex, { status: 200, schema: 'tags' })
    judge.match(
      body,
      match.that('/channelName', (got) => sameText(got, name), `${show(name)} in any case`),
      ex,
    )
  })
})

describe('DELETE /channels/{channel_name}/tags/{tag} (§4.2 delete one tag)', () => {
  check('tags.delete-one.status', 'answers 200 when the owner deletes a tag', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const [x, y] = twoTags(fake)
    await added(a, name, [x, y])
    judge.response(await a.deleteTag(name, x, false), { status: 200 })
  })

  check('tags.delete-one.removes', 'removes that tag and keeps the other', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const [x, y] = twoTags(fake)
    await added(a, name, [x, y])
    const del = await a.deleteTag(name, x, false)
    judge.response(del, { status: '2xx' })
    const { body, ex } = await tagsOf(a, name, (t) => !t.includes(x))
    judge.match(body, [match.lacks('/tags', x, { what: 'the deleted tag' }), match.contains('/tags', y, { what: 'the other tag' })], ex)
  })

  check('tags.delete-one.removes', 'keeps a tag that begins with the deleted one', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const [x] = twoTags(fake)
    const longer = `${x}ab`
    await added(a, name, [x, longer])
    judge.response(await a.deleteTag(name, x, false), { status: '2xx' })
    const { body, ex } = await tagsOf(a, name, (t) => !t.includes(x))
    judge.match(
      body,
      [match.lacks('/tags', x, { what: 'the deleted tag' }), match.contains('/tags', longer, { what: 'which only begins with the deleted tag' })],
      ex,
    )
  })

  check('tags.delete-one.removes', 'removes the last added of three tags and keeps the first two', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const [x, y] = twoTags(fake)
    const z = uniqueToken(fake)
    await added(a, name, [x, y, z])
    judge.response(await a.deleteTag(name, z, false), { status: '2xx' })
    const { body, ex } = await tagsOf(a, name, (t) => !t.includes(z))
    judge.match(body, [match.lacks('/tags', z, { what: 'the deleted tag' }), match.containsAll('/tags', [x, y])], ex)
  })

  check('tags.delete-one.removes', 'removes a tag that was added twice', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const [x, y] = twoTags(fake)
    await added(a, name, [x, y])
    const again = await a.addTags(name, [x], false)
    if (!isSuccess(again)) {
      // Adding a tag that is there already may be refused (the spec shows no error): nothing to judge then.
      judge.observe(`adding ${show(x)} a second time: status ${again.status}`, ALSO.tagsAddRepeat)
      return
    }
    // Whether tags are a set or a list is not stated: a server that lists the tag twice may remove one of them.
    const twice = await tagsOf(a, name, (t) => t.includes(x))
    const copies = twice.body.tags.filter((t) => t === x).length
    judge.observe(`adding ${show(x)} a second time: status ${again.status}; get tags lists it ${copies} time(s)`, ALSO.tagsAddRepeat)
    if (copies > 1) return
    judge.response(await a.deleteTag(name, x, false), { status: '2xx' })
    const { body, ex } = await tagsOf(a, name, (t) => !t.includes(x))
    judge.match(body, [match.lacks('/tags', x, { what: 'added twice and then deleted' }), match.contains('/tags', y, { what: 'the other tag' })], ex)
  })
})

describe('DELETE /channels/{channel_name}/tags (§4.2 delete all tags)', () => {
  check('tags.delete-all.status', 'answers 200 when the owner deletes all tags', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    await added(a, name, twoTags(fake))
    judge.response(await a.deleteTags(name, false), { status: 200 })
  })

  check('tags.delete-all.removes', 'leaves the channel with no tags', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const tags = twoTags(fake)
    await added(a, name, tags)
    const before = await tagsOf(a, name, (t) => tags.every((v) => t.includes(v)))
    judge.match(before.body, match.when('before delete', match.containsAll('/tags', tags)), before.ex)
    judge.response(await a.deleteTags(name, false), { status: '2xx' })
    const { body, ex } = await tagsOf(a, name, (t) => t.length === 0)
    judge.match(body, match.size('/tags', 0), ex)
  })
})
