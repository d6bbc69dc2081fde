/**
 * The set-up layer (the clauses of the steps are STEP_CLAUSES in helpers/kit/judge.ts, judged through `steps`): the steps a check takes before it can judge its own clause (create a channel, publish,
 * subscribe, add tags, sign in, send). Each step is judged under the clause that governs it, never under the
 * check's own: when a step fails, its CheckFailure names the step's clause, and the reporter records that
 * failure under it (an entry with the check as `parent`) and ends the check `blocked` with `blockedBy` that
 * clause. So a server that refuses every publish fails items.publish.response once per check that needed a
 * publish, and no clause that merely needed items is blamed (helpers/runner/reporter.ts).
 *
 * A step that the check itself judges (B's publish in a publishPermission check, say) is not a set-up step:
 * the check makes that request and judges it under its own clause.
 */
import type { Faker } from '@faker-js/faker'
import type { Api, CreateChannelBody, SignInParams } from '../http/api'
import type { RunAccount, RunContext } from '../http/run-context'
import type { Exchange } from '../http/client'
import { ensure, isSuccess, show } from './expect'
import { steps, type Judge } from './judge'
import { eventually } from './poll'

/** The answer to a channel create must be 2xx with {code, message}. The `channels` fixture judges its creates here. */
export function mustHaveCreated(ex: Exchange): void {
  steps.createChannel.response(ex, { status: '2xx', schema: 'code-message' })
}

/**
 * A channel search that succeeded with another code than the stated Response 200 (a 202, a 204): the search's
 * deviation whatever the check asked of it, charged once to channels.search.shape, and the check is blocked by
 * it. A refusal stays the check's to judge (a server may refuse only some searches).
 */
export function mustSearchAnswer200(ex: Exchange): void {
  if (isSuccess(ex)) steps.searchAnswered.response(ex, { status: 200 })
}

/**
 * A channel created with privateChannel true is private: the owner's GET by the plain name (polled until 200:
 * reads may lag the create) answers 200, private.own-plain-name's step, with `privateChannel: true`,
 * private.create's. A check that needs a private channel is then blocked by the clause that states what went
 * wrong, not failed under its own for a channel the server made public. The `channels` fixture calls it.
 */
export async function mustBePrivate(owner: Api, name: string): Promise<void> {
  const ex = await eventually(
    () => owner.getChannel(name),
    (e) => e.status === 200,
  )
  const flag = steps.ownPlainName.response<{ privateChannel?: unknown } | undefined>(ex, { status: 200 })?.privateChannel
  ensure(
    flag === true,
    steps.privateMade,
    `set-up: the owner's GET of ${name}, created with privateChannel true: /privateChannel: got ${show(flag)}, want true`,
    ex,
  )
}

/** Creates a channel. Prefer the `channels` fixture, which also records it in the ledger and deletes it. */
export async function mustCreateChannel(owner: Api, body: CreateChannelBody): Promise<Exchange> {
  const ex = await owner.createChannel(body)
  mustHaveCreated(ex)
  return ex
}

/** Publishes an item: 2xx and a non-empty messageId. Returns the messageId. */
export async function mustPublish(api: Api, channel: string, body: Parameters<Api['publish']>[1]): Promise<string> {
  const ex = await api.publish(channel, body)
  const messageId = steps.publish.response<{ messageId?: unknown } | undefined>(ex, { status: '2xx' })?.messageId
  ensure(typeof messageId === 'string' && messageId.length > 0, steps.publish, `/messageId: got ${show(messageId)}, want a non-empty string`, ex)
  return messageId
}

/** Subscribes the caller to a channel (2xx). */
export async function mustSubscribe(api: Api, channel: string): Promise<void> {
  steps.subscribe.response(await api.subscribe(channel), { status: '2xx' })
}

/**
 * Adds tags to a channel (2xx; `personal` as the add-tags body takes it) and reads them back: a check that
 * needs tags must not blame its own clause (or a refused call) for tags the server never stored.
 */
export async function mustAddTags(api: Api, channel: string, tags: string[], personal?: boolean): Promise<void> {
  steps.addTags.response(await api.addTags(channel, tags, personal), { status: '2xx' })
  // Polled until every tag shows: reads may lag the write just made.
  const ex = await eventually(
    () => api.getTags(channel),
    (e) => {
      const got = (e.json as { tags?: unknown } | undefined)?.tags
      return isSuccess(e) && Array.isArray(got) && tags.every((t) => got.includes(t))
    },
  )
  // Get tags takes no personal flag: the owner reads its private channel's tags by the plain name, which is
  // private.own-plain-name's to judge.
  const stored = (personal ? steps.ownPlainName : steps.getTags).response<{ tags?: unknown } | undefined>(ex, { status: '2xx' })?.tags
  ensure(Array.isArray(stored), steps.getTags, `/tags: got ${show(stored)}, want an array of strings`, ex)
  const missing = tags.filter((t) => !stored.includes(t))
  ensure(missing.length === 0, steps.tagsStored, `set-up: after adding ${show(tags)}, /tags got ${show(stored)}; missing ${show(missing)}`, ex)
}

/** Signs in (2xx and a string access_token); returns the token. */
export async function mustSignIn(api: Api, params: SignInParams): Promise<string> {
  const ex = await api.signIn(params)
  const token = steps.signIn.response<{ access_token?: unknown } | undefined>(ex, { status: '2xx' })?.access_token
  ensure(typeof token === 'string' && token.length > 0, steps.signIn, `/access_token: got a ${typeof token}, want a non-empty string`, ex)
  return token
}

/**
 * Signs `user` in once more, on a device of its own (`tag` tells it apart within the run), so that the user
 * may have two active devices where sign-in registers one. The spec does not say that it does; the checks
 * that use this hold whatever the device count.
 */
export async function mustSignInAnotherDevice(anon: Api, user: RunAccount, run: RunContext, tag: string): Promise<string> {
  return mustSignIn(anon, { userName: user.userName, password: user.password, clientId: run.clientId, deviceId: `${run.namePrefix}-${run.runId}-${tag}` })
}

/**
 * Of writes sent at the same moment, the values whose requests were answered 2xx: racing writes may be
 * refused (a conflict, a rate limit). When none was, the first answer fails `step`: nothing was written to judge.
 */
export function acceptedOfRace<T>(values: readonly T[], answers: readonly Exchange[], step: Judge): T[] {
  const kept = values.filter((_, i) => isSuccess(answers[i]!))
  if (kept.length === 0) step.response(answers[0]!, { status: '2xx' })
  return kept
}

/**
 * A value no other check or run uses (tags, descriptions, content refs searched for, made-up ids): lowercase
 * hex digits, so that no two contain one another whatever matching rule the server has. Drawn from the
 * check's seeded faker, so a run with the same SEED repeats it.
 */
export function uniqueToken(fake: Faker, length: 16 | 32 = 16): string {
  return fake.string.hexadecimal({ length, casing: 'lower', prefix: '' })
}
