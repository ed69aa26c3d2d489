// Benchmarks of the web playground in headless Chromium: the gzip size of the wasm files the
// page and its worker download (each distinct file once), time from navigation to the first
// chart, one step with 200 active jobs including the redraw, and a full run of the default
// scenario in the page (worker) against the native CLI (first run and later runs), the gavel
// preset from its link to the last row against the CLI, and Sia on its scenario: the whole
// run in the worker and one interval stepped in the stepping worker, and DL2's training with the
// page's default settings against `orrery dl2 train`. Prints a table; not a test. Every bundled
// scenario's link and reruns: tests/browser/bench-scenarios.mjs.
// Needs dist/ (trunk build --release; ORRERY_DIST names another build's folder) and
// target/release/orrery.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import fs from 'node:fs';
import zlib from 'node:zlib';
import { root, serve, launch, compareAgain, watchSummary, median } from './harness.mjs';

const PORT = 8098;
const BASE = `http://127.0.0.1:${PORT}/`;
const dist = process.env.ORRERY_DIST || path.join(root, 'dist');

// Milliseconds of each of `n` steps of the stepper: from the click until the page has
// re-rendered (the clock's text changed) and laid out.
async function timeSteps(page, n) {
  return page.evaluate(async (count) => {
    const times = [];
    const clock = document.querySelector('#clock');
    for (let i = 0; i < count; i++) {
      const done = new Promise((resolve) => {
        const obs = new MutationObserver(() => { obs.disconnect(); resolve(); });
        obs.observe(clock, { childList: true, characterData: true, subtree: true });
      });
      const t0 = performance.now();
      document.querySelector('#step').click();
      await done;
      void document.body.offsetHeight;
      times.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 20));
    }
    return times;
  }, n);
}

