/**
 * Models of the spec's spaces, the measure of how much of them the suite visits (DESIGN-level idea: bugs
 * live in regions, not in a list of faults). Six matrices, each cell covered by a named check, by explore,
 * or not applicable with the spec's reason:
 *
 * - inputs: every parameter and body field of §4 × the classes of value that break real implementations;
 * - views: every mutation × every read that must reflect it (after refusals and evictions too);
 * - addresses: every channel endpoint × address form × caller × public/private;
 * - races: pairs of writes to one channel in flight at once × each write of the pair;
 * - devices: two users on one device id, one user on two devices × the records that name a user;
 * - records: a channel's own fields × the views of its record (callers, search, after later calls).
 *
 * The generated checks (suites/inputs.test.ts, views, addresses, races and devices .test.ts) iterate these
 * tables, so a row added here is a check added there; `npm run openapi` writes docs/coverage.md from them, and
 * selftest/coverage.test.ts holds the tables, the endpoint table and the suite's real check titles together.
 */
import type { ClauseId } from './clauses'

// ── input classes ──────────────────────────────────────────────────────────────────────────────────────

/** A class of text value: what it is, and the value made around a token unique to the check. */
export interface TextClass {
  id: string
  what: string
  value: (token: string) => string
}

const pad = (token: string, length: number): string => (token + ' ' + 'abcdefghij'.repeat(Math.ceil(length / 10))).slice(0, length)

/** Text classes. Each value holds the check's unique token (at its start but for a leading mark), so a search for it finds only the check's own data. */
export const TEXT_CLASSES = {
  separators: { what: 'the separators , + # . ; & = and spaces', value: (t: string) => `${t} a,b+c#d.e;f&g=h i` },
  percent: { what: 'text that looks percent-encoded (%25, %2F, a lone %)', value: (t: string) => `${t} 100%25 %2F 5% off` },
  slash: { what: 'slashes', value: (t: string) => `${t}/x/y` },
  quotes: { what: 'quotes, a backslash and markup', value: (t: string) => `${t} "q" 'a' \\b <i>&amp;</i>` },
  'non-ascii': { what: 'non-ASCII letters (Latin, CJK, Cyrillic)', value: (t: string) => `${t} Grüße ñandú 東京 Привет` },
  emoji: { what: 'emoji, one of them a joined sequence', value: (t: string) => `${t} 🚀✅ 👩‍💻` },
  'leading-hash': { what: 'a leading "#", as a hashtag is written', value: (t: string) => `#${t}` },
  'pattern-syntax': {
    // No "[": SQL Server's LIKE reads it as a character class, and a search by such a description would miss it.
    what: 'characters that are syntax in a regular expression, a LIKE pattern or a glob, "(" left open',
    value: (t: string) => `${t} f(x y? a+b ^c$ d|e {2} _z`,
  },
  'long-200': { what: '200 characters, past a 128-character column and short of 255', value: (t: string) => pad(t, 200) },
  'long-300': { what: '300 characters, past a 255-character column or index prefix', value: (t: string) => pad(t, 300) },
  'long-20000': { what: '20,000 characters', value: (t: string) => pad(t, 20_000) },
} as const satisfies Record<string, Omit<TextClass, 'id'>>
export type TextClassId = keyof typeof TEXT_CLASSES

export function textClass(id: TextClassId): TextClass {
  return { id, ...TEXT_CLASSES[id] }
}

/** The non-text classes of the input model: sizes, lists, flags, instants. */
export const OTHER_CLASSES = {
  'size-0': 'a size or offset of 0',
  'size-1': 'a size or offset of 1',
  'size-total': 'a size or offset equal to the number of matches',
  'size-past-total': 'a size or offset past the number of matches',
  'list-empty': 'an empty list',
  'list-duplicates': 'one value twice in a list',
  'list-many': 'a list of many values',
  'param-repeated': 'a query parameter repeated',
  'bool-explicit': 'a boolean sent explicitly, true and false',
  'instant-whole-second': 'an instant written without a fraction of a second',
  'instant-offset': 'an instant written with a numeric UTC offset other than Z',
  'instant-ms-fraction': 'an instant with a fraction of a second, inside the second of an item',
  'instant-fraction-digits': 'an instant whose fraction of a second has more digits than milliseconds (6, 9)',
  'length-prefixes': 'lengths just past common column and index prefixes (16, 32, 64, 128, 255 characters)',
  'upper-case': 'upper-case letters, the value addressed as written',
  'content-many-keys': 'content with many keys',
  'content-key-classes': 'content keys holding separators, non-ASCII, emoji, a leading "$" or a "."',
  'content-typed-strings': 'string values that look like numbers, booleans or JSON',
  'content-empty-string': 'an empty string value',
  'object-empty': 'an empty object where an object is optional',
  'object-nested': 'an object whose values are objects, arrays, numbers and booleans, not only strings',
  'part-of-longer': 'a value that a longer stored value begins or ends with',
  'filter-combined': 'given together with another of the filters (a search: channelName, description, tag, a second tag)',
} as const
export type OtherClassId = keyof typeof OTHER_CLASSES
export type InputClassId = TextClassId | OtherClassId

/** What covers a cell: checks (clause and title, as the suite names them), explore, or nothing with the spec's reason. */
export type Cover = { checks: readonly { clause: ClauseId; title: string }[]; explore?: string } | { explore: string; checks?: undefined } | { na: string }

/** One parameter or body field of an endpoint (operationId of helpers/spec/endpoints.ts) and its cells. */
export interface InputRow {
  operationId: string
  field: string
  /** What the spec lets the server do with an unusual value, and what the checks then judge. */
  judged: string
  cells: Partial<Record<InputClassId, Cover>>
  /** Why the classes not listed do not apply to this field. */
  otherwise: string
}

const c = (clause: ClauseId, title: string) => ({ clause, title })

/** The send whose recipients mix unknown ids with one or two known users, the unknown ids first, in the middle, last and twice. */
export const UNKNOWN_IDS_PLACED = 'counts the matched users wherever unknown ids stand: first, in the middle, last, and twice'

/** Titles of the generated input checks, one per field and class (suites/inputs.test.ts builds them here). */
export const inputTitle = {
  description: (k: TextClassId) => `stores a description of ${TEXT_CLASSES[k].what} as created`,
  descriptionSearch: (k: TextClassId) => `finds a channel by its description of ${TEXT_CLASSES[k].what}`,
  tag: (k: TextClassId) => `stores a tag of ${TEXT_CLASSES[k].what} and finds the channel by it`,
  tagDelete: (k: TextClassId) => `deletes a tag of ${TEXT_CLASSES[k].what} by its path and keeps the other`,
  content: (k: TextClassId) => `returns a content value of ${TEXT_CLASSES[k].what} unchanged`,
  name: (k: NameClassId) => `reaches a channel whose name holds ${NAME_CLASSES[k].what} by that name`,
  nameSearch: (k: NameClassId) => `finds a channel whose name holds ${NAME_CLASSES[k].what} by its exact name`,
  nameSummary: (k: NameClassId) => `answers the summary of a channel whose name holds ${NAME_CLASSES[k].what}`,
  nameDelete: (k: NameClassId) => `deletes a channel whose name holds ${NAME_CLASSES[k].what} by that name`,
  deviceId: (k: DeviceClassId) => `accepts an MMS-DEVICE-ID of ${DEVICE_CLASSES[k].what}`,
  userSearch: (k: TextClassId) => `answers a user search for a value of ${TEXT_CLASSES[k].what} with an array`,
  pushPayload: (k: TextClassId) => `pushes a payload title of ${TEXT_CLASSES[k].what}`,
  messageContent: (k: TextClassId) => `sends content of ${TEXT_CLASSES[k].what}`,
}

/** The search filters a search may give together (§4.2), as its query parameters. */
export const SEARCH_FILTERS = ['channelName', 'description', 'tag'] as const
export type SearchFilter = (typeof SEARCH_FILTERS)[number]
const ANOTHER: Readonly<Record<SearchFilter, string>> = {
  channelName: 'by tag or by description',
  description: 'by tag or by channelName',
  tag: 'by channelName or by description',
}

/** Titles of the combined-filter search checks (suites/channels.test.ts), one per filter judged. */
export const searchTitle = {
  combined: (f: SearchFilter) =>
    `narrows a search ${ANOTHER[f]} with the ${f} given beside it: lists the channel matching both, not one matching the other filter alone`,
  twoTags: 'lets each of two repeated tags take part, as all tags or as any tag',
  /** One filter given twice with one value: under any reading of a repeated parameter (first, last, any, all) the channel satisfies it. */
  twice: (f: SearchFilter) => `finds a channel by its ${f} given twice with the same value`,
}

/**
 * Text classes a router or a servlet container may refuse in a path segment, however well encoded: an encoded
 * slash (%2F), a percent sign that decodes to an escape (%25), a backslash and quotes (%5C, %22). A space (%20),
 * the other separators and non-ASCII letters are ordinary encoded path text, which the server must take as given.
 */
export const PATH_REFUSABLE: readonly TextClassId[] = ['slash', 'percent', 'quotes']

/** `base` padded with letters to `length` characters (never shortened: the base is the check's unique name). */
const padName = (base: string, length: number): string => base + 'abcdefghij'.repeat(Math.ceil(length / 10)).slice(0, Math.max(0, length - base.length))

/**
 * Names: the spec shows neither an alphabet nor a length (§2.3), so a refusal is recorded; an accepted name must
 * work everywhere. The lengths sit one past the prefixes a column or a search index commonly keeps.
 */
export const NAME_CLASSES = {
  'plus-comma': { what: '"+" and ","', name: (base: string) => `${base}+x,y` },
  space: { what: 'a space', name: (base: string) => `${base} x` },
  'non-ascii': { what: 'non-ASCII letters', name: (base: string) => `${base}ñü東` },
  emoji: { what: 'an emoji', name: (base: string) => `${base}🚀` },
  'dot-underscore': { what: '".", "_" and "-"', name: (base: string) => `${base}.v2_x-y` },
  // Addressed exactly as created: a lookup that folds case on one path only (an index keyed by the lower-cased name) misses it.
  'upper-case': { what: 'upper-case letters', name: (base: string) => `${base}-MixedCase` },
  'length-33': { what: '33 characters', name: (base: string) => padName(base, 33) },
  'length-50': { what: '50 characters', name: (base: string) => padName(base, 50) },
  'length-65': { what: '65 characters', name: (base: string) => padName(base, 65) },
  'long-100': { what: '100 characters', name: (base: string) => padName(base, 100) },
  'length-129': { what: '129 characters', name: (base: string) => padName(base, 129) },
  'length-256': { what: '256 characters', name: (base: string) => padName(base, 256) },
} as const
export type NameClassId = keyof typeof NAME_CLASSES

