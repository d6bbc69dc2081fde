/**
 * The clause registry: every statement of the spec that the suite judges, with a stable slug id, the spec
 * section it comes from, a requirement level (docs/contract.md) and the spec's own words. Checks refer to these ids;
 * coverage ("which clause has no check") is computed from this data, never from comments.
 *
 * Levels: MUST = stated or unambiguously implied by the spec; SHOULD = HTTP convention where the spec is
 * silent, or undocumented extras; INFO = the spec says "not shown": observed and recorded, never judged.
 * `notTestable` gives the reason where no black-box check can decide the clause.
 */
export type Level = 'MUST' | 'SHOULD' | 'INFO'

export interface ClauseDef {
  level: Level
  section: string
  title: string
  quote: string
  notTestable?: string
}

export interface Clause extends ClauseDef {
  id: string
  area: Area
}

export const AREAS = {
  signin: 'Sign-in (§4.1, §2.2, §5)',
  users: 'Users (§4.1, §2.1)',
  channels: 'Channels (§4.2, §2.3, §2.4)',
  private: 'Private channels (§2.3)',
  subscriptions: 'Subscriptions (§4.2, §2.5)',
  tags: 'Tags (§4.2)',
  items: 'Items (§4.2, §2.6)',
  messages: 'Direct messages (§4.3, §2.7)',
  push: 'Push (§4.4, §2.8)',
  auth: 'Authorization (§4, §5)',
  http: 'HTTP conventions (§4, §7)',
} as const
export type Area = keyof typeof AREAS

function defineClauses<const T extends Record<string, ClauseDef>>(defs: T): T {
  return defs
}

