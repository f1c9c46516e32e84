// checkpoint.ts — recognising a checkpoint file (core/include/tinygpt/checkpoint.h) by its magic.
// Reading it, with every check, is the core's job (Session.load, describeCheckpoint): the page
// knows no byte offsets of the format.

export const MAGIC = 'TGPTCKPT';

export function isCheckpoint(head: Uint8Array): boolean {
  if (head.length < 8) return false;
  for (let i = 0; i < 8; i++) if (head[i] !== MAGIC.charCodeAt(i)) return false;
  return true;
}

export function checkpointFileName(corpusName: string, step: number): string {
  const base = corpusName.replace(/\.[^.]*$/, '').replace(/[^\p{L}\p{N}_-]+/gu, '-').replace(/^-+|-+$/g, '') || 'corpus';
  return `tinygpt-${base}-step${step}.ckpt`;
}
