/**
 * Records kept by the store. They are the server's internal shape, not the wire shape of §2:
 * `views.ts` turns them into response bodies. Times are epoch milliseconds from the injected clock.
 */

export type PublishPermission = 'anyone' | 'owner' | 'subscribers'
export const PUBLISH_PERMISSIONS: readonly PublishPermission[] = ['anyone', 'owner', 'subscribers']

/** The one application the server serves (its client id appears in every User, its app id in `creator`). */
export interface Application {
  appId: string
  clientId: string
  clientSecret: string
  /** Realm given to users enrolled through registration. */
  defaultRealm: string
  /** Domain part of a channel's `creator`. */
  domain: string
}

export interface UserRecord {
  userId: string
  clientId: string
  userName: string
  /** sha256(salt + password), hex; the password itself is never kept. */
  passwordHash: string
  passwordSalt: string
  firstName: string
  lastName: string
  email: string
  userRealm: string
  userStatus: string
  roles: string[]
  userAccountData: Record<string, unknown>
  createdAt: number
}

export interface DeviceRecord {
  userId: string
  deviceId: string
  registeredAt: number
}

export type TokenKind = 'USER' | 'APPLICATION'

export interface TokenRecord {
  token: string
  kind: TokenKind
  /** null for application tokens. */
  userId: string | null
  /** The MMS-DEVICE-ID of the call that obtained the token. */
  deviceId: string
  expiresAt: number
}

export interface ChannelRecord {
  channelId: string
  name: string
  ownerId: string
  /** Device of the owner's session at creation; part of `creator`. */
  ownerDeviceId: string
  description: string
  privateChannel: boolean
  maxItems: number
  publishPermission: PublishPermission
  createdAt: number
  modifiedAt: number
  lastPublishedAt: number | null
  tags: string[]
}

export interface SubscriptionRecord {
  subscriptionId: string
  channelId: string
  userId: string
  deviceId: string | null
  createdAt: number
}

export interface ItemRecord {
  itemId: string
  channelId: string
  publisherId: string
  publisherDeviceId: string | null
  content: Record<string, unknown>
  messageType: string | null
  contentType: string | null
  publishedAt: number
}

export interface DeliveryRecord {
  deviceId: string
  state: 'WAKEUP_REQUIRED'
  queuedAt: number
  receivedAt: number | null
}

export interface MessageRecord {
  messageId: string
  appId: string
  senderId: string
  recipientId: string
  receipt: boolean
  content: Record<string, unknown>
  metadata: Record<string, unknown> | null
  queuedAt: number
  /** One per device the gateway accepted; empty when the recipient could not be reached. */
  deliveries: DeliveryRecord[]
}