/** MMS-DEVICE-ID values: "any value" (§4.1), within what an HTTP header can carry. */
export const DEVICE_CLASSES = {
  separators: { what: 'separators , ; = + # % and &', value: (t: string) => `${t},a;b=c+d#e%f&g` },
  quotes: { what: 'quotes and a backslash', value: (t: string) => `${t}"q"'a'\\b` },
  // A platform push token is 150–200 characters (an FCM registration token about 163): a device id that long is a plain one.
  'long-200': { what: '200 characters, as long as a platform push token', value: (t: string) => pad(t, 200).replace(/ /g, '-') },
  uuid: { what: 'an upper-case UUID', value: (t: string) => `${t.slice(0, 8).toUpperCase()}-0000-4000-8000-000000000000` },
} as const
export type DeviceClassId = keyof typeof DEVICE_CLASSES

/** The text classes each generated field runs through (the long 20,000 is left out of URLs: a 414 is a server's right). */
export const FIELD_CLASSES = {
  description: ['separators', 'percent', 'slash', 'quotes', 'non-ascii', 'emoji', 'leading-hash', 'pattern-syntax', 'long-200', 'long-300', 'long-20000'],
  tag: ['separators', 'percent', 'slash', 'quotes', 'non-ascii', 'emoji', 'leading-hash', 'pattern-syntax', 'long-200', 'long-300'],
  content: ['separators', 'percent', 'slash', 'quotes', 'non-ascii', 'emoji', 'leading-hash', 'pattern-syntax', 'long-200', 'long-300', 'long-20000'],
  userSearch: ['separators', 'percent', 'slash', 'quotes', 'non-ascii', 'emoji', 'leading-hash', 'pattern-syntax', 'long-300'],
  pushPayload: ['separators', 'quotes', 'non-ascii', 'emoji', 'leading-hash', 'pattern-syntax', 'long-300'],
  messageContent: ['separators', 'quotes', 'non-ascii', 'emoji', 'leading-hash', 'pattern-syntax', 'long-300'],
} as const satisfies Record<string, readonly TextClassId[]>

const generated = (clause: ClauseId, title: (k: any) => string, classes: readonly string[], more: Partial<Record<InputClassId, Cover>> = {}) =>
  Object.fromEntries([...classes.map((k) => [k, { checks: [c(clause, title(k))] }]), ...Object.entries(more)]) as Partial<Record<InputClassId, Cover>>

/** Two checks per class: the value stored and found, and the value deleted. */
const generated2 = (
  clause: ClauseId,
  title: (k: any) => string,
  second: ClauseId,
  secondTitle: (k: any) => string,
  classes: readonly string[],
  more: Partial<Record<InputClassId, Cover>> = {},
) =>
  Object.fromEntries([...classes.map((k) => [k, { checks: [c(clause, title(k)), c(second, secondTitle(k))] }]), ...Object.entries(more)]) as Partial<
    Record<InputClassId, Cover>
  >

/** The column of the input matrix each name class falls in. */
const NAME_COLUMN: Readonly<Record<NameClassId, string>> = {
  'plus-comma': 'separators',
  'dot-underscore': 'separators',
  'upper-case': 'upper-case',
  space: 'space',
  'non-ascii': 'non-ascii',
  emoji: 'emoji',
  'length-33': 'length-prefixes',
  'length-50': 'length-prefixes',
  'length-65': 'length-prefixes',
  'long-100': 'long-300',
  'length-129': 'length-prefixes',
  'length-256': 'length-prefixes',
}

/** Four checks per name class (get, search, summary, delete), grouped by the column the class falls in. */
function nameCells(): Partial<Record<InputClassId, Cover>> {
  const cells: Record<string, { clause: ClauseId; title: string }[]> = {}
  for (const k of Object.keys(NAME_CLASSES) as NameClassId[])
    (cells[NAME_COLUMN[k]] ??= []).push(
      c('channels.get.matches-create', inputTitle.name(k)),
      c('channels.search.by-name', inputTitle.nameSearch(k)),
      c('channels.summary.shape', inputTitle.nameSummary(k)),
      c('channels.delete.removes', inputTitle.nameDelete(k)),
    )
  return Object.fromEntries(Object.entries(cells).map(([col, checks]) => [col, { checks }])) as Partial<Record<InputClassId, Cover>>
}

const NOT_TEXT = 'not a free-text field'
const ENUM = 'an enumerated value (§4): only the values the spec lists are valid'
const BOOL = 'a boolean (§4: "true or false")'

