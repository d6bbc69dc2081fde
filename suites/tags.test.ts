/**
 * §4.2 add, get, delete one and delete all tags of a channel. The owner A writes the tags of its own
 * public channel (personal=false); every change is read back with get tags.
 */
import type { Faker } from '@faker-js/faker'
import type { Api } from '../helpers/api'
import type { Exchange } from '../helpers/client'
import type { ClauseId } from '../helpers/clauses'
import { check, describe } from '../helpers/check'
import { ensure, expectResponse, show } from '../helpers/expect'
import { isSuccess } from '../helpers/expect'

interface Tags {
  channelName: string
  tags: string[]
}

/** Two tags no other check or run uses: each one token of 16 random hex digits, so neither contains another test tag. */
function twoTags(fake: Faker): [string, string] {
  const tag = (): string => fake.string.hexadecimal({ length: 16, casing: 'lower', prefix: '' })
  return [tag(), tag()]
}

/** The channel's tags, for the checks that read them (status and schema are judged by tags.get.shape). */
async function tagsOf(api: Api, name: string, id: ClauseId): Promise<{ body: Tags; ex: Exchange }> {
  const ex = await api.getTags(name)
  const body = expectResponse<Partial<Tags> | undefined>(ex, { status: '2xx', clause: id })
  ensure(Array.isArray(body?.tags), id, `/tags: got ${show(body?.tags)}, want an array of strings`, ex)
  return { body: body as Tags, ex }
}

/** Adds the tags (set-up of the checks that judge what follows; the exact answer is judged by tags.add.response). */
async function added(api: Api, name: string, tags: string[], id: ClauseId): Promise<void> {
  expectResponse(await api.addTags(name, tags, false), { status: '2xx', clause: id })
}

describe('POST /channels/{channel_name}/tags (§4.2 add tags)', () => {
  check('tags.add.response', 'answers 200 with code and message', async ({ a, channels, fake }) => {
    const name = await channels.create(a)
    const ex = await a.addTags(name, twoTags(fake), false)
    expectResponse(ex, { status: 200, clause: 'tags.add.response', schema: 'code-message' })
  })

  check('tags.add.visible', 'stores the added tags, which get tags returns', async ({ a, channels, fake }) => {
    const name = await channels.create(a)
    const [x, y] = twoTags(fake)
    await added(a, name, [x, y], 'tags.add.visible')
    const { body, ex } = await tagsOf(a, name, 'tags.add.visible')
    const missing = [x, y].filter((t) => !body.tags.includes(t))
    ensure(missing.length === 0, 'tags.add.visible', `/tags: got ${show(body.tags)}, missing ${show(missing)}`, ex)
  })
})

describe('GET /channels/{channel_name}/tags (§4.2 get tags)', () => {
  check('tags.get.shape', 'answers 200 with the channel name and an array of tags', async ({ a, channels, fake }) => {
    const name = await channels.create(a)
    await added(a, name, twoTags(fake), 'tags.get.shape')
    const ex = await a.getTags(name)
    const body = expectResponse<Tags>(ex, { status: 200, clause: 'tags.get.shape', schema: 'tags' })
    ensure(body.channelName.toLowerCase() === name.toLowerCase(), 'tags.get.shape', `/channelName: got ${show(body.channelName)}, want ${show(name)}`, ex)
  })
})

