// WebSocket close codes and a close frame's payload (RFC 6455 §5.5.1, §7.4):
// the codes the server sends, which codes a peer may send, and the reason's
// limit — a close frame is a control frame, so its payload is at most 125
// bytes: the 2-byte code and 123 bytes of UTF-8.

export const CLOSE_NORMAL = 1000;
export const CLOSE_GOING_AWAY = 1001;
export const CLOSE_PROTOCOL_ERROR = 1002;
export const CLOSE_UNSUPPORTED_DATA = 1003;
export const CLOSE_INVALID_PAYLOAD = 1007;
export const CLOSE_POLICY_VIOLATION = 1008;
export const CLOSE_MESSAGE_TOO_BIG = 1009;

/** A close reason must fit a control frame: 123 bytes of UTF-8. */
export const CLOSE_REASON_MAX_BYTES = 123;

/**
 * Codes a peer may put in a close frame: the defined ones below 1016 except
 * those reserved for reports that never travel (1004, 1005, 1006, 1015), and
 * the ranges for libraries and applications.
 */
export function isValidCloseCode(code: number): boolean {
  if (code >= 3000 && code <= 4999) return true;
  return code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006;
}

/** The reason cut to 123 bytes on a character boundary: a close reason must be valid UTF-8. */
export function clipCloseReason(reason: string): string {
  const bytes = Buffer.from(reason, 'utf8');
  if (bytes.length <= CLOSE_REASON_MAX_BYTES) return reason;
  let end = CLOSE_REASON_MAX_BYTES;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

/** A close frame's payload: the code, then the reason (clipped); empty when there is no code. */
export function closePayload(code: number | null, reason = ''): Buffer {
  if (code === null) return Buffer.alloc(0);
  const text = Buffer.from(clipCloseReason(reason), 'utf8');
  const payload = Buffer.allocUnsafe(2 + text.length);
  payload.writeUInt16BE(code, 0);
  text.copy(payload, 2);
  return payload;
}