export const INPUT_MODEL: readonly InputRow[] = [
  {
    operationId: 'signIn',
    field: 'MMS-DEVICE-ID',
    judged: '"any value" is accepted (§4.1, §5.2): a 2xx Session for each',
    cells: {
      ...Object.fromEntries(
        Object.keys(DEVICE_CLASSES).map((k) => [k, { checks: [c('signin.device-id.any-value', inputTitle.deviceId(k as DeviceClassId))] }]),
      ),
      separators: {
        checks: [
          c('signin.device-id.any-value', inputTitle.deviceId('separators')),
          c('signin.device-id.any-value', 'accepts an MMS-DEVICE-ID with spaces, dots, colons and slashes'),
        ],
      },
    },
    otherwise: 'a header carries no non-ASCII text nor line breaks (RFC 9110 §5.5), so those classes are not values a client can send',
  },
  {
    operationId: 'signIn',
    field: 'username / password / client_id / grant_type / scope',
    judged: "the account values are the deployment's; grant_type and scope have one value each (§4.1)",
    cells: {},
    otherwise:
      'credentials are given by the deployment, not chosen by the suite; a wrong password and client id are refused (signin.wrong-*), and so is the password altered by case or by one character more or less (spaces around it are not tried: a server may trim the values of a form); the form body is accepted with a charset parameter (signin.params.form)',
  },
  {
    operationId: 'searchUsers',
    field: 'q (value)',
    judged:
      "any value is answered with an array of User, never a 5xx (a full-text engine may split it into terms that match someone); the accounts' own values are judged in suites/users.test.ts",
    cells: generated('users.search.shape', inputTitle.userSearch, FIELD_CLASSES.userSearch, {
      'long-20000': { na: "a URL of 60 kB: a 414 is a server's or a proxy's right" },
    }),
    otherwise: "the accounts' own values are the deployment's, so no other class can be stored and searched for",
  },
  {
    operationId: 'createChannel',
    field: 'channelName',
    judged:
      'the alphabet and length are "not shown" (§2.3): a refusal is recorded; a name that was accepted is reached by get and summary, found by a search for it and deleted by its owner, each judged under its own clause',
    cells: {
      ...nameCells(),
      percent: { na: '"%" in a path segment is the escape character itself; a server may refuse such a name (alphabet not shown)' },
      slash: { na: '"/" ends a path segment: a name holding one cannot be addressed by a path (§4.2 paths)' },
      quotes: {
        na: 'the alphabet is not shown and such a name cannot be tested without a server that accepts it; recorded in channels.name.alphabet where tried',
      },
      'long-20000': { na: 'a path of 20,000 characters exceeds common URL limits' },
    },
    otherwise: 'a name is text; upper case is judged in suites/channels.test.ts',
  },
  {
    operationId: 'createChannel',
    field: 'description',
    judged:
      'no limit nor alphabet is stated: a refusal is a choice; an accepted description reads back unchanged from get and is found by search for its exact value',
    cells: Object.fromEntries(
      FIELD_CLASSES.description.map((k) => [
        k,
        {
          checks: [
            c('channels.create.fields-stored', inputTitle.description(k)),
            ...(k === 'long-20000' ? [] : [c('channels.search.by-description', inputTitle.descriptionSearch(k))]),
          ],
        },
      ]),
    ),
    otherwise: 'every text class applies',
  },
  {
    operationId: 'createChannel',
    field: 'maxItems',
    judged: '-1 unlimited, n keeps at most n (§2.3, §8)',
    cells: {
      'size-1': { checks: [c('items.max-items', 'keeps at most 1 item in a channel with maxItems 1')] },
      'size-total': { checks: [c('items.max-items', 'keeps at most 2 items in a channel with maxItems 2')] },
      'size-past-total': { checks: [c('items.max-items.unlimited', 'keeps all 5 items in a channel with the default maxItems')] },
    },
    otherwise: NOT_TEXT,
  },
  {
    operationId: 'createChannel',
    field: 'privateChannel / subscribeOnCreate',
    judged: BOOL,
    cells: {
      'bool-explicit': {
        checks: [
          c('private.create', 'creates a private channel with privateChannel true'),
          c('channels.create.no-subscribe', 'leaves the creator unsubscribed with subscribeOnCreate false'),
        ],
      },
    },
    otherwise: BOOL,
  },
  { operationId: 'createChannel', field: 'publishPermission', judged: ENUM, cells: {}, otherwise: ENUM },
  {
    operationId: 'searchChannels',
    field: 'channelName / description (search values)',
    judged:
      'the exact stored value finds its channel, whatever characters it holds; given with another filter, each narrows the results (§4.2 lists them in one query); given twice with one value, a refusal is recorded (only tag is said to repeat) and an answer lists the channel',
    cells: {
      separators: { checks: [c('channels.search.by-description', inputTitle.descriptionSearch('separators'))] },
      'param-repeated': {
        checks: [c('channels.search.by-name', searchTitle.twice('channelName')), c('channels.search.by-description', searchTitle.twice('description'))],
      },
      'filter-combined': {
        checks: [c('channels.search.by-name', searchTitle.combined('channelName')), c('channels.search.by-description', searchTitle.combined('description'))],
      },
    },
    otherwise: 'covered cell by cell by the description and name rows: each stored value is searched for',
  },
  {
    operationId: 'searchChannels',
    field: 'tag',
    judged:
      'tag may repeat (§4.2): every repeated tag takes part, one tag given twice finds its channels; matching rules are not shown for name and description only, so a tag held inside a longer one does not match; given with channelName or description, the tag narrows their results',
    cells: {
      'param-repeated': { checks: [c('channels.search.by-tag', searchTitle.twoTags), c('channels.search.by-tag', searchTitle.twice('tag'))] },
      'filter-combined': { checks: [c('channels.search.by-tag', searchTitle.combined('tag')), c('channels.search.by-tag', searchTitle.twoTags)] },
      'part-of-longer': {
        checks: [c('channels.search.by-tag', 'returns none of the channels whose only tag holds the tag searched for inside a longer one')],
      },
      separators: { checks: [c('tags.add.visible', inputTitle.tag('separators'))] },
    },
    otherwise: 'the tag values are covered by the add-tags row: each stored tag is searched for',
  },
  {
    operationId: 'searchChannels',
    field: 'offset / size',
    judged: 'offset skips that many matches, size caps the results (§4.2)',
    cells: {
      'size-0': { checks: [c('channels.search.offset', 'skips offset results: 3, 2 and 0 of 3 matches for offset 0, 1 and 3')] },
      'size-1': { checks: [c('channels.search.size', 'returns one result with size=1 out of three matches')] },
      'size-total': { checks: [c('channels.search.size', 'returns all three matches with size=3 and with size=4')] },
      'size-past-total': { checks: [c('channels.search.size', 'returns all three matches with size=3 and with size=4')] },
    },
    otherwise: NOT_TEXT,
  },
  {
    operationId: 'addTags',
    field: 'tags',
    judged: 'no alphabet is stated: a refused add is recorded; an accepted tag is listed by get tags as sent, found by search and removed by delete one tag',
    cells: generated2('tags.add.visible', inputTitle.tag, 'tags.delete-one.removes', inputTitle.tagDelete, FIELD_CLASSES.tag, {
      'list-empty': { checks: [c('tags.add.visible', 'keeps the tags a channel has when an empty list is added')] },
      'list-duplicates': { checks: [c('tags.delete-one.removes', 'removes a tag that was added twice in one list')] },
      'list-many': { checks: [c('tags.add.visible', 'stores every tag of a batch of 20')] },
      'long-20000': { na: 'a tag is read back in a URL by delete one tag; 20,000 characters exceed common URL limits' },
    }),
    otherwise: 'every class applies',
  },
  {
    operationId: 'addTags',
    field: 'personal',
    judged: BOOL,
    cells: { 'bool-explicit': { checks: [c('private.tags-personal', "adds, reads and deletes tags of the owner's private channel with personal=true")] } },
    otherwise: BOOL,
  },
  {
    operationId: 'deleteTag',
    field: 'tag (path)',
    judged:
      'the tag as stored, sent as an encoded path segment: removed; only a slash, a percent sign or quotes and a backslash may be refused on the way (PATH_REFUSABLE)',
    cells: {
      separators: { checks: [c('tags.delete-one.removes', inputTitle.tagDelete('separators'))] },
      slash: { checks: [c('tags.delete-one.removes', inputTitle.tagDelete('slash'))] },
      'non-ascii': { checks: [c('tags.delete-one.removes', inputTitle.tagDelete('non-ascii'))] },
    },
    otherwise: 'covered by the add-tags row, whose delete checks send each stored tag as the path',
  },
  {
    operationId: 'publishItem',
    field: 'content',
    judged:
      'key/value pairs well under maxPayloadSize: a refusal is recorded, except of other languages than English (JSON text is Unicode, no alphabet is stated); accepted content comes back unchanged from get by id and fetch',
    cells: generated('items.content-intact', inputTitle.content, FIELD_CLASSES.content, {
      'non-ascii': {
        checks: [
          c('items.content-intact', inputTitle.content('non-ascii')),
          c('items.publish.response', `answers 201 to a publish of content of ${TEXT_CLASSES['non-ascii'].what}`),
        ],
      },
      'content-many-keys': { checks: [c('items.content-intact', 'returns content of 60 keys unchanged')] },
      'content-key-classes': {
        checks: [
          c('items.content-intact', 'returns content keys holding separators, non-ASCII and emoji unchanged'),
          c('items.content-intact', 'returns content keys that start with "$" or hold a "." unchanged'),
        ],
      },
      'content-typed-strings': { checks: [c('items.content-intact', 'returns string values that look like numbers, booleans and JSON as strings')] },
      'content-empty-string': { checks: [c('items.content-intact', 'returns an empty string value unchanged')] },
    }),
    otherwise: 'every class applies',
  },
  {
    operationId: 'publishItem',
    field: 'messageType / contentType',
    judged: 'requiredness not shown (§4.2)',
    cells: { 'bool-explicit': { checks: [c('items.publish.optional-fields', 'records the answer to a publish without messageType and contentType')] } },
    otherwise: 'neither is read back by any endpoint (§2.6 has no such field)',
  },
  {
    operationId: 'getItems',
    field: 'id',
    judged: 'id repeats once per item (§4.2)',
    cells: {
      'param-repeated': { checks: [c('items.get.by-ids', 'returns exactly the four items asked for out of five')] },
      'list-duplicates': { checks: [c('items.get.by-ids', "returns none of another channel's items for their ids")] },
    },
    otherwise: "ids are the server's",
  },
  {
    operationId: 'fetchItems',
    field: 'since / until',
    judged: 'ISO 8601 instants (§2): any valid form names the same instant',
    cells: {
      'instant-offset': { checks: [c('items.fetch.range', 'reads since and until written with +09:00 and -08:00 offsets as the instants they name')] },
      'instant-whole-second': { checks: [c('items.fetch.range', 'reads since and until written without a fraction of a second')] },
      'instant-fraction-digits': { checks: [c('items.fetch.range', 'reads since and until written with six and nine digits of a fraction of a second')] },
      'instant-ms-fraction': {
        checks: [
          c('items.fetch.range', 'returns an item for an until a fraction of a second after it, in its second'),
          c('items.fetch.range', 'leaves out an item for a since a fraction of a second after it, in its second'),
        ],
      },
    },
    otherwise: 'instants, not text',
  },
  {
    operationId: 'fetchItems',
    field: 'offset / size',
    judged: 'offset skips, size caps (§4.2)',
    cells: {
      'size-1': { checks: [c('items.fetch.size', 'returns exactly 1 item with size=1 out of 3')] },
      'size-total': { checks: [c('items.fetch.size', 'returns all three items with size=3 and none with offset=3')] },
      'size-past-total': { checks: [c('items.fetch.size', 'returns all three items with size=3 and none with offset=3')] },
    },
    otherwise: NOT_TEXT,
  },
  { operationId: 'fetchItems', field: 'sort_order', judged: ENUM, cells: {}, otherwise: ENUM },
  {
    operationId: 'deleteItems',
    field: 'id',
    judged: 'one status per id (§4.2)',
    cells: {
      'param-repeated': { checks: [c('items.delete.removes', 'removes the two items deleted and keeps the third')] },
      'list-duplicates': { checks: [c('items.delete.removes', "keeps another channel's item whose id is sent to this channel")] },
    },
    otherwise: "ids are the server's",
  },
  {
    operationId: 'deleteChannel / deleteTag / deleteTags / deleteAllItems',
    field: 'personal',
    judged: BOOL,
    cells: { 'bool-explicit': { checks: [c('private.delete-personal', "deletes the owner's private channel with personal=true")] } },
    otherwise: BOOL,
  },
  {
    operationId: 'sendToUserIds',
    field: 'content',
    judged:
      'key/value pairs: the send is answered with counts (§4.3), never a 5xx; other languages than English are accepted (JSON text is Unicode and no alphabet is stated), other classes may be refused (recorded)',
    cells: generated('messages.send.shape', inputTitle.messageContent, FIELD_CLASSES.messageContent, {
      'non-ascii': {
        checks: [
          c('messages.send.shape', inputTitle.messageContent('non-ascii')),
          c('messages.send.options', `accepts content of ${TEXT_CLASSES['non-ascii'].what}`),
        ],
      },
    }),
    otherwise: 'content is not read back by any endpoint (§2.7 has no content)',
  },
  {
    operationId: 'sendToUserIds',
    field: 'recipientUserIds',
    judged: 'requested counts matched users (§4.3)',
    cells: {
      'list-duplicates': {
        checks: [
          c('messages.send.requested', 'counts B named twice as one or two matched users, never more or fewer'),
          c('messages.send.counts-add-up', 'gives sent plus unsent equal to requested for B named twice'),
          c('messages.send.requested', UNKNOWN_IDS_PLACED),
        ],
      },
      'list-many': {
        checks: [
          c('messages.send.requested', 'counts two matched users as requested 2'),
          c('messages.send.requested', 'counts three matched users as requested 3, in two orders'),
          c('messages.send.requested', UNKNOWN_IDS_PLACED),
        ],
      },
    },
    otherwise: "user ids are the deployment's",
  },
  {
    operationId: 'sendToUserIds',
    field: 'receipt / metadata',
    judged: 'receipt is a boolean, metadata an optional object',
    cells: {
      'bool-explicit': { checks: [c('messages.send.options', 'accepts receipt true with a metadata object')] },
      'object-empty': { checks: [c('messages.send.options', 'accepts an empty metadata object, with receipt false and true')] },
      'object-nested': {
        na: 'the type of a metadata value is not shown (§4.3 "metadata (object, optional)"): a server that carries metadata as a push data payload may take string values only',
      },
    },
    otherwise: BOOL,
  },
  { operationId: 'deliveryStatus', field: 'messageId', judged: "ids are the server's", cells: {}, otherwise: "the id is the server's" },
  {
    operationId: 'pushToUser',
    field: 'payload',
    judged:
      'key/value pairs with predefined keys (§4.4): answered with counts, never a 5xx; other languages than English are accepted in the title and body of a visible push; other classes may be refused (recorded)',
    cells: generated('push.shape', inputTitle.pushPayload, FIELD_CLASSES.pushPayload, {
      'non-ascii': {
        checks: [c('push.shape', inputTitle.pushPayload('non-ascii')), c('push.payload-keys', `accepts a title and body of ${TEXT_CLASSES['non-ascii'].what}`)],
      },
    }),
    otherwise: 'the payload is not read back by any endpoint',
  },
  {
    operationId: 'pushToUser',
    field: 'recipientUserId',
    judged: "a user id: the deployment's",
    cells: {},
    otherwise: "pushes go only to the run's own accounts (staging safety), whose ids are the deployment's",
  },
  {
    operationId: 'pushToUser',
    field: 'action / name',
    judged: 'action is PUSH or WAKEUP',
    cells: { 'bool-explicit': { checks: [c('push.actions', 'accepts a visible PUSH and a silent WAKEUP to B')] } },
    otherwise: ENUM,
  },
]

// ── mutations × views ──────────────────────────────────────────────────────────────────────────────────

export const MUTATIONS = [
  'create channel',
  'delete channel',
  'delete and re-create',
  'add tags',
  'delete one tag',
  'delete all tags',
  'publish',
  'refused publish',
  'eviction (maxItems)',
  'delete items by id',
  'delete all items',
  'refused delete (non-owner)',
  'delete one tag and add it again',
  'delete all tags and add one again',
  'two tag changes in a row',
  'unsubscribe and subscribe again',
  'delete all items and publish again',
  'subscribe',
  'unsubscribe',
  'sign-in on another device',
  'send',
  'push',
] as const
export type Mutation = (typeof MUTATIONS)[number]

export const VIEWS = [
  'get channel',
  'search by name',
  'search by tag',
  'search by description',
  'summary count',
  'summary time',
  'items get',
  'items fetch',
  'subscribers',
  'tags',
  'user lists',
  'delivery status',
  'push counts',
  'fetch pages',
  'search pages',
] as const
export type View = (typeof VIEWS)[number]

/** Cells of the two page views (offset and size over what a view holds) that a change of channels or items touches. */
const PAGES_NOT_HERE =
  'pages are judged where the paged things come and go (items: publish, delete, eviction; channels: create, delete); the other views of this change are judged in their own columns'
/**
 * The checks of two tag changes in a row (suites/views.test.ts): each ordered pair of (add a new tag, delete one
 * tag, delete all tags) on a channel with two tags, each tag judged under the clause of the last change that
 * names it (a tag neither names, under the second change's).
 */
