// End-to-end tests of the web playground in headless Chromium (Debian's), driven by
// playwright-core. Serves dist/ (built by `trunk build --release`) on 127.0.0.1 and checks
// what a person would do: load, run, read the summary, share, reopen, upload a bad file,
// step rounds, open a garbled link; and that the page's numbers equal the native CLI's.
import { createRequire } from 'node:module';
import { spawn, execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import fs from 'node:fs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const require = createRequire(path.join(root, '.tools/node_modules/'));
const { chromium } = require('playwright-core');
const PORT = Number(process.env.ORRERY_TEST_PORT || 8099);
const BASE = `http://127.0.0.1:${PORT}/`;
const ORRERY = path.join(root, 'target/release/orrery');

const results = [];
async function test(name, fn) {
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
function assert(cond, msg) { if (!cond) throw new Error(msg); }

async function summary(page, count, timeout = 120000) {
  await page.waitForFunction((n) => document.querySelector('#summary')?.getAttribute('data-complete') === 'true' && document.querySelectorAll('#summary tbody tr').length >= n, count, { timeout });
  return page.$$eval('#summary tbody tr', (rows) => rows.map((r) => ({
    policy: r.getAttribute('data-policy'),
    avg: Number(r.getAttribute('data-avg-jct-s')),
    makespan: Number(r.getAttribute('data-makespan-s')),
  })));
}

const server = spawn('python3', ['-m', 'http.server', String(PORT), '--bind', '127.0.0.1', '--directory', path.join(root, 'dist')], { stdio: 'ignore' });
let browser;
try {
  for (let i = 0; i < 50; i++) {
    try { const r = await fetch(BASE); if (r.ok) break; } catch { /* not up yet */ }
    await sleep(100);
  }
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE });
  const page = await context.newPage();
  const consoleErrors = [];
  page.on('pageerror', (e) => consoleErrors.push(String(e)));

  let first;
  let link;
  await test('the page loads the default scenario and runs two policies', async () => {
    const t0 = Date.now();
    await page.goto(BASE);
    first = await summary(page, 2);
    assert(first.length === 2, `expected 2 rows, got ${first.length}`);
    assert(first[0].policy === 'max_min_fairness' && first[1].policy === 'max_min_fairness_perf', JSON.stringify(first));
    assert(first.every((r) => r.avg > 0 && Number.isFinite(r.avg)), JSON.stringify(first));
    const label = await page.textContent('#workload-label');
    assert(label.includes("'default'"), label);
    console.log(`     summary after ${Date.now() - t0} ms: ${JSON.stringify(first)}`);
  });

  await test('a copied link reopens with every setting and the same numbers', async () => {
    await page.click('#copy-link');
    await page.waitForSelector('#notice.ok');
    link = page.url();
    assert(link.includes('#x1.'), link);
    const clip = await page.evaluate(() => navigator.clipboard.readText());
    assert(clip === link, `clipboard ${clip} != url ${link}`);
    const fresh = await context.newPage();
    await fresh.goto(link);
    const again = await summary(fresh, 2);
    assert(JSON.stringify(again) === JSON.stringify(first), `${JSON.stringify(again)} != ${JSON.stringify(first)}`);
    await fresh.close();
  });

  await test('the native CLI reproduces the page numbers from the link exactly', async () => {
    const out = execFileSync(ORRERY, ['compare', '--link', link, '--format', 'json'], { encoding: 'utf8' });
    const native = JSON.parse(out).map((s) => ({ policy: s.policy, avg: s.avg_jct_s, makespan: s.makespan_s }));
    assert(JSON.stringify(native) === JSON.stringify(first), `native ${JSON.stringify(native)} != page ${JSON.stringify(first)}`);
  });

  await test('a bad trace gets a message naming line and field, and the workload stays', async () => {
    const before = await page.textContent('#workload-label');
    await page.setInputFiles('#trace-file', { name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('job_type,arrival_s,total_steps\nA3C,0,100\nA3C,oops,100\n') });
    await page.waitForSelector('#workload-error');
    const msg = await page.textContent('#workload-error');
    assert(msg.includes('bad.csv:3') && msg.includes("field 'arrival_s'"), msg);
    assert((await page.textContent('#workload-label')) === before, 'workload changed');
    await page.setInputFiles('#trace-file', { name: 'unknown.csv', mimeType: 'text/csv', buffer: Buffer.from('job_type,arrival_s,total_steps\nNoSuchModel,0,100\n') });
    await page.waitForFunction(() => document.querySelector('#workload-error')?.textContent.includes('unknown.csv:2'));
  });

  await test('stepping three rounds advances the clock', async () => {
    const t0 = Number(await page.getAttribute('#clock', 'data-now-s'));
    for (let i = 0; i < 3; i++) await page.click('#step');
    await page.waitForFunction(() => document.querySelectorAll('.gpu.busy').length > 0);
    const t1 = Number(await page.getAttribute('#clock', 'data-now-s'));
    assert(t1 > t0, `clock ${t0} -> ${t1}`);
    const text = await page.textContent('#clock');
    assert(text.includes('round 3'), text);
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => document.querySelector('#clock').textContent.includes('round 4'));
  });

  await test('a garbled link shows a clear message, never a blank page', async () => {
    const p = await context.newPage();
    await p.goto(BASE + '#x1.this-is-not-an-experiment');
    await p.waitForSelector('#notice.error');
    const msg = await p.textContent('#notice');
    assert(msg.includes('could not be opened'), msg);
    await summary(p, 2);
    const cut = await context.newPage();
    await cut.goto(link.slice(0, link.length - 40));
    await cut.waitForSelector('#notice.error');
    await p.close();
    await cut.close();
  });

  await test('no uncaught errors in the page', async () => {
    assert(consoleErrors.length === 0, consoleErrors.join('\n'));
  });

  if (process.env.ORRERY_SCREENSHOT) {
    await page.goto(BASE);
    await summary(page, 2);
    for (let i = 0; i < 6; i++) await page.click('#step');
    await sleep(300);
    await page.screenshot({ path: process.env.ORRERY_SCREENSHOT, fullPage: true });
  }
} finally {
  if (browser) await browser.close();
  server.kill();
}
const passed = results.filter((r) => r[1]).length;
const failed = results.length - passed;
console.log(`browser: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
