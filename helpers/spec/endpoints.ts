/**
 * The endpoint table: every endpoint of §4 as data (method, path template under its service's base path,
 * parameters, request body, success response and its schema, security, the clauses judged on it). The
 * OpenAPI description (`npm run openapi`, openapi.json) is written from this table and schemas/, and the
 * self-tests hold helpers/http/api.ts and the suite's requests to it, so the three cannot drift apart.
 *
 * Paths are relative to a service: `user` (USER_API_PATH, default /mobile/api/com.vendor.server) or
 * `message` (MESSAGE_API_PATH, default /message/api/v2), as §4.1 and §4.2 give them.
 */
import type { ClauseId } from './clauses'
import type { SchemaName } from './schemas'

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'
export type Base = 'user' | 'message'

export const DEFAULT_BASE_PATHS: Readonly<Record<Base, string>> = {
  user: '/mobile/api/com.vendor.server',
  message: '/message/api/v2',
}

/** An inline JSON Schema (request parts; response bodies use the files under schemas/). */
export type InlineSchema = Record<string, unknown>

export interface Param {
  name: string
  in: 'path' | 'query' | 'header'
  required: boolean
  schema: InlineSchema
  description: string
}

export interface Endpoint {
  /** Stable, camelCase: the OpenAPI operationId. */
  operationId: string
  method: Method
  base: Base
  /** Template under the base path, `{name}` for a path parameter. */
  path: string
  section: string
  /** The spec's own name of the operation. */
  summary: string
  /** What else the spec says of it, in its words where it has them. */
  description: string
  /** Whether the call needs `Authorization: Bearer` (every one but sign-in, §4). */
  bearer: boolean
  params: readonly Param[]
  /** Request body by media type; `required` false when the parameters may travel elsewhere (sign-in). */
  body?: { required: boolean; content: Readonly<Record<string, InlineSchema>> }
  /** The success answer: the status the spec states ('2XX' where it states none) and the body's schema. */
  success: { status: '200' | '201' | '2XX'; description: string; schema?: SchemaName }
  /** Every clause of the registry judged on this operation (the operation's `x-clauses`). */
  clauses: readonly ClauseId[]
}

// ── shared parts ───────────────────────────────────────────────────────────────────────────────────────

const channelName: Param = {
  name: 'channel_name',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description:
    "A public channel or the caller's own private channel by its plain name; another user's private channel as `<user_id>#<channel_name>` (`#` sent as %23) (§2.3).",
}

const personal: Param = {
  name: 'personal',
  in: 'query',
  required: false,
  schema: { type: 'boolean', default: false },
  description: 'Defaults to false, meaning a public channel (§4.2).',
}

const repeated = (name: string, description: string, required: boolean): Param => ({
  name,
  in: 'query',
  required,
  schema: { type: 'array', items: { type: 'string' } },
  description,
})

const integer = (name: string, description: string): Param => ({
  name,
  in: 'query',
  required: false,
  schema: { type: 'integer' },
  description,
})

const keyValue: InlineSchema = { type: 'object', description: 'Object of key/value pairs.' }

/** Clauses judged on every call that needs a token (§4, §5.4). */
const BEARER: readonly ClauseId[] = ['auth.token-required', 'auth.token-required.401']
/** Clauses judged on every JSON answer. */
const JSON_ANSWER: readonly ClauseId[] = [
  'http.json-content-type',
  'http.no-extra-fields',
  'http.error-body',
  'http.valid-request-answered',
  'http.input-refused',
]
/** Clauses judged on every operation addressing a channel by name. */
const BY_NAME: readonly ClauseId[] = ['http.not-found-404']

// ── the table ──────────────────────────────────────────────────────────────────────────────────────────

