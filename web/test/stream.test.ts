// Keeping a large text in the browser (features/data/stream.ts, lib/opfs.ts): the copy is made only
// where OPFS exists and the quota leaves room for it (and 64 MiB more); otherwise the page says why.
import { afterEach, describe, expect, it } from 'vitest';

import { roomFor } from '../src/features/data/stream';

const g = globalThis as Record<string, unknown>;
const saved = { navigator: Object.getOwnPropertyDescriptor(globalThis, 'navigator'), handle: g.FileSystemFileHandle };

function browser(storage: object | undefined): void {
  Object.defineProperty(globalThis, 'navigator', { value: { storage }, configurable: true });
  g.FileSystemFileHandle = class {};
}

afterEach(() => {
  if (saved.navigator) Object.defineProperty(globalThis, 'navigator', saved.navigator);
  else delete g.navigator;
  g.FileSystemFileHandle = saved.handle;
});

describe('keeping a large text', () => {
  const GiB = 2 ** 30;
  it('keeps it when the quota leaves room for it and 64 MiB more', async () => {
    browser({ getDirectory: async () => ({}), estimate: async () => ({ quota: 10 * GiB, usage: GiB }) });
    expect(await roomFor(4 * GiB)).toEqual({ why: null, free: 9 * GiB });
  });
  it('says there is no room, with how much there is, when it does not fit', async () => {
    browser({ getDirectory: async () => ({}), estimate: async () => ({ quota: 5 * GiB, usage: GiB }) });
    expect(await roomFor(4 * GiB)).toEqual({ why: 'noRoom', free: 4 * GiB });   // 4 GiB free: not 4 GiB + 64 MiB
    expect((await roomFor(4 * GiB - 64 * 2 ** 20)).why).toBeNull();
  });
  it('says the browser cannot keep files where it has no OPFS', async () => {
    browser({ estimate: async () => ({ quota: 10 * GiB, usage: 0 }) });
    expect((await roomFor(GiB)).why).toBe('noOpfs');
    browser(undefined);
    expect((await roomFor(GiB)).why).toBe('noOpfs');
  });
  it('keeps it where the browser does not say its quota', async () => {
    browser({ getDirectory: async () => ({}), estimate: async () => ({}) });
    expect((await roomFor(GiB)).why).toBeNull();
  });
});
