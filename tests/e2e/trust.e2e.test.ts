// Issue 16, "runs you can trust, estimate and share": the core's NaN guard as the page shows it
// (a corrupted gradient, three in a row, an absurd learning rate); the pre-flight estimate; a shared
// link that replays a run bit for bit (in another tab, and in the CLI).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { dropFile, fillKnob, launch, lorem, openPage, pause, startTiny, state, waitState } from './helpers';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const artifacts = path.join(root, 'test-artifacts');
let close: () => Promise<void>;
let page: Page;
let ctx: import('playwright-core').BrowserContext;

beforeAll(async () => {
  fs.mkdirSync(artifacts, { recursive: true });
  const l = await launch();
  close = l.close;
  ctx = l.ctx;
  page = await l.ctx.newPage();
  await openPage(page, `${inject('baseURL')}?test-hooks`);   // the NaN injection hook (main.ts)
});
afterAll(async () => {
  await close?.();
});

const injectNan = (steps: number) => page.evaluate((n) => (window as any).__tinygptTest.injectNanGradient(n), steps);

describe('the NaN guard in the page', () => {
  it('a NaN gradient is undone: the notice says which step, why, back to which step and the learning-rate scale; the chart drops the undone steps', async () => {
    await startTiny(page, 'guard.txt', lorem('Guard'));
    await waitState(page, (s) => s.step >= 30);
    await injectNan(1);
    await waitState(page, (s) => s.guard.events.length === 1);
    const r = await state(page, (s) => s.guard.events[0]);
    expect(r.restoredStep).toBe(Math.floor(r.failedStep / 100) * 100);   // the last good state, kept every 100 steps
    expect(r.lrScale).toBe(0.5);
    const item = page.locator(`#guard li[data-failed="${r.failedStep + 1}"]`);
    await item.waitFor();
    const text = await item.textContent();
    expect(text).toContain(`Step ${r.failedStep + 1} diverged (the gradient norm is nan)`);
    expect(text).toContain(`Back to step ${r.restoredStep}`);
    expect(text).toContain('× 0.5');
    expect(await page.textContent('#messages')).toContain(`Step ${r.failedStep + 1} diverged`);
    // the learning rate the next step uses, as a number and as the schedule's scale
    expect(await page.textContent('#guard .guard-title')).toMatch(/^NaN guard: 1 diverged step undone; the learning rate is now \d[\d.e-]*, 0\.5 × the schedule's\.$/);
    // the curve is one loss per step from step 1, the undone steps gone; the run trains on past a
    // new good state (so the next test's rollbacks are "in a row" from zero)
    await waitState(page, (s, n) => s.step > n + 105, r.restoredStep);
    await pause(page);
    const h = await state(page, (s) => ({ first: s.history.first, n: s.history.train.length, step: s.step, lastStep: s.history.lastStep }));
    expect(h).toEqual({ first: 1, n: h.step, step: h.step, lastStep: h.step });
  });

  it('three rollbacks in a row pause the run with an explanation; Resume goes on at the lower rate', async () => {
    await injectNan(5);   // corrupted batches that keep coming
    await page.click('#btn-start');
    await waitState(page, (s) => !!s.guard.paused && !s.running);
    const pauseText = await page.textContent('#guard-pause');
    expect(pauseText).toContain('Training paused: three steps in a row diverged');
    expect(pauseText).toContain('0.0625 × the schedule');   // halved three more times after the first rollback
    expect(await page.isVisible('#guard-pause')).toBe(true);
    await page.screenshot({ path: path.join(artifacts, 'guard-paused.png'), fullPage: false });
    // Resume: the two corrupted batches still queued are undone too, then training goes on
    await page.click('#btn-start');
    await waitState(page, (s) => s.guard.events.length === 6 && s.running && !s.guard.paused);
    const step = await state(page, (s) => s.step);
    await waitState(page, (s, n) => s.step > n + 10, step);
    expect(await page.isVisible('#guard-pause')).toBe(false);
    await pause(page);
    await page.click('#btn-reset');
    await waitState(page, (s) => !s.model && s.guard.events.length === 0);
  });

  it('an absurd learning rate (1, no clipping, no decay) sends the loss far above 4 ln 256: the guard rolls back and keeps only sane losses', async () => {
    for (const [k, v] of [['learning_rate', '1'], ['min_lr', '1'], ['warmup_iters', '0'], ['grad_clip', '0'], ['weight_decay', '0'], ['max_iters', '300']])
      await fillKnob(page, k, v);
    await page.waitForFunction(() => !(document.querySelector('#btn-start') as HTMLButtonElement).disabled);
    await page.click('#btn-start');
    await waitState(page, (s) => s.guard.events.some((e: any) => /worse than 22\.2/.test(e.message)), null, 60_000);
    expect(await page.locator('#guard li').first().textContent()).toMatch(/diverged \(the loss is [\d.]+, worse than 22\.2 \(4 x a uniform guess\)\)/);
    await waitState(page, (s) => !s.running, null, 60_000);   // finished, or paused by the guard
    const losses = await state(page, (s) => s.history.train.slice());
    expect(losses.length).toBe(await state(page, (s) => s.step));
    for (const l of losses) expect(l).toBeLessThanOrEqual(22.18);
    await page.click('#btn-reset');
    await waitState(page, (s) => !s.model);
  });
});

/** H(X_t | X_t-1) of a text in nats, computed here independently of the core. */
function bigramEntropy(bytes: Uint8Array): number {
  const pairs = new Map<number, number>();
  const firsts = new Map<number, number>();
  for (let i = 1; i < bytes.length; i++) {
    const k = bytes[i - 1] * 256 + bytes[i];
    pairs.set(k, (pairs.get(k) ?? 0) + 1);
    firsts.set(bytes[i - 1], (firsts.get(bytes[i - 1]) ?? 0) + 1);
  }
  let h = 0;
  const n = bytes.length - 1;
  for (const [k, c] of pairs) h -= (c / n) * Math.log(c / firsts.get(Math.floor(k / 256))!);
  return h;
}

describe('the pre-flight estimate', () => {
  it('after a text and a preset, before Start: tokens/s, the time of the configured steps, memory, and the bigram loss of the text', async () => {
    const text = new TextEncoder().encode(lorem('Estimate') + 'Quite different words at the end, for a few more pairs.\n');
    await dropFile(page, 'estimate.txt', text);
    await page.waitForFunction(() => document.querySelector('#corpus-name')?.textContent === 'estimate.txt');
    await page.click('[data-preset=tiny]');
    await waitState(page, (s) => s.estimate && !s.estimate.measuring && s.estimate.result, null, 30_000);
    const box = page.locator('#estimate-box');
    expect(await box.isVisible()).toBe(true);
    const d = await box.evaluate((el) => ({ ...(el as HTMLElement).dataset }));
    const r = await state(page, (s) => ({ ...s.estimate.result, steps: s.estimate.config.max_iters }));
    expect(Number(d.tokensPerSec)).toBeGreaterThan(0);
    expect(r.stepsTimed).toBeGreaterThanOrEqual(1);
    // the configured steps and the evaluations, at the measured pace (tiny: 500 steps, 11 validation losses)
    expect(r.evaluations).toBe(11);
    expect(r.totalSeconds).toBeCloseTo((r.steps * r.msPerStep + r.evaluations * r.msPerEval) / 1000, 6);
    expect(Number(d.memoryBytes)).toBeGreaterThan(r.parameters * 28 + text.length);
    // the core's bigram entropy is the one computed here
    expect(Number(d.bigram)).toBeCloseTo(bigramEntropy(text), 9);
    expect(await page.textContent('#estimate-main')).toMatch(/tokens\/s, so 500 steps take about .+ with 11 validation losses; memory about/);
    expect(await page.textContent('#estimate-scale')).toContain(`a bigram model (the byte before predicts the next) reaches ${Number(d.bigram).toFixed(4)} nats per byte`);
    // another preset is measured again; while training, the run's own numbers are shown next to it
    await fillKnob(page, 'max_iters', '3000');
    await waitState(page, (s) => s.estimate && s.estimate.config.max_iters === 3000 && !!s.estimate.result, null, 30_000);
    await page.click('#btn-start');
    await waitState(page, (s) => s.running && s.step > 20);
    await page.locator('#estimate-now').waitFor();
    expect(await page.textContent('#estimate-now')).toMatch(/Now, measured by the run: .+ tokens\/s, .+ left \(estimated before the start: .+ in all\)/);
    await pause(page);
    await page.click('#btn-reset');
    await waitState(page, (s) => !s.model);
  });
});

/** The link's losses, decoded here (base64url of float32 little-endian). */
function linkLosses(url: string): Float32Array {
  const b64 = new URL(url).hash.split('&').find((p) => p.startsWith('losses='))!.slice(7);
  const bytes = Buffer.from(b64.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
}

describe('a shared run', () => {
  const text = lorem('Shared') + 'The end of the shared text.\n';
  let url = '';
  let original: number[] = [];

  it('Share makes a link with the settings, seed, variant, the file by fingerprint and size, and the first 50 losses', async () => {
    await startTiny(page, 'shared.txt', text, 400);
    await waitState(page, (s) => s.step >= 60);
    await pause(page);
    await page.click('#btn-share');
    await page.waitForFunction(() => (document.querySelector('#share-url') as HTMLInputElement).value.includes('tinygpt=1'));
    url = await page.inputValue('#share-url');
    const u = new URL(url);
    expect(u.origin + u.pathname).toBe(new URL(inject('baseURL')).href);
    const fields = new URLSearchParams(u.hash.slice(1));
    expect(fields.get('n_layer')).toBe('2');
    expect(fields.get('max_iters')).toBe('400');
    expect(fields.get('seed')).toBe('1337');
    expect(fields.get('variant')).toBe('wasm-simd128');
    const stats = await state(page, (s) => s.corpus.stats);
    expect(fields.get('corpus')).toBe(`fnv:${stats.fingerprint}:${text.length}`);
    expect(fields.get('name')).toBe('shared.txt');
    original = await state(page, (s) => s.history.train.slice(0, 50));
    expect(Array.from(linkLosses(url))).toEqual(original);   // float32 values, exactly
    expect(await page.textContent('#share-note')).toContain('the first 50 losses');
  });

  it('opening the link in another tab sets the run up, asks for the file, and replays the first 50 losses bit for bit', async () => {
    const b = await ctx.newPage();
    await b.goto(url);
    await waitState(b, (s) => !!s.replay);
    const asks = await b.textContent('#replay-status');
    expect(asks).toContain('Choose the text it trained on: shared.txt (');
    expect(asks).toContain(`, ${text.length} bytes)`);
    // a different file is not the link's
    await dropFile(b, 'other.txt', new TextEncoder().encode(lorem('Other')));
    await waitState(b, (s) => s.corpus?.ref.name === 'other.txt');
    expect(await b.textContent('#replay-status')).toContain('other.txt is');
    await dropFile(b, 'shared.txt', new TextEncoder().encode(text));
    await waitState(b, (s) => s.corpus?.ref.name === 'shared.txt' && s.replay.corpusNote === null);
    expect(await b.inputValue('#knob-max_iters')).toBe('400');
    expect(await b.inputValue('#knob-n_embd')).toBe('64');
    await b.waitForFunction(() => !(document.querySelector('#btn-start') as HTMLButtonElement).disabled);
    await b.click('#btn-start');
    await waitState(b, (s) => !!s.replay.check, null, 60_000);
    const check = await state(b, (s) => s.replay.check);
    expect(check.status).toBe('matches');
    expect(check.message).toBe('matches the shared run at step 50: the first 50 losses are identical, bit for bit');
    expect(await b.textContent('#replay-status')).toContain('Replay: matches the shared run at step 50');
    expect(await state(b, (s) => s.history.train.slice(0, 50))).toEqual(original);
    await pause(b);
    await b.screenshot({ path: path.join(artifacts, 'share-replay.png'), fullPage: false });
    // a link whose 20th loss was changed by one unit in the last place: the replay says where it differs
    const losses = linkLosses(url).slice();
    new Uint32Array(losses.buffer)[19] += 1;
    const tampered = url.replace(/losses=[^&]*/, `losses=${Buffer.from(losses.buffer).toString('base64url')}`);
    await b.close();
    // (a new tab: a link that differs only in its fragment does not reload a tab)
    const c = await ctx.newPage();
    await openPage(c, tampered);
    await waitState(c, (s) => !!s.replay);
    await dropFile(c, 'shared.txt', new TextEncoder().encode(text));
    await waitState(c, (s) => s.corpus?.ref.name === 'shared.txt' && s.replay?.corpusNote === null);
    await c.waitForFunction(() => !(document.querySelector('#btn-start') as HTMLButtonElement).disabled);
    await c.click('#btn-start');
    await waitState(c, (s) => !!s.replay.check, null, 60_000);
    expect(await state(c, (s) => s.replay.check.message)).toMatch(/^differs from the shared run at step 20: loss \d\.\d{7} here, \d\.\d{7} in the link$/);
    await waitState(c, (s) => s.step >= 50);
    expect(await state(c, (s) => s.history.train.slice(0, 50))).toEqual(original);   // the run is the same; the link was changed
    await pause(c);
    // a link pasted into the address bar of a tab with a model only changes the fragment: the page
    // says to reset first and keeps the model
    await c.evaluate((u) => { location.hash = new URL(u).hash; }, url);
    await c.waitForFunction(() => document.querySelector('#messages')?.textContent?.includes('press Reset first'));
    expect(await state(c, (s) => !!s.model)).toBe(true);
    await c.close();
  });

  it('the CLI replays the page\'s link: same settings and file (checked by fingerprint and size), and says the build variants differ', () => {
    const cli = path.join(root, 'build/native/tinygpt');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tinygpt-share-'));
    fs.writeFileSync(path.join(dir, 'shared.txt'), text);
    const out = execFileSync(cli, ['train', '--from-link', url, '--data', path.join(dir, 'shared.txt'), '--until', '50', '--threads', '1'], { encoding: 'utf8' });
    console.log(out.split('\n').filter((l) => l.startsWith('replay')).join('\n'));
    expect(out).toContain('replay: the shared run\'s settings and text; its first 50 losses are checked (made on wasm-simd128, this is native-');
    expect(out).toMatch(/replay: (matches|differs from) the shared run at step \d+.*\(the link was made on wasm-simd128, this is native-\w+: runs are bit-identical only on the same build variant\)/);
    // other kernels (FMA natively, none in SIMD128; other summation orders): the same run to a few
    // units in the last decimals over the 50 steps, not another one
    const most = out.match(/over the first 50 steps the losses differ by at most ([\d.e+-]+)/);
    if (!out.includes('replay: matches')) {
      expect(most).not.toBeNull();
      expect(Number(most![1])).toBeLessThan(1e-4);   // measured: 1.2e-7 (native-avx2), 4.2e-7 (native-avx512)
    }
    fs.writeFileSync(path.join(dir, 'other.txt'), text.replace('end', 'END'));
    let err = '';
    try {
      execFileSync(cli, ['train', '--from-link', url, '--data', path.join(dir, 'other.txt')], { encoding: 'utf8', stdio: 'pipe' });
    } catch (e) {
      err = String((e as { stderr: string }).stderr);
    }
    expect(err).toContain('has the same size as shared.txt but other bytes');
  });
});