export const ENDPOINTS: readonly Endpoint[] = [
  // §4.1 user service
  {
    operationId: 'signIn',
    method: 'POST',
    base: 'user',
    path: '/user/session',
    section: '§4.1, §5',
    summary: 'Sign in',
    description:
      "OAuth 2.0 password grant with the application's client id. The parameters are sent as query string or form body. The response carries the bearer token all later calls use.",
    bearer: false,
    params: [
      { name: 'MMS-DEVICE-ID', in: 'header', required: true, schema: { type: 'string' }, description: 'Required, any value (§4.1, §5.2).' },
      {
        name: 'grant_type',
        in: 'query',
        required: false,
        schema: { type: 'string', enum: ['password'] },
        description: 'The value password (or in the form body).',
      },
      { name: 'username', in: 'query', required: false, schema: { type: 'string' }, description: 'User name (or in the form body).' },
      { name: 'password', in: 'query', required: false, schema: { type: 'string', format: 'password' }, description: 'Password (or in the form body).' },
      { name: 'client_id', in: 'query', required: false, schema: { type: 'string' }, description: "The application's OAuth client id (or in the form body)." },
      { name: 'scope', in: 'query', required: false, schema: { type: 'string', enum: ['public'] }, description: 'The value public (or in the form body).' },
    ],
    body: {
      required: false,
      content: {
        'application/x-www-form-urlencoded': {
          type: 'object',
          properties: {
            grant_type: { type: 'string', enum: ['password'] },
            username: { type: 'string' },
            password: { type: 'string', format: 'password' },
            client_id: { type: 'string' },
            scope: { type: 'string', enum: ['public'] },
          },
        },
      },
    },
    success: { status: '2XX', description: 'Session (§2.2).', schema: 'session' },
    clauses: [
      'signin.session.shape',
      'signin.session.token-type',
      'signin.session.expires-in-value',
      'signin.user.no-email',
      'signin.user.password-masked',
      'signin.user.otp-masked',
      'signin.user.status',
      'users.record.agrees',
      'signin.user.values',
      'signin.params.query',
      'signin.params.form',
      'signin.device-id.any-value',
      'signin.device-id.required',
      'signin.wrong-password.refused',
      'signin.wrong-client.refused',
      'signin.bearer.works',
      'signin.client-secret.use',
      'signin.token.revocation',
      ...JSON_ANSWER,
      'http.timestamp-form',
    ],
  },
  {
    operationId: 'listUsers',
    method: 'GET',
    base: 'user',
    path: '/user/all',
    section: '§4.1',
    summary: 'List all users',
    description: 'Array of User (§2.1).',
    bearer: true,
    params: [],
    success: { status: '2XX', description: 'Array of User.', schema: 'user-list' },
    clauses: [
      'users.list.shape',
      'users.list.other-records',
      'users.list.contains-accounts',
      'users.record.agrees',
      'users.password-masked',
      ...BEARER,
      ...JSON_ANSWER,
    ],
  },
  {
    operationId: 'searchUsers',
    method: 'GET',
    base: 'user',
    path: '/user/query',
    section: '§4.1',
    summary: 'Search users',
    description:
      'Filtering, sorting and pagination follow URI search conventions of a full-text search engine. Names of the sort and pagination parameters: not shown.',
    bearer: true,
    params: [
      {
        name: 'q',
        in: 'query',
        required: true,
        schema: { type: 'string', pattern: '^(userName|firstName|lastName|email|userRealm|userStatus|userIdentifier):' },
        description:
          '`<property>:<value>`; property one of userName, firstName, lastName, email, userRealm, userStatus, userIdentifier. An asterisk at the start and end of the value gives wildcard matching.',
      },
    ],
    success: { status: '2XX', description: 'Array of User.', schema: 'user-list' },
    clauses: [
      'users.search.shape',
      'users.search.property',
      'users.record.agrees',
      'users.search.exact',
      'users.search.wildcard',
      'users.search.no-match',
      'users.search.paging',
      'users.password-masked',
      ...BEARER,
      ...JSON_ANSWER,
    ],
  },

  // §4.2 channels
  {
    operationId: 'createChannel',
    method: 'POST',
    base: 'message',
    path: '/channels',
    section: '§4.2',
    summary: 'Create channel',
    description: 'Creates a public or private channel; subscribeOnCreate subscribes the creator.',
    bearer: true,
    params: [],
    body: {
      required: true,
      content: {
        'application/json': {
          type: 'object',
          properties: {
            channelName: { type: 'string' },
            maxItems: { type: 'integer', default: -1, description: '-1 means unlimited.' },
            privateChannel: { type: 'boolean', default: false },
            description: { type: 'string' },
            subscribeOnCreate: { type: 'boolean', default: true, description: 'Subscribes the creator.' },
            publishPermission: { type: 'string', enum: ['anyone', 'owner', 'subscribers'], default: 'anyone' },
          },
          required: ['channelName'],
        },
      },
    },
    success: { status: '2XX', description: '{code, message}; the success status is not stated.', schema: 'code-message' },
    clauses: [
      'channels.create.response',
      'channels.create.status',
      'channels.create.default-max-items',
      'channels.create.default-public',
      'channels.create.default-permission',
      'channels.create.default-subscribe',
      'channels.create.no-subscribe',
      'channels.create.fields-stored',
      'channels.create.duplicate',
      'channels.name.alphabet',
      'private.create',
      ...BEARER,
      ...JSON_ANSWER,
    ],
  },
  {
    operationId: 'searchChannels',
    method: 'GET',
    base: 'message',
    path: '/channels',
    section: '§4.2',
    summary: 'Search public channels',
    description: 'Matching rules for channelName and description, and the defaults and maximum of size: not shown.',
    bearer: true,
    params: [
      { name: 'channelName', in: 'query', required: false, schema: { type: 'string' }, description: 'Text to match against channel names.' },
      { name: 'description', in: 'query', required: false, schema: { type: 'string' }, description: 'Text to match against descriptions.' },
      integer('offset', 'The number of results to skip.'),
      integer('size', 'The number of results requested.'),
      repeated('tag', 'May repeat.', false),
    ],
    success: { status: '200', description: '{total, results}.', schema: 'channel-search-page' },
    clauses: [
      'channels.search.shape',
      'channels.search.other-results',
      'channels.search.publish-permission',
      'channels.record.fixed',
      'channels.search.by-name',
      'channels.search.by-description',
      'channels.search.by-tag',
      'channels.search.size',
      'channels.search.offset',
      'channels.search.offset-pages',
      'channels.search.total',
      'channels.search.public-only',
      'channels.search.defaults',
      ...BEARER,
      ...JSON_ANSWER,
      'http.timestamp-form',
    ],
  },
  {
    operationId: 'getChannel',
    method: 'GET',
    base: 'message',
    path: '/channels/{channel_name}',
    section: '§4.2, §2.3',
    summary: 'Get channel by name',
    description: 'The response names the permission field publisherPermission.',
    bearer: true,
    params: [channelName],
    success: { status: '200', description: 'Channel (§2.3).', schema: 'channel' },
    clauses: [
      'channels.get.shape',
      'channels.get.publisher-permission',
      'channels.get.matches-create',
      'channels.get.creator',
      'channels.get.creator-device',
      'channels.record.fixed',
      'channels.get.max-payload-size',
      'channels.get.unknown',
      'private.own-plain-name',
      'private.other-user-address',
      'private.other-user-read',
      'private.plain-name-not-shared',
      ...BEARER,
      ...JSON_ANSWER,
      ...BY_NAME,
      'http.timestamp-form',
    ],
  },
  {
    operationId: 'channelSummary',
    method: 'GET',
    base: 'message',
    path: '/channels/{channel_name}/summary',
    section: '§4.2, §2.4',
    summary: 'Channel summary',
    description: 'Published item count and last publish time.',
    bearer: true,
    params: [channelName],
    success: { status: '200', description: 'Channel summary (§2.4).', schema: 'channel-summary' },
    clauses: [
      'channels.summary.shape',
      'channels.summary.count',
      'channels.summary.last-published',
      ...BEARER,
      ...JSON_ANSWER,
      ...BY_NAME,
      'http.timestamp-form',
    ],
  },
  {
    operationId: 'deleteChannel',
    method: 'DELETE',
    base: 'message',
    path: '/channels/{channel_name}',
    section: '§4.2, §5.5',
    summary: 'Delete channel',
    description: 'Only the channel owner may delete a channel. Success body: not shown.',
    bearer: true,
    params: [channelName, personal],
    success: { status: '200', description: 'Deleted; the body is not shown.' },
    clauses: [
      'channels.delete.status',
      'channels.delete.removes',
      'channels.delete.owner-only',
      'channels.delete.only-named',
      'channels.delete.personal-default',
      'channels.delete.recreate-fresh',
      'private.delete-personal',
      ...BEARER,
      'http.forbidden-403',
      ...BY_NAME,
      'http.error-body',
    ],
  },
  {
    operationId: 'subscribe',
    method: 'PUT',
    base: 'message',
    path: '/channels/{channel_name}/subscribe',
    section: '§4.2',
    summary: 'Subscribe',
    description: 'No body.',
    bearer: true,
    params: [channelName],
    success: { status: '200', description: '{code, subId, msg}.', schema: 'subscribe-response' },
    clauses: ['subscriptions.subscribe.response', 'subscriptions.subscribe.listed', ...BEARER, ...JSON_ANSWER, ...BY_NAME],
  },
  {
    operationId: 'unsubscribe',
    method: 'PUT',
    base: 'message',
    path: '/channels/{channel_name}/unsubscribe',
    section: '§4.2',
    summary: 'Unsubscribe',
    description: 'No body. The message states the number of subscriptions cancelled.',
    bearer: true,
    params: [channelName],
    success: { status: '200', description: '{message, code}.', schema: 'unsubscribe-response' },
    clauses: [
      'subscriptions.unsubscribe.response',
      'subscriptions.unsubscribe.count',
      'subscriptions.unsubscribe.removed',
      'subscriptions.unsubscribe.own-only',
      ...BEARER,
      ...JSON_ANSWER,
      ...BY_NAME,
    ],
  },
  {
    operationId: 'listSubscribers',
    method: 'GET',
    base: 'message',
    path: '/channels/{channel_name}/subscriptions',
    section: '§4.2, §2.5',
    summary: 'List subscribers',
    description: 'Array of Subscription (§2.5).',
    bearer: true,
    params: [channelName],
    success: { status: '200', description: 'Array of Subscription.', schema: 'subscription-list' },
    clauses: ['subscriptions.list.shape', 'subscriptions.subscribe.listed', 'subscriptions.unsubscribe.removed', ...BEARER, ...JSON_ANSWER, ...BY_NAME],
  },
  {
    operationId: 'addTags',
    method: 'POST',
    base: 'message',
    path: '/channels/{channel_name}/tags',
    section: '§4.2',
    summary: 'Add tags',
    description: 'Adds tags to a channel.',
    bearer: true,
    params: [channelName],
    body: {
      required: true,
      content: {
        'application/json': {
          type: 'object',
          properties: { personal: { type: 'boolean' }, tags: { type: 'array', items: { type: 'string' } } },
          required: ['tags'],
        },
      },
    },
    success: { status: '200', description: '{message, code}.', schema: 'code-message' },
    clauses: ['tags.add.response', 'tags.add.visible', 'tags.add.repeat', 'private.tags-personal', ...BEARER, ...JSON_ANSWER, ...BY_NAME],
  },
  {
    operationId: 'getTags',
    method: 'GET',
    base: 'message',
    path: '/channels/{channel_name}/tags',
    section: '§4.2',
    summary: 'Get tags',
    description: "The channel's tags.",
    bearer: true,
    params: [channelName],
    success: { status: '200', description: '{channelName, tags}.', schema: 'tags' },
    clauses: ['tags.get.shape', 'tags.add.visible', 'private.tags-personal', ...BEARER, ...JSON_ANSWER, ...BY_NAME],
  },
  {
    operationId: 'deleteTag',
    method: 'DELETE',
    base: 'message',
    path: '/channels/{channel_name}/tags/{tag}',
    section: '§4.2',
    summary: 'Delete one tag',
    description: 'Success body: not shown.',
    bearer: true,
    params: [channelName, { name: 'tag', in: 'path', required: true, schema: { type: 'string' }, description: 'The tag to delete.' }, personal],
    success: { status: '200', description: 'Deleted; the body is not shown.' },
    clauses: ['tags.delete-one.status', 'tags.delete-one.removes', 'private.tags-personal', ...BEARER, ...BY_NAME, 'http.error-body'],
  },
  {
    operationId: 'deleteTags',
    method: 'DELETE',
    base: 'message',
    path: '/channels/{channel_name}/tags',
    section: '§4.2',
    summary: 'Delete all tags',
    description: 'Success body: not shown.',
    bearer: true,
    params: [channelName, personal],
    success: { status: '200', description: 'Deleted; the body is not shown.' },
    clauses: ['tags.delete-all.status', 'tags.delete-all.removes', 'private.tags-personal', ...BEARER, ...BY_NAME, 'http.error-body'],
  },
  {
    operationId: 'publishItem',
    method: 'POST',
    base: 'message',
    path: '/channels/{channel_name}/items',
    section: '§4.2, §2.3',
    summary: 'Publish item',
    description:
      "Who may publish follows the channel's publishPermission; the channel keeps at most maxItems items and refuses content over maxPayloadSize. Requiredness of messageType and contentType: not shown.",
    bearer: true,
    params: [channelName],
    body: {
      required: true,
      content: {
        'application/json': {
          type: 'object',
          properties: { content: keyValue, messageType: { type: 'string' }, contentType: { type: 'string', description: 'A MIME type.' } },
          required: ['content'],
        },
      },
    },
    success: { status: '201', description: '{message, status, messageId}.', schema: 'publish-response' },
    clauses: [
      'items.publish.response',
      'items.publish.message-id',
      'items.publish.optional-fields',
      'items.max-items',
      'items.max-items.unlimited',
      'items.max-items.eviction',
      'items.max-payload',
      'items.max-payload.value',
      'items.permission.anyone',
      'items.permission.owner',
      'items.permission.subscribers',
      ...BEARER,
      ...JSON_ANSWER,
      'http.forbidden-403',
      ...BY_NAME,
    ],
  },
  {
    operationId: 'getItems',
    method: 'GET',
    base: 'message',
    path: '/channels/{channel_name}/items',
    section: '§4.2, §2.6',
    summary: 'Get items by id',
    description: 'Behaviour for unknown ids: not shown.',
    bearer: true,
    params: [channelName, repeated('id', 'Repeats once per item.', true)],
    success: { status: '2XX', description: '{totalCount, items}.', schema: 'items-page' },
    clauses: [
      'items.get.shape',
      'items.get.by-ids',
      'items.get.unknown-id',
      'items.content-intact',
      'items.content-types',
      'items.publisher',
      'items.publish.message-id',
      ...BEARER,
      ...JSON_ANSWER,
      ...BY_NAME,
    ],
  },
  {
    operationId: 'fetchItems',
    method: 'GET',
    base: 'message',
    path: '/channels/{channel_name}/items/fetch',
    section: '§4.2, §2.6',
    summary: 'Fetch items by date range',
    description: 'Defaults and requiredness of since, until, sort_order, offset and size: not shown.',
    bearer: true,
    params: [
      channelName,
      { name: 'since', in: 'query', required: false, schema: { type: 'string' }, description: 'A timestamp (ISO 8601).' },
      { name: 'until', in: 'query', required: false, schema: { type: 'string' }, description: 'A timestamp (ISO 8601).' },
      { name: 'sort_order', in: 'query', required: false, schema: { type: 'string', enum: ['ASC', 'DESC'] }, description: 'ASC or DESC.' },
      integer('offset', 'Items to skip.'),
      integer('size', 'Items requested.'),
    ],
    success: { status: '2XX', description: '{totalCount, items}.', schema: 'items-page' },
    clauses: [
      'items.fetch.shape',
      'items.fetch.range',
      'items.fetch.order',
      'items.fetch.size',
      'items.fetch.offset',
      'items.fetch.defaults',
      'items.time-precision',
      ...BEARER,
      ...JSON_ANSWER,
      ...BY_NAME,
    ],
  },
  {
    operationId: 'deleteItems',
    method: 'DELETE',
    base: 'message',
    path: '/channels/{channel_name}/items',
    section: '§4.2',
    summary: 'Delete items by id',
    description: 'One integer status code per id.',
    bearer: true,
    params: [channelName, repeated('id', 'Repeats once per item.', true)],
    success: { status: '2XX', description: 'Object whose keys are item ids and whose values are integer status codes.', schema: 'delete-items-result' },
    clauses: ['items.delete.result', 'items.delete.removes', ...BEARER, ...JSON_ANSWER, ...BY_NAME],
  },
  {
    operationId: 'deleteAllItems',
    method: 'DELETE',
    base: 'message',
    path: '/channels/{channel_name}/items/all',
    section: '§4.2, §5.5',
    summary: 'Delete all items',
    description: 'Only the channel owner may delete items this way. Success body: not shown.',
    bearer: true,
    params: [channelName, personal],
    success: { status: '200', description: 'Deleted; the body is not shown.' },
    clauses: [
      'items.delete-all.status',
      'items.delete-all.empties',
      'items.delete-all.owner-only',
      ...BEARER,
      'http.forbidden-403',
      ...BY_NAME,
      'http.error-body',
    ],
  },

  // §4.3 direct messages
  {
    operationId: 'sendToUserIds',
    method: 'POST',
    base: 'message',
    path: '/messages/send_to_user_ids',
    section: '§4.3, §2.8',
    summary: 'Send to user ids',
    description:
      'requested counts matched users, sent counts users for whom a push was sent, unsent counts users for whom it could not be sent. Element shape of unsentList: not shown.',
    bearer: true,
    params: [],
    body: {
      required: true,
      content: {
        'application/json': {
          type: 'object',
          properties: {
            receipt: { type: 'boolean', description: 'true requests receipt confirmation on receipt of the message.' },
            recipientUserIds: { type: 'array', items: { type: 'string' } },
            content: keyValue,
            metadata: { type: 'object' },
          },
          required: ['receipt', 'recipientUserIds', 'content'],
        },
      },
    },
    success: { status: '2XX', description: '{count, sentList, unsentList} (§2.8).', schema: 'send-result' },
    clauses: [
      'messages.send.shape',
      'messages.send.options',
      'messages.send.devices',
      'messages.send.requested',
      'messages.send.unknown-not-matched',
      'messages.send.counts-add-up',
      'messages.send.recipients',
      'messages.send.repeated-id',
      'messages.receipt',
      ...BEARER,
      ...JSON_ANSWER,
    ],
  },
  {
    operationId: 'deliveryStatus',
    method: 'GET',
    base: 'message',
    path: '/messages/{messageId}',
    section: '§4.3, §2.7',
    summary: 'Get delivery status',
    description: 'Array of Message delivery status record (§2.7).',
    bearer: true,
    params: [{ name: 'messageId', in: 'path', required: true, schema: { type: 'string' }, description: "A messageId of a send's sentList." }],
    success: { status: '2XX', description: 'Array of delivery records.', schema: 'delivery-list' },
    clauses: ['messages.status.shape', 'messages.status.agrees', 'messages.status.states', ...BEARER, ...JSON_ANSWER, 'http.timestamp-form'],
  },

  // §4.4 push
  {
    operationId: 'pushToUser',
    method: 'POST',
    base: 'message',
    path: '/push/user/{recipientUserId}',
    section: '§4.4, §2.8',
    summary: 'Push to user',
    description:
      'Pushes to all active devices of the user, through the platform push services for iOS and Android. Here sent and unsent count devices. Element shape of unsentList: not shown.',
    bearer: true,
    params: [{ name: 'recipientUserId', in: 'path', required: true, schema: { type: 'string' }, description: 'The user id of the recipient.' }],
    body: {
      required: true,
      content: {
        'application/json': {
          type: 'object',
          properties: {
            action: { type: 'string', enum: ['PUSH', 'WAKEUP'], description: 'PUSH for visible push, WAKEUP for silent push.' },
            name: { type: 'string', description: 'Identifies the push.' },
            payload: {
              type: 'object',
              description: 'Key/value pairs; predefined keys for the platform notification services: title, body, sound, badge, icon.',
              properties: { title: {}, body: {}, sound: {}, badge: {}, icon: {} },
            },
          },
          required: ['action', 'name', 'payload'],
        },
      },
    },
    success: { status: '2XX', description: '{count, sentList, unsentList} (§2.8).', schema: 'push-result' },
    clauses: [
      'push.shape',
      'push.counts',
      'push.devices',
      'push.payload-keys',
      'push.actions',
      'push.requested',
      'push.platform-delivery',
      ...BEARER,
      ...JSON_ANSWER,
    ],
  },
]

// ── matching requests to the table ─────────────────────────────────────────────────────────────────────

/** Literal segments outrank parameters, as in OpenAPI: `/messages/send_to_user_ids` before `/messages/{messageId}`. */
function literalSegments(path: string): number {
  return path.split('/').filter((s) => s !== '' && !s.startsWith('{')).length
}

const compiled = ENDPOINTS.map((e) => ({
  e,
  re: new RegExp(`^${e.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
  rank: literalSegments(e.path),
}))

/**
 * The endpoint a request goes to: method and path (no query) under the given base paths. Undefined when the
 * path lies under neither base or matches no template of that method.
 */
export function endpointOf(method: string, path: string, bases: Readonly<Record<Base, string>> = DEFAULT_BASE_PATHS): Endpoint | undefined {
  const m = method.toUpperCase()
  const found = compiled
    .filter(({ e }) => e.method === m)
    .filter(({ e, re }) => {
      const prefix = bases[e.base].replace(/\/+$/, '')
      return path.startsWith(`${prefix}/`) && re.test(path.slice(prefix.length))
    })
    .sort((x, y) => y.rank - x.rank)
  return found[0]?.e
}