describe('DELETE /channels/{channel_name}/tags/{tag} (§4.2 delete one tag)', () => {
  check('tags.delete-one.status', 'answers 200 when the owner deletes a tag', async ({ a, channels, fake }) => {
    const name = await channels.create(a)
    const [x, y] = twoTags(fake)
    await added(a, name, [x, y], 'tags.delete-one.status')
    expectResponse(await a.deleteTag(name, x, false), { status: 200, clause: 'tags.delete-one.status' })
  })

  check('tags.delete-one.removes', 'removes that tag and keeps the other', async ({ a, channels, fake }) => {
    const name = await channels.create(a)
    const [x, y] = twoTags(fake)
    await added(a, name, [x, y], 'tags.delete-one.removes')
    const del = await a.deleteTag(name, x, false)
    expectResponse(del, { status: '2xx', clause: 'tags.delete-one.removes' })
    const { body, ex } = await tagsOf(a, name, 'tags.delete-one.removes')
    ensure(!body.tags.includes(x), 'tags.delete-one.removes', `/tags: got ${show(body.tags)}; the deleted tag ${show(x)} is still there`, ex)
    ensure(body.tags.includes(y), 'tags.delete-one.removes', `/tags: got ${show(body.tags)}; the other tag ${show(y)} is gone`, ex)
  })
})

describe('DELETE /channels/{channel_name}/tags (§4.2 delete all tags)', () => {
  check('tags.delete-all.status', 'answers 200 when the owner deletes all tags', async ({ a, channels, fake }) => {
    const name = await channels.create(a)
    await added(a, name, twoTags(fake), 'tags.delete-all.status')
    expectResponse(await a.deleteTags(name, false), { status: 200, clause: 'tags.delete-all.status' })
  })

  check('tags.delete-all.removes', 'leaves the channel with no tags', async ({ a, channels, fake }) => {
    const name = await channels.create(a)
    const tags = twoTags(fake)
    await added(a, name, tags, 'tags.delete-all.removes')
    const before = await tagsOf(a, name, 'tags.delete-all.removes')
    ensure(tags.every((t) => before.body.tags.includes(t)), 'tags.delete-all.removes', `before delete: /tags got ${show(before.body.tags)}, want ${show(tags)}`, before.ex)
    expectResponse(await a.deleteTags(name, false), { status: '2xx', clause: 'tags.delete-all.removes' })
    const { body, ex } = await tagsOf(a, name, 'tags.delete-all.removes')
    ensure(body.tags.length === 0, 'tags.delete-all.removes', `/tags: got ${show(body.tags)}, want []`, ex)
  })
})

// ── deep checks: a tag that starts another, a tag added twice ──────────────────────────────────────────

describe('tags in depth: prefixes and repeats (§4.2)', () => {
  check('tags.delete-one.removes', 'keeps a tag that begins with the deleted one', async ({ a, channels, fake }) => {
    const id = 'tags.delete-one.removes'
    const name = await channels.create(a)
    const [x] = twoTags(fake)
    const longer = `${x}ab`
    await added(a, name, [x, longer], id)
    expectResponse(await a.deleteTag(name, x, false), { status: '2xx', clause: id })
    const { body, ex } = await tagsOf(a, name, id)
    ensure(!body.tags.includes(x), id, `/tags: got ${show(body.tags)}; the deleted tag ${show(x)} is still there`, ex)
    ensure(body.tags.includes(longer), id, `/tags: got ${show(body.tags)}; ${show(longer)}, which only begins with the deleted tag, is gone`, ex)
  })

  check('tags.delete-one.removes', 'removes a tag that was added twice', async ({ a, channels, fake, rec }) => {
    const id = 'tags.delete-one.removes'
    const name = await channels.create(a)
    const [x, y] = twoTags(fake)
    await added(a, name, [x, y], id)
    const again = await a.addTags(name, [x], false)
    if (!isSuccess(again)) {
      // Adding a tag that is there already may be refused (the spec shows no error): nothing to judge then.
      rec.observe('tags.add.repeat', `adding ${show(x)} a second time: status ${again.status}`)
      return
    }
    expectResponse(await a.deleteTag(name, x, false), { status: '2xx', clause: id })
    const { body, ex } = await tagsOf(a, name, id)
    ensure(!body.tags.includes(x), id, `/tags: got ${show(body.tags)}; ${show(x)}, added twice and then deleted, is still there`, ex)
    ensure(body.tags.includes(y), id, `/tags: got ${show(body.tags)}; the other tag ${show(y)} is gone`, ex)
  })
})
