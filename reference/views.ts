import type { ServerContext } from './context'
import type { ChannelRecord, ItemRecord, MessageRecord, SubscriptionRecord, UserRecord } from './model'
import { MAX_PAYLOAD_SIZE } from './limits'
import { formatOffsetTime, formatUtcTime } from './time'

/** Response shapes of §2, built from stored records. The only place the wire format is decided. */

/** The fixed placeholders of §2.1: a User never carries the real password or one-time code. */
export const PASSWORD_MASK = '********'
export const OTP_MASK = '******'

/** §2.1. The sign-in response leaves out email; the user list, search and enrolment include it. */
export function userView(user: Readonly<UserRecord>, withEmail: boolean) {
  return {
    userIdentifier: user.userId,
    clientId: user.clientId,
    firstName: user.firstName,
    lastName: user.lastName,
    ...(withEmail ? { email: user.email } : {}),
    userName: user.userName,
    password: PASSWORD_MASK,
    userRealm: user.userRealm,
    userStatus: user.userStatus,
    roles: [...user.roles],
    otpCode: OTP_MASK,
    userAccountData: { ...user.userAccountData },
  }
}

/** `<userId>%<appId>@<domain>/<deviceId>`: owner, application and domain, then the creating device. */
export function creatorOf(ctx: ServerContext, channel: Readonly<ChannelRecord>): string {
  const { appId, domain } = ctx.application
  return `${channel.ownerId}%${appId}@${domain}/${channel.ownerDeviceId}`
}

function channelFields(ctx: ServerContext, channel: Readonly<ChannelRecord>) {
  return {
    name: channel.name,
    description: channel.description,
    creator: creatorOf(ctx, channel),
    creationDate: formatOffsetTime(channel.createdAt),
    modifiedDate: formatOffsetTime(channel.modifiedAt),
    persistent: true,
    maxItems: channel.maxItems,
    maxPayloadSize: MAX_PAYLOAD_SIZE,
  }
}

/** §2.3 as GET /channels/{name} answers it: `publisherPermission` (sic) and `userId`. */
export function channelByNameView(ctx: ServerContext, channel: Readonly<ChannelRecord>) {
  return {
    ...channelFields(ctx, channel),
    subscriptionEnabled: true,
    publisherPermission: channel.publishPermission,
    privateChannel: channel.privateChannel,
    collection: false,
    userId: channel.privateChannel ? channel.ownerId : null,
  }
}

/** §2.3 as channel search answers it: `publishPermission`, and no `userId` (every result is public). */
export function channelSearchView(ctx: ServerContext, channel: Readonly<ChannelRecord>) {
  return {
    ...channelFields(ctx, channel),
    subscriptionEnabled: true,
    publishPermission: channel.publishPermission,
    privateChannel: channel.privateChannel,
    collection: false,
  }
}

/** §2.4. Before the first publish, lastPublishedTime is the channel's creation time. */
export function summaryView(channel: Readonly<ChannelRecord>, publishedItemCount: number) {
  return {
    userId: channel.privateChannel ? channel.ownerId : null,
    channelName: channel.name,
    publishedItemCount,
    lastPublishedTime: formatUtcTime(channel.lastPublishedAt ?? channel.createdAt),
  }
}

/** §2.5 */
export function subscriptionView(channel: Readonly<ChannelRecord>, sub: Readonly<SubscriptionRecord>) {
  return {
    userId: sub.userId,
    channelName: channel.name,
    subscriptionId: sub.subscriptionId,
    deviceId: sub.deviceId,
  }
}

/** §2.6: content exactly as published. */
export function itemView(channel: Readonly<ChannelRecord>, item: Readonly<ItemRecord>) {
  return {
    itemId: item.itemId,
    channelName: channel.name,
    publisher: { userId: item.publisherId, deviceId: item.publisherDeviceId },
    content: item.content,
  }
}

/** §2.7: one record per device the message was queued for. */
export function deliveryViews(message: Readonly<MessageRecord>) {
  return message.deliveries.map((d) => ({
    state: d.state,
    recipient: message.recipientId,
    sender: message.senderId,
    appId: message.appId,
    deviceId: d.deviceId,
    messageId: message.messageId,
    queuedAt: formatUtcTime(d.queuedAt),
    receivedAt: d.receivedAt === null ? null : formatUtcTime(d.receivedAt),
  }))
}
