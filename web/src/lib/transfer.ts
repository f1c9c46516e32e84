// transfer.ts — the ArrayBuffers a message hands over to the other thread (transferred, never
// copied), found by walking the message: every ArrayBuffer and every typed array's buffer in it,
// at any depth; and the MessagePorts in it (a port can only travel transferred). The rule this relies on: a sender never keeps using an array it has put into a
// message (the worker sends copies out of wasm memory; the page sends bytes it has finished with).

/** Depth past which the walk stops: messages are a few levels deep; this guards against cycles. */
const MAX_DEPTH = 8;

export function transferables(msg: unknown): Transferable[] {
  const out: Transferable[] = [];
  walk(msg, out, 0);
  return out;
}

function walk(x: unknown, out: Transferable[], depth: number): void {
  if (x === null || typeof x !== 'object' || depth > MAX_DEPTH) return;
  if (typeof MessagePort !== 'undefined' && x instanceof MessagePort) {
    if (!out.includes(x)) out.push(x);
    return;
  }
  if (x instanceof ArrayBuffer || ArrayBuffer.isView(x)) {
    const buf = ArrayBuffer.isView(x) ? x.buffer : x;
    // a SharedArrayBuffer can't be transferred, and one buffer may not be listed twice
    if (buf instanceof ArrayBuffer && !out.includes(buf)) out.push(buf);
    return;
  }
  if (Array.isArray(x)) {
    for (const v of x) walk(v, out, depth + 1);
    return;
  }
  // plain objects only: a Map, a Date or a class instance is not what messages carry
  const proto = Object.getPrototypeOf(x);
  if (proto !== Object.prototype && proto !== null) return;
  for (const v of Object.values(x)) walk(v, out, depth + 1);
}