export const tagPairTitle = {
  add: 'lists a new tag added before or after another tag change, and the tags neither change removed',
  deleteOne: 'keeps a tag deleted by delete one tag gone through a later tag change, and the other tags as the changes left them',
  deleteAll: 'keeps every tag gone after delete all tags through a later tag change, and removes a tag added before it',
}

export const viewTitle = {
  recreateResubscribe: 'lists a former subscriber who subscribes to a channel created again under the name of the one it was subscribed to',
  fetchPagesAfterDelete: 'pages over the items left after deletes by id: offset skips only those',
  fetchSizeAfterDelete: 'pages over the items left after deletes by id: size counts only those',
  fetchPagesAfterEviction: 'pages over the items a full channel keeps: offset skips only those',
  fetchSizeAfterEviction: 'pages over the items a full channel keeps: size counts only those',
  searchPagesAfterDelete: 'pages over the channels left after deletes: offset skips only those',
  searchSizeAfterDelete: 'pages over the channels left after deletes: size counts only those',
}

const fetchPages = (cover: Cover): Partial<Record<View, Cover>> => ({ 'fetch pages': cover })
const searchPages = (cover: Cover): Partial<Record<View, Cover>> => ({ 'search pages': cover })

const CHANNEL_VIEWS: readonly View[] = [
  'get channel',
  'search by name',
  'search by tag',
  'search by description',
  'summary count',
  'summary time',
  'items get',
  'items fetch',
  'subscribers',
  'tags',
]
const UNTOUCHED = 'the mutation does not change what this view shows (§4): nothing to reflect; that it stays as it was is the frame model’s (section 7)'
const LIFETIME =
  'publishedItemCount is not defined further (§2.4): a count of items kept and a count of publishes are both readings, so a removal need not lower it'

/** Every cell of a mutation's row not listed is not applicable with `rest`. */
function row(cells: Partial<Record<View, Cover>>, rest: string, views: readonly View[] = VIEWS): Record<View, Cover> {
  return Object.fromEntries(VIEWS.map((v) => [v, cells[v] ?? (views.includes(v) ? { na: rest } : { na: UNTOUCHED })])) as Record<View, Cover>
}

export const VIEW_MODEL: Readonly<Record<Mutation, Record<View, Cover>>> = {
  'create channel': row(
    {
      ...searchPages({
        checks: [
          c('channels.search.offset', 'skips offset results: 3, 2 and 0 of 3 matches for offset 0, 1 and 3'),
          c('channels.search.size', 'returns one result with size=1 out of three matches'),
        ],
      }),
      ...fetchPages({ na: 'a new channel holds no item to page' }),
      'get channel': { checks: [c('channels.get.matches-create', 'returns the created name and description')] },
      'search by name': { checks: [c('channels.search.by-name', 'finds a channel by its exact name')] },
      'search by description': { checks: [c('channels.search.by-description', 'finds a channel by its exact description')] },
      subscribers: { checks: [c('channels.create.default-subscribe', 'subscribes the creator when subscribeOnCreate is left out')] },
      'summary count': { checks: [c('channels.summary.count', 'counts no item of a new channel as 0')] },
      tags: { checks: [c('tags.delete-all.removes', 'gives a new channel no tags')] },
      'items fetch': { checks: [c('items.fetch.range', 'returns no item of a new channel')] },
    },
    'a new channel has no tags to search by, no item and no publish time (§2.4: not defined before a publish)',
    CHANNEL_VIEWS,
  ),
  'delete channel': row(
    {
      ...searchPages({ checks: [c('channels.search.offset', viewTitle.searchPagesAfterDelete), c('channels.search.size', viewTitle.searchSizeAfterDelete)] }),
      ...fetchPages({ na: 'the channel is gone: its items are not paged' }),
      'get channel': {
        checks: [
          c('channels.delete.removes', 'no longer returns a deleted channel'),
          c('channels.delete.removes', "no longer answers another user's GET after the owner deletes the public channel"),
          c('channels.delete.removes', "no longer answers another user's GET through <user_id>#<name> after the owner deletes the private channel"),
        ],
      },
      'search by name': { checks: [c('channels.delete.removes', 'no longer finds a deleted channel by name, tag or description')] },
      'search by tag': { checks: [c('channels.delete.removes', 'no longer finds a deleted channel by name, tag or description')] },
      'search by description': { checks: [c('channels.delete.removes', 'no longer finds a deleted channel by name, tag or description')] },
    },
    'the channel is gone: every read of it is refused or empty, which the re-create row judges where it matters',
    CHANNEL_VIEWS,
  ),
  'delete and re-create': row(
    {
      ...searchPages({ na: 'a re-created channel is a new channel: the create and delete rows judge the pages' }),
      ...fetchPages({ na: 'a re-created channel is a new channel: the create and delete rows judge the pages' }),
      'get channel': {
        checks: [
          c('channels.get.creator', 'names the new owner of a name another user deleted and re-created'),
          c('channels.create.fields-stored', 'stores the description of a channel created again under a deleted name'),
          c('channels.delete.removes', 'never shows another user through <user_id>#<name> the record of a deleted private channel made again'),
        ],
      },
      'search by name': { checks: [c('channels.search.by-name', 'finds a channel created again under a deleted name by its name')] },
      tags: { checks: [c('channels.delete.recreate-fresh', 'a channel created again under a deleted name has none of the old items, tags and subscribers')] },
      'items fetch': {
        checks: [c('channels.delete.recreate-fresh', 'a channel created again under a deleted name has none of the old items, tags and subscribers')],
      },
      subscribers: {
        checks: [
          c('channels.delete.recreate-fresh', 'a channel created again under a deleted name has none of the old items, tags and subscribers'),
          c('subscriptions.subscribe.listed', viewTitle.recreateResubscribe),
        ],
      },
      'search by tag': { checks: [c('channels.search.by-tag', "does not find a channel made again under a deleted name by the old channel's tag")] },
      'search by description': {
        checks: [c('channels.search.by-description', 'finds a channel created again under a deleted name by its new description')],
      },
    },
    'a re-created channel is a new channel: the create row judges its views',
    CHANNEL_VIEWS,
  ),
  'add tags': row(
    {
      ...searchPages({ na: PAGES_NOT_HERE }),
      tags: {
        checks: [
          c('tags.add.visible', 'stores the added tags, which get tags returns'),
          c('tags.add.visible', "shows another user through <user_id>#<name> a tag added after that user's first read"),
        ],
      },
      'search by tag': { checks: [c('channels.search.by-tag', 'returns exactly the channels carrying a tag')] },
      'get channel': { checks: [c('channels.create.fields-stored', 'keeps maxItems and publishPermission as created after tags are added')] },
    },
    'tags are not part of that view (§2.3, §2.4, §2.5, §2.6)',
    CHANNEL_VIEWS,
  ),
  'delete one tag': row(
    {
      ...searchPages({ na: PAGES_NOT_HERE }),
      tags: { checks: [c('tags.delete-one.removes', 'removes that tag and keeps the other')] },
      'search by tag': { checks: [c('channels.search.by-tag', 'no longer finds a channel by a tag deleted from it')] },
    },
    'tags are not part of that view',
    CHANNEL_VIEWS,
  ),
  'delete all tags': row(
    {
      ...searchPages({ na: PAGES_NOT_HERE }),
      tags: { checks: [c('tags.delete-all.removes', 'leaves the channel with no tags')] },
      'search by tag': { checks: [c('channels.search.by-tag', 'no longer finds a channel by any of its tags after delete all tags')] },
    },
    'tags are not part of that view',
    CHANNEL_VIEWS,
  ),
  publish: row(
    {
      ...fetchPages({
        checks: [
          c('items.fetch.size', 'returns exactly 1 item with size=1 out of 3'),
          c('items.fetch.offset', 'returns the 2nd and 3rd item with offset=1, size=2 in ASC order'),
        ],
      }),
      'summary count': {
        checks: [
          c('channels.summary.count', 'counts three published items as 3'),
          c('channels.summary.count', "counts for another user through <user_id>#<name> an item published after that user's first summary"),
        ],
      },
      'summary time': { checks: [c('channels.summary.last-published', 'moves lastPublishedTime forward for a publish a second after the first')] },
      'items get': { checks: [c('items.get.by-ids', 'returns exactly the two items asked for out of three')] },
      'items fetch': {
        checks: [
          c('items.fetch.range', 'returns every item for a range around them'),
          c('items.fetch.range', "fetches for another user through <user_id>#<name> an item published after that user's first fetch"),
        ],
      },
    },
    'items are not part of that view',
    CHANNEL_VIEWS,
  ),
  'refused publish': row(
    {
      'items fetch': { checks: [c('items.permission.owner', 'stores nothing for a refused publish: fetch and the summary count stay as they were')] },
      'summary count': { checks: [c('items.permission.owner', 'stores nothing for a refused publish: fetch and the summary count stay as they were')] },
    },
    'a refused publish has nothing a read could show beyond the item and its count',
    CHANNEL_VIEWS,
  ),
  'eviction (maxItems)': row(
    {
      ...fetchPages({ checks: [c('items.fetch.offset', viewTitle.fetchPagesAfterEviction), c('items.fetch.size', viewTitle.fetchSizeAfterEviction)] }),
      'items fetch': { checks: [c('items.max-items', 'keeps at most 2 items in a channel with maxItems 2')] },
      'items get': { checks: [c('items.max-items', 'returns at most 2 of 3 items by id in a channel with maxItems 2')] },
      'summary count': { na: LIFETIME },
    },
    'eviction changes only the items kept',
    CHANNEL_VIEWS,
  ),
  'delete items by id': row(
    {
      ...fetchPages({ checks: [c('items.fetch.offset', viewTitle.fetchPagesAfterDelete), c('items.fetch.size', viewTitle.fetchSizeAfterDelete)] }),
      'items get': { checks: [c('items.delete.removes', 'removes the two items deleted and keeps the third')] },
      'items fetch': { checks: [c('items.delete.removes', 'no longer fetches a deleted item')] },
      'summary count': { na: LIFETIME },
    },
    'items are not part of that view',
    CHANNEL_VIEWS,
  ),
  'delete all items': row(
    {
      ...fetchPages({ na: 'nothing is left to page: the items fetch column judges that none comes back' }),
      'items fetch': { checks: [c('items.delete-all.empties', 'leaves the channel without items')] },
      'items get': { checks: [c('items.delete-all.empties', 'returns no deleted item by its id')] },
      'summary count': { na: LIFETIME },
    },
    'items are not part of that view',
    CHANNEL_VIEWS,
  ),
  'refused delete (non-owner)': row(
    {
      'get channel': { checks: [c('channels.delete.owner-only', 'refuses a non-owner and keeps the channel')] },
      'search by name': { checks: [c('channels.delete.owner-only', 'keeps a channel findable by name after a refused delete')] },
      'items fetch': { checks: [c('items.delete-all.owner-only', 'refuses another user and keeps the items')] },
    },
    'a refused delete changes nothing; the views judged are the ones a delete would empty',
    CHANNEL_VIEWS,
  ),
  'delete one tag and add it again': row(
    {
      ...searchPages({ na: PAGES_NOT_HERE }),
      tags: { checks: [c('tags.add.visible', 'lists a tag added again after it was deleted')] },
      'search by tag': { checks: [c('channels.search.by-tag', 'finds a channel by a tag added again after it was deleted')] },
    },
    'tags are not part of that view',
    CHANNEL_VIEWS,
  ),
  'delete all tags and add one again': row(
    {
      ...searchPages({ na: PAGES_NOT_HERE }),
      tags: { checks: [c('tags.add.visible', 'lists a tag added again after delete all tags')] },
      'search by tag': { checks: [c('channels.search.by-tag', 'finds a channel by a tag added again after delete all tags')] },
    },
    'tags are not part of that view',
    CHANNEL_VIEWS,
  ),
  'two tag changes in a row': row(
    {
      ...searchPages({ na: PAGES_NOT_HERE }),
      tags: {
        checks: [
          c('tags.add.visible', tagPairTitle.add),
          c('tags.delete-one.removes', tagPairTitle.deleteOne),
          c('tags.delete-all.removes', tagPairTitle.deleteAll),
        ],
      },
    },
    'the rows of one tag change and of a tag undone and done again judge the other views; this row judges the tag list each ordered pair leaves',
    CHANNEL_VIEWS,
  ),
  'unsubscribe and subscribe again': row(
    { subscribers: { checks: [c('subscriptions.subscribe.listed', 'lists a user who unsubscribed and then subscribed again')] } },
    'subscriptions are not part of that view',
    CHANNEL_VIEWS,
  ),
  'delete all items and publish again': row(
    {
      'items fetch': { checks: [c('items.fetch.range', 'fetches an item published after delete all items, and none of the deleted')] },
      ...fetchPages({ na: PAGES_NOT_HERE }),
    },
    'the publish row judges the other views of a publish; a count after a removal is not defined further (§2.4)',
    CHANNEL_VIEWS,
  ),
  subscribe: row(
    {
      subscribers: {
        checks: [
          c('subscriptions.subscribe.listed', 'lists the new subscriber with its user id and the channel name'),
          c('subscriptions.subscribe.listed', 'lists each of B and C who subscribed at the same moment'),
          c('subscriptions.subscribe.listed', 'lists both of two users who subscribed from one device id'),
        ],
      },
    },
    'subscriptions are not part of that view',
    CHANNEL_VIEWS,
  ),
  unsubscribe: row(
    {
      subscribers: {
        checks: [
          c('subscriptions.unsubscribe.removed', 'no longer lists the user after it unsubscribes'),
          c('subscriptions.unsubscribe.own-only', 'keeps C subscribed when B, signed in on the same device id, unsubscribes'),
        ],
      },
    },
    'subscriptions are not part of that view',
    CHANNEL_VIEWS,
  ),
  'sign-in on another device': row(
    {
      'user lists': { checks: [c('users.list.contains-accounts', 'lists A, B and C after each has signed in on a second device')] },
      'push counts': {
        checks: [
          c(
            'push.counts',
            'gives sent equal to the length of sentList, and unsent 0 exactly when unsentList is empty, for a user signed in on a second device',
          ),
        ],
      },
    },
    UNTOUCHED,
    [],
  ),
  send: row(
    {
      'delivery status': {
        checks: [
          c('messages.status.agrees', 'names the message id, A as sender and the sent recipient in every record'),
          c('messages.status.agrees', 'names A as sender and B as recipient to B reading the status'),
        ],
      },
    },
    UNTOUCHED,
    [],
  ),
  push: row(
    { 'push counts': { checks: [c('push.counts', 'gives sent equal to the length of sentList, and unsent 0 exactly when unsentList is empty')] } },
    UNTOUCHED,
    [],
  ),
}