export const clauseDefs = defineClauses({
  // ── Sign-in ─────────────────────────────────────────────────────────────────────────────────────────
  'signin.session.shape': {
    level: 'MUST',
    section: '§2.2',
    title: 'sign-in answers a Session: token_type, integer expires_in, access_token and the user record',
    quote: 'The sign-in response carries access_token, token_type and expires_in.',
  },
  'signin.session.token-type': {
    level: 'MUST',
    section: '§2.2',
    title: 'token_type is USER',
    quote: 'token_type | string | value USER in the sign-in response',
  },
  'signin.session.expires-in-value': {
    level: 'INFO',
    section: '§5.3, §8',
    title: 'value of expires_in',
    quote: 'The sample value of expires_in is 7200; the unit is not stated.',
  },
  'signin.user.no-email': {
    level: 'MUST',
    section: '§2.1',
    title: 'the sign-in user record has no email',
    quote: 'email | present in user list and search results; absent from the sign-in response',
  },
  'signin.user.password-masked': {
    level: 'MUST',
    section: '§2.1',
    title: 'password is a fixed masked placeholder, never the real password',
    quote: 'password | always a fixed masked placeholder, never the real password',
  },
  'signin.user.otp-masked': {
    level: 'MUST',
    section: '§2.1',
    title: 'otpCode is a fixed masked placeholder',
    quote: 'otpCode | fixed masked placeholder',
  },
  'signin.user.status': {
    level: 'MUST',
    section: '§2.1, §3',
    title: 'userStatus is present in the sign-in user',
    quote: 'userStatus | present in the sign-in response; searchable property',
  },
  'signin.user.values': {
    level: 'INFO',
    section: '§3, §2.1',
    title: 'userStatus and roles values seen in the sign-in user',
    quote: 'Values of userRealm, other roles and the full list of userStatus values: not shown.',
  },
  'signin.params.query': {
    level: 'MUST',
    section: '§4.1',
    title: 'sign-in accepts its parameters as a query string',
    quote: 'Parameters, sent as query string or form body: grant_type, username, password, client_id, scope.',
  },
  'signin.params.form': {
    level: 'MUST',
    section: '§4.1',
    title: 'sign-in accepts its parameters as a form body',
    quote: 'Parameters, sent as query string or form body: grant_type, username, password, client_id, scope.',
  },
  'signin.device-id.any-value': {
    level: 'MUST',
    section: '§4.1, §5.2',
    title: 'any MMS-DEVICE-ID value is accepted',
    quote: 'The header MMS-DEVICE-ID must be present on that call; any value is accepted.',
  },
  'signin.device-id.required': {
    level: 'SHOULD',
    section: '§4.1, §5.2',
    title: 'a sign-in without MMS-DEVICE-ID is refused',
    quote: 'Header: MMS-DEVICE-ID (required, any value).',
  },
  'signin.wrong-password.refused': {
    level: 'MUST',
    section: '§1, §5.2',
    title: 'a wrong password gets no session',
    quote: 'An application signs in on behalf of a user with the OAuth 2.0 password grant.',
  },
  'signin.wrong-client.refused': {
    level: 'MUST',
    section: '§4.1',
    title: 'an unknown client_id gets no session',
    quote: "client_id (the application's OAuth client id)",
  },
  'signin.bearer.works': {
    level: 'MUST',
    section: '§5.4',
    title: 'the access token works as a bearer token on the other calls',
    quote: 'All other calls send the header Authorization: Bearer <ACCESS_TOKEN>.',
  },
  'signin.client-secret.use': {
    level: 'INFO',
    section: '§5.1, §5.6',
    title: 'use of the client secret in requests',
    quote: 'the use of the client secret in requests: not shown.',
    notTestable: 'the spec does not say where the client secret is sent, so no request can be judged on it',
  },

  'signin.token.revocation': {
    level: 'INFO',
    section: '§5.6',
    title: 'whether a token still works after another sign-in on its device id',
    quote: 'Token refresh, token revocation, scope values other than public, and the use of the client secret in requests: not shown.',
  },

  // ── Users ───────────────────────────────────────────────────────────────────────────────────────────
  'users.list.shape': {
    level: 'MUST',
    section: '§4.1, §2.1',
    title: 'list all users answers an array of User records with email',
    quote: 'List all users: GET /user/all. Response: array of User.',
  },
  'users.list.other-records': {
    level: 'SHOULD',
    section: '§4.1, §2.1',
    title: 'the records of users the run did not create are User records too',
    quote: 'List all users: GET /user/all. Response: array of User.',
  },
  'users.list.contains-accounts': {
    level: 'MUST',
    section: '§4.1',
    title: 'list all users includes the signed-in test accounts',
    quote: 'Authenticated callers can list users and search users by property.',
  },
  'users.password-masked': {
    level: 'MUST',
    section: '§2.1',
    title: 'user records never carry the real password',
    quote: 'password | always a fixed masked placeholder, never the real password',
  },
  'users.search.shape': {
    level: 'MUST',
    section: '§4.1, §2.1',
    title: 'search users answers an array of User records',
    quote: 'Search users: GET /user/query?q=<property>:<value> … Response: array of User.',
  },
  'users.search.property': {
    level: 'MUST',
    section: '§4.1',
    title: 'search by a property returns the users whose property has that value; by userIdentifier only that user',
    quote: 'property is one of userName, firstName, lastName, email, userRealm, userStatus, userIdentifier.',
  },
  'users.record.agrees': {
    level: 'MUST',
    section: '§2.1, §4.1',
    title: "a user's record carries the same values in the sign-in response, the list of all users and search results",
    quote: 'user | User | record as in 2.1 … List all users … Response: array of User. … Search users … Response: array of User.',
  },
  'users.search.exact': {
    level: 'SHOULD',
    section: '§4.1',
    title: 'every user a property search returns has exactly the value searched for',
    quote: 'Filtering, sorting and pagination follow URI search conventions of a full-text search engine.',
  },
  'users.search.wildcard': {
    level: 'MUST',
    section: '§4.1',
    title: 'an asterisk at the start and end matches a fragment',
    quote: 'An asterisk at the start and end gives wildcard matching.',
  },
  'users.search.no-match': {
    level: 'MUST',
    section: '§4.1',
    title: 'a value no user has returns an empty array',
    quote: 'Response: array of User.',
  },
  'users.search.paging': {
    level: 'INFO',
    section: '§4.1',
    title: 'names of the sort and pagination parameters',
    quote: 'Names of the sort and pagination parameters: not shown.',
  },

  // ── Channels ────────────────────────────────────────────────────────────────────────────────────────
  'channels.create.response': {
    level: 'MUST',
    section: '§4.2',
    title: 'create channel succeeds with {code, message}',
    quote: 'Create channel: POST /channels … Response: {code (integer), message (string)}.',
  },
  'channels.create.status': {
    level: 'INFO',
    section: '§4.2',
    title: 'success status of create channel',
    quote: 'Response: {code (integer), message (string)}.',
  },
  'channels.create.default-max-items': {
    level: 'MUST',
    section: '§4.2, §8',
    title: 'maxItems defaults to -1',
    quote: 'maxItems (integer, optional, default -1)',
  },
  'channels.create.default-public': {
    level: 'MUST',
    section: '§4.2',
    title: 'privateChannel defaults to false',
    quote: 'privateChannel (boolean, optional, default false)',
  },
  'channels.create.default-permission': {
    level: 'MUST',
    section: '§4.2',
    title: 'publishPermission defaults to anyone',
    quote: 'publishPermission (optional, one of anyone (default), owner, subscribers)',
  },
  'channels.create.default-subscribe': {
    level: 'MUST',
    section: '§4.2',
    title: 'subscribeOnCreate defaults to true and subscribes the creator',
    quote: 'subscribeOnCreate (boolean, optional, default true; subscribes the creator)',
  },
  'channels.create.no-subscribe': {
    level: 'MUST',
    section: '§4.2',
    title: 'subscribeOnCreate false leaves the creator unsubscribed',
    quote: 'subscribeOnCreate (boolean, optional, default true; subscribes the creator)',
  },
  'channels.create.fields-stored': {
    level: 'MUST',
    section: '§4.2, §2.3',
    title: 'every field given at create is stored',
    quote: 'Body: channelName; maxItems; privateChannel; description; subscribeOnCreate; publishPermission.',
  },
  'channels.create.duplicate': {
    level: 'INFO',
    section: '§4.2, §7',
    title: 'answer to a second create with the same name',
    quote: 'Error responses: not shown.',
  },
  'channels.get.shape': {
    level: 'MUST',
    section: '§4.2, §2.3',
    title: 'get channel by name answers 200 and a Channel',
    quote: 'Get channel by name: GET /channels/{channel_name}. Response 200: Channel.',
  },
  'channels.get.publisher-permission': {
    level: 'MUST',
    section: '§2.3',
    title: 'get-by-name names the permission field publisherPermission',
    quote: 'The get-by-name response names the permission field publisherPermission.',
  },
  'channels.get.matches-create': {
    level: 'MUST',
    section: '§2.3, §4.2',
    title: 'get-by-name returns the channel that was created',
    quote: 'name | string | channel name',
  },
  'channels.get.creator': {
    level: 'MUST',
    section: '§2.3',
    title: "creator is the owner's user id, a separator, a user-name and domain part, a slash and the device id",
    quote: 'creator | composite owner identifier: user id, then a separator, then a user-name and domain part, then a slash and device id',
  },
  'channels.get.creator-device': {
    level: 'SHOULD',
    section: '§2.3',
    title: 'the device id in creator is the one the owner signed in with',
    quote: 'creator | composite owner identifier: … then a slash and device id',
  },
  'channels.record.fixed': {
    level: 'MUST',
    section: '§2.3, §4.2',
    title: "a channel's creator and creationDate are the same in every view of it and after later calls",
    quote:
      'creator | composite owner identifier … creationDate | timestamp … Get channel by name … Response 200: Channel. Search public channels … results (array of Channel)',
  },
  'channels.get.max-payload-size': {
    level: 'INFO',
    section: '§8',
    title: 'value of maxPayloadSize in channel records (the spec shows 2097152 as a sample)',
    quote: 'maxPayloadSize shown in channel records | 2097152',
  },
  'channels.get.unknown': {
    level: 'MUST',
    section: '§4.2',
    title: 'an unknown channel name is not answered with a channel',
    quote: 'Get channel by name: GET /channels/{channel_name}. Response 200: Channel.',
  },
  'channels.search.shape': {
    level: 'MUST',
    section: '§4.2, §2.3',
    title: 'search answers 200 and {total, results}',
    quote: 'Response 200: {total (integer), results (array of Channel)}.',
  },
  'channels.search.other-results': {
    level: 'SHOULD',
    section: '§4.2, §2.3',
    title: 'search results of channels the run did not create are Channel records too',
    quote: 'Response 200: {total (integer), results (array of Channel)}.',
  },
  'channels.search.publish-permission': {
    level: 'MUST',
    section: '§2.3',
    title: 'search results name the permission field publishPermission',
    quote: 'the search response and the create request use publishPermission.',
  },
  'channels.search.by-name': {
    level: 'MUST',
    section: '§4.2',
    title: "search by a channel's exact name finds it",
    quote: 'GET /channels?channelName=<text>…',
  },
  'channels.search.by-description': {
    level: 'MUST',
    section: '§4.2',
    title: "search by a channel's exact description finds it",
    quote: 'GET /channels?…&description=<text>…',
  },
  'channels.search.by-tag': {
    level: 'MUST',
    section: '§4.2',
    title: 'search by a tag returns the channels carrying it and no other',
    quote: 'tag may repeat.',
  },
  'channels.search.size': {
    level: 'MUST',
    section: '§4.2',
    title: 'size caps the number of results',
    quote: 'size is the number of results requested.',
  },
  'channels.search.offset': {
    level: 'MUST',
    section: '§4.2',
    title: 'offset skips that many results',
    quote: 'offset is the number of results to skip',
  },
  'channels.search.offset-pages': {
    level: 'SHOULD',
    section: '§4.2',
    title: 'consecutive pages do not overlap and together hold every match',
    quote: 'offset is the number of results to skip; size is the number of results requested.',
  },
  'channels.search.total': {
    level: 'MUST',
    section: '§4.2',
    title: 'total counts every match, whatever the page',
    quote: 'Response 200: {total (integer), results (array of Channel)}.',
  },
  'channels.search.public-only': {
    level: 'MUST',
    section: '§4.2',
    title: 'private channels never appear in search',
    quote: 'Search public channels',
  },
  'channels.search.defaults': {
    level: 'INFO',
    section: '§4.2',
    title: 'matching rules, default and maximum size, several tags',
    quote: 'Matching rules for channelName and description, and the defaults and maximum of size: not shown.',
  },
  'channels.summary.shape': {
    level: 'MUST',
    section: '§4.2, §2.4',
    title: 'summary answers 200 and a Channel summary',
    quote: 'Channel summary: GET /channels/{channel_name}/summary. Response 200: Channel summary.',
  },
  'channels.summary.count': {
    level: 'MUST',
    section: '§2.4',
    title: 'publishedItemCount counts the published items',
    quote: 'publishedItemCount | integer',
  },
  'channels.summary.last-published': {
    level: 'MUST',
    section: '§2.4',
    title: "lastPublishedTime moves with each publish and is not before the channel's creation",
    quote: 'lastPublishedTime | timestamp (UTC)',
  },
  'channels.delete.status': {
    level: 'MUST',
    section: '§4.2',
    title: 'delete channel succeeds with 200',
    quote: 'Success of the four delete operations … is status 200.',
  },
  'channels.delete.removes': {
    level: 'MUST',
    section: '§4.2',
    title: 'a deleted channel is no longer returned',
    quote: 'Delete channel: DELETE /channels/{channel_name}?personal=<boolean>',
  },
  'channels.delete.owner-only': {
    level: 'MUST',
    section: '§4.2, §5.5',
    title: 'a non-owner cannot delete a channel',
    quote: 'Only the channel owner may delete a channel.',
  },

  'channels.delete.only-named': {
    level: 'MUST',
    section: '§4.2',
    title: 'delete channel removes the channel named and no other',
    quote: 'Delete channel: DELETE /channels/{channel_name}?personal=<boolean>',
  },
  'channels.delete.personal-default': {
    level: 'MUST',
    section: '§4.2',
    title: "a delete without personal deletes the public channel of that name, not the caller's private one",
    quote: 'personal defaults to false, meaning a public channel.',
  },
  'channels.delete.recreate-fresh': {
    level: 'MUST',
    section: '§4.2',
    title: "a channel created again under a deleted channel's name has none of the old channel's items, tags or subscribers",
    quote: 'Delete channel: DELETE /channels/{channel_name}?personal=<boolean>',
  },
  'channels.name.alphabet': {
    level: 'INFO',
    section: '§2.3',
    title: "which characters a channel name may hold ('.', '_', '-', upper case)",
    quote: 'Constraints on channel names (length, allowed characters): not shown.',
  },

  // ── Private channels ────────────────────────────────────────────────────────────────────────────────
  'private.create': {
    level: 'MUST',
    section: '§4.2, §2.3',
    title: 'privateChannel true creates a private channel',
    quote: 'privateChannel (boolean, optional, default false)',
  },
  'private.own-plain-name': {
    level: 'MUST',
    section: '§2.3',
    title: 'the owner addresses its private channel by the plain name',
    quote: "a public channel or the caller's own private channel is addressed by its plain name.",
  },
  'private.other-user-address': {
    level: 'MUST',
    section: '§2.3',
    title: 'another user addresses a private channel as <user_id>#<channel_name>',
    quote: "Another user's private channel is addressed as <user_id>#<channel_name>.",
  },
  'private.other-user-read': {
    level: 'INFO',
    section: '§2.3',
    title: "who may read another user's private channel through its address",
    quote: "Another user's private channel is addressed as <user_id>#<channel_name>.",
  },
  'private.plain-name-not-shared': {
    level: 'MUST',
    section: '§2.3',
    title: "another user's plain name does not reach a private channel",
    quote: "a public channel or the caller's own private channel is addressed by its plain name.",
  },
  'private.delete-personal': {
    level: 'MUST',
    section: '§4.2',
    title: "personal=true deletes the caller's own private channel",
    quote: 'personal defaults to false, meaning a public channel.',
  },
  'private.tags-personal': {
    level: 'MUST',
    section: '§4.2, §2.3',
    title: 'the owner adds, reads and deletes tags of its private channel with personal=true',
    quote:
      'Add tags: POST /channels/{channel_name}/tags … Body: personal (boolean), tags; Delete one tag … ?personal=<boolean>; Delete all tags … ?personal=<boolean>',
  },

  // ── Subscriptions ───────────────────────────────────────────────────────────────────────────────────
  'subscriptions.subscribe.response': {
    level: 'MUST',
    section: '§4.2',
    title: 'subscribe answers 200 and {code, subId, msg}',
    quote: 'Subscribe: PUT /channels/{channel_name}/subscribe. No body. Response 200: {code (integer), subId (string), msg (string)}.',
  },
  'subscriptions.subscribe.listed': {
    level: 'MUST',
    section: '§4.2, §2.5',
    title: "a subscriber is listed among the channel's subscriptions",
    quote: 'List subscribers: GET /channels/{channel_name}/subscriptions. Response 200: array of Subscription.',
  },
  'subscriptions.list.shape': {
    level: 'MUST',
    section: '§4.2, §2.5',
    title: 'list subscribers answers 200 and an array of Subscription',
    quote: 'Response 200: array of Subscription.',
  },
  'subscriptions.unsubscribe.response': {
    level: 'MUST',
    section: '§4.2',
    title: 'unsubscribe answers 200 and {message, code}',
    quote: 'Unsubscribe: PUT /channels/{channel_name}/unsubscribe. No body. Response 200: {message (string), code (integer)}',
  },
  'subscriptions.unsubscribe.count': {
    level: 'MUST',
    section: '§4.2',
    title: 'the unsubscribe message states the number of subscriptions cancelled',
    quote: 'the message states the number of subscriptions cancelled.',
  },
  'subscriptions.unsubscribe.removed': {
    level: 'MUST',
    section: '§4.2',
    title: 'an unsubscribed user is no longer listed',
    quote: 'Unsubscribe: PUT /channels/{channel_name}/unsubscribe.',
  },

  'subscriptions.unsubscribe.own-only': {
    level: 'MUST',
    section: '§4.2',
    title: "unsubscribe cancels the caller's subscriptions only; other subscribers stay listed",
    quote: 'Unsubscribe: PUT /channels/{channel_name}/unsubscribe. No body.',
  },

  // ── Tags ────────────────────────────────────────────────────────────────────────────────────────────
  'tags.add.response': {
    level: 'MUST',
    section: '§4.2',
    title: 'add tags answers 200 and {message, code}',
    quote: 'Add tags: POST /channels/{channel_name}/tags … Response 200: {message (string), code (integer)}.',
  },
  'tags.get.shape': {
    level: 'MUST',
    section: '§4.2',
    title: 'get tags answers 200 and {channelName, tags}',
    quote: 'Get tags: GET /channels/{channel_name}/tags. Response 200: {channelName (string), tags (array of string)}.',
  },
  'tags.add.visible': {
    level: 'MUST',
    section: '§4.2',
    title: 'added tags are returned by get tags',
    quote: 'Add tags … Get tags',
  },
  'tags.add.repeat': {
    level: 'INFO',
    section: '§4.2, §7',
    title: 'answer to adding a tag the channel already has',
    quote: 'Error responses: not shown.',
  },
  'tags.delete-one.status': {
    level: 'MUST',
    section: '§4.2',
    title: 'delete one tag succeeds with 200',
    quote: 'Success of the four delete operations … is status 200.',
  },
  'tags.delete-one.removes': {
    level: 'MUST',
    section: '§4.2',
    title: 'delete one tag removes that tag and keeps the others',
    quote: 'Delete one tag: DELETE /channels/{channel_name}/tags/{tag}?personal=<boolean>',
  },
  'tags.delete-all.status': {
    level: 'MUST',
    section: '§4.2',
    title: 'delete all tags succeeds with 200',
    quote: 'Success of the four delete operations … is status 200.',
  },
  'tags.delete-all.removes': {
    level: 'MUST',
    section: '§4.2',
    title: 'delete all tags leaves the channel with none',
    quote: 'Delete all tags: DELETE /channels/{channel_name}/tags?personal=<boolean>',
  },

  // ── Items ───────────────────────────────────────────────────────────────────────────────────────────
  'items.publish.response': {
    level: 'MUST',
    section: '§4.2',
    title: 'publish answers 201 and {message, status, messageId}',
    quote: 'Publish item: POST /channels/{channel_name}/items … Response 201: {message (string), status (string), messageId (string)}.',
  },
  'items.publish.message-id': {
    level: 'INFO',
    section: '§4.2, §2.6',
    title: 'whether the messageId of publish equals the itemId of the stored item',
    quote: 'Response 201: {message (string), status (string), messageId (string)}. … itemId | string',
  },
  'items.publish.optional-fields': {
    level: 'INFO',
    section: '§4.2',
    title: 'answer to a publish without messageType and contentType',
    quote: 'Requiredness of messageType and contentType: not shown.',
  },
  'items.get.shape': {
    level: 'MUST',
    section: '§4.2, §2.6',
    title: 'get items by id answers {totalCount, items} of Published items',
    quote: 'Response: {totalCount (integer), items (array of Published item)}.',
  },
  'items.get.by-ids': {
    level: 'MUST',
    section: '§4.2',
    title: 'get items by id returns exactly the items asked for',
    quote: 'id repeats once per item.',
  },
  'items.content-intact': {
    level: 'MUST',
    section: '§2.6',
    title: 'an item comes back with the content it was published with',
    quote: 'content | object | key/value map of the message content',
  },
  'items.content-types': {
    level: 'INFO',
    section: '§2.6',
    title: 'how nested objects, numbers and booleans in content come back',
    quote: 'content | object | key/value map of the message content',
  },
  'items.publisher': {
    level: 'MUST',
    section: '§2.6',
    title: "publisher.userId is the publishing user's id",
    quote: 'publisher | object | userId (string), deviceId (string or null)',
  },
  'items.get.unknown-id': {
    level: 'INFO',
    section: '§4.2',
    title: 'answer to unknown item ids',
    quote: 'Behaviour for unknown ids: not shown.',
  },
  'items.fetch.shape': {
    level: 'MUST',
    section: '§4.2, §2.6',
    title: 'fetch by date range answers {totalCount, items}',
    quote: 'Response: {totalCount (integer), items (array of Published item)}.',
  },
  'items.fetch.range': {
    level: 'MUST',
    section: '§4.2',
    title: 'fetch returns the items published within since..until and no other',
    quote: 'GET /channels/{channel_name}/items/fetch?since=<timestamp>&until=<timestamp>…',
  },
  'items.fetch.order': {
    level: 'MUST',
    section: '§4.2',
    title: 'sort_order ASC returns oldest first and DESC newest first',
    quote: 'sort_order=<ASC|DESC>',
  },
  'items.fetch.size': {
    level: 'MUST',
    section: '§4.2',
    title: 'fetch size caps the number of items',
    quote: '…&offset=<n>&size=<n>',
  },
  'items.fetch.offset': {
    level: 'MUST',
    section: '§4.2',
    title: 'fetch offset skips items in the requested order',
    quote: '…&offset=<n>&size=<n>',
  },
  'items.fetch.defaults': {
    level: 'INFO',
    section: '§4.2',
    title: 'defaults of the fetch parameters and meaning of totalCount',
    quote: 'Defaults and requiredness of since, until, sort_order, offset and size: not shown.',
  },
  'items.time-precision': {
    level: 'INFO',
    section: '§2.6, §4.2',
    title: 'whether items published a few ms apart keep their publish order (item time precision)',
    quote: 'Fetch items by date range: GET /channels/{channel_name}/items/fetch?since=<timestamp>&until=<timestamp>&sort_order=<ASC|DESC>',
  },
  'items.delete.result': {
    level: 'MUST',
    section: '§4.2',
    title: 'delete items by id answers an object with one integer status per id',
    quote: 'Response: object whose keys are item ids and whose values are integer status codes, one per id.',
  },
  'items.delete.removes': {
    level: 'MUST',
    section: '§4.2',
    title: 'deleted items are gone and the others remain',
    quote: 'Delete items by id: DELETE /channels/{channel_name}/items?id=<item_id>&id=<item_id>',
  },
  'items.delete-all.status': {
    level: 'MUST',
    section: '§4.2',
    title: 'delete all items succeeds with 200 for the owner',
    quote: 'Success of the four delete operations … is status 200.',
  },
  'items.delete-all.empties': {
    level: 'MUST',
    section: '§4.2',
    title: 'delete all items empties the channel',
    quote: 'Delete all items: DELETE /channels/{channel_name}/items/all?personal=<boolean>.',
  },
  'items.delete-all.owner-only': {
    level: 'MUST',
    section: '§4.2, §5.5',
    title: 'a non-owner cannot delete all items',
    quote: 'Only the channel owner may delete items this way.',
  },
  'items.max-items': {
    level: 'MUST',
    section: '§2.3',
    title: 'a channel keeps at most maxItems items',
    quote: 'maxItems | integer | maximum number of items kept; -1 means unlimited',
  },
  'items.max-items.unlimited': {
    level: 'MUST',
    section: '§2.3, §4.2',
    title: 'a channel with the default maxItems (-1, unlimited) keeps every item',
    quote: 'maxItems | integer | maximum number of items kept; -1 means unlimited',
  },
  'items.max-items.eviction': {
    level: 'INFO',
    section: '§2.3',
    title: 'which items a full channel keeps',
    quote: 'maximum number of items kept',
  },
  'items.max-payload': {
    level: 'MUST',
    section: '§2.3, §8',
    title: 'content larger than maxPayloadSize is refused',
    quote: 'maxPayloadSize | integer | maximum payload size',
  },
  'items.max-payload.value': {
    level: 'INFO',
    section: '§2.3, §8',
    title: 'maxPayloadSize the payload check works from, when it cannot be used',
    quote: 'maxPayloadSize | integer | maximum payload size',
  },
  'items.permission.anyone': {
    level: 'MUST',
    section: '§2.3, §4.2',
    title: 'publishPermission anyone lets a non-subscriber publish',
    quote: 'publishPermission | string | one of anyone, owner, subscribers',
  },
  'items.permission.owner': {
    level: 'MUST',
    section: '§2.3, §4.2',
    title: 'publishPermission owner refuses another user and lets the owner publish',
    quote: 'publishPermission | string | one of anyone, owner, subscribers',
  },
  'items.permission.subscribers': {
    level: 'MUST',
    section: '§2.3, §4.2',
    title: 'publishPermission subscribers refuses a non-subscriber and lets a subscriber publish',
    quote: 'publishPermission | string | one of anyone, owner, subscribers',
  },

  // ── Direct messages ─────────────────────────────────────────────────────────────────────────────────
  'messages.send.shape': {
    level: 'MUST',
    section: '§4.3, §2.8',
    title: 'send answers {count, sentList, unsentList}',
    quote: 'Response: {count, sentList, unsentList} (2.8).',
  },
  'messages.send.options': {
    level: 'MUST',
    section: '§4.3',
    title: 'a send with receipt true and a metadata object is accepted',
    quote: 'Body: receipt (boolean; true requests receipt confirmation on receipt of the message), recipientUserIds, content, metadata (object, optional).',
  },
  'messages.send.devices': {
    level: 'INFO',
    section: '§4.3',
    title: 'whether a send to the test accounts was sent to anybody (none: the sentList relations are not judged)',
    quote: 'sent counts users for whom a push was sent, unsent counts users for whom it could not be sent.',
  },
  'messages.send.requested': {
    level: 'MUST',
    section: '§4.3',
    title: 'requested counts the matched users',
    quote: 'In this operation requested counts matched users',
  },
  'messages.send.unknown-not-matched': {
    level: 'MUST',
    section: '§4.3',
    title: 'an unknown user id is not counted as matched',
    quote: 'requested counts matched users',
  },
  'messages.send.counts-add-up': {
    level: 'MUST',
    section: '§4.3',
    title: 'sent plus unsent equals requested',
    quote: 'sent counts users for whom a push was sent, unsent counts users for whom it could not be sent.',
  },
  'messages.send.recipients': {
    level: 'MUST',
    section: '§2.8',
    title: 'each sentList entry names a requested recipient by user id',
    quote: "recipientUsername (string; holds the recipient's user id)",
  },
  'messages.send.repeated-id': {
    level: 'INFO',
    section: '§4.3, §7',
    title: 'answer to a send that names one recipient twice',
    quote: 'Error responses: not shown.',
  },
  'messages.status.shape': {
    level: 'MUST',
    section: '§4.3, §2.7',
    title: 'delivery status answers an array of delivery records',
    quote: 'Get delivery status: GET /messages/{messageId}. Response: array of Message delivery status record.',
  },
  'messages.status.agrees': {
    level: 'MUST',
    section: '§2.7',
    title: 'delivery records name the message id, the sender and the recipient of the send',
    quote: 'recipient | string (user id); sender | string (user id); messageId | string',
  },
  'messages.status.states': {
    level: 'INFO',
    section: '§3',
    title: 'delivery state values observed',
    quote: 'Other values of state: not shown.',
  },
  'messages.receipt': {
    level: 'INFO',
    section: '§4.3, §6',
    title: 'receipt confirmation',
    quote: 'The receipt flag of a direct message only requests receipt confirmation.',
    notTestable: 'receipt confirmation happens on a device; the spec shows no event, webhook or state for it',
  },

  // ── Push ────────────────────────────────────────────────────────────────────────────────────────────
  'push.shape': {
    level: 'MUST',
    section: '§4.4, §2.8',
    title: 'push answers {count, sentList, unsentList} with pushId per sent device',
    quote: 'Response: {count, sentList, unsentList} (2.8).',
  },
  'push.counts': {
    level: 'MUST',
    section: '§4.4',
    title: 'sent equals the length of sentList; unsent is 0 exactly when unsentList is empty (its element shape is not shown)',
    quote: 'Here sent and unsent count devices.',
  },
  'push.devices': {
    level: 'INFO',
    section: '§4.4',
    title: 'whether a push to a test account reached any device (none: the per-device relations are not judged)',
    quote: 'Pushes to all active devices of the user.',
  },
  'push.payload-keys': {
    level: 'MUST',
    section: '§4.4',
    title: 'a payload with the predefined keys title, body, sound, badge and icon is accepted',
    quote: 'payload (object of key/value pairs; predefined keys for the platform notification services are title, body, sound, badge, icon)',
  },
  'push.actions': {
    level: 'MUST',
    section: '§4.4',
    title: 'PUSH and WAKEUP are both accepted',
    quote: 'action (PUSH for visible push, WAKEUP for silent push)',
  },
  'push.requested': {
    level: 'INFO',
    section: '§4.4',
    title: 'meaning of requested in a push result',
    quote: 'Here sent and unsent count devices.',
  },
  'push.platform-delivery': {
    level: 'INFO',
    section: '§1, §4.4',
    title: 'delivery through APNs and FCM',
    quote: 'The push goes through the platform push services for iOS and Android.',
    notTestable: 'what reaches a device is outside the API; only the push result is visible',
  },

  // ── Authorization ───────────────────────────────────────────────────────────────────────────────────
  'auth.token-required': {
    level: 'MUST',
    section: '§4, §5.4',
    title: 'a call without a valid bearer token is refused and changes nothing',
    quote: 'All endpoints except sign-in require Authorization: Bearer <ACCESS_TOKEN>.',
  },
  'auth.token-required.401': {
    level: 'SHOULD',
    section: '§4, §5.4',
    title: 'a call without a valid bearer token gets 401',
    quote: 'All endpoints except sign-in require Authorization: Bearer <ACCESS_TOKEN>.',
  },

  // ── HTTP conventions ────────────────────────────────────────────────────────────────────────────────
  'http.json-content-type': {
    level: 'SHOULD',
    section: '§4',
    title: 'JSON bodies are served as application/json',
    quote: 'Request and response bodies are JSON.',
  },
  'http.no-extra-fields': {
    level: 'SHOULD',
    section: '§2',
    title: 'responses carry no undocumented properties',
    quote: 'Resources and their fields',
  },
  'http.timestamp-form': {
    level: 'SHOULD',
    section: '§2',
    title: 'timestamps use the common ISO 8601 form with seconds and a zone',
    quote: 'Timestamps are ISO 8601 strings, for example <timestamp>.',
  },
  'http.not-found-404': {
    level: 'SHOULD',
    section: '§7',
    title: 'an unknown resource gets 404',
    quote: 'Error responses: not shown.',
  },
  'http.forbidden-403': {
    level: 'SHOULD',
    section: '§5.5, §7',
    title: 'a forbidden action gets 403',
    quote: 'Error responses: not shown.',
  },
  'http.error-body': {
    level: 'INFO',
    section: '§7',
    title: 'shape of error bodies',
    quote: 'Error responses: not shown (no error codes, no error body shape, no failure status codes).',
  },
  'http.valid-request-answered': {
    level: 'MUST',
    section: '§4',
    title: 'a valid request, whatever its values, is answered without a server error (5xx)',
    quote: 'Request and response bodies are JSON. … Response: …',
  },
  'http.input-refused': {
    level: 'INFO',
    section: '§2.3, §4, §7',
    title: 'which unusual values (characters, lengths) a server refuses',
    quote: 'Constraints on channel names (length, allowed characters): not shown. … Error responses: not shown',
  },
})

export type ClauseId = keyof typeof clauseDefs

export function areaOf(id: string): Area {
  const area = id.split('.')[0]
  if (!(area in AREAS)) throw new Error(`clause ${id}: unknown area '${area}'`)
  return area as Area
}

export const CLAUSES: readonly Clause[] = Object.entries(clauseDefs).map(([id, def]) => ({
  id,
  area: areaOf(id),
  ...(def as ClauseDef),
}))

const byId = new Map(CLAUSES.map((c) => [c.id, c]))

export function clause(id: string): Clause {
  const found = byId.get(id)
  if (!found) throw new Error(`unknown clause id '${id}' (not in helpers/spec/clauses.ts)`)
  return found
}

export function isClauseId(id: string): id is ClauseId {
  return byId.has(id)
}

/** A check's test title carries its clause id at the end, `title [id]`: stable, readable, parseable. */
const ID_IN_TITLE = / \[([a-z0-9.-]+)\]$/

export function titleWithClause(title: string, id: string): string {
  return `${title} [${id}]`
}

export function titleOf(testName: string): string {
  return testName.replace(ID_IN_TITLE, '')
}
