/**
 * Endpoint templates of §4 (`POST /channels/{name}/items`) from concrete request lines, so latency, root
 * causes and failure messages speak of the endpoint, not of this run's channel names and ids. Matched on the
 * tail of the path: whatever base path and API prefixes the target has stay out of the template.
 */
import { ENDPOINTS } from '../spec/endpoints'

/** Shorter names for two path parameters of the endpoint table, as the reports have always shown them. */
const SHORT: Readonly<Record<string, string>> = { channel_name: 'name', recipientUserId: 'userId' }

/**
 * Tail pattern and template of every path of the endpoint table (helpers/spec/endpoints.ts), the paths with
 * more fixed segments first: `/messages/send_to_user_ids` before `/messages/{messageId}`.
 */
const TEMPLATES: readonly [RegExp, string][] = [...new Set(ENDPOINTS.map((e) => e.path))]
  .map((path) => ({ path, fixed: path.split('/').filter((seg) => seg && !seg.startsWith('{')).length }))
  .sort((x, y) => y.fixed - x.fixed || y.path.length - x.path.length)
  .map(({ path }) => [new RegExp(`${path.replace(/\{[^}]+\}/g, '[^/]+')}$`), path.replace(/\{([^}]+)\}/g, (_, name: string) => `{${SHORT[name] ?? name}}`)])

/** The template of a path (query dropped); a path of no §4 endpoint keeps its own text, run names normalised. */
export function templateOf(path: string): string {
  const bare = path.split(/[?#]/)[0]!.replace(/\/+$/, '')
  for (const [re, template] of TEMPLATES) if (re.test(bare)) return template
  return normaliseRunText(bare, false) || '/'
}

/** `METHOD /template` of a request. */
export function endpointOf(method: string, path: string): string {
  return `${method.toUpperCase()} ${templateOf(path)}`
}

/**
 * Text with the parts that change from run to run replaced by placeholders: the suite's channel names
 * (`ct…`), 32-hex ids, UUIDs, timestamps and long numbers. Used for messages that must be stable across runs;
 * the evidence keeps the real values. Channels, ids and UUIDs are kept apart (`keepApart`): the first id seen
 * is `{id1}`, a different one `{id2}`, the first again `{id1}`, so a wrong order or a wrong id still reads as
 * one (`got ["{id2}","{id1}"], want ["{id1}","{id2}"]`). Templates of paths pass false: `{id}`.
 */
export function normaliseRunText(text: string, keepApart = true): string {
  const seen = new Map<string, Map<string, number>>()
  const placeholder = (kind: string) => (value: string) => {
    if (!keepApart) return `{${kind}}`
    const of = seen.get(kind) ?? new Map<string, number>()
    seen.set(kind, of)
    if (!of.has(value.toLowerCase())) of.set(value.toLowerCase(), of.size + 1)
    return `{${kind}${of.get(value.toLowerCase())}}`
  }
  return text
    .replace(/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?/g, '{time}')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, placeholder('uuid'))
    .replace(/\bct-?[0-9a-f]{6}[0-9a-z-]*\b/gi, placeholder('channel'))
    .replace(/\b(?=[0-9a-f]*\d)[0-9a-f]{12,}\b/gi, placeholder('id'))
    .replace(/\b\d{10,}\b/g, '{n}')
}
