/**
 * The error catalogue. Every refusal the server makes is one of these entries, answered as
 * `{ code, message }` with the entry's HTTP status. The spec shows no error bodies (§7), so the
 * shape, the statuses and the integer codes are the server's own choices (see reference/README.md).
 *
 * Codes are grouped by status: 1xxx bad request, 2xxx authentication, 3xxx permission,
 * 4xxx not found, 5xxx conflict, 6xxx too large, 7xxx media type, 8xxx transport, 9xxx server fault.
 */
export interface ErrorEntry {
  readonly status: number
  readonly code: number
  readonly message: string
}

export const ERRORS = {
  BAD_REQUEST: { status: 400, code: 1000, message: 'the request is invalid' },
  MALFORMED_BODY: { status: 400, code: 1001, message: 'the request body could not be parsed' },
  MISSING_DEVICE_ID: { status: 400, code: 1002, message: 'header MMS-DEVICE-ID is required' },
  UNSUPPORTED_GRANT_TYPE: { status: 400, code: 1003, message: 'grant_type must be password' },
  INVALID_SCOPE: { status: 400, code: 1004, message: 'scope must be public' },
  INVALID_CHANNEL_NAME: { status: 400, code: 1005, message: 'invalid channel name' },
  INVALID_DATE: { status: 400, code: 1006, message: 'invalid timestamp' },
  INVALID_RANGE: { status: 400, code: 1007, message: 'since is after until' },
  INVALID_USER_QUERY: { status: 400, code: 1008, message: 'invalid user query' },

  UNAUTHORIZED: { status: 401, code: 2000, message: 'authentication required' },
  INVALID_TOKEN: { status: 401, code: 2001, message: 'invalid access token' },
  TOKEN_EXPIRED: { status: 401, code: 2002, message: 'access token expired' },
  INVALID_CLIENT: { status: 401, code: 2003, message: 'invalid client credentials' },
  INVALID_CREDENTIALS: { status: 401, code: 2004, message: 'invalid username or password' },
  WRONG_TOKEN_KIND: { status: 401, code: 2005, message: 'this token cannot be used here' },

  NOT_OWNER: { status: 403, code: 3000, message: 'only the channel owner may do this' },
  PUBLISH_FORBIDDEN: { status: 403, code: 3001, message: 'publishing to this channel is not permitted' },

  ROUTE_NOT_FOUND: { status: 404, code: 4000, message: 'no such route' },
  CHANNEL_NOT_FOUND: { status: 404, code: 4001, message: 'channel not found' },
  USER_NOT_FOUND: { status: 404, code: 4002, message: 'user not found' },
  MESSAGE_NOT_FOUND: { status: 404, code: 4003, message: 'message not found' },
  TAG_NOT_FOUND: { status: 404, code: 4004, message: 'tag not found' },

  CHANNEL_EXISTS: { status: 409, code: 5000, message: 'a channel of this name already exists' },
  USER_EXISTS: { status: 409, code: 5001, message: 'a user of this name already exists' },

  PAYLOAD_TOO_LARGE: { status: 413, code: 6000, message: 'content exceeds the maximum payload size' },
  BODY_TOO_LARGE: { status: 413, code: 6001, message: 'request body too large' },

  UNSUPPORTED_MEDIA_TYPE: { status: 415, code: 7000, message: 'unsupported content type' },

  MALFORMED_REQUEST: { status: 400, code: 8000, message: 'malformed HTTP request' },
  REQUEST_TIMEOUT: { status: 408, code: 8001, message: 'request timeout' },
  HEADERS_TOO_LARGE: { status: 431, code: 8002, message: 'request headers too large' },

  INTERNAL: { status: 500, code: 9000, message: 'internal server error' },
} as const satisfies Record<string, ErrorEntry>

export type ErrorName = keyof typeof ERRORS

/** Thrown by handlers and helpers; the error handler turns it into `{ code, message }`. */
export class ApiError extends Error {
  readonly status: number
  readonly code: number

  constructor(
    readonly entry: ErrorEntry,
    detail?: string,
  ) {
    super(detail ?? entry.message)
    this.name = 'ApiError'
    this.status = entry.status
    this.code = entry.code
  }
}

/** `throw fail('NOT_OWNER')`, or with a detail that replaces the catalogue's message. */
export function fail(name: ErrorName, detail?: string): ApiError {
  return new ApiError(ERRORS[name], detail)
}

export interface ErrorBody {
  code: number
  message: string
}
