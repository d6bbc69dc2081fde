/** Blind round 15 (docs/detection.md), people, devices and races: correct servers that choose differently where the spec leaves the choice open. */
import type { FastifyRequest } from 'fastify'
import { pairKey, scoped } from '../faults/deep-common'
import { aroundHandler, overrideStore } from '../faults/kit'
import type { Variant } from './types'

/**
 * One live session per user and device: a repeated sign-in of a user on a device id it already holds a live
 * token for answers that same token (its lifetime renewed, expires_in as usual) instead of minting another.
 * Another user on that device id, or the user on another device id, gets a token of its own.
 */
const sessionPerDevice: Variant = {
  name: 'r15dv-signin-session-per-device',
  area: 'signin',
  description:
    'a repeated sign-in of the same user with the same MMS-DEVICE-ID answers the live access_token it already has (lifetime renewed) instead of a new one; other users and other device ids get their own tokens',
  reading:
    '§2.2 only says access_token is "used as bearer token" and §5.3 that the sign-in response carries access_token, token_type and expires_in; §5.6: "Token refresh, token revocation …: not shown." Nothing says each sign-in mints a distinct token; the token answered works as a bearer token for that user, and the earlier one keeps working.',
  install(app, ctx) {
    const held = new Map<string, string>()
    aroundHandler(app, 'users.signIn', async (request: FastifyRequest, reply, next) => {
      const session = (await next()) as { access_token?: string; user?: { userIdentifier?: string } } | undefined
      const userId = session?.user?.userIdentifier
      const deviceId = request.headers['mms-device-id']
      if (reply.statusCode >= 400 || !session?.access_token || typeof userId !== 'string' || typeof deviceId !== 'string') return session
      const key = pairKey(userId, deviceId)
      const now = ctx.clock.now()
      const prior = held.get(key)
      const record = prior === undefined ? undefined : ctx.store.getToken(prior)
      if (prior !== undefined && record && record.kind === 'USER' && record.userId === userId && record.expiresAt > now) {
        ctx.store.addToken({ ...record, expiresAt: now + ctx.tokenLifetimeSeconds * 1000 })
        return { ...session, access_token: prior }
      }
      held.set(key, session.access_token)
      return session
    })
  },
}

/**
 * Subscriptions per device: a user's subscribe from a device id it has no subscription from adds one (with
 * that deviceId); a subscribe again from the same device id answers that one. The list shows a user once per
 * device it subscribed from, and unsubscribe cancels all the caller's subscriptions, stating how many.
 */
const subscriptionPerDevice: Variant = {
  name: 'r15dv-subscriptions-per-device',
  area: 'subscriptions',
  description:
    "subscribe is idempotent per (user, device id): the same user subscribing from a second device gets a second subscription (listed with that deviceId); unsubscribe cancels all the caller's and states the number",
  reading:
    '§2.5 gives each Subscription a deviceId, and §4.2 says of unsubscribe that "the message states the number of subscriptions cancelled": a user may hold several subscriptions to one channel. The spec does not say subscribe is idempotent per user rather than per device.',
  install(app, ctx) {
    const subscribing = scoped<string>()
    subscribing.install(app, 'subscriptions.subscribe', (request) => (request.caller?.kind === 'USER' ? request.caller.deviceId : undefined))
    ctx.store = overrideStore(ctx.store, {
      findSubscription: (inner) => (channelId, userId) => {
        const deviceId = subscribing.get()
        if (deviceId === undefined) return inner.findSubscription(channelId, userId)
        return inner.listSubscriptions(channelId).find((s) => s.userId === userId && s.deviceId === deviceId)
      },
    })
  },
}

export const ROUND15_DEVICE_RACE_VARIANTS: readonly Variant[] = [sessionPerDevice, subscriptionPerDevice]
