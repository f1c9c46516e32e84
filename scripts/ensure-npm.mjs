// Runs `npm ci` when node_modules is missing or older than package-lock.json, so that
// `npm start` and `npm test` work on a fresh clone (npm's prestart/pretest hooks call this).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const marker = path.join(root, 'node_modules/.package-lock.json');
const lock = path.join(root, 'package-lock.json');
if (fs.existsSync(marker) && fs.statSync(marker).mtimeMs >= fs.statSync(lock).mtimeMs) process.exit(0);
console.log('npm packages missing or out of date: npm ci');
const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
