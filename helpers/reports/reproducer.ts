/**
 * Reproducers and the HAR: a failure replayed by hand, outside the suite. A reproducer is a POSIX shell
 * script of curl commands, the check's requests up to the one that failed; credentials are environment
 * variables (`$USER_A_TOKEN`), never values: the recorded exchanges are redacted before they get here.
 */
import { accountLabel, type LoggedExchange } from '../http/recorder'
import { redact, REDACTION_MASK } from '../http/redact'

/** Requests of a reproducer at most: the first ones (set-up) and the last ones (what failed). */
const MAX_STEPS = 12

/** Single-quoted for sh: nothing inside is expanded. */
function sq(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`
}

function tokenVar(account: string): string {
  return account === 'A' || account === 'B' || account === 'C' ? `USER_${account}_TOKEN` : 'OTHER_TOKEN'
}

/** Headers that curl sets itself or that say nothing about the call. */
const SKIP_HEADERS = /^(host|content-length|connection|accept-encoding|user-agent)$/i

/** One exchange as a curl command; its answer as a comment, so whoever runs it can compare. */
export function curlOf(ex: LoggedExchange): string {
  const parts = [`curl -sS -i -w '\\n' -X ${ex.method}`]
  for (const [k, v] of Object.entries(ex.requestHeaders)) {
    if (SKIP_HEADERS.test(k)) continue
    if (/^authorization$/i.test(k)) {
      // The value is redacted; the script takes it from the environment (a run account's token, or one of the check's making).
      const scheme = /^(\S+)\s/.exec(v)?.[1] ?? 'Bearer'
      parts.push(`-H "${k}: ${scheme} \${${tokenVar(ex.account)}}"`)
    } else parts.push(`-H ${sq(`${k}: ${v}`)}`)
  }
  if (ex.requestBody !== undefined) parts.push(`--data-binary ${withSecretVars(ex.requestBody)}`)
  parts.push(`"\${TARGET}"${sq(ex.url)}`)
  return parts.join(' \\\n  ')
}

/** A redacted value in a body (a password in a sign-in) becomes a variable the script's user sets. */
function withSecretVars(body: string): string {
  return body.split(REDACTION_MASK).map(sq).join('"${SECRET}"')
}

/**
 * The reproducer of a failed check: its requests (check phase) up to and including the one its message
 * names (`METHOD url → status` on the message's first line), else all of them.
 */
export function reproducerOf(log: readonly LoggedExchange[], message: string | undefined, origin: string): string | undefined {
  const steps = log.filter((e) => e.phase === 'check')
  if (!steps.length) return undefined
  const head = /^\[[^\]]+\] (\S+) (\S+) → (\d{3})/m.exec(message ?? '')
  let end = steps.length
  if (head) {
    const at = steps.findLastIndex((e) => e.method === head[1] && e.url === head[2] && String(e.status) === head[3])
    if (at >= 0) end = at + 1
  }
  let picked = steps.slice(0, end)
  const dropped = Math.max(0, picked.length - MAX_STEPS)
  if (dropped) picked = [...picked.slice(0, MAX_STEPS / 2), ...picked.slice(-MAX_STEPS / 2)]
  const vars = [...new Set(picked.filter((e) => Object.keys(e.requestHeaders).some((k) => /^authorization$/i.test(k))).map((e) => tokenVar(e.account)))].sort()
  const lines = [
    '#!/bin/sh',
    '# Reproducer: the check\'s requests, in order. Set TARGET (the origin) and the tokens below; sign in as',
    '# the account (POST …/user/session) and use its access_token. Compare each answer with the one noted.',
    `: "\${TARGET:=${origin}}"`,
    ...vars.map((v) => `: "\${${v}:?set ${v}}"`),
  ]
  if (picked.some((e) => e.requestBody?.includes(REDACTION_MASK))) lines.push(': "${SECRET:?set SECRET (a password or client secret the suite does not print)}"')
  picked.forEach((e, i) => {
    if (dropped && i === MAX_STEPS / 2) lines.push('', `# … ${dropped} request(s) of the check left out here`)
    lines.push('', `# ${i + 1}. as ${accountLabel(e.account)}; the run got ${e.status}`, curlOf(e))
  })
  return `${redact(lines.join('\n'))}\n`
}

/** HAR 1.2 of the run's exchanges (redacted), for browser devtools and other HTTP tools. */
export function buildHar(log: readonly LoggedExchange[], origin: string, creator: { name: string; version: string }): string {
  const entries = [...log].sort((x, y) => x.startedAt.localeCompare(y.startedAt)).map((e) => {
    const url = new URL(e.url, origin)
    const reqType = e.requestHeaders['content-type'] ?? 'application/octet-stream'
    return {
      startedDateTime: e.startedAt,
      time: e.durationMs,
      comment: `${e.endpoint}, as ${accountLabel(e.account)}${e.phase === 'cleanup' ? ', cleanup' : ''}`,
      request: {
        method: e.method,
        url: url.href,
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: Object.entries(e.requestHeaders).map(([name, value]) => ({ name, value })),
        queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
        ...(e.requestBody !== undefined ? { postData: { mimeType: reqType, text: e.requestBody } } : {}),
        headersSize: -1,
        bodySize: e.requestBody?.length ?? 0,
      },
      response: {
        status: e.status,
        statusText: '',
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: Object.entries(e.responseHeaders).map(([name, value]) => ({ name, value })),
        content: { size: e.responseBody.length, mimeType: e.responseHeaders['content-type'] ?? '', text: e.responseBody },
        redirectURL: '',
        headersSize: -1,
        bodySize: -1,
      },
      cache: {},
      timings: { send: 0, wait: e.durationMs, receive: 0 },
    }
  })
  return `${redact(JSON.stringify({ log: { version: '1.2', creator, entries } }, null, 1))}\n`
}

/** What the target says it is: the most frequent `Server` (or else `X-Powered-By`) header of its answers. */
export function productOf(log: readonly LoggedExchange[]): string | undefined {
  for (const name of ['server', 'x-powered-by']) {
    const seen = new Map<string, number>()
    for (const e of log) {
      const v = e.responseHeaders[name]
      if (v) seen.set(v, (seen.get(v) ?? 0) + 1)
    }
    const top = [...seen].sort((a, b) => b[1] - a[1])[0]
    if (top) return redact(`${top[0]}${name === 'x-powered-by' ? ' (X-Powered-By)' : ''}`)
  }
  return undefined
}
