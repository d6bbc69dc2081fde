import type { FastifyPluginAsync } from 'fastify'
import { callerOf } from '../auth'
import { resolveChannel } from '../channel-address'
import type { RoutePluginOptions } from '../context'
import { newId } from '../ids'
import { subscriptionView } from '../views'
import type { ChannelParams } from './channels'

/** Subscriptions (§4.2): subscribe, unsubscribe, list subscribers. One subscription per user and channel. */
const subscriptionRoutes: FastifyPluginAsync<RoutePluginOptions> = async (app, { ctx }) => {
  const { store, clock } = ctx

  app.put<{ Params: ChannelParams }>('/channels/:channel/subscribe', { config: { id: 'subscriptions.subscribe', auth: 'user' } }, async (request) => {
    const { user, deviceId } = callerOf(request)
    const channel = resolveChannel(ctx, user.userId, request.params.channel)
    // Idempotent: a second subscribe answers the subscription the user already has.
    const existing = store.findSubscription(channel.channelId, user.userId)
    if (existing) return { code: 200, subId: existing.subscriptionId, msg: 'already subscribed' }
    const subscriptionId = newId()
    store.addSubscription({ subscriptionId, channelId: channel.channelId, userId: user.userId, deviceId, createdAt: clock.now() })
    return { code: 200, subId: subscriptionId, msg: `subscribed to ${channel.name}` }
  })

  app.put<{ Params: ChannelParams }>('/channels/:channel/unsubscribe', { config: { id: 'subscriptions.unsubscribe', auth: 'user' } }, async (request) => {
    const { user } = callerOf(request)
    const channel = resolveChannel(ctx, user.userId, request.params.channel)
    const cancelled = store.removeSubscriptions(channel.channelId, user.userId)
    return { message: `${cancelled} subscription(s) cancelled`, code: 200 }
  })

  app.get<{ Params: ChannelParams }>('/channels/:channel/subscriptions', { config: { id: 'subscriptions.list', auth: 'user' } }, async (request) => {
    const { user } = callerOf(request)
    const channel = resolveChannel(ctx, user.userId, request.params.channel)
    return store.listSubscriptions(channel.channelId).map((s) => subscriptionView(channel, s))
  })
}

export default subscriptionRoutes
