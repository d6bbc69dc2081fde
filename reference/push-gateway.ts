import { createHash } from 'node:crypto'

/**
 * Where pushes leave the server. A real deployment hands them to APNs (iOS) or FCM (Android); the
 * reference gateway records what it would have sent. Both direct messages and push-to-user go through it,
 * one call per device, and a device the gateway refuses counts as unsent.
 */
export type Platform = 'APNS' | 'FCM'

export interface PushEnvelope {
  pushId: string
  /** 'push' for POST /push/user, 'message' for the wake-up of a direct message. */
  kind: 'push' | 'message'
  userId: string
  deviceId: string
  action: 'PUSH' | 'WAKEUP'
  name: string
  payload: Record<string, unknown>
}

export type PushOutcome = { ok: true; platform: Platform } | { ok: false; reason: string }

export interface PushGateway {
  send(envelope: PushEnvelope): PushOutcome
}

export interface RecordedPush extends PushEnvelope {
  platform: Platform
}

export interface RecordingGatewayOptions {
  /** Returns a reason when the device is to be reported failed. Default: devices whose id contains "unreachable". */
  failure?: (deviceId: string) => string | undefined
  /** Most recent pushes kept; older ones are dropped so a long-running server stays bounded. */
  keep?: number
}

/**
 * Platform by device id: an `ios` or `android` hint wins; otherwise a stable hash, so the same device
 * always goes to the same service.
 */
export function platformOf(deviceId: string): Platform {
  if (/(?:^|[^a-z])(?:ios|iphone|ipad)/i.test(deviceId)) return 'APNS'
  if (/android/i.test(deviceId)) return 'FCM'
  return createHash('sha256').update(deviceId).digest()[0]! % 2 === 0 ? 'APNS' : 'FCM'
}

const defaultFailure = (deviceId: string): string | undefined => (/unreachable/i.test(deviceId) ? 'device unreachable' : undefined)

export class RecordingPushGateway implements PushGateway {
  readonly sent: RecordedPush[] = []
  private readonly failure: (deviceId: string) => string | undefined
  private readonly keep: number

  constructor(options: RecordingGatewayOptions = {}) {
    this.failure = options.failure ?? defaultFailure
    this.keep = options.keep ?? 10_000
  }

  send(envelope: PushEnvelope): PushOutcome {
    const reason = this.failure(envelope.deviceId)
    if (reason !== undefined) return { ok: false, reason }
    const platform = platformOf(envelope.deviceId)
    this.sent.push({ ...envelope, platform })
    if (this.sent.length > this.keep) this.sent.splice(0, this.sent.length - this.keep)
    return { ok: true, platform }
  }
}
