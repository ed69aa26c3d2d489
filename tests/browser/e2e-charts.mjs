// Browser tests of the page's charts and of the Sweep panel, in headless Chromium: every
// chart is drawn, as wide as its container at 1440 and at 390 px (and redrawn when the
// window is resized), its legend outside its plotting areas, its tick labels distinct;
// the PNG and SVG buttons download a PNG (twice the chart's size) and an SVG of the same
// chart; a sweep over two arrival rates gives `orrery sweep`'s numbers exactly, its link
// reopens it, and Cancel stops one.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import {
  run, BASE, ORRERY, test, assert, summary, linkExperiment, experimentLink, canvasDrawn,
} from './harness.mjs';

// The charts of the default scenario's page (a bundled trace of 120 jobs).
const CHARTS = ['jct-cdf', 'rho-cdf', 'utilization', 'queue', 'trace-gpus', 'trace-durations', 'trace-arrivals', 'sweep'];

// Where a canvas says its plotting areas and legend are, and how it is laid out.
async function geometry(page, name) {
  return page.$eval(`#chart-${name}`, (c) => {
    const rect = (s) => s.split(' ').map(Number);
    const box = c.getBoundingClientRect();
    const fig = c.parentElement.getBoundingClientRect();
    return {
      plots: (c.getAttribute('data-plots') || '').split(';').filter((s) => s).map(rect),
      legend: c.getAttribute('data-legend') ? rect(c.getAttribute('data-legend')) : null,
      size: rect(c.getAttribute('data-size') || '0 0'),
      css: [box.width, box.height],
      figure: fig.width,
      pixels: [c.width, c.height],
      ratio: window.devicePixelRatio,
    };
  });
}

function overlap(a, b) {
  return a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
}

// Check one chart's layout: drawn, as wide as its figure, its plots and legend inside it
// and apart.
async function checkLayout(page, name) {
  assert((await canvasDrawn(page, `#chart-${name}`)) > 500, `${name} is blank`);
  const g = await geometry(page, name);
  const [w, h] = g.size;
  assert(Math.abs(g.css[0] - w) <= 1 && Math.abs(g.css[1] - h) <= 1, `${name}: drawn at ${w}x${h}, laid out at ${g.css}`);
  assert(g.css[0] <= g.figure + 0.5 && g.css[0] >= g.figure - 4, `${name}: ${g.css[0]} px wide in a figure of ${g.figure}`);
  assert(g.pixels[0] === Math.round(w * g.ratio), `${name}: ${g.pixels[0]} device pixels for ${w} css px at ratio ${g.ratio}`);
  for (const p of g.plots) {
    assert(p[0] >= 0 && p[1] >= 0 && p[2] <= w && p[3] <= h && p[2] - p[0] > 40 && p[3] - p[1] > 40, `${name}: plot ${p} in ${w}x${h}`);
    if (g.legend) assert(!overlap(p, g.legend), `${name}: legend ${g.legend} over plot ${p}`);
  }
  if (g.legend) assert(g.legend[0] >= 0 && g.legend[2] <= w && g.legend[3] <= h, `${name}: legend ${g.legend} outside ${w}x${h}`);
  return g;
}

// Download a chart through its button: file name and bytes.
async function exportChart(page, name, kind) {
  const [d] = await Promise.all([page.waitForEvent('download'), page.click(`figure[data-chart="${name}"] button.${kind}`)]);
  return { file: d.suggestedFilename(), bytes: fs.readFileSync(await d.path()) };
}

