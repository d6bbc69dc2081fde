/**
 * docs/coverage.md, written by `npm run openapi` from the models (helpers/spec/models.ts): each matrix with
 * what covers each cell. selftest/coverage.test.ts holds the document, the endpoint table and the suite's real
 * check titles to these tables.
 */
import { ENDPOINTS } from './endpoints'
import {
  ADDRESSES,
  CALLERS,
  CHANNEL_OPERATIONS,
  INPUT_MODEL,
  MUTATIONS,
  OPERATION_LABEL,
  OTHER_CLASSES,
  TEXT_CLASSES,
  VIEWS,
  VIEW_MODEL,
  addressCell,
  DEVICE_MODEL,
  DEVICE_ROLES,
  DEVICE_SETUPS,
  RACE_PAIRS,
  READ_RACES,
  ITEM_FIELDS,
  ITEM_MODEL,
  ITEM_VIEWS,
  USER_FIELDS,
  USER_MODEL,
  USER_VIEWS,
  RECORD_FIELDS,
  RECORD_MODEL,
  RECORD_VIEWS,
  FRAME_COLUMNS,
  FRAME_MODEL,
  FRAME_ROWS,
  NAME_CLASSES,
  NAME_ROUTE_COLUMNS,
  NAME_ROUTE_MODEL,
  type Cover,
  type NameClassId,
} from './models'

const NAME_ROWS = Object.keys(NAME_CLASSES) as NameClassId[]

/** Every cell of the models, flat: where it is, and what covers it. */
export interface Cell {
  model: 'inputs' | 'views' | 'addresses' | 'races' | 'devices' | 'records' | 'frame' | 'names'
  row: string
  column: string
  cover: Cover
}

export function modelCells(): Cell[] {
  const cells: Cell[] = []
  for (const r of INPUT_MODEL)
    for (const [k, cover] of Object.entries(r.cells)) cells.push({ model: 'inputs', row: `${r.operationId} ${r.field}`, column: k, cover: cover! })
  for (const m of MUTATIONS) for (const v of VIEWS) cells.push({ model: 'views', row: m, column: v, cover: VIEW_MODEL[m][v] })
  for (const op of CHANNEL_OPERATIONS)
    for (const address of ADDRESSES)
      for (const caller of CALLERS) cells.push({ model: 'addresses', row: op, column: `${address} × ${caller}`, cover: addressCell(op, address, caller) })
  for (const r of RACE_PAIRS)
    for (const side of ['first', 'second'] as const) cells.push({ model: 'races', row: r.pair, column: `${side} write`, cover: r[side] })
  for (const r of READ_RACES) cells.push({ model: 'races', row: r.pair, column: 'read', cover: r.read })
  for (const setup of DEVICE_SETUPS)
    for (const role of DEVICE_ROLES) cells.push({ model: 'devices', row: setup, column: role, cover: DEVICE_MODEL[setup][role] })
  for (const field of RECORD_FIELDS)
    for (const view of RECORD_VIEWS) cells.push({ model: 'records', row: field, column: view, cover: RECORD_MODEL[field][view] })
  for (const field of ITEM_FIELDS)
    for (const view of ITEM_VIEWS) cells.push({ model: 'records', row: `item ${field}`, column: view, cover: ITEM_MODEL[field][view] })
  for (const field of USER_FIELDS)
    for (const view of USER_VIEWS) cells.push({ model: 'records', row: `user ${field}`, column: view, cover: USER_MODEL[field][view] })
  for (const row of FRAME_ROWS) for (const column of FRAME_COLUMNS) cells.push({ model: 'frame', row, column, cover: FRAME_MODEL[row][column] })
  for (const row of NAME_ROWS) for (const column of NAME_ROUTE_COLUMNS) cells.push({ model: 'names', row, column, cover: NAME_ROUTE_MODEL[row][column] })
  return cells
}

export type CellState = 'fixed' | 'explore' | 'n/a' | 'open'

export function stateOf(cover: Cover): CellState {
  if ('na' in cover) return 'n/a'
  if (cover.checks?.length) return 'fixed'
  return cover.explore ? 'explore' : 'open'
}

const MARK: Record<CellState, string> = { fixed: '✓', explore: 'E', 'n/a': '–', open: '✗' }
const esc = (text: string): string => text.replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;')

function summary(cells: Cell[]): string {
  const count = (s: CellState) => cells.filter((c) => stateOf(c.cover) === s).length
  const applicable = cells.length - count('n/a')
  return `${cells.length} cells: ${count('fixed')} covered by fixed checks, ${count('explore')} by explore only, ${count('n/a')} not applicable, ${count('open')} open; ${applicable ? Math.round((100 * (applicable - count('open'))) / applicable) : 100} % of the applicable cells covered`
}

/** The distinct checks a cover names, as `title [clause]`. */
const checksOf = (cover: Cover): string[] => ('checks' in cover && cover.checks ? cover.checks.map((c) => `${c.title} [${c.clause}]`) : [])