const server = await serve(dist, PORT);
const browser = await launch();
const rows = [];
try {
  // Every wasm file the page or its worker fetches while loading and running the default
  // scenario, counted once however often it is fetched.
  const wasmFiles = new Set();
  const first = [];
  const marks = { 'orrery:start': [], 'orrery:rendered': [], 'orrery:first-results': [] };
  const pageRun = [];
  const computeRun = [];
  for (let i = 0; i < 3; i++) {
    const ctx = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    ctx.on('request', (r) => { const p = new URL(r.url()).pathname; if (p.endsWith('.wasm')) wasmFiles.add(path.basename(p)); });
    const page = await ctx.newPage();
    const watch = await watchSummary(page, 1);
    await page.goto(BASE);
    await watch();
    await page.waitForFunction(() => document.documentElement.hasAttribute('data-first-chart-ms'), null, { timeout: 120000 });
    const nav = await page.evaluate(() => Number(document.documentElement.getAttribute('data-first-chart-ms')));
    first.push(nav);
    const at = await page.evaluate((names) => names.map((n) => performance.getEntriesByName(n)[0]?.startTime ?? NaN), Object.keys(marks));
    Object.keys(marks).forEach((n, i) => marks[n].push(at[i]));
    pageRun.push(Number(await page.getAttribute('#run-ms', 'data-ms')));
    computeRun.push(Number(await page.getAttribute('#run-ms', 'data-compute-ms')));
    await ctx.close();
  }
  const files = [...wasmFiles].sort();
  // GNU gzip -9, docs/benchmarks.md's measure; Node's zlib (another deflate) gives other sizes, about
  // 0.5% larger for this module, and is the fallback only where gzip is missing.
  const gzip = (f) => {
    try {
      return { bytes: execFileSync('gzip', ['-9', '-c', path.join(dist, f)], { maxBuffer: 1 << 26 }).length, by: 'gzip -9' };
    } catch {
      return { bytes: zlib.gzipSync(fs.readFileSync(path.join(dist, f)), { level: 9 }).length, by: "Node's zlib, level 9" };
    }
  };
  const gz = files.map(gzip);
  const total = gz.reduce((a, g) => a + g.bytes, 0);
  rows.push([`release wasm, ${gz[0]?.by} (${files.length} distinct file${files.length === 1 ? '' : 's'} downloaded)`, `${total.toLocaleString('en')} bytes = ${(total / 1048576).toFixed(3)} MB (${files.map((f, i) => `${f} ${gz[i].bytes.toLocaleString('en')}`).join(' + ')})`, '<= 1.5 MB (1,572,864 bytes)']);
  rows.push(['navigation to first chart (default scenario, 3 runs in the worker)', `${median(first).toFixed(0)} ms`, '<= 800 ms']);
  rows.push(['  module running / first render done / first results / charted', `${['orrery:start', 'orrery:rendered', 'orrery:first-results'].map((n) => median(marks[n]).toFixed(0)).join(' / ')} / ${median(first).toFixed(0)} ms`, '']);

  const link = execFileSync(path.join(root, 'target/release/orrery'), ['link'], { encoding: 'utf8' }).trim();
  const nat = [];
  for (let i = 0; i < 5; i++) {
    const t0 = process.hrtime.bigint();
    execFileSync(path.join(root, 'target/release/orrery'), ['compare', '--link', link, '--format', 'json'], { encoding: 'utf8', env: { ...process.env, RAYON_NUM_THREADS: '1' } });
    nat.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  rows.push(['full run of the default scenario: page (worker) / native CLI (1 thread)', `${median(pageRun).toFixed(0)} ms / ${median(nat).toFixed(0)} ms = ${(median(pageRun) / median(nat)).toFixed(2)}x`, '<= 1.5x']);
  rows.push(['  of which computing in the worker', `${median(computeRun).toFixed(0)} ms = ${(median(computeRun) / median(nat)).toFixed(2)}x native`, '']);

  // The same run again in the same page: V8 compiles a module's functions lazily and
  // optimises the hot ones while they run, so a page's first run also pays for that.
  {
    const ctx = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await ctx.newPage();
    const watch = await watchSummary(page, 1);
    await page.goto(BASE);
    await watch();
    const warm = [];
    for (let i = 0; i < 5; i++) {
      await compareAgain(page, 120000);
      warm.push(Number(await page.getAttribute('#run-ms', 'data-compute-ms')));
    }
    await ctx.close();
    rows.push(['  computing in the worker, runs 2-6 in the same page (median)', `${median(warm).toFixed(0)} ms = ${(median(warm) / median(nat)).toFixed(2)}x native`, '<= 1.5x']);
  }

  // The gavel preset: from opening its link to the last row of the table, against the CLI
  // comparing the same link.
  {
    const gavelLink = execFileSync(path.join(root, 'target/release/orrery'), ['link', '--preset', 'gavel'], { encoding: 'utf8' }).trim();
    const gNat = [];
    for (let i = 0; i < 3; i++) {
      const t0 = process.hrtime.bigint();
      execFileSync(path.join(root, 'target/release/orrery'), ['compare', '--link', gavelLink, '--format', 'json'], { encoding: 'utf8', env: { ...process.env, RAYON_NUM_THREADS: '1' } });
      gNat.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    const gPage = [];
    for (let i = 0; i < 2; i++) {
      const ctx = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
      const page = await ctx.newPage();
      const watch = await watchSummary(page, 1);
      await page.goto(BASE + gavelLink.slice(gavelLink.indexOf('#')));
      gPage.push((await watch())[1]);
      await ctx.close();
    }
    rows.push(['gavel preset: link opened to last row / orrery compare --link', `${median(gPage).toFixed(0)} ms / ${median(gNat).toFixed(0)} ms = ${(median(gPage) / median(gNat)).toFixed(2)}x`, '<= 2x']);
  }

  const ctx = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await ctx.newPage();
  await page.goto(BASE);
  await page.waitForSelector('#summary[data-complete=true] tbody tr');
  await page.fill('#workload-panel input[type=number] >> nth=0', '200');
  await page.dispatchEvent('#workload-panel input[type=number] >> nth=0', 'change');
  await page.fill('#workload-panel input[type=number] >> nth=1', '0');
  await page.dispatchEvent('#workload-panel input[type=number] >> nth=1', 'change');
  await page.click('#generate');
  await page.selectOption('#step-policy', 'max_min_fairness_perf');
  await page.click('#step');
  await page.waitForFunction(() => document.querySelector('#clock').textContent.includes('round 1'));
  const steps = await timeSteps(page, 20);
  const active = await page.evaluate(() => document.querySelectorAll('.gpu.busy').length ? Number((document.querySelector('#step-panel label.hint')?.textContent.match(/all (\d+) active/) || [0, 0])[1]) : 0);
  rows.push([`one step with ${active} active jobs, including the redraw (median of 20)`, `${median(steps).toFixed(1)} ms`, '<= 16 ms']);

  // Sia alone on the sia scenario: the whole run in the worker against the native CLI, then
  // one scheduling interval (simulation and decision in the stepping worker, the redraw on
  // the page) from the click until the clock changed.
  const siaLink = execFileSync(path.join(root, 'target/release/orrery'), ['link', '--preset', 'sia', '--policy', 'sia'], { encoding: 'utf8' }).trim();
  const siaNat = [];
  for (let i = 0; i < 3; i++) {
    const t0 = process.hrtime.bigint();
    execFileSync(path.join(root, 'target/release/orrery'), ['compare', '--link', siaLink, '--format', 'json'], { encoding: 'utf8' });
    siaNat.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const sp = await ctx.newPage();
  await sp.goto(BASE + siaLink.slice(siaLink.indexOf('#')));
  await sp.waitForSelector('#summary[data-complete=true] tbody tr', { timeout: 300000 });
  const siaCompute = Number(await sp.getAttribute('#run-ms', 'data-compute-ms'));
  rows.push(['sia alone on the sia scenario (957 decisions): worker / native CLI', `${siaCompute.toFixed(0)} ms / ${median(siaNat).toFixed(0)} ms = ${(siaCompute / median(siaNat)).toFixed(2)}x`, '']);
  await sp.selectOption('#step-policy', 'sia');
  for (let i = 0; i < 60; i++) await sp.click('#step');
  await sp.waitForSelector('#choices[data-job]');
  const siaSteps = await timeSteps(sp, 20);
  const siaActive = await sp.$$eval('#elastic-step-jobs tbody tr', (rs) => rs.length);
  rows.push([`one sia interval with ${siaActive} active jobs, stepped in the worker, click to redraw`, `${median(siaSteps).toFixed(1)} ms`, '<= 16 ms']);

  // DL2's training with the page's default settings: slots simulated per second in the
  // worker (updates included) against `orrery dl2 train` with the same flags.
  const dp = await ctx.newPage();
  await dp.goto(BASE);
  await dp.waitForSelector('#summary[data-complete=true] tbody tr');
  await dp.selectOption('#scenario', 'dl2');
  await dp.waitForSelector('#train');
  await dp.click('#train');
  await dp.waitForSelector('#trained', { timeout: 900000 });
  const trained = await dp.evaluate(() => ['slots', 'ms'].map((k) => Number(document.querySelector('#trained').getAttribute(`data-${k}`))));
  const cli = await dp.evaluate(() => document.querySelector('#train-panel code')?.textContent || '');
  const flags = cli.replace(/^orrery dl2 train /, '').replace(/ --out .*$/, '').split(' ');
  const t0 = process.hrtime.bigint();
  execFileSync(path.join(root, 'target/release/orrery'), ['dl2', 'train', '--preset', 'dl2', ...flags], { stdio: 'ignore' });
  const trainNat = Number(process.hrtime.bigint() - t0) / 1e6;
  const rate = (ms) => (trained[0] / (ms / 1000)).toFixed(0);
  rows.push([`dl2 training, the page's defaults (${flags.join(' ')}): worker / native`, `${rate(trained[1])} / ${rate(trainNat)} slots/s (${(trained[1] / 1000).toFixed(1)} s / ${(trainNat / 1000).toFixed(1)} s)`, '']);
} finally {
  await browser.close();
  server.kill();
}
for (const [what, value, target] of rows) console.log(`${what.padEnd(70)} ${value.padEnd(34)} target ${target}`);