await run(async (browser) => {
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 }, acceptDownloads: true });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE });
  const errors = [];
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));

  await test('every chart is drawn at 1440 px, as wide as its container, its legend outside its plots', async () => {
    await page.goto(BASE);
    await summary(page, 2);
    await page.waitForSelector('#trace-shape-panel[data-jobs="120"]');
    for (const c of CHARTS) {
      const g = await checkLayout(page, c);
      assert(g.size[0] > 900, `${c} is ${g.size[0]} px wide at 1440`);
    }
    // Charts with several series have a legend.
    for (const c of ['jct-cdf', 'queue']) assert((await geometry(page, c)).legend, `${c} has no legend`);
  });

  await test('the SVG of each chart parses, and no axis repeats a tick label', async () => {
    for (const c of ['jct-cdf', 'rho-cdf', 'utilization', 'queue', 'trace-durations']) {
      const { file, bytes } = await exportChart(page, c, 'svg');
      assert(file.startsWith(`orrery-${c}`) && file.endsWith('.svg'), file);
      const report = await page.evaluate((text) => {
        const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
        if (doc.querySelector('parsererror') || doc.documentElement.tagName !== 'svg') return { ok: false };
        // Tick labels: texts on one row (x axis, same y) or in one column (y axis, same
        // x and right-aligned) must differ.
        const texts = [...doc.querySelectorAll('text')].map((t) => ({ x: t.getAttribute('x'), y: t.getAttribute('y'), a: t.getAttribute('text-anchor'), s: t.textContent, r: t.getAttribute('transform') }));
        const dup = [];
        const groups = new Map();
        for (const t of texts.filter((t) => !t.r)) {
          for (const key of [`row ${t.y} ${t.a}`, t.a === 'end' ? `col ${t.x}` : null]) {
            if (!key) continue;
            if (!groups.has(key)) groups.set(key, []);
            groups.get(key).push(t.s);
          }
        }
        for (const [k, v] of groups) if (new Set(v).size !== v.length) dup.push(`${k}: ${v.join(' | ')}`);
        return { ok: true, width: doc.documentElement.getAttribute('width'), lines: doc.querySelectorAll('polyline').length, texts: texts.length, dup };
      }, bytes.toString('utf8'));
      assert(report.ok, `${c}: the SVG does not parse`);
      assert(report.lines > 3 && report.texts > 5, `${c}: SVG has ${report.lines} lines and ${report.texts} texts`);
      assert(report.dup.length === 0, `${c}: repeated tick labels: ${report.dup.join('; ')}`);
      assert(Number(report.width) === (await geometry(page, c)).size[0], `${c}: SVG ${report.width} wide`);
    }
    // The JCTs of the default scenario span more than a decade: a logarithmic axis.
    const jct = (await exportChart(page, 'jct-cdf', 'svg')).bytes.toString('utf8');
    assert(jct.includes('log scale'), 'the JCT CDF is not on a log axis');
  });

  await test('the PNG button downloads the chart at twice its size', async () => {
    const { file, bytes } = await exportChart(page, 'queue', 'png');
    assert(file.startsWith('orrery-queue') && file.endsWith('.png'), file);
    assert(bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), 'not a PNG');
    const [w, h] = (await geometry(page, 'queue')).size;
    assert(bytes.readUInt32BE(16) === 2 * w && bytes.readUInt32BE(20) === 2 * h, `PNG ${bytes.readUInt32BE(16)}x${bytes.readUInt32BE(20)} for a ${w}x${h} chart`);
  });

  await test('on a 390 px phone (pixel ratio 2) every chart fits its container, drawn at the screen\'s density', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    const p = await phone.newPage();
    p.on('pageerror', (e) => errors.push(String(e)));
    await p.goto(BASE);
    await summary(p, 2);
    await p.waitForSelector('#trace-shape-panel[data-jobs="120"]');
    // The charts follow their container, however wide the page's layout makes it.
    const main = await p.$eval('main', (m) => m.getBoundingClientRect().width);
    for (const c of CHARTS) {
      const g = await checkLayout(p, c);
      assert(g.ratio === 2 && g.size[0] <= main && g.size[0] >= 250, `${c}: ${g.size[0]} px wide at ratio ${g.ratio} in a column of ${main}`);
    }
    console.log(`     main column ${main} px, page ${await p.evaluate(() => document.documentElement.scrollWidth)} px wide`);
    await phone.close();
  });

  await test('resizing the window redraws every chart at its new width', async () => {
    const before = (await geometry(page, 'jct-cdf')).size[0];
    await page.setViewportSize({ width: 800, height: 1000 });
    await page.waitForFunction(() => [...document.querySelectorAll('figure.chart canvas')].filter((c) => c.getBoundingClientRect().width > 0).every((c) => Math.abs(Number(c.getAttribute('data-size').split(' ')[0]) - c.getBoundingClientRect().width) <= 1), null, { timeout: 10000 });
    for (const c of CHARTS) await checkLayout(page, c);
    const after = (await geometry(page, 'jct-cdf')).size[0];
    assert(after < before && after < 800, `${before} px, then ${after} px`);
    await page.setViewportSize({ width: 1440, height: 1000 });
  });

  let exp;
  let rows;
  await test('a sweep over two arrival rates gives orrery sweep\'s numbers exactly', async () => {
    await page.click('#copy-link');
    await page.waitForSelector('#notice');
    exp = linkExperiment(page.url());
    exp.workload = { kind: 'generated', num_jobs: 40, jobs_per_hour: 6, seed: 3 };
    exp.fairness = false;
    const link = experimentLink(exp);
    const p = await context.newPage();
    p.on('pageerror', (e) => errors.push(String(e)));
    await p.goto(link);
    await summary(p, 2);
    await p.fill('#sweep-values', '4, 12');
    await p.click('#sweep-run');
    await p.waitForSelector('#sweep-table[data-complete="true"]', { timeout: 120000 });
    const ms = Number(await p.getAttribute('#sweep-ms', 'data-ms'));
    rows = await p.$$eval('#sweep-table td[data-policy]', (tds) => tds.map((t) => ({
      policy: t.getAttribute('data-policy'), rate: Number(t.getAttribute('data-value')),
      avg: Number(t.getAttribute('data-avg-jct-s')), p99: Number(t.getAttribute('data-p99-jct-s')),
    })));
    assert(rows.length === 2 * exp.policies.length, JSON.stringify(rows));
    const out = JSON.parse(execFileSync(ORRERY, ['sweep', '--link', link, '--rates', '4,12', '--format', 'json'], { encoding: 'utf8' }));
    const native = out.rows.map((r) => ({ policy: r.policy, rate: r.jobs_per_hour, avg: r.summary.avg_jct_s, p99: r.summary.p99_jct_s }));
    const key = (r) => `${r.policy} ${r.rate}`;
    const sorted = (a) => [...a].sort((x, y) => key(x).localeCompare(key(y)));
    assert(JSON.stringify(sorted(rows)) === JSON.stringify(sorted(native)), `page ${JSON.stringify(sorted(rows))} != native ${JSON.stringify(sorted(native))}`);
    assert(rows.some((r) => r.rate === 12 && r.avg > 0), JSON.stringify(rows));
    console.log(`     ${rows.length} runs in ${ms} ms: ${JSON.stringify(rows)}`);
    // The chart has a point per cell, and switches to p99.
    assert((await p.getAttribute('#chart-sweep', 'data-cells')) === String(rows.length), 'the chart misses cells');
    await checkLayout(p, 'sweep');
    const avgSvg = (await exportChart(p, 'sweep', 'svg')).bytes.toString('utf8');
    assert(avgSvg.includes('Average JCT against load') && avgSvg.includes('jobs per hour'), 'the sweep chart is not JCT against jobs per hour');
    await p.check('#sweep-p99');
    await p.waitForSelector('#chart-sweep[data-metric="p99"]');
    const p99Svg = (await exportChart(p, 'sweep', 'svg')).bytes.toString('utf8');
    assert(p99Svg.includes('p99 JCT against load'), 'the p99 toggle did not redraw the chart');
    // The sweep's link carries its values and the experiment.
    await p.click('#copy-link');
    await p.waitForSelector('#notice');
    const shared = linkExperiment(p.url());
    await p.click('#sweep-link-copy');
    const sweepLink = await p.inputValue('#sweep-link');
    assert(sweepLink.includes('?sweep=4,12&metric=p99#x1.'), sweepLink);
    assert(JSON.stringify(linkExperiment(sweepLink)) === JSON.stringify(shared), 'the sweep link carries another experiment');
    const again = await context.newPage();
    await again.goto(sweepLink);
    await summary(again, 2);
    assert((await again.inputValue('#sweep-values')) === '4, 12', await again.inputValue('#sweep-values'));
    assert(await again.isChecked('#sweep-p99'), 'the link lost the p99 choice');
    await again.close();
    await p.close();
  });

  await test('Cancel stops a sweep', async () => {
    const p = await context.newPage();
    p.on('pageerror', (e) => errors.push(String(e)));
    const big = { ...exp, workload: { kind: 'generated', num_jobs: 2000, jobs_per_hour: 6, seed: 3 } };
    await p.goto(experimentLink(big));
    await p.click('#cancel', { timeout: 5000 }).catch(() => { /* already finished */ });
    await p.fill('#sweep-values', '2, 4, 8, 16');
    await p.click('#sweep-run');
    await p.waitForSelector('#sweep-progress');
    await p.click('#sweep-cancel');
    await p.waitForSelector('#sweep-run');
    assert((await p.getAttribute('#sweep-table', 'data-complete')) === 'false', 'the cancelled sweep says it is complete');
    assert(!(await p.$('#sweep-progress')), 'progress still shown');
    await p.close();
  });

  await test('no uncaught errors', async () => {
    assert(errors.length === 0, errors.join('\n'));
  });
});