// ── addresses × callers ────────────────────────────────────────────────────────────────────────────────

/** The operations that address a channel by name (operationIds of helpers/spec/endpoints.ts). */
export const CHANNEL_OPERATIONS = [
  'getChannel',
  'channelSummary',
  'deleteChannel',
  'subscribe',
  'unsubscribe',
  'listSubscribers',
  'addTags',
  'getTags',
  'deleteTag',
  'deleteTags',
  'publishItem',
  'getItems',
  'fetchItems',
  'deleteItems',
  'deleteAllItems',
] as const
export type ChannelOperation = (typeof CHANNEL_OPERATIONS)[number]

/** Method and path of each, as people (and the per-endpoint token checks' titles) write them. */
export const OPERATION_LABEL: Readonly<Record<ChannelOperation, string>> = {
  getChannel: 'GET /channels/{name}',
  channelSummary: 'GET /channels/{name}/summary',
  deleteChannel: 'DELETE /channels/{name}',
  subscribe: 'PUT /channels/{name}/subscribe',
  unsubscribe: 'PUT /channels/{name}/unsubscribe',
  listSubscribers: 'GET /channels/{name}/subscriptions',
  addTags: 'POST /channels/{name}/tags',
  getTags: 'GET /channels/{name}/tags',
  deleteTag: 'DELETE /channels/{name}/tags/{tag}',
  deleteTags: 'DELETE /channels/{name}/tags',
  publishItem: 'POST /channels/{name}/items',
  getItems: 'GET /channels/{name}/items',
  fetchItems: 'GET /channels/{name}/items/fetch',
  deleteItems: 'DELETE /channels/{name}/items',
  deleteAllItems: 'DELETE /channels/{name}/items/all',
}
const CHANGES: readonly ChannelOperation[] = [
  'deleteChannel',
  'subscribe',
  'unsubscribe',
  'addTags',
  'deleteTag',
  'deleteTags',
  'publishItem',
  'deleteItems',
  'deleteAllItems',
]

export const ADDRESSES = ['public, plain name', 'private, plain name', 'private, <user_id>#<name>'] as const
export type Address = (typeof ADDRESSES)[number]
export const CALLERS = ['owner', 'subscriber', 'other', 'anonymous'] as const
export type Caller = (typeof CALLERS)[number]

/** What the spec says a caller may do through an address (§2.3 addressing, §5.5 owner-only, §4 token). */
export const OWNER_ONLY: readonly ChannelOperation[] = ['deleteChannel', 'deleteAllItems']
/** The operations that take `personal` (§4.2: a query parameter of the deletes, a body field of add tags). */
export const PERSONAL: readonly ChannelOperation[] = ['deleteChannel', 'deleteAllItems', 'deleteTag', 'deleteTags', 'addTags']

export const addressTitle = {
  anonymous: (op: ChannelOperation) => `refuses ${OPERATION_LABEL[op]} without a token on a private channel, by plain name and by <user_id>#<name>`,
  ownerPrivate: (op: ChannelOperation) => `lets the owner call ${OPERATION_LABEL[op]} on its private channel by the plain name`,
  otherPlain: (op: ChannelOperation) => `does not let another user's ${OPERATION_LABEL[op]} by the plain name reach a private channel`,
  ownerOnlyPublic: (op: ChannelOperation) =>
    `refuses ${OPERATION_LABEL[op]} of another user's public channel to a subscriber and another user, with personal absent and personal=false written out, and changes nothing through personal=true or <user_id>#<name>`,
  namesakeDelete: (op: 'deleteChannel' | 'deleteAllItems') =>
    `refuses ${OPERATION_LABEL[op]} of another user's public channel, with personal absent and personal=false, to a user holding a private channel of the same name, keeping the channel and its item`,
  namesakeMaxItems: "keeps every item of a channel with no maxItems when another user's channel of the same name, public or private, holds maxItems 2",
  namesakeSubscribeOnCreate: 'subscribes the creator to a public channel it creates after its own private channel of the same name',
  namesakeOwnDelete: (deleted: 'private' | 'public') =>
    deleted === 'private'
      ? "keeps a user's public channel with its item, tag and subscriber when another user deletes its own private channel of the same name"
      : "keeps a user's private channel and its tag when another user deletes its own public channel of the same name",
  namesakeSearch: "lists another user's public channel, never the caller's own private channel, when the caller searches by the name they share",
  ownerOnlyStates:
    "refuses another user's delete of all items of a channel holding only that user's item, keeping it, and records the answer while the channel is empty",
  ownerOnlyHash: (op: ChannelOperation) =>
    `refuses ${OPERATION_LABEL[op]} of a private channel by <user_id>#<name> to a subscriber and another user, changing nothing`,
}

/** The owner on its public channel by the plain name: each endpoint's own response check. */
const OWNER_PUBLIC: Readonly<Record<ChannelOperation, { clause: ClauseId; title: string }>> = {
  getChannel: c('channels.get.shape', 'answers 200 and a Channel'),
  channelSummary: c('channels.summary.shape', 'answers 200 and a Channel summary'),
  deleteChannel: c('channels.delete.status', 'answers 200 to the owner'),
  subscribe: c('subscriptions.subscribe.response', 'answers 200 with code, a non-empty subId and msg'),
  unsubscribe: c('subscriptions.unsubscribe.response', 'answers 200 with message and code'),
  listSubscribers: c('subscriptions.list.shape', 'answers 200 and an array of Subscription records'),
  addTags: c('tags.add.response', 'answers 200 with code and message'),
  getTags: c('tags.get.shape', 'answers 200 with the channel name and an array of tags'),
  deleteTag: c('tags.delete-one.status', 'answers 200 when the owner deletes a tag'),
  deleteTags: c('tags.delete-all.status', 'answers 200 when the owner deletes all tags'),
  publishItem: c('items.publish.response', 'answers 201 with message, status and a non-empty messageId'),
  getItems: c('items.get.shape', 'answers totalCount and Published items of the channel'),
  fetchItems: c('items.fetch.shape', 'answers totalCount and Published items'),
  deleteItems: c('items.delete.result', 'answers one integer status per item id asked'),
  deleteAllItems: c('items.delete-all.status', 'answers 200 when the owner deletes all items'),
}

const READS: readonly ChannelOperation[] = ['getChannel', 'channelSummary', 'listSubscribers', 'getTags', 'getItems', 'fetchItems']

