// Issue 11, item 4: a run trained in the page past the end of its schedule goes to the CLI, which
// extends the schedule (--resume with --max_iters) and continues it; the CLI's checkpoint comes
// back into the page, which continues it again. The same file format all the way.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { dropFile, fillKnob, launch, lorem, openPage, pause, state, waitState } from './helpers';

const root = path.resolve(__dirname, '../..');
const cli = path.join(root, 'build/native/tinygpt');

let ctx: BrowserContext;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ ctx, close } = await launch());
});
afterAll(async () => {
  await close?.();
});

describe('page -> CLI -> page', () => {
  it('item 4: the CLI extends the schedule of a run the page trained past its end, and the page continues it', async () => {
    const page = await ctx.newPage();
    await openPage(page, inject('baseURL'));
    const text = lorem('Roundtrip');
    await dropFile(page, 'roundtrip.txt', new TextEncoder().encode(text));
    await page.waitForFunction(() => document.querySelector('#corpus-name')?.textContent === 'roundtrip.txt');
    await page.click('[data-preset=tiny]');
    await fillKnob(page, 'max_iters', '20');
    await fillKnob(page, 'eval_interval', '10');
    await page.waitForFunction(() => !(document.querySelector('#btn-start') as HTMLButtonElement).disabled);
    await page.click('#btn-start');
    await waitState(page, (s) => s.finished && s.step === 20, null, 60_000);
    // "Train more" goes past the schedule at the final learning rate
    expect(await page.textContent('#btn-start')).toContain('Train more');
    await page.click('#btn-start');
    await waitState(page, (s) => s.running && s.step > 24);
    await pause(page);
    const pageStep = await state(page, (s) => s.step);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#btn-download')]);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tinygpt-roundtrip-'));
    const fromPage = path.join(dir, 'from-page.ckpt');
    fs.copyFileSync((await download.path())!, fromPage);
    fs.writeFileSync(path.join(dir, 'roundtrip.txt'), text);

    // the CLI: without a longer schedule it says what to do; with --max_iters it continues
    let refused = '';
    try {
      execFileSync(cli, ['train', '--resume', fromPage, '--data', path.join(dir, 'roundtrip.txt'), '--threads', '1'], { stdio: 'pipe' });
    } catch (e) {
      refused = String((e as { stderr: Buffer }).stderr);
    }
    expect(refused).toContain(`this run is at step ${pageStep}, past the end of its schedule (20 steps): give --max_iters N`);
    // the longer schedule counts from where the pause landed: a fast machine can be far past 24
    // by the time the pause takes effect (CI once paused at step 60, the fixed target it then had)
    const cliIters = pageStep + 40;
    const fromCli = path.join(dir, 'from-cli.ckpt');
    const log = execFileSync(cli, ['train', '--resume', fromPage, '--data', path.join(dir, 'roundtrip.txt'), '--max_iters', String(cliIters),
      '--threads', '1', '--out', fromCli], { encoding: 'utf8' });
    expect(log).toContain(`resumed ${fromPage} at step ${pageStep} of ${cliIters}`);
    expect(log).toMatch(new RegExp(`step +${cliIters}/${cliIters}`));

    // back in the page: the CLI's run continues where the CLI left it, with its longer schedule
    page.once('dialog', (d) => void d.accept());  // replacing the live model asks first
    await dropFile(page, 'from-cli.ckpt', new Uint8Array(fs.readFileSync(fromCli)), 'application/octet-stream');
    await waitState(page, (s, n) => !!s.model && s.step === n && s.model.config.max_iters === n, cliIters, 30_000);
    expect(await state(page, (s) => s.finished)).toBe(true);
    await page.click('#btn-start');  // Train more, in the page again
    await waitState(page, (s, n) => s.running && s.step > n + 2, cliIters);
    await pause(page);
    fs.rmSync(dir, { recursive: true, force: true });
    await page.close();
  });
});
