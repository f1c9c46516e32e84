// Where the Chromium that the end-to-end tests and bench:page drive lives: $CHROMIUM if set, else
// Debian's /usr/bin/chromium, else Ubuntu's chromium-browser (the snap's wrapper) or the snap itself.
import fs from 'node:fs';

export function chromiumPath() {
  if (process.env.CHROMIUM) return process.env.CHROMIUM;
  const candidates = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/snap/bin/chromium'];
  return candidates.find((p) => fs.existsSync(p)) ?? candidates[0];
}