/** The cover of one cell of the address × caller matrix. */
export function addressCell(op: ChannelOperation, address: Address, caller: Caller): Cover {
  if (caller === 'anonymous') {
    if (address === 'public, plain name')
      return { checks: [c('auth.token-required', `refuses ${OPERATION_LABEL[op]} without a token${CHANGES.includes(op) ? ', changing nothing' : ''}`)] }
    return { checks: [c('auth.token-required', addressTitle.anonymous(op))] }
  }
  if (address === 'public, plain name') {
    if (OWNER_ONLY.includes(op) && caller !== 'owner')
      return {
        checks: [
          c(
            op === 'deleteChannel' ? 'channels.delete.owner-only' : 'items.delete-all.owner-only',
            op === 'deleteChannel' ? 'refuses a subscribed non-owner and keeps the channel' : 'refuses a subscribed non-owner and keeps the items',
          ),
          c(op === 'deleteChannel' ? 'channels.delete.owner-only' : 'items.delete-all.owner-only', addressTitle.ownerOnlyPublic(op)),
        ],
      }
    if (caller === 'owner') return { checks: [c(OWNER_PUBLIC[op].clause, OWNER_PUBLIC[op].title)] }
    return {
      na: `the spec gives no rule for ${caller === 'subscriber' ? 'a subscriber' : 'another user'} here beyond the publish permissions (items.permission.*): every answer is conformant`,
    }
  }
  if (address === 'private, plain name') {
    if (caller === 'owner') return { checks: [c('private.own-plain-name', addressTitle.ownerPrivate(op))] }
    return { checks: [c('private.plain-name-not-shared', addressTitle.otherPlain(op))] }
  }
  // private, <user_id>#<name>
  if (caller === 'owner') return { na: "the form is defined for another user's private channel only (§2.3): the owner uses the plain name" }
  if (OWNER_ONLY.includes(op))
    return { checks: [c(op === 'deleteChannel' ? 'channels.delete.owner-only' : 'items.delete-all.owner-only', addressTitle.ownerOnlyHash(op))] }
  if (READS.includes(op))
    return {
      checks: [c('private.other-user-address', "resolves another user's <user_id>#<channel_name> to that private channel")],
      explore: 'private reads through the address',
    }
  return { na: "who may change another user's private channel is not stated (§2.3, §5.5 name only the owner-only deletes): every answer is conformant" }
}

// ── concurrent pairs of writes ─────────────────────────────────────────────────────────────────────────

/** Titles of the generated and fixed checks of the race model (suites/races.test.ts). */
export const raceTitle = {
  publishDeleteById: 'keeps every item published while deletes by id run, and removes the items deleted',
  deleteByIdTwice: 'removes each item of three deletes by id sent at once, and keeps the item none named',
  publishDeleteAll: 'removes an item published before a delete of all items that publishes raced',
  maxItemsBurst: (maxItems: number, held: number, racing: number) =>
    `keeps at most ${maxItems} item(s) after ${racing} publishes at once into a channel with maxItems ${maxItems} holding ${held}`,
  unsubscribeThree: 'lists none of three users whose unsubscribes, sent at once, were answered 2xx',
  subscribeUnsubscribe: (side: 'subscribe' | 'unsubscribe') =>
    side === 'subscribe'
      ? 'lists a user whose subscribe was sent with another user’s unsubscribe'
      : 'no longer lists a user whose unsubscribe was sent with another user’s subscribe',
  addDeleteTag: (side: 'add' | 'delete') =>
    side === 'add' ? 'keeps a tag added at the same moment another tag is deleted' : 'removes a tag deleted at the same moment another tag is added',
  deleteTagThree: 'removes each of three tags deleted at once, and keeps the tag none named',
  addDeleteAllTags: 'removes a tag there before a delete of all tags that an add raced',
  publishThreeUsers: 'names each of three users who published to one channel at the same moment as its own item’s publisher, by id and by fetch',
  sendThreeUsers: 'names each of three users who sent at the same moment as the sender in its own message’s delivery status',
}

/** Two writes to one channel in flight at once; `first` and `second` cover what each must leave (§4.2, §2.3). */
export interface RacePair {
  pair: string
  first: Cover
  second: Cover
}

const SYMMETRIC = 'the two writes are of one kind: the first column covers both'
const ORDER =
  'what this write leaves depends on which of the two the server ran first, which the spec does not show: only the other write’s effect holds in either order'

export const RACE_PAIRS: readonly RacePair[] = [
  {
    pair: 'publish × publish (maxItems -1)',
    first: {
      checks: [
        c('items.max-items.unlimited', 'keeps each of 4 items published at the same time'),
        c('items.get.by-ids', 'returns each of two items published at the same moment by its own id'),
      ],
    },
    second: { na: SYMMETRIC },
  },
  {
    pair: 'publish × publish by different users',
    first: { checks: [c('items.publisher', raceTitle.publishThreeUsers)] },
    second: { na: SYMMETRIC },
  },
  {
    pair: 'send × send by different users',
    first: { checks: [c('messages.status.agrees', raceTitle.sendThreeUsers)] },
    second: { na: SYMMETRIC },
  },
  {
    pair: 'publish × publish at the maxItems bound',
    first: {
      checks: [c('items.max-items', raceTitle.maxItemsBurst(1, 0, 2)), c('items.max-items', raceTitle.maxItemsBurst(2, 1, 3))],
    },
    second: { na: SYMMETRIC },
  },
  {
    pair: 'publish × delete items by id',
    first: { checks: [c('items.delete.removes', raceTitle.publishDeleteById)] },
    second: { checks: [c('items.delete.removes', raceTitle.publishDeleteById)] },
  },
  {
    pair: 'delete items by id × delete items by id',
    first: { checks: [c('items.delete.removes', raceTitle.deleteByIdTwice)] },
    second: { na: SYMMETRIC },
  },
  {
    pair: 'publish × delete all items',
    first: { na: ORDER },
    second: { checks: [c('items.delete-all.empties', raceTitle.publishDeleteAll)] },
  },
  {
    pair: 'publish × delete channel',
    first: { na: ORDER },
    second: { checks: [c('channels.delete.removes', 'stays deleted when publishes race the delete')] },
  },
  {
    pair: 'subscribe × subscribe',
    first: { checks: [c('subscriptions.subscribe.listed', 'lists each of B and C who subscribed at the same moment')] },
    second: { na: SYMMETRIC },
  },
  {
    pair: 'unsubscribe × unsubscribe',
    first: { checks: [c('subscriptions.unsubscribe.removed', raceTitle.unsubscribeThree)] },
    second: { na: SYMMETRIC },
  },
  {
    pair: 'subscribe × unsubscribe (two users)',
    first: { checks: [c('subscriptions.subscribe.listed', raceTitle.subscribeUnsubscribe('subscribe'))] },
    second: { checks: [c('subscriptions.unsubscribe.removed', raceTitle.subscribeUnsubscribe('unsubscribe'))] },
  },
  {
    pair: 'add tags × add tags',
    first: { checks: [c('tags.add.visible', 'keeps the tags of two adds sent at the same time')] },
    second: { na: SYMMETRIC },
  },
  {
    pair: 'add tags × delete one tag',
    first: { checks: [c('tags.add.visible', raceTitle.addDeleteTag('add'))] },
    second: { checks: [c('tags.delete-one.removes', raceTitle.addDeleteTag('delete'))] },
  },
  {
    pair: 'delete one tag × delete one tag',
    first: { checks: [c('tags.delete-one.removes', raceTitle.deleteTagThree)] },
    second: { na: SYMMETRIC },
  },
  {
    pair: 'add tags × delete all tags',
    first: { na: ORDER },
    second: { checks: [c('tags.delete-all.removes', raceTitle.addDeleteAllTags)] },
  },
]

/** Titles of the checks of a read in flight with a write on the same channel (suites/races.test.ts). */
export const readRaceTitle = {
  fetchDeleteById: 'answers each fetch sent with a delete by id with a page of items, the channel’s own',
  getDeleteById: 'answers each get by ids sent with a delete of one of them by id, naming only items asked for',
  fetchDeleteAll: 'answers a fetch sent with a delete of all items with a page of items, the channel’s own',
  fetchPublish: 'answers each fetch sent with a publish with a page of items, the channel’s own',
  tagsDeleteTag: 'answers each get tags sent with a delete of one tag with the tags, the channel’s own',
  subscriptionsUnsubscribe: 'answers each list of subscriptions sent with an unsubscribe with a list of subscriptions',
  summaryPublish: 'answers each summary sent with a publish with the channel’s summary',
  getDeleteChannel: 'answers a get-by-name sent with the delete of that channel with the channel or a refusal, never a server error',
}

/**
 * A read of a channel in flight while a write changes it. The spec orders nothing between the two, so the read
 * may show the state before or after the write (or, for a write of many parts, some of it); what holds either way
 * is that the read is answered, with the shape its operation states, and holds only what the channel held.
 */
export interface ReadRace {
  pair: string
  read: Cover
}

export const READ_RACES: readonly ReadRace[] = [
  { pair: 'fetch × delete items by id', read: { checks: [c('items.fetch.shape', readRaceTitle.fetchDeleteById)] } },
  { pair: 'get items by ids × delete items by id', read: { checks: [c('items.get.shape', readRaceTitle.getDeleteById)] } },
  { pair: 'fetch × delete all items', read: { checks: [c('items.fetch.shape', readRaceTitle.fetchDeleteAll)] } },
  { pair: 'fetch × publish', read: { checks: [c('items.fetch.shape', readRaceTitle.fetchPublish)] } },
  { pair: 'summary × publish', read: { checks: [c('channels.summary.shape', readRaceTitle.summaryPublish)] } },
  { pair: 'get tags × delete one tag', read: { checks: [c('tags.get.shape', readRaceTitle.tagsDeleteTag)] } },
  { pair: 'list subscriptions × unsubscribe', read: { checks: [c('subscriptions.list.shape', readRaceTitle.subscriptionsUnsubscribe)] } },
  { pair: 'get channel × delete channel', read: { checks: [c('channels.get.shape', readRaceTitle.getDeleteChannel)] } },
]

// ── users × devices ────────────────────────────────────────────────────────────────────────────────────

export const deviceTitle = {
  subscriptionOutlivesSignIns:
    'keeps listing a user who subscribed from a device id after it signs in there again, then on another device, then another user signs in on that device id',
  sharedPublisher: 'names each of two users who published from one device id as its publisher',
  sharedCreator: 'names each of two users who created a channel from one device id as its creator',
  sharedSender: 'names the user who sent from a device id another user signed in with first as the sender',
  sharedRecipients: 'counts two users signed in with one device id as two recipients: sent plus unsent equal to requested',
  sharedStatusRecipient: 'names the recipient of a message in its status when the recipient signed in on a device id another user signed in with first',
  sharedPushRecipient:
    'gives sent equal to the length of sentList, and unsent 0 exactly when unsentList is empty, for a user whose device id another user signed in with afterwards',
  morePushDevices: 'gives sent equal to the length of sentList, and unsent 0 exactly when unsentList is empty, for a user signed in on three more devices',
  secondCreator: 'names the owner as creator of a channel it created from its second device',
  secondCreatorDevice: 'names in creator the device each channel was created from, the owner signed in on two',
  secondPublisher: 'names the user who published from its second device as the publisher',
  secondSubscriber: 'lists a user who subscribed from its second device',
  secondSender: 'names the user who sent from its second device as the sender',
  secondStatusReader: 'answers the delivery status of a message a user sent from its second device on that device and on its first',
  secondUnsubscriber: 'no longer lists a user who subscribed from one device and unsubscribed from its second',
  sharedUnsubscriber: 'no longer lists a user who subscribed from its own device and unsubscribed from a device id another user signed in with first',
  ownerDeletesTag: 'removes the tag the owner deletes from its second device and from a device id another user signed in with first',
  ownerDeletesItems: 'removes the item the owner deletes by id from its second device and from a device id another user signed in with first',
  ownerDeletesChannel: 'removes the channel the owner deletes from its second device and from a device id another user signed in with first',
  ownerDeletesAllTags: 'leaves no tag when the owner deletes all tags from its second device and from a device id another user signed in with first',
  ownerDeletesAllItems: 'leaves no item when the owner deletes all items from its second device and from a device id another user signed in with first',
  signInDeviceStates:
    'accepts a sign-in on a device id never used, on one the same user signed in with, on one another user is still signed in with, and on a second device',
  subscribeAgainSubIds: 'lists the subId each subscribe answered and the user: the first, again from the same device, again from a second device',
}

