// Frames and messages as plain text, for comparing what two runs of a parser
// made of the same bytes (byte arrays as hex, so any difference shows).
export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

export function plain(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Uint8Array) return `bytes:${hex(v)}`;
    if (typeof v === 'bigint') return `bigint:${v}`;
    return v;
  });
}
