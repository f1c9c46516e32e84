// checkpoint.ts — recognising a checkpoint file (core/include/tinygpt/checkpoint.h) and reading
// its header for display. Loading, with every check, is the core's job (Session.load): this is
// only used to tell a dropped checkpoint from a text file and to describe it.

export const MAGIC = 'TGPTCKPT';

export function isCheckpoint(head: Uint8Array): boolean {
  if (head.length < 8) return false;
  for (let i = 0; i < 8; i++) if (head[i] !== MAGIC.charCodeAt(i)) return false;
  return true;
}

export interface CheckpointHeader {
  version: number;
  layers: number;
  heads: number;
  width: number;
  context: number;
  step: number;
  corpusFingerprint: string;   // FNV-1a 64, 16 hex digits (see corpus.ts)
  corpusSize: number;
}

/** Reads the header, or returns null if the bytes are too short to hold one. */
export function readHeader(bytes: Uint8Array): CheckpointHeader | null {
  if (bytes.length < 172 || !isCheckpoint(bytes)) return null;
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u32 = (o: number) => dv.getUint32(o, true);
  const u64 = (o: number) => Number(dv.getBigUint64(o, true));
  // magic 8, version 4, model 5*u32 + u64 seed, train 44, step @84
  return {
    version: u32(8),
    layers: u32(12),
    heads: u32(16),
    width: u32(20),
    context: u32(24),
    step: u64(84),
    corpusFingerprint: dv.getBigUint64(132, true).toString(16).padStart(16, '0'),
    corpusSize: u64(140),
  };
}

export function checkpointFileName(corpusName: string, step: number): string {
  const base = corpusName.replace(/\.[^.]*$/, '').replace(/[^\p{L}\p{N}_-]+/gu, '-').replace(/^-+|-+$/g, '') || 'corpus';
  return `tinygpt-${base}-step${step}.ckpt`;
}