export const DEVICE_SETUPS = ['two users, one device id', 'one user, two devices'] as const
export type DeviceSetup = (typeof DEVICE_SETUPS)[number]
export const DEVICE_ROLES = [
  'creator',
  'creator device',
  'publisher',
  'subscriber',
  'unsubscriber',
  'sender',
  'sender reading the status',
  'recipient',
  'push recipient',
  'owner deleting a tag',
  'owner deleting items by id',
  'owner deleting all tags',
  'owner deleting all items',
  'owner deleting the channel',
  'signing in',
] as const
export type DeviceRole = (typeof DEVICE_ROLES)[number]

/** Who a record names (§2.3 creator, §2.5 subscription, §2.6 publisher, §2.7 sender, §4.3 recipients counted) × how users and devices meet. */
export const DEVICE_MODEL: Readonly<Record<DeviceSetup, Record<DeviceRole, Cover>>> = {
  'two users, one device id': {
    creator: { checks: [c('channels.get.creator', deviceTitle.sharedCreator)] },
    'creator device': { checks: [c('channels.get.creator', deviceTitle.sharedCreator)] },
    publisher: { checks: [c('items.publisher', deviceTitle.sharedPublisher)] },
    subscriber: {
      checks: [
        c('subscriptions.subscribe.listed', 'lists both of two users who subscribed from one device id'),
        c('subscriptions.subscribe.listed', deviceTitle.subscriptionOutlivesSignIns),
      ],
    },
    unsubscriber: {
      checks: [
        c('subscriptions.unsubscribe.removed', deviceTitle.sharedUnsubscriber),
        c('subscriptions.unsubscribe.own-only', 'keeps C subscribed when B, signed in on the same device id, unsubscribes'),
      ],
    },
    sender: { checks: [c('messages.status.agrees', deviceTitle.sharedSender)] },
    'sender reading the status': { checks: [c('messages.status.agrees', deviceTitle.sharedSender)] },
    recipient: { checks: [c('messages.send.counts-add-up', deviceTitle.sharedRecipients), c('messages.status.agrees', deviceTitle.sharedStatusRecipient)] },
    'push recipient': { checks: [c('push.counts', deviceTitle.sharedPushRecipient)] },
    'owner deleting a tag': { checks: [c('tags.delete-one.removes', deviceTitle.ownerDeletesTag)] },
    'owner deleting items by id': { checks: [c('items.delete.removes', deviceTitle.ownerDeletesItems)] },
    'owner deleting all tags': { checks: [c('tags.delete-all.removes', deviceTitle.ownerDeletesAllTags)] },
    'owner deleting all items': { checks: [c('items.delete-all.empties', deviceTitle.ownerDeletesAllItems)] },
    'owner deleting the channel': { checks: [c('channels.delete.removes', deviceTitle.ownerDeletesChannel)] },
    'signing in': { checks: [c('signin.device-id.any-value', deviceTitle.signInDeviceStates)] },
  },
  'one user, two devices': {
    creator: { checks: [c('channels.get.creator', deviceTitle.secondCreator)] },
    'creator device': { checks: [c('channels.get.creator-device', deviceTitle.secondCreatorDevice)] },
    publisher: { checks: [c('items.publisher', deviceTitle.secondPublisher)] },
    subscriber: {
      checks: [
        c('subscriptions.subscribe.listed', deviceTitle.secondSubscriber),
        c('subscriptions.subscribe.listed', deviceTitle.subscribeAgainSubIds),
        c('subscriptions.subscribe.listed', deviceTitle.subscriptionOutlivesSignIns),
      ],
    },
    unsubscriber: { checks: [c('subscriptions.unsubscribe.removed', deviceTitle.secondUnsubscriber)] },
    sender: { checks: [c('messages.status.agrees', deviceTitle.secondSender)] },
    'sender reading the status': { checks: [c('messages.status.shape', deviceTitle.secondStatusReader)] },
    recipient: { checks: [c('messages.send.counts-add-up', 'counts users, not devices: B signed in on a second device is still one user')] },
    'push recipient': {
      checks: [
        c('push.counts', 'gives sent equal to the length of sentList, and unsent 0 exactly when unsentList is empty, for a user signed in on a second device'),
        c('push.counts', deviceTitle.morePushDevices),
      ],
    },
    'owner deleting a tag': { checks: [c('tags.delete-one.removes', deviceTitle.ownerDeletesTag)] },
    'owner deleting items by id': { checks: [c('items.delete.removes', deviceTitle.ownerDeletesItems)] },
    'owner deleting all tags': { checks: [c('tags.delete-all.removes', deviceTitle.ownerDeletesAllTags)] },
    'owner deleting all items': { checks: [c('items.delete-all.empties', deviceTitle.ownerDeletesAllItems)] },
    'owner deleting the channel': { checks: [c('channels.delete.removes', deviceTitle.ownerDeletesChannel)] },
    'signing in': { checks: [c('signin.device-id.any-value', deviceTitle.signInDeviceStates)] },
  },
}

/** A model whose every cell `cell` decides: rows × columns, each cell covered or not applicable with its reason. */
function grid<R extends string, C extends string>(rows: readonly R[], columns: readonly C[], cell: (row: R, column: C) => Cover): Record<R, Record<C, Cover>> {
  return Object.fromEntries(rows.map((r) => [r, Object.fromEntries(columns.map((c) => [c, cell(r, c)]))])) as Record<R, Record<C, Cover>>
}

// ── a channel's record × its views ─────────────────────────────────────────────────────────────────────

export const recordTitle = {
  searchStored: 'shows in search results the description, maxItems, publishPermission and privateChannel a channel was created with',
  otherStored: 'shows another user the created description, maxItems, permission and privateChannel, by name and through <user_id>#<name>',
  changedStored: 'keeps the created description, maxItems, permission and privateChannel in every view after a tag, a publish and a subscribe',
  fixedEverywhere: "gives another user and search results the creator and creationDate of the owner's GET",
  fixedAfter: 'keeps creator and creationDate in every view after a tag, a publish and a subscribe',
  itemContent: "returns each user's item with its own content to every reader, by id and by fetch, before and after later calls",
  itemPublisher: "names each item's own publisher to every reader, by id and by fetch, before and after later calls",
  itemContentAddress: "returns the owner's item unchanged to another user through <user_id>#<name>, by id and by fetch",
  itemPublisherAddress: 'names the owner as the publisher to another user through <user_id>#<name>, by id and by fetch',
  itemPublisherThroughAddress: 'names the user who published through <user_id>#<name> as the publisher, to the owner by id and by fetch',
  userEverywhere: "shows each account's sign-in record to every caller in the list of all users and in searches by userIdentifier and userName",
  userSignIn:
    "answers each account's sign-in with its own record of the list of all users, on a device id of its own and on one another account signed in with first",
}

/** The fields of a Channel record (§2.3) whose value is the channel's own: set by create, or once by the server. */
export const RECORD_FIELDS = ['description', 'maxItems', 'publishPermission', 'privateChannel', 'creator', 'creationDate'] as const
export type RecordField = (typeof RECORD_FIELDS)[number]
export const RECORD_VIEWS = ["owner's get", "another user's get", 'search result', 'each view after later calls'] as const
export type RecordView = (typeof RECORD_VIEWS)[number]

const GIVEN_FIELDS: readonly RecordField[] = ['description', 'maxItems', 'publishPermission', 'privateChannel']

/** Which checks cover a field of the record in one view (suites/records.test.ts, and the create checks for the owner's get). */
function recordCell(field: RecordField, view: RecordView): Cover {
  const given = GIVEN_FIELDS.includes(field)
  switch (view) {
    case "owner's get":
      if (field === 'creator')
        return { checks: [c('channels.get.creator', 'gives a creator of user id, separator, user-name and domain part, slash, device id')] }
      if (field === 'creationDate') return { na: "the owner's first GET is the reference the other views are held to: nothing to compare it with" }
      if (field === 'privateChannel')
        return {
          checks: [
            c('private.create', 'creates a private channel with privateChannel true'),
            c('channels.create.default-public', 'defaults privateChannel to false'),
          ],
        }
      return { checks: [c('channels.create.fields-stored', 'stores maxItems, description and publishPermission subscribers')] }
    case "another user's get":
      return { checks: [given ? c('channels.create.fields-stored', recordTitle.otherStored) : c('channels.record.fixed', recordTitle.fixedEverywhere)] }
    case 'search result':
      return { checks: [given ? c('channels.create.fields-stored', recordTitle.searchStored) : c('channels.record.fixed', recordTitle.fixedEverywhere)] }
    case 'each view after later calls':
      return { checks: [given ? c('channels.create.fields-stored', recordTitle.changedStored) : c('channels.record.fixed', recordTitle.fixedAfter)] }
  }
}

/** A channel's own fields (§2.3) × the views of the record (§4.2 get-by-name, search): one channel, one record. */
export const RECORD_MODEL: Readonly<Record<RecordField, Record<RecordView, Cover>>> = grid(RECORD_FIELDS, RECORD_VIEWS, recordCell)

/** The fields of a Published item (§2.6) whose value is the item's own, × who reads it and how. */
export const ITEM_FIELDS = ['content', 'publisher.userId'] as const
export type ItemField = (typeof ITEM_FIELDS)[number]
export const ITEM_VIEWS = [
  "publisher's get by id",
  "publisher's fetch",
  "the owner's get and fetch of another user's item",
  "a third user's get and fetch",
  'another user through <user_id>#<name>',
  'published by another user through <user_id>#<name>',
  'each view after later calls',
] as const
export type ItemView = (typeof ITEM_VIEWS)[number]

function itemCell(field: ItemField, view: ItemView): Cover {
  const content = field === 'content'
  switch (view) {
    case "publisher's get by id":
      return {
        checks: [
          content ? c('items.content-intact', 'returns the published content unchanged from get by id') : c('items.publisher', recordTitle.itemPublisher),
        ],
      }
    case "publisher's fetch":
      return {
        checks: [content ? c('items.content-intact', 'returns the published content unchanged from fetch') : c('items.publisher', recordTitle.itemPublisher)],
      }
    case 'another user through <user_id>#<name>':
      return { checks: [content ? c('items.content-intact', recordTitle.itemContentAddress) : c('items.publisher', recordTitle.itemPublisherAddress)] }
    case 'published by another user through <user_id>#<name>':
      return content
        ? { na: 'the content of an item is the same whoever published it: the other columns judge it' }
        : { checks: [c('items.publisher', recordTitle.itemPublisherThroughAddress)] }
    default:
      return { checks: [content ? c('items.content-intact', recordTitle.itemContent) : c('items.publisher', recordTitle.itemPublisher)] }
  }
}

