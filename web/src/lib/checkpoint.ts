// checkpoint.ts — recognising a checkpoint file (core/include/tinygpt/checkpoint.h) by its magic,
// and a .safetensors model file (core/include/tinygpt/safetensors.h: `tinygpt export`) by its header.
// Reading them, with every check, is the core's job (Session.load, describeCheckpoint,
// sessionFromSafetensors): the page knows no byte offsets of the formats beyond these.

export const MAGIC = 'TGPTCKPT';

export function isCheckpoint(head: Uint8Array): boolean {
  if (head.length < 8) return false;
  for (let i = 0; i < 8; i++) if (head[i] !== MAGIC.charCodeAt(i)) return false;
  return true;
}

/** The safetensors format's limit on the JSON header (the reference's; the core's kMaxHeaderBytes). */
export const SAFETENSORS_MAX_HEADER = 100_000_000;

/**
 * True if the bytes start like a safetensors file: a little-endian u64 header length N (2 to
 * 100,000,000, inside the file when its size is known) and then a JSON object ('{', after JSON
 * whitespace). Text files never match: their first eight bytes read as a number far above the limit.
 */
export function isSafetensors(head: Uint8Array, fileSize = Infinity): boolean {
  if (head.length < 9) return false;
  const n = new DataView(head.buffer, head.byteOffset, head.byteLength).getBigUint64(0, true);
  if (n < 2n || n > BigInt(SAFETENSORS_MAX_HEADER) || (fileSize !== Infinity && Number(n) + 8 > fileSize)) return false;
  for (let i = 8; i < head.length && i < 8 + Number(n); i++) {
    const c = head[i];
    if (c === 0x7b) return true;  // '{'
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return false;
  }
  return false;
}

export function checkpointFileName(corpusName: string, step: number): string {
  const base = corpusName.replace(/\.[^.]*$/, '').replace(/[^\p{L}\p{N}_-]+/gu, '-').replace(/^-+|-+$/g, '') || 'corpus';
  return `tinygpt-${base}-step${step}.ckpt`;
}
