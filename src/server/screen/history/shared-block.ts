// Sealed history blocks never change, and a checkpoint hands every one of
// them from the screen host's thread to the server's (which writes the
// history file). Kept in shared memory, posting a block shares its bytes
// instead of copying them: 32 MiB of history would otherwise be copied on
// the server's loop at every checkpoint.

/** The bytes of `view` in a SharedArrayBuffer of their own (the view itself if it already is one). */
export function sharedBytes(view: Uint8Array): Uint8Array {
  if (view.buffer instanceof SharedArrayBuffer) return view;
  const out = new Uint8Array(new SharedArrayBuffer(view.byteLength));
  out.set(view);
  return out;
}

/** `values` in a shared Uint32Array. */
export function sharedWords(values: ArrayLike<number>): Uint32Array {
  if (values instanceof Uint32Array && values.buffer instanceof SharedArrayBuffer) return values;
  const out = new Uint32Array(new SharedArrayBuffer(values.length * 4));
  out.set(values);
  return out;
}

/** A block whose data and row starts are in shared memory (copied once if they were not). */
export function sharedBlock<B extends { data: Uint8Array; starts: Uint32Array }>(block: B): B {
  const data = sharedBytes(block.data);
  const starts = sharedWords(block.starts);
  return data === block.data && starts === block.starts ? block : { ...block, data, starts };
}
