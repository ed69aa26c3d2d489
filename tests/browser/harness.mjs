// The harness every browser test file shares: serves dist/ (built by `trunk build --release`)
// on 127.0.0.1, launches Debian's headless Chromium through playwright-core, runs named tests,
// and reports `browser: N passed, M failed` (the line tests/run.sh counts). Also the helpers
// the tests use to read the page's summary, decode and build share links, ask the native CLI
// (target/release/orrery) for the same numbers, and check that a canvas has ink on it.
import { createRequire } from 'node:module';
import { spawn, execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import zlib from 'node:zlib';

export { sleep };
export const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const require = createRequire(path.join(root, '.tools/node_modules/'));
export const { chromium } = require('playwright-core');
export const PORT = Number(process.env.ORRERY_TEST_PORT || 8099);
export const BASE = `http://127.0.0.1:${PORT}/`;
export const ORRERY = path.join(process.env.CARGO_TARGET_DIR || path.join(root, 'target'), 'release/orrery');
export const POLLUX_REF = path.resolve(root, '../shared/reference/pollux');
export const SIA_REF = path.resolve(root, '../shared/reference/sia');

const results = [];
// ORRERY_ONLY=<word> runs only the tests whose names contain it (and the check for uncaught
// errors); several words separated by `|` run the tests that contain any of them.
export async function test(name, fn) {
  const only = process.env.ORRERY_ONLY;
  if (only && !only.split('|').some((w) => name.includes(w)) && !name.includes('uncaught')) return;
  const t0 = Date.now();
  try {
    await fn();
    results.push([name, true]);
    console.log(`ok   ${name} (${Date.now() - t0} ms)`);
  } catch (e) {
    results.push([name, false]);
    console.log(`FAIL ${name}: ${e && e.stack ? e.stack : e}`);
  }
}
export function assert(cond, msg) { if (!cond) throw new Error(msg); }

// Wait until the stepper shows step `n` (the worker answers each request asynchronously).
export async function steppedTo(page, n, timeout = 120000) {
  await page.waitForFunction((k) => Number(document.querySelector('#clock')?.getAttribute('data-round')) >= k, n, { timeout });
}

// Waits for a complete summary of at least `count` rows (the first `first`, if given); a run
// the page expects to be long waits for a confirmation in the page, which this gives.
export async function summary(page, count, timeout = 120000, first = null) {
  await page.waitForFunction(([n, p]) => (document.querySelector('#confirm-run')?.click() || true)
    && document.querySelector('#summary')?.getAttribute('data-complete') === 'true'
    && document.querySelectorAll('#summary tbody tr').length >= n
    && (p === null || document.querySelector('#summary tbody tr')?.getAttribute('data-policy') === p), [count, first], { timeout });
  return page.$$eval('#summary tbody tr', (rows) => rows.map((r) => ({
    policy: r.getAttribute('data-policy'),
    avg: Number(r.getAttribute('data-avg-jct-s')),
    makespan: Number(r.getAttribute('data-makespan-s')),
  })));
}

// Every figure of a summary row the native JSON also has, for exact comparisons.
export async function fullSummary(page) {
  return page.$$eval('#summary tbody tr', (rows) => rows.map((r) => ({
    policy: r.getAttribute('data-policy'),
    avg: Number(r.getAttribute('data-avg-jct-s')),
    p99: Number(r.getAttribute('data-p99-jct-s')),
    makespan: Number(r.getAttribute('data-makespan-s')),
    restarts: Number(r.getAttribute('data-restarts')),
    gpuHours: Number(r.getAttribute('data-gpu-hours')),
  })));
}

// The experiment a share link carries (deflate, base64url), as an object.
export function linkExperiment(link) {
  const data = link.slice(link.indexOf('#x1.') + 4).replace(/-/g, '+').replace(/_/g, '/');
  return JSON.parse(zlib.inflateRawSync(Buffer.from(data, 'base64')).toString('utf8'));
}

// The share link of an experiment object (deflate, base64url).
export function experimentLink(exp) {
  const packed = zlib.deflateRawSync(Buffer.from(JSON.stringify(exp), 'utf8'), { level: 9 });
  return `${BASE}#x1.${packed.toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`;
}

// The native summaries of a share link, or of an experiment file (`{ config: path }`) for
// links longer than one command-line argument may be (128 kB on Linux).
export function nativeSummary(source) {
  const args = typeof source === 'string'
    ? ['compare', '--link', source, '--format', 'json']
    : ['compare', '--config', source.config, '--format', 'json'];
  const out = execFileSync(ORRERY, args, { encoding: 'utf8', maxBuffer: 1 << 26 });
  return JSON.parse(out).map((s) => ({ policy: s.policy, avg: s.avg_jct_s, p99: s.p99_jct_s, makespan: s.makespan_s, restarts: s.restarts, gpuHours: s.gpu_hours }));
}

// Whether a canvas has anything but white on it.
export async function canvasDrawn(page, selector) {
  return page.$eval(selector, (c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let ink = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] < 200 || d[i + 1] < 200 || d[i + 2] < 200) ink++;
    return ink;
  });
}

