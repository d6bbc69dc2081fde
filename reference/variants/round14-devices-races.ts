/** Blind round 14 (docs/detection.md), people, devices and races: correct servers that choose differently where the spec leaves the choice open. */
import type { FastifyRequest } from 'fastify'
import { callerOf } from '../auth'
import { resolveChannel } from '../channel-address'
import type { ServerContext } from '../context'
import { newId } from '../ids'
import { rewriteJson, wrapHandler } from '../faults/kit'
import type { Store } from '../store'
import type { Handler } from './common'
import type { Variant } from './types'

/**
 * Subscriptions are kept per device: a user's subscribe from a device that holds no subscription to the channel
 * adds one (with that device id); a repeated subscribe from the same device answers the subscription it has.
 * Unsubscribe cancels every subscription of the user, as the reference does, and states how many.
 */
const subscriptionsPerDevice: Variant = {
  name: 'r14dv-subscriptions-per-device',
  area: 'subscriptions',
  description:
    'subscriptions are per device: a subscribe from another device of an already subscribed user adds a second subscription (listed with that deviceId); unsubscribe cancels all of the user\u2019s and counts them',
  reading:
    '§2.5 a Subscription carries a deviceId (string or null) beside the userId; §4.2 unsubscribe "states the number of subscriptions cancelled", so a user may hold several. Nothing says a user holds at most one subscription per channel, nor what a subscribe from a second device answers.',
  install(app, ctx: ServerContext) {
    wrapHandler(
      app,
      'subscriptions.subscribe',
      () =>
        async function (request: FastifyRequest) {
          const { user, deviceId } = callerOf(request)
          const channel = resolveChannel(ctx, user.userId, (request.params as { channel: string }).channel)
          const existing = ctx.store.listSubscriptions(channel.channelId).find((s) => s.userId === user.userId && s.deviceId === deviceId)
          if (existing) return { code: 200, subId: existing.subscriptionId, msg: 'already subscribed from this device' }
          const subscriptionId = newId()
          ctx.store.addSubscription({ subscriptionId, channelId: channel.channelId, userId: user.userId, deviceId, createdAt: ctx.clock.now() })
          return { code: 200, subId: subscriptionId, msg: `subscribed to ${channel.name} from device ${deviceId}` }
        } as Handler,
    )
  },
}

/**
 * One session per user and device: a sign-in of a user on a device where that user already holds a live token
 * answers that token again, its lifetime renewed to the full expires_in. Another device, or another user on the
 * same device, gets a token of its own.
 */
function tokenPerDevice(): Variant {
  const byPair = new Map<string, string>()
  const pair = (userId: string, deviceId: string) => `${userId}\n${deviceId}`
  let store: Store | undefined
  return {
    name: 'r14dv-signin-token-per-device',
    area: 'signin',
    description:
      'a repeated sign-in of one user on one MMS-DEVICE-ID answers the same access_token (renewed to the full lifetime) instead of a new one; other devices and other users get their own',
    reading:
      '§5.6 "Token refresh, token revocation … : not shown"; §2.2 only says access_token is used as the bearer token. Whether a sign-in mints a new token or renews the device\u2019s live one is the server\u2019s choice; every token answered keeps working for its user.',
    wrapStore(inner: Store) {
      byPair.clear()
      store = inner
      return inner
    },
    install(app, ctx: ServerContext) {
      rewriteJson(app, 'users.signIn', (body: { access_token: string; user: { userIdentifier: string } }) => {
        const s = store ?? ctx.store
        const fresh = s.getToken(body.access_token)
        if (!fresh || fresh.userId === null) return body
        const key = pair(fresh.userId, fresh.deviceId)
        const prior = byPair.get(key)
        const live = prior === undefined ? undefined : s.getToken(prior)
        if (!live || live.expiresAt <= ctx.clock.now() || live.userId !== fresh.userId) {
          byPair.set(key, fresh.token)
          return body
        }
        // Renew the device's token and retire the one just minted (it was never handed out).
        s.addToken({ ...live, expiresAt: fresh.expiresAt })
        s.addToken({ ...fresh, expiresAt: 0 })
        return { ...body, access_token: live.token }
      })
    },
  }
}

export const ROUND14_DEVICE_RACE_VARIANTS: Variant[] = [subscriptionsPerDevice, tokenPerDevice()]
