// Every bundled scenario in the page against the CLI: its share link opened in a fresh
// browser context (the first results and the table's last row, from navigation), then the
// same comparison run twice more in that page (from the click to the complete table, and
// the longest worker's computing), each against `orrery compare --link LINK --format json`
// natively (the CLI runs the policies on as many threads as there are cores, as the page runs
// them on as many workers). The page times itself: its completion is watched from inside it
// (harness.mjs, watchInPage), never polled from here. Prints one row per scenario and writes
// the numbers as JSON to target/bench-scenarios.json; not a test.
// Needs dist/ (trunk build --release; ORRERY_DIST names another build's folder) and
// target/release/orrery. ORRERY_BENCH_SCENARIOS=a,b limits the scenarios; ORRERY_BENCH_PAGES
// sets how many fresh pages each scenario is opened in (default 2).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import fs from 'node:fs';
import { root, serve, launch, median, runAgain, watchSummary, ORRERY } from './harness.mjs';

const PORT = Number(process.env.ORRERY_BENCH_PORT || 8097);
const BASE = `http://127.0.0.1:${PORT}/`;
const dist = process.env.ORRERY_DIST || path.join(root, 'dist');
const pages = Number(process.env.ORRERY_BENCH_PAGES || 2);

// Scenario names, as `orrery presets` lists them.
const listed = execFileSync(ORRERY, ['presets'], { encoding: 'utf8' });
const all = listed.split('Bundled traces:')[0].split('\n').map((l) => l.match(/^ {2}([a-z0-9-]+) {2,}/)?.[1]).filter(Boolean);
const names = process.env.ORRERY_BENCH_SCENARIOS ? process.env.ORRERY_BENCH_SCENARIOS.split(',') : all;

// Wall-clock milliseconds of the CLI comparing `link`, median of `n` runs.
function native(link, n) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    execFileSync(ORRERY, ['compare', '--link', link, '--format', 'json'], { encoding: 'utf8', maxBuffer: 1 << 26 });
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(times);
}

const server = await serve(dist, PORT);
const browser = await launch();
const out = [];
try {
  for (const name of names) {
    const link = execFileSync(ORRERY, ['link', '--preset', name], { encoding: 'utf8' }).trim();
    const rows = JSON.parse(execFileSync(ORRERY, ['compare', '--link', link, '--format', 'json'], { encoding: 'utf8', maxBuffer: 1 << 26 })).length;
    const cli = native(link, 3);
    const first = [], last = [], again = [], computing = [];
    for (let p = 0; p < pages; p++) {
      const ctx = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
      const page = await ctx.newPage();
      const watch = await watchSummary(page, rows);
      await page.goto(BASE + link.slice(link.indexOf('#')));
      const [f, l] = await watch();
      first.push(f);
      last.push(l);
      for (let i = 0; i < 2; i++) {
        await runAgain(page, { rows, confirm: true, timeout: 600000 });
        again.push(Number(await page.getAttribute('#run-ms', 'data-ms')));
        computing.push(Number(await page.getAttribute('#run-ms', 'data-compute-ms')));
      }
      await ctx.close();
    }
    const r = { name, rows, cli_ms: cli, first_ms: median(first), last_ms: median(last), again_ms: median(again), computing_ms: median(computing) };
    out.push(r);
    const x = (v) => `${(v / cli).toFixed(2)}x`;
    console.log(`${name.padEnd(12)} CLI ${cli.toFixed(0).padStart(6)} ms | link: first results ${r.first_ms.toFixed(0).padStart(6)} ms (${x(r.first_ms)}), last row ${r.last_ms.toFixed(0).padStart(6)} ms (${x(r.last_ms)}) | again: ${r.again_ms.toFixed(0).padStart(6)} ms (${x(r.again_ms)}), computing ${r.computing_ms.toFixed(0).padStart(6)} ms`);
  }
} finally {
  await browser.close();
  server.kill();
}
fs.mkdirSync(path.join(root, 'target'), { recursive: true });
fs.writeFileSync(path.join(root, 'target/bench-scenarios.json'), JSON.stringify(out, null, 1));
console.log('targets: the run again <= 1.5x the CLI; a link\'s first results <= 2x the CLI');
