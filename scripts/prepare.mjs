// What `npm start` and `npm test` run first (npm's prestart / pretest hooks), so that both work on a
// fresh Debian 12 or Ubuntu 24.04 machine with nothing but Node.js and npm:
//   node scripts/prepare.mjs start|test
// 1. Node.js itself: 20.19 or newer (the system's own nodejs on Debian 12 / Ubuntu 24.04 is 18).
// 2. The system prerequisites: scripts/setup-debian.sh start|test checks them fast and installs what
//    is missing (apt-get as root, sudo -n otherwise, or one message naming the command to run).
// 3. The npm packages: `npm ci` when node_modules is missing or older than package-lock.json.
// Everything present: a few tens of milliseconds, no output.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const target = process.argv[2] ?? 'test';
if (!['start', 'test'].includes(target)) {
  console.error(`prepare.mjs: unknown target '${target}' (start, test)`);
  process.exit(2);
}

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  console.error(`tinygpt needs Node.js 20.19 or newer; this is ${process.versions.node}. ` +
    "Debian 12's and Ubuntu 24.04's own nodejs package is 18, too old for Vite 8: " +
    'install Node.js 20+ (e.g. from NodeSource or nvm).');
  process.exit(1);
}

const setup = spawnSync('bash', [path.join(root, 'scripts/setup-debian.sh'), target], { cwd: root, stdio: 'inherit' });
if (setup.status !== 0) process.exit(setup.status ?? 1);

const marker = path.join(root, 'node_modules/.package-lock.json');
const lock = path.join(root, 'package-lock.json');
if (fs.existsSync(marker) && fs.statSync(marker).mtimeMs >= fs.statSync(lock).mtimeMs) process.exit(0);
console.log('npm packages missing or out of date: npm ci');
const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