/** An item's own fields × its views: one item, one record, whoever reads it, by id or by fetch, and after later calls. */
export const ITEM_MODEL: Readonly<Record<ItemField, Record<ItemView, Cover>>> = grid(ITEM_FIELDS, ITEM_VIEWS, itemCell)

/** The fields of a User (§2.1) that are the user's own facts, × the views that carry a user's record. */
export const USER_FIELDS = ['userIdentifier', 'userName', 'firstName', 'lastName', 'userRealm', 'email'] as const
export type UserField = (typeof USER_FIELDS)[number]
export const USER_VIEWS = [
  "the user's sign-in",
  "the user's sign-in on a device id another user signed in with first",
  "the user's own list of all users",
  "another user's list of all users",
  'search by userIdentifier',
  'search by userName',
  'each view after a sign-in on another device',
] as const
export type UserView = (typeof USER_VIEWS)[number]

function userCell(field: UserField, view: UserView): Cover {
  if (view === "the user's sign-in" || view === "the user's sign-in on a device id another user signed in with first") {
    if (field === 'email') return { na: 'email is absent from the sign-in response (§2.1)' }
    return { checks: [c('users.record.agrees', recordTitle.userSignIn)] }
  }
  return { checks: [c('users.record.agrees', recordTitle.userEverywhere)] }
}

/** A user's own fields × the views of its record: one user, one record, whoever reads it. */
export const USER_MODEL: Readonly<Record<UserField, Record<UserView, Cover>>> = grid(USER_FIELDS, USER_VIEWS, userCell)

// ── the frame of a change: each change × the aspects of its own channel it does not touch ─────────────────

/** The frame checks' titles (suites/frame.test.ts), one per aspect, each under the clause of that aspect's view. */
export const frameTitle = {
  record: 'keeps the created description, maxItems, publishPermission and privateChannel through every subscribe, tag and item change',
  fixed: 'keeps the creator and creationDate the server set through every subscribe, tag and item change',
  tags: 'keeps the channel’s tags through a subscribe, an unsubscribe, a publish and both item deletes',
  items: 'keeps the channel’s items through a subscribe, an unsubscribe and every tag change',
  subscribers: 'keeps the channel’s subscribers through every tag change, a publish and both item deletes',
  searchName: 'keeps the public channel found by a search for its exact name through every subscribe, tag and item change',
  searchDescription: 'keeps the public channel found by a search for its exact description through every subscribe, tag and item change',
}

/** The kinds of change §4.2 gives a channel, short of deleting it. */
export const FRAME_CHANGES = ['subscribe', 'unsubscribe', 'addTags', 'deleteTag', 'deleteTags', 'publishItem', 'deleteItems', 'deleteAllItems'] as const
export type FrameChange = (typeof FRAME_CHANGES)[number]
/**
 * The aspects of a channel a frame check compares (the record's created fields read as one), and its findability:
 * a public channel is found by a search for its exact name and for its exact description (§4.2 search).
 */
export type FrameAspect = 'record' | 'fixed' | 'tags' | 'items' | 'subscribers' | 'searchName' | 'searchDescription'
/** What each change is stated to change (§4.2): the one aspect it names. */
export const FRAME_TOUCHES: Readonly<Record<FrameChange, readonly FrameAspect[]>> = {
  subscribe: ['subscribers'],
  unsubscribe: ['subscribers'],
  addTags: ['tags'],
  deleteTag: ['tags'],
  deleteTags: ['tags'],
  publishItem: ['items'],
  deleteItems: ['items'],
  deleteAllItems: ['items'],
}
export const FRAME_ROWS = [...FRAME_CHANGES, 'deleteChannel'] as const
export type FrameRow = (typeof FRAME_ROWS)[number]
export const FRAME_COLUMNS = [
  'description',
  'maxItems',
  'publishPermission',
  'privateChannel',
  'creator',
  'creationDate',
  'tags',
  'items',
  'subscribers',
  'search by name',
  'search by description',
] as const
export type FrameColumn = (typeof FRAME_COLUMNS)[number]

const FRAME_CLAUSE: Readonly<Record<FrameAspect, ClauseId>> = {
  record: 'channels.create.fields-stored',
  fixed: 'channels.record.fixed',
  tags: 'tags.add.visible',
  items: 'items.fetch.range',
  subscribers: 'subscriptions.subscribe.listed',
  searchName: 'channels.search.by-name',
  searchDescription: 'channels.search.by-description',
}

/** The aspect a column of the frame model belongs to. */
const FRAME_ASPECT: Readonly<Record<FrameColumn, FrameAspect>> = {
  description: 'record',
  maxItems: 'record',
  publishPermission: 'record',
  privateChannel: 'record',
  creator: 'fixed',
  creationDate: 'fixed',
  tags: 'tags',
  items: 'items',
  subscribers: 'subscribers',
  'search by name': 'searchName',
  'search by description': 'searchDescription',
}

function frameCell(row: FrameRow, column: FrameColumn): Cover {
  if (row === 'deleteChannel') return { na: 'deleting the channel removes every aspect with it (§4.2 delete channel): the views model judges what is left' }
  const aspect = FRAME_ASPECT[column]
  if (FRAME_TOUCHES[row].includes(aspect)) return { na: 'the aspect the change is stated to change (§4.2): the views model judges how it shows' }
  return { checks: [c(FRAME_CLAUSE[aspect], frameTitle[aspect])] }
}

/** Each change of one channel × the aspects of that channel it gives no reason to alter: they stay as they were. */
export const FRAME_MODEL: Readonly<Record<FrameRow, Record<FrameColumn, Cover>>> = grid(FRAME_ROWS, FRAME_COLUMNS, frameCell)

// ── a channel's name × every endpoint that addresses it ────────────────────────────────────────────────

/**
 * The name classes carried through every endpoint (suites/names.test.ts): the characters, and the lengths one
 * past the column and index prefixes (65, 129, 256). The lengths between them are tried by get, search, summary
 * and delete alone.
 */
export const NAME_ROUTE_CLASSES: readonly NameClassId[] = [
  'plus-comma',
  'space',
  'non-ascii',
  'emoji',
  'dot-underscore',
  'upper-case',
  'length-65',
  'length-129',
  'length-256',
]

/** The checks of suites/names.test.ts: for each class of NAME_ROUTE_CLASSES, one per endpoint's clause. */
const holds = (k: NameClassId) => `a channel whose name holds ${NAME_CLASSES[k].what}`
export const nameRouteTitle = {
  subscribe: (k: NameClassId) => `lists B, who subscribed by the name, under that name, for ${holds(k)}`,
  unsubscribe: (k: NameClassId) => `no longer lists B after it unsubscribes by the name, for ${holds(k)}`,
  addTags: (k: NameClassId) => `stores tags added by the name, which get tags by the name returns, for ${holds(k)}`,
  deleteTag: (k: NameClassId) => `removes a tag deleted by the name and keeps the other, for ${holds(k)}`,
  deleteTags: (k: NameClassId) => `removes every tag on a delete of all tags by the name, for ${holds(k)}`,
  publish: (k: NameClassId) => `fetches by the name an item published by the name, for ${holds(k)}`,
  getItems: (k: NameClassId) => `returns by the name and its id an item published by the name, for ${holds(k)}`,
  deleteItems: (k: NameClassId) => `removes by the name an item deleted by its id and keeps the other, for ${holds(k)}`,
  deleteAllItems: (k: NameClassId) => `leaves no item after a delete of all items by the name, for ${holds(k)}`,
  summaryCount: (k: NameClassId) => `counts in the summary by the name an item published by the name, for ${holds(k)}`,
  ownerOnly: (k: NameClassId) => `refuses another user's delete by the name and keeps the channel, for ${holds(k)}`,
  address: (k: NameClassId) => `resolves <user_id>#<name> for another user, for a private channel whose name holds ${NAME_CLASSES[k].what}`,
}

export const NAME_ROUTE_COLUMNS = [...CHANNEL_OPERATIONS, 'searchChannels', '<user_id>#<name>'] as const
export type NameRouteColumn = (typeof NAME_ROUTE_COLUMNS)[number]

function nameRouteCell(k: NameClassId, column: NameRouteColumn): Cover {
  switch (column) {
    case 'getChannel':
      return { checks: [c('channels.get.matches-create', inputTitle.name(k))] }
    case 'searchChannels':
      return { checks: [c('channels.search.by-name', inputTitle.nameSearch(k))] }
    case 'deleteChannel': {
      const own = c('channels.delete.removes', inputTitle.nameDelete(k))
      return { checks: NAME_ROUTE_CLASSES.includes(k) ? [own, c('channels.delete.owner-only', nameRouteTitle.ownerOnly(k))] : [own] }
    }
    case 'channelSummary': {
      const shape = c('channels.summary.shape', inputTitle.nameSummary(k))
      return { checks: NAME_ROUTE_CLASSES.includes(k) ? [shape, c('channels.summary.count', nameRouteTitle.summaryCount(k))] : [shape] }
    }
  }
  if (!NAME_ROUTE_CLASSES.includes(k))
    return { na: 'a length between the ones carried through every endpoint (65, 129, 256 characters): get, search, summary and delete try it' }
  switch (column) {
    case 'subscribe':
    case 'listSubscribers':
      return { checks: [c('subscriptions.subscribe.listed', nameRouteTitle.subscribe(k))] }
    case 'unsubscribe':
      return { checks: [c('subscriptions.unsubscribe.removed', nameRouteTitle.unsubscribe(k))] }
    case 'addTags':
    case 'getTags':
      return { checks: [c('tags.add.visible', nameRouteTitle.addTags(k))] }
    case 'deleteTag':
      return { checks: [c('tags.delete-one.removes', nameRouteTitle.deleteTag(k))] }
    case 'deleteTags':
      return { checks: [c('tags.delete-all.removes', nameRouteTitle.deleteTags(k))] }
    case 'publishItem':
    case 'fetchItems':
      return { checks: [c('items.fetch.range', nameRouteTitle.publish(k))] }
    case 'getItems':
      return { checks: [c('items.get.by-ids', nameRouteTitle.getItems(k))] }
    case 'deleteItems':
      return { checks: [c('items.delete.removes', nameRouteTitle.deleteItems(k))] }
    case 'deleteAllItems':
      return { checks: [c('items.delete-all.empties', nameRouteTitle.deleteAllItems(k))] }
    case '<user_id>#<name>':
      return { checks: [c('private.other-user-address', nameRouteTitle.address(k))] }
  }
}

/** Each class of channel name × every endpoint that addresses a channel by it (§4.2 paths, §2.3 addressing). */
export const NAME_ROUTE_MODEL: Readonly<Record<NameClassId, Record<NameRouteColumn, Cover>>> = grid(
  Object.keys(NAME_CLASSES) as NameClassId[],
  NAME_ROUTE_COLUMNS,
  nameRouteCell,
)
