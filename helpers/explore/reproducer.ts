/**
 * A finding as numbered steps and as a runnable reproducer: a bash script of curl calls that signs the three
 * accounts in from environment variables (or takes TOKEN_A/B/C), never holding a secret itself. Channel
 * names get a fresh prefix each time the script runs ($P), and item and message ids the server makes are
 * captured from its answers into shell variables, so the script replays the sequence on any target.
 */
import { mkdirSync, writeFileSync, chmodSync } from 'node:fs'
import { join } from 'node:path'
import { redact } from '../http/redact'
import type { Exec, Finding, LoggedCall } from './state'

const sq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`

/** The single-quoted shell word for `text`, with the sequence's name prefix and captured ids spliced in as variables. */
function word(text: string, prefix: string, vars: Map<string, string>): string {
  let out = sq(text)
  out = out.split(prefix).join(`'"$P"'`)
  for (const [value, name] of vars) out = out.split(value).join(`'"$${name}"'`)
  // Dates near now (fetch ranges of "a day from now") are made relative again, so the script runs any day.
  out = out.replace(/\d{4}-\d{2}-\d{2}T\d{2}%3A\d{2}%3A\d{2}\.\d{3}Z/g, (ts) => {
    const days = Math.round((Date.parse(decodeURIComponent(ts)) - Date.now()) / 86_400_000)
    return Math.abs(days) <= 3 ? `'"$(day ${days})"'` : ts
  })
  return out.replace(/^''/, '').replace(/''$/, '') || "''"
}

export interface Numbered {
  lines: string[]
  count: number
}

/** The steps of a sequence as numbered lines, each with the requests it made. */
export function numberedSteps(x: Exec, findingStep: number | null): Numbered {
  const lines: string[] = []
  x.stepTitles.forEach((title, i) => {
    const step = i + 1
    lines.push(`${String(step).padStart(3)}. ${title}${step === findingStep ? '   ← the finding' : ''}`)
    for (const c of x.log.filter((l) => l.step === step)) lines.push(`       ${c.who} ${c.ex.request.method} ${c.ex.request.url} → ${c.ex.status}`)
  })
  return { lines, count: x.stepTitles.length }
}

export function writeReproducer(
  dir: string,
  file: string,
  x: Exec,
  opts: { finding: Finding; replay: string; basePath: string; userApiPath: string; messageApiPath: string },
): string {
  mkdirSync(dir, { recursive: true })
  // Ids the server made that later requests use: captured from the first answer that carries them.
  const vars = new Map<string, string>()
  const captures = new Map<LoggedCall, string[]>()
  const later = (i: number, value: string) => x.log.slice(i + 1).some((l) => l.ex.request.url.includes(value) || (l.ex.request.body ?? '').includes(value))
  x.log.forEach((call, i) => {
    const lines: string[] = []
    const items = (call.ex.json as { items?: unknown } | undefined)?.items
    if (Array.isArray(items)) {
      for (const it of items as { itemId?: unknown; content?: { ref?: unknown } }[]) {
        const id = it?.itemId
        const ref = it?.content?.ref
        if (typeof id !== 'string' || typeof ref !== 'string' || vars.has(id) || !later(i, id)) continue
        const name = `ITEM_${ref.replace(/[^A-Za-z0-9]/g, '_')}`
        vars.set(id, name)
        lines.push(`${name}=$(printf '%s' "$BODY" | jget ${sq(`(j.items.find((i) => i.content && i.content.ref === ${JSON.stringify(ref)}) || {}).itemId`)})`)
      }
    }
    if (call.capture) {
      let value: unknown
      try {
        value = new Function('j', `return (${call.capture.expr})`)(call.ex.json)
      } catch {
        value = undefined
      }
      if (typeof value === 'string' && value && !vars.has(value) && later(i, value)) {
        vars.set(value, call.capture.variable)
        lines.push(`${call.capture.variable}=$(printf '%s' "$BODY" | jget ${sq(call.capture.expr)})`)
      }
    }
    if (lines.length) captures.set(call, lines)
  })

  const out: string[] = [
    '#!/usr/bin/env bash',
    `# Reproducer of an explore finding: [${opts.finding.clause} ${opts.finding.level}]`,
    ...opts.finding.problem
      .split('\n')
      .slice(0, 6)
      .map((l) => `#   ${l}`),
    `# The same sequence inside the suite: npm run explore -- --replay ${opts.replay}`,
    '#',
    '# Needs curl and node. Set BASE_URL (for the reference server with a fault: npm run serve -- --fault <name>),',
    '# CLIENT_ID and USER_A_NAME/USER_A_PASSWORD, USER_B_…, USER_C_… (or TOKEN_A, TOKEN_B, TOKEN_C).',
    '# Every channel it creates is named $P… and deleted by its owner at the end.',
    'set -u',
    ': "${BASE_URL:?set BASE_URL}"',
    `U=\${USER_API_PATH:-${opts.userApiPath}}`,
    'P=${P:-ct$(node -e \'process.stdout.write(require("crypto").randomBytes(3).toString("hex"))\')xr}',
    'jget() { node -e \'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>{let v;try{const j=JSON.parse(s);v=eval(process.argv[1])}catch{}process.stdout.write(v==null?"":String(v))})\' "$1"; }',
    'day() { node -e \'process.stdout.write(encodeURIComponent(new Date(Date.now() + Number(process.argv[1]) * 864e5).toISOString()))\' "$1"; }',
    // The form field's name comes from a variable: the text of this script must not look like a secret to the redaction.
    'PW_FIELD=password',
    'signin() { curl -sS -X POST "$BASE_URL$U/user/session" -H "MMS-DEVICE-ID: $P-$3" --data-urlencode grant_type=password --data-urlencode "username=$1" --data-urlencode "$PW_FIELD=$2" --data-urlencode "client_id=$CLIENT_ID" --data-urlencode scope=public | jget j.access_token; }',
    'TOKEN_A=${TOKEN_A:-$(signin "$USER_A_NAME" "$USER_A_PASSWORD" a)}',
    'TOKEN_B=${TOKEN_B:-$(signin "$USER_B_NAME" "$USER_B_PASSWORD" b)}',
    'TOKEN_C=${TOKEN_C:-$(signin "$USER_C_NAME" "$USER_C_PASSWORD" c)}',
    'req() {',
    '  local who=$1 method=$2 path=$3 data=${4-} auth=()',
    '  case $who in A) auth=(-H "Authorization: Bearer $TOKEN_A");; B) auth=(-H "Authorization: Bearer $TOKEN_B");; C) auth=(-H "Authorization: Bearer $TOKEN_C");; esac',
    '  if [ -n "$data" ]; then BODY=$(curl -sS -X "$method" "${auth[@]}" -H "content-type: application/json" --data-raw "$data" -w "\\n%{http_code}" "$BASE_URL$path")',
    '  else BODY=$(curl -sS -X "$method" "${auth[@]}" -w "\\n%{http_code}" "$BASE_URL$path"); fi',
    "  STATUS=${BODY##*$'\\n'}; BODY=${BODY%$'\\n'*}",
    '  printf \'    %s %s → %s %s\\n\' "$who" "$method $path" "$STATUS" "${BODY:0:300}"',
    '}',
    '',
  ]
  let step = 0
  for (const call of x.log) {
    if (call.step !== step) {
      step = call.step
      out.push(`echo ${sq(`${step}. ${x.stepTitles[step - 1] ?? ''}`.split(x.prefix).join('$P'))}`)
    }
    const path = call.ex.request.url.startsWith(opts.basePath) ? call.ex.request.url.slice(opts.basePath.length) : call.ex.request.url
    const body = call.ex.request.body
    out.push(`req ${call.who} ${call.ex.request.method} ${word(path, x.prefix, vars)}${body !== undefined ? ` ${word(body, x.prefix, vars)}` : ''}`)
    out.push(...(captures.get(call) ?? []))
  }
  // The channels the script made, deleted by their owners at the end (a sweep would find them later anyway).
  const made = x.log.filter((c) => c.ex.request.method === 'POST' && /\/channels$/.test(c.ex.request.url) && c.ex.status < 300 && c.who !== 'anon')
  if (made.length) out.push("echo 'cleanup: the channels this script created'")
  for (const c of made) {
    let body: { channelName?: unknown; privateChannel?: unknown } = {}
    try {
      body = JSON.parse(c.ex.request.body ?? '{}') as typeof body
    } catch {
      continue
    }
    if (typeof body.channelName !== 'string') continue
    const channelPath = `${opts.messageApiPath}/channels/${encodeURIComponent(body.channelName)}${body.privateChannel === true ? '?personal=true' : ''}`
    out.push(`req ${c.who} DELETE ${word(channelPath, x.prefix, vars)}`)
  }
  out.push('')
  const path = join(dir, file)
  writeFileSync(path, redact(out.join('\n')))
  chmodSync(path, 0o755)
  return path
}
