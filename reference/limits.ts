/** The maxPayloadSize every channel reports (§8); the server applies it to all user content it accepts. */
export const MAX_PAYLOAD_SIZE = 2_097_152

/** The byte size of content as the server stores it (UTF-8 JSON): what maxPayloadSize limits. */
export function payloadSize(content: unknown): number {
  return Buffer.byteLength(JSON.stringify(content), 'utf8')
}