// The middle value of `v` (the upper one of an even count).
export const median = (v) => { const s = [...v].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

// Serves `dir` on 127.0.0.1:`port` with Python's static server, once it answers.
export async function serve(dir, port) {
  const server = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', dir], { stdio: 'ignore' });
  for (let i = 0; i < 50; i++) {
    try { const r = await fetch(`http://127.0.0.1:${port}/`); if (r.ok) break; } catch { /* not up yet */ }
    await sleep(100);
  }
  return server;
}

// Debian's headless Chromium, as every browser script runs it.
export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

// Runs in the page (as an init script or evaluated): sets `self.orreryWatched` to a promise
// of the times (ms since the navigation) when the summary table first had a row and when it
// was complete: marked complete, no run left to cancel and at least `rows` rows. With
// `rerun` it clicks Compare and waits for the summary to leave its complete state first;
// with `confirm` it confirms a run the page asks about. A MutationObserver wakes it as the
// page changes: polling the page from outside every 10 ms took CPU from the page and its
// workers on a 2-core machine (the `classic` scenario's rerun measured 102 ms polled against
// 66 ms observed, medians of 8 alternating reruns).
function watchInPage({ rows, confirm, rerun }) {
  self.orreryWatched = new Promise((resolve) => {
    let first = null;
    let left = !rerun;
    const obs = new MutationObserver(() => {
      if (confirm) document.querySelector('#confirm-run')?.click();
      if (first === null && document.querySelector('#summary tbody tr')) first = performance.now();
      const done = document.querySelector('#summary')?.getAttribute('data-complete') === 'true'
        && !document.querySelector('#cancel')
        && document.querySelectorAll('#summary tbody tr').length >= rows;
      if (!done) left = true;
      if (left && done) {
        obs.disconnect();
        resolve([first, performance.now()]);
      }
    });
    obs.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    if (rerun) document.querySelector('#compare').click();
  });
}

// What the page's watcher resolves with, or an error after `timeout` ms.
async function watched(page, timeout) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the run did not complete within ${timeout} ms`)), timeout);
  });
  try {
    return await Promise.race([page.evaluate(() => self.orreryWatched), late]);
  } finally {
    clearTimeout(timer);
  }
}

// Runs the page's experiment again (Compare) and waits until its summary has left its
// complete state and come back to it with no run left to cancel (and at least `rows` rows;
// `confirm`: confirms a run the page asks about first), watched from inside the page.
export async function runAgain(page, { rows = 1, confirm = false, timeout = 300000 } = {}) {
  await page.waitForSelector('#compare:not([disabled])', { timeout });
  await page.evaluate(watchInPage, { rows, confirm, rerun: true });
  await watched(page, timeout);
}

// Before a navigation: watches the page from its first script on for its summary table,
// confirming a run the page asks about. Returns a function that resolves, once the table is
// complete with `rows` rows, with the times (ms since the navigation) when it first had a
// row and when it was complete.
export async function watchSummary(page, rows, timeout = 600000) {
  await page.addInitScript(watchInPage, { rows, confirm: true, rerun: false });
  return () => watched(page, timeout);
}

// runAgain with its defaults (one row, no confirmation).
export async function compareAgain(page, timeout = 300000) {
  await runAgain(page, { timeout });
}

// Serves dist/ (or the folder ORRERY_DIST names), launches Chromium and calls
// `fn(browser)`; then closes both, prints the count line and exits non-zero when a test
// failed or none ran.
export async function run(fn) {
  const server = await serve(process.env.ORRERY_DIST || path.join(root, 'dist'), PORT);
  let browser;
  try {
    browser = await launch();
    await fn(browser);
  } finally {
    if (browser) await browser.close();
    server.kill();
  }
  const passed = results.filter((r) => r[1]).length;
  const failed = results.length - passed;
  console.log(`browser: ${passed} passed, ${failed} failed`);
  process.exit(failed === 0 && passed > 0 ? 0 : 1);
}