const described = (cover: Cover): string =>
  esc('na' in cover ? `not applicable: ${cover.na}` : [...checksOf(cover), ...(cover.explore ? [`explore: ${cover.explore}`] : [])].join('; '))

/** A rows × columns model as a table of marks, then one line per row naming what covers each cell. */
function gridLines<R extends string, C extends string>(
  corner: string,
  rows: readonly R[],
  columns: readonly C[],
  model: Readonly<Record<R, Record<C, Cover>>>,
): string[] {
  return [
    `| ${corner} | ${columns.map(esc).join(' | ')} |`,
    `|---|${columns.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${esc(r)} | ${columns.map((col) => MARK[stateOf(model[r][col])]).join(' | ')} |`),
    '',
    ...rows.map((r) => `- **${esc(r)}**: ${columns.map((col) => `${esc(col)}: ${described(model[r][col])}`).join(' · ')}.`),
    '',
  ]
}

export function coverageMarkdown(): string {
  const cells = modelCells()
  const out: string[] = []
  const l = (line = '') => out.push(line)
  l('# Coverage of the spec’s spaces')
  l()
  l('Generated by `npm run openapi` from `helpers/spec/models.ts`; do not edit. `selftest/coverage.test.ts` fails when a')
  l('field of an endpoint has no row, a channel endpoint no column, or a cell names a check the suite does not have.')
  l()
  l('Marks: ✓ a fixed check covers it (named below the matrix), E explore only, – not applicable (the reason is given), ✗ open.')
  l()
  l(`In all: ${summary(cells)}.`)
  l()

  l('## 1. Inputs: fields × classes of value')
  l()
  l(summary(cells.filter((c) => c.model === 'inputs')) + '.')
  l()
  l('Classes of text (each value starts with a token unique to the check):')
  l()
  for (const [id, c] of Object.entries(TEXT_CLASSES)) l(`- \`${id}\`: ${esc(c.what)}`)
  l()
  l('Other classes:')
  l()
  for (const [id, what] of Object.entries(OTHER_CLASSES)) l(`- \`${id}\`: ${esc(what)}`)
  l()
  for (const r of INPUT_MODEL) {
    l(`### \`${r.operationId}\` ${esc(r.field)}`)
    l()
    l(`Judged: ${esc(r.judged)}. Other classes: ${esc(r.otherwise)}.`)
    l()
    const entries = Object.entries(r.cells)
    if (!entries.length) {
      l('No class applies.')
      l()
      continue
    }
    l('| class | | covered by |')
    l('|---|---|---|')
    for (const [k, cover] of entries)
      l(
        `| \`${k}\` | ${MARK[stateOf(cover!)]} | ${esc('na' in cover! ? cover!.na : [...checksOf(cover!), ...(cover!.explore ? [`explore: ${cover!.explore}`] : [])].join('; '))} |`,
      )
    l()
  }

  l('## 2. Mutations × views')
  l()
  l(summary(cells.filter((c) => c.model === 'views')) + '.')
  l()
  l(`| mutation | ${VIEWS.join(' | ')} |`)
  l(`|---|${VIEWS.map(() => '---').join('|')}|`)
  for (const m of MUTATIONS) l(`| ${m} | ${VIEWS.map((v) => MARK[stateOf(VIEW_MODEL[m][v])]).join(' | ')} |`)
  l()
  for (const m of MUTATIONS) {
    const covered = VIEWS.filter((v) => stateOf(VIEW_MODEL[m][v]) !== 'n/a')
    const reasons = [...new Set(VIEWS.filter((v) => stateOf(VIEW_MODEL[m][v]) === 'n/a').map((v) => (VIEW_MODEL[m][v] as { na: string }).na))]
    l(
      `- **${m}**: ${covered.map((v) => `${v}: ${esc([...checksOf(VIEW_MODEL[m][v]), ...('explore' in VIEW_MODEL[m][v] && (VIEW_MODEL[m][v] as { explore?: string }).explore ? ['explore'] : [])].join('; '))}`).join(' · ') || 'no view'}. Not applicable elsewhere: ${esc(reasons.join('; '))}.`,
    )
  }
  l()

  l('## 3. Addresses × callers (channel endpoints)')
  l()
  l(summary(cells.filter((c) => c.model === 'addresses')) + '.')
  l()
  const columns = ADDRESSES.flatMap((a) => CALLERS.map((c) => `${a} × ${c}`))
  l(`| endpoint | ${columns.map(esc).join(' | ')} |`)
  l(`|---|${columns.map(() => '---').join('|')}|`)
  for (const op of CHANNEL_OPERATIONS)
    l(`| ${esc(OPERATION_LABEL[op])} | ${ADDRESSES.flatMap((a) => CALLERS.map((c) => MARK[stateOf(addressCell(op, a, c))])).join(' | ')} |`)
  l()
  const reasons = new Map<string, string[]>()
  for (const c of cells.filter((x) => x.model === 'addresses' && 'na' in x.cover)) {
    const why = (c.cover as { na: string }).na
    reasons.set(why, [...(reasons.get(why) ?? []), `${c.row} (${c.column})`])
  }
  l('Not applicable:')
  l()
  for (const [why, where] of reasons) l(`- ${esc(why)} — ${where.length} cells`)
  l()
  l(
    `Endpoints outside this matrix (they address no channel): ${ENDPOINTS.filter((e) => !(CHANNEL_OPERATIONS as readonly string[]).includes(e.operationId))
      .map((e) => `\`${e.operationId}\``)
      .join(', ')}; their callers are judged in suites/authorization.test.ts and their own files.`,
  )
  l()
  l('## 4. Concurrent pairs of writes on one channel, and a read in flight with a write')
  l()
  l(summary(cells.filter((c) => c.model === 'races')) + '.')
  l()
  l('Each write answered 2xx must leave what it states whichever of the two ran first (suites/races.test.ts).')
  l()
  l('| pair | first write | | second write | |')
  l('|---|---|---|---|---|')
  for (const r of RACE_PAIRS) l(`| ${esc(r.pair)} | ${MARK[stateOf(r.first)]} | ${described(r.first)} | ${MARK[stateOf(r.second)]} | ${described(r.second)} |`)
  l()
  l(
    'A read in flight with a write on the same channel: the read may show the state before or after the write, and is answered, with its shape, holding only what the channel held.',
  )
  l()
  l('| read × write | read | |')
  l('|---|---|---|')
  for (const r of READ_RACES) l(`| ${esc(r.pair)} | ${MARK[stateOf(r.read)]} | ${described(r.read)} |`)
  l()

  l('## 5. Users × devices: who a record names')
  l()
  l(summary(cells.filter((c) => c.model === 'devices')) + '.')
  l()
  out.push(...gridLines('set-up', DEVICE_SETUPS, DEVICE_ROLES, DEVICE_MODEL))

  l("## 6. A record × its views: a channel's, an item's, a user's")
  l()
  l(summary(cells.filter((c) => c.model === 'records')) + '.')
  l()
  l(
    'One channel, one record (§2.3): get-by-name and search answer with Channel records (§4.2), so what the create set and what the server set once read the same in every view, for every caller, and after the calls the spec gives later (suites/records.test.ts). The later views are the owner’s and another user’s get and the search result after a tag, a publish and a subscribe.',
  )
  l()
  out.push(...gridLines('field', RECORD_FIELDS, RECORD_VIEWS, RECORD_MODEL))
  l(
    'The same for a published item (§2.6): B and C publish into A’s public channel, and each of A, B and C reads both items by id and by fetch, before and after C publishes again, A deletes C’s first item and adds a tag; another user reads the owner’s item of a private channel through `<user_id>#<name>`. A reader other than the owner may be refused (not ruled on): recorded, that view not judged.',
  )
  l()
  out.push(...gridLines('item field', ITEM_FIELDS, ITEM_VIEWS, ITEM_MODEL))
  l(
    'And for a user (§2.1): each account’s own sign-in record is the reference; A’s and B’s list of all users and their searches by userIdentifier and by userName show the same values (userName and email in any case: a user may type its name in another case at sign-in), before and after each account signs in on another device. A field a view leaves out is not judged here.',
  )
  l()
  out.push(...gridLines('user field', USER_FIELDS, USER_VIEWS, USER_MODEL))

  l('## 7. The frame of a change: each change × the aspects of its own channel it does not touch')
  l()
  l(summary(cells.filter((c) => c.model === 'frame')) + '.')
  l()
  l(
    'A change leaves every aspect of its own channel that it does not touch as it was (suites/frame.test.ts): §4.2 gives each call one thing it changes, and none of them the record’s created fields nor the creator and creationDate the server set (§2.3; creationDate compared as the instant it names). One public channel is furnished with every aspect (a description, maxItems and publishPermission of its own, two tags, two items, A and B subscribed); for each aspect the check reads it, makes each change that does not touch it in turn (C subscribes, B unsubscribes, the owner the rest), and wants it as it was after each (polled: reads may lag). Subscribers are compared on the run’s users alone. The channel’s findability is an aspect too: none of these calls names search, so the public channel stays listed by a search for its exact name and for its exact description (§4.2 search), each under its own clause (only that it is listed: other clients may copy both). The views model (section 2) judges the aspect a change does touch.',
  )
  l()
  out.push(...gridLines('change', FRAME_ROWS, FRAME_COLUMNS, FRAME_MODEL))

  l('## 8. A channel’s name × every endpoint that addresses it')
  l()
  l(summary(cells.filter((c) => c.model === 'names')) + '.')
  l()
  l(
    'A channel is addressed by its name in the path of every channel endpoint (§4.2), and the alphabet and length of names are not shown (§2.3): a name the server accepted reaches its channel through each of them, not only through get, search, summary and delete (section 1). Each check carries every class of this table at once, each on its own channel (suites/names.test.ts); a class whose create was refused is recorded and skipped. A private channel of each class is read by another user through `<user_id>#<name>` as the address checks judge it.',
  )
  l()
  out.push(...gridLines('class', NAME_ROWS, NAME_ROUTE_COLUMNS, NAME_ROUTE_MODEL))
  return out.join('\n')
}
