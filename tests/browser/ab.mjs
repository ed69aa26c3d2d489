// Compares the worker's computing time of two or more page builds on one experiment: in
// rounds, each build in turn opens the experiment in a fresh browser (its first run warms
// the module's hot code) and runs it again up to four times; ORRERY_AB_RUNS runs per build
// in all (default 8). Prints each build's minimum and median. Rounds spread a shared
// machine's changing load over every build alike; the minimum is the least disturbed
// run. With ORRERY_AB_FIRST=1 it times the first run instead: each load a fresh browser,
// its time to the first chart (data-first-chart-ms) and the first run's computing time,
// ORRERY_AB_RUNS loads per build. Not a test.
//   node tests/browser/ab.mjs dist /tmp/dist-other ['#fragment']
// (a build: a folder made by `trunk build --release --dist FOLDER`; the fragment: the
// experiment, e.g. from `orrery link --preset gavel`, default the page's own scenario).
import path from 'node:path';
import { serve, launch, compareAgain, median } from './harness.mjs';

const args = process.argv.slice(2);
const fragment = args.find((a) => a.startsWith('#')) || '';
const builds = args.filter((a) => !a.startsWith('#'));
if (builds.length < 2) {
  console.error('usage: node tests/browser/ab.mjs BUILD BUILD... [#fragment]');
  process.exit(2);
}
const runs = Number(process.env.ORRERY_AB_RUNS || 8);
const firstOnly = Boolean(process.env.ORRERY_AB_FIRST);
const port = (i) => 8200 + i;
const servers = await Promise.all(builds.map((d, i) => serve(path.resolve(d), port(i))));
const times = builds.map(() => []);
const charts = builds.map(() => []);
// Each build in a browser of its own, one after another: pages of one browser share a
// renderer process (same site), and with it the compiled code of identical modules and
// the threads that optimise it, which favours whichever page runs first.
const rounds = firstOnly ? runs : Math.max(1, Math.ceil(runs / 4));
let browser;
try {
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < builds.length; i++) {
      browser = await launch();
      const page = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
      await page.goto(`http://127.0.0.1:${port(i)}/${fragment}`);
      await page.waitForSelector('#summary[data-complete=true] tbody tr', { timeout: 600000 });
      if (firstOnly) {
        charts[i].push(Number(await page.evaluate(() => document.documentElement.getAttribute('data-first-chart-ms'))));
        times[i].push(Number(await page.getAttribute('#run-ms', 'data-compute-ms')));
      }
      for (let k = 0; !firstOnly && k < Math.min(4, runs - 4 * r); k++) {
        await compareAgain(page, 600000);
        times[i].push(Number(await page.getAttribute('#run-ms', 'data-compute-ms')));
      }
      await browser.close();
      browser = undefined;
    }
  }
  builds.forEach((b, i) => console.log(`${b.padEnd(30)} min ${String(Math.min(...times[i])).padStart(6)} ms  median ${String(median(times[i])).padStart(6)} ms  (${times[i].join(', ')})`));
  if (firstOnly) {
    builds.forEach((b, i) => console.log(`${b.padEnd(30)} first chart median ${String(median(charts[i])).padStart(6)} ms  (${charts[i].join(', ')})`));
  }
} finally {
  if (browser) await browser.close();
  servers.forEach((s) => s.kill());
}
