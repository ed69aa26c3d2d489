// Compares the worker's computing time of two or more page builds on one experiment: in
// rounds, each build in turn opens the experiment in a fresh browser (its first run warms
// the module's hot code) and runs it again up to four times; ORRERY_AB_RUNS runs per build
// in all (default 8). Prints each build's minimum and median. Rounds spread a shared
// machine's changing load over every build alike; the minimum is the least disturbed
// run. Not a test.
//   node tests/browser/ab.mjs dist /tmp/dist-other ['#fragment']
// (a build: a folder made by `trunk build --release --dist FOLDER`; the fragment: the
// experiment, e.g. from `orrery link --preset gavel`, default the page's own scenario).
import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const require = createRequire(path.join(root, '.tools/node_modules/'));
const { chromium } = require('playwright-core');
const args = process.argv.slice(2);
const fragment = args.find((a) => a.startsWith('#')) || '';
const builds = args.filter((a) => !a.startsWith('#'));
if (builds.length < 2) {
  console.error('usage: node tests/browser/ab.mjs BUILD BUILD... [#fragment]');
  process.exit(2);
}
const runs = Number(process.env.ORRERY_AB_RUNS || 8);
const port = (i) => 8200 + i;
const servers = builds.map((d, i) => spawn('python3', ['-m', 'http.server', String(port(i)), '--bind', '127.0.0.1', '--directory', path.resolve(d)], { stdio: 'ignore' }));
for (let i = 0; i < builds.length; i++) {
  for (let t = 0; t < 50; t++) { try { if ((await fetch(`http://127.0.0.1:${port(i)}/`)).ok) break; } catch { /* starting */ } await sleep(100); }
}
const launch = () => chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
const complete = (page) => page.waitForFunction(() => !document.querySelector('#cancel') && document.querySelector('#summary[data-complete=true] tbody tr'), null, { timeout: 600000 });
const times = builds.map(() => []);
// Each build in a browser of its own, one after another: pages of one browser share a
// renderer process (same site), and with it the compiled code of identical modules and
// the threads that optimise it, which favours whichever page runs first.
const rounds = Math.max(1, Math.ceil(runs / 4));
let browser;
try {
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < builds.length; i++) {
      browser = await launch();
      const page = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
      await page.goto(`http://127.0.0.1:${port(i)}/${fragment}`);
      await complete(page);
      for (let k = 0; k < Math.min(4, runs - 4 * r); k++) {
        await page.click('#compare');
        await page.waitForFunction(() => !document.querySelector('#summary[data-complete=true]'), null, { timeout: 120000 });
        await complete(page);
        times[i].push(Number(await page.getAttribute('#run-ms', 'data-compute-ms')));
      }
      await browser.close();
      browser = undefined;
    }
  }
  const median = (v) => { const s = [...v].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
  builds.forEach((b, i) => console.log(`${b.padEnd(30)} min ${String(Math.min(...times[i])).padStart(6)} ms  median ${String(median(times[i])).padStart(6)} ms  (${times[i].join(', ')})`));
} finally {
  if (browser) await browser.close();
  servers.forEach((s) => s.kill());
}
