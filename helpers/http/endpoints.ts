/**
 * Endpoint templates of §4 (`POST /channels/{name}/items`) from concrete request lines, so latency, root
 * causes and failure messages speak of the endpoint, not of this run's channel names and ids. Matched on the
 * tail of the path: whatever base path and API prefixes the target has stay out of the template.
 */

const TEMPLATES: readonly [RegExp, string][] = [
  [/\/user\/session$/, '/user/session'],
  [/\/user\/all$/, '/user/all'],
  [/\/user\/query$/, '/user/query'],
  [/\/channels\/[^/]+\/summary$/, '/channels/{name}/summary'],
  [/\/channels\/[^/]+\/subscribe$/, '/channels/{name}/subscribe'],
  [/\/channels\/[^/]+\/unsubscribe$/, '/channels/{name}/unsubscribe'],
  [/\/channels\/[^/]+\/subscriptions$/, '/channels/{name}/subscriptions'],
  [/\/channels\/[^/]+\/tags\/[^/]+$/, '/channels/{name}/tags/{tag}'],
  [/\/channels\/[^/]+\/tags$/, '/channels/{name}/tags'],
  [/\/channels\/[^/]+\/items\/fetch$/, '/channels/{name}/items/fetch'],
  [/\/channels\/[^/]+\/items\/all$/, '/channels/{name}/items/all'],
  [/\/channels\/[^/]+\/items$/, '/channels/{name}/items'],
  [/\/channels\/[^/]+$/, '/channels/{name}'],
  [/\/channels$/, '/channels'],
  [/\/messages\/send_to_user_ids$/, '/messages/send_to_user_ids'],
  [/\/messages\/[^/]+$/, '/messages/{messageId}'],
  [/\/push\/user\/[^/]+$/, '/push/user/{userId}'],
]

/** The template of a path (query dropped); a path of no §4 endpoint keeps its own text, run names normalised. */
export function templateOf(path: string): string {
  const bare = path.split(/[?#]/)[0]!.replace(/\/+$/, '')
  for (const [re, template] of TEMPLATES) if (re.test(bare)) return template
  return normaliseRunText(bare) || '/'
}

/** `METHOD /template` of a request. */
export function endpointOf(method: string, path: string): string {
  return `${method.toUpperCase()} ${templateOf(path)}`
}

/**
 * Text with the parts that change from run to run replaced by placeholders: the suite's channel names
 * (`ct…`), 32-hex ids, UUIDs, timestamps and long numbers. Used for messages that must be stable across runs;
 * the evidence keeps the real values.
 */
export function normaliseRunText(text: string): string {
  return text
    .replace(/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?/g, '{time}')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '{uuid}')
    .replace(/\bct-?[0-9a-f]{6}[0-9a-z-]*\b/gi, '{channel}')
    .replace(/\b(?=[0-9a-f]*\d)[0-9a-f]{12,}\b/gi, '{id}')
    .replace(/\b\d{10,}\b/g, '{n}')
}
