// Browser tests of the page's Import panel in headless Chromium, against the CLI: Alibaba's
// spot GPU trace (tests/data/import/spot_node_info.csv and spot_job_info.csv) and an Acme
// Kalos table (tests/data/import/acme_kalos.csv) are uploaded with a max jobs and a seed;
// the summary the panel shows is, cell for cell, the one `orrery import-alibaba-spot` /
// `orrery import-acme` prints with the same flags; the experiment carries the CLI's trace,
// cluster and profile (profile-free for Acme), and its run and its share link give what
// `orrery run` gives on the CLI's output, number for number. Also: the node table alone
// changes only the cluster; a bad table names its file, line and column and keeps the
// experiment; an Acme job larger than every GPU type says what cluster it needs; and the
// panel with a summary lays out without overflow on a phone and on a desktop (a table wider
// than the column scrolls in its own box).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  run, root, BASE, ORRERY, test, assert, summary, linkExperiment,
} from './harness.mjs';

const DATA = path.join(root, 'tests/data/import');
const NODES = path.join(DATA, 'spot_node_info.csv');
const JOBS = path.join(DATA, 'spot_job_info.csv');
const KALOS = path.join(DATA, 'acme_kalos.csv');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'orrery-import-'));
const out = (name) => path.join(tmp, name);

const orrery = (args) => execFileSync(ORRERY, args, { encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'pipe'] });
const cli = (args) => JSON.parse(orrery(args));

// Every figure of the summary's rows the CLI's JSON also has.
function rows(p) {
  return p.$$eval('#summary tbody tr', (trs) => trs.map((r) => ({
    policy: r.getAttribute('data-policy'),
    avg: Number(r.getAttribute('data-avg-jct-s')),
    p99: Number(r.getAttribute('data-p99-jct-s')),
    makespan: Number(r.getAttribute('data-makespan-s')),
    restarts: Number(r.getAttribute('data-restarts')),
    gpuHours: Number(r.getAttribute('data-gpu-hours')),
    jobs: r.querySelector('td:nth-child(2)')?.textContent.trim(),
  })));
}
const fromJson = (s) => ({
  policy: s.policy, avg: s.avg_jct_s, p99: s.p99_jct_s, makespan: s.makespan_s, restarts: s.restarts, gpuHours: s.gpu_hours, jobs: String(s.num_jobs),
});
const same = (a, b, what) => assert(JSON.stringify(a) === JSON.stringify(b), `${what}: page ${JSON.stringify(a)} != CLI ${JSON.stringify(b)}`);

// The summary a block shows: its lines, each table's rows and the named values, as text.
function report(p, id) {
  return p.$eval(`#${id}`, (d) => ({
    lines: [...d.querySelectorAll('p.import-line')].map((e) => e.textContent),
    rows: [...d.querySelectorAll('table.import-table tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent)),
    pairs: [...d.querySelectorAll('table.import-pairs tr')].map((tr) => [tr.children[0].textContent, tr.children[1].textContent]),
  }));
}

// Whether the CLI's printed summary holds every line, row and named value the page shows.
// A table row of the CLI is its cells separated by two spaces or more; a named value is its
// name, spaces, and its value.
function sameReport(page, text, what) {
  const lines = text.split('\n').map((l) => l.trimEnd());
  const cells = lines.map((l) => l.trim().split(/ {2,}/));
  for (const l of page.lines) assert(lines.includes(l), `${what}: the CLI has no line '${l}'\n${text}`);
  for (const r of page.rows) assert(cells.some((c) => JSON.stringify(c) === JSON.stringify(r)), `${what}: the CLI has no row ${JSON.stringify(r)}\n${text}`);
  for (const [k, v] of page.pairs) assert(cells.some((c) => c[0] === k && c.slice(1).join('  ') === v), `${what}: the CLI has no '${k}: ${v}'\n${text}`);
  assert(page.lines.length >= 2 && page.rows.length >= 3, `${what}: ${JSON.stringify(page)}`);
}

// Set a field as a person does: type, then leave it.
async function setField(p, sel, value) {
  await p.fill(sel, value);
  await p.dispatchEvent(sel, 'change');
}

// Run the comparison of the page's experiment and wait for its fresh, complete results.
async function compare(p, timeout = 300000) {
  await p.waitForFunction(() => (document.querySelector('#confirm-run')?.click() || true)
    && !document.querySelector('#cancel')
    && document.querySelector('#summary[data-complete="true"][data-stale="false"]'), null, { timeout });
}

const file = (f, name = path.basename(f)) => ({ name, mimeType: 'text/csv', buffer: fs.readFileSync(f) });
const text = (name, t) => ({ name, mimeType: 'text/csv', buffer: Buffer.from(t) });

// The document's width beyond the window's (0: no horizontal overflow).
const overflow = (p) => p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
// What overflows inside an element: its content's width beyond its box.
const inside = (p, sel) => p.$eval(sel, (e) => e.scrollWidth - e.clientWidth);

await run(async (browser) => {
  const errors = [];
  const newPage = async (viewport = { width: 1440, height: 1000 }, phone = false) => {
    const ctx = await browser.newContext(phone
      ? { viewport, deviceScaleFactor: 2, isMobile: true, hasTouch: true }
      : { viewport });
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE });
    const p = await ctx.newPage();
    p.on('pageerror', (e) => errors.push(String(e)));
    p.on('dialog', (d) => { errors.push(`a ${d.type()} dialog: ${d.message()}`); d.dismiss(); });
    return p;
  };
  // The share link of the page's experiment now (the address loses its link first, so
  // the one waited for is the new one).
  const copyLink = async (p) => {
    await p.evaluate(() => history.replaceState(null, '', location.pathname));
    await p.click('#copy-link');
    await p.waitForFunction(() => location.href.includes('#x1.'));
    return p.url();
  };
  // The spot trace's tables read in the page's Import panel, sampled with `max` and `seed`.
  const importSpot = async (p, max, seed) => {
    await p.selectOption('#import-format', 'alibaba-spot');
    assert(await p.isDisabled('#spot-import-button'), 'Import enabled before the node table is read');
    await p.setInputFiles('#spot-nodes', file(NODES));
    await p.waitForFunction(() => document.querySelector('#spot-nodes-status')?.textContent.includes('(11 lines)'));
    await p.setInputFiles('#spot-jobs', file(JOBS));
    await p.waitForFunction(() => document.querySelector('#spot-jobs-status')?.textContent.includes('(17 lines)'));
    await setField(p, '#spot-max-jobs', String(max));
    await setField(p, '#spot-seed', String(seed));
    await p.click('#spot-import-button');
    await p.waitForSelector('#spot-report');
  };

  let spotLink;
  await test('the spot GPU trace imports as orrery import-alibaba-spot reads it (summary cell for cell, trace, cluster, profile), and its run and link give orrery run\'s numbers', async () => {
    const p = await newPage();
    await p.goto(BASE);
    await summary(p, 2);
    await importSpot(p, 8, 3);
    const notice = await p.textContent('#notice');
    assert(notice.includes('8 jobs of spot_job_info.csv (5 HP, 3 Spot)') && notice.includes('a10:4,h800:16/8,gpu-series-1:14'), notice);
    const printed = orrery(['import-alibaba-spot', '--nodes', NODES, '--jobs', JOBS, '--max-jobs', '8', '--seed', '3',
      '--out', out('spot.csv'), '--cluster-out', out('cluster.txt'), '--profile-out', out('profile.json')]);
    const shown = await report(p, 'spot-report');
    shown.lines = shown.lines.map((l) => l.replace('node table spot_node_info.csv', `node table ${NODES}`).replace('job table spot_job_info.csv', `job table ${JOBS}`));
    sameReport(shown, printed, 'the spot trace\'s summary');
    const cluster = fs.readFileSync(out('cluster.txt'), 'utf8').trim();
    assert(await p.inputValue('#cluster-spec') === cluster, `cluster ${await p.inputValue('#cluster-spec')} != ${cluster}`);

    await compare(p);
    const got = await rows(p);
    const want = got.map((r) => fromJson(cli(['run', '--trace', out('spot.csv'), '--profile', out('profile.json'), '--cluster', cluster, '--policy', r.policy, '--format', 'json'])));
    same(got, want, 'orrery run on the CLI\'s import');
    assert(got.length === 2 && got.every((r) => r.jobs === '8' && r.avg > 0), JSON.stringify(got));

    spotLink = await copyLink(p);
    const exp = linkExperiment(spotLink);
    assert(exp.workload.text === fs.readFileSync(out('spot.csv'), 'utf8'), `the link's trace is not the CLI's:\n${exp.workload.text}`);
    same(JSON.parse(exp.profile.text), JSON.parse(fs.readFileSync(out('profile.json'), 'utf8')), 'the link\'s profile');
    assert(exp.cluster === cluster, exp.cluster);
    same(cli(['compare', '--link', spotLink, '--format', 'json']).map(fromJson), want, 'orrery compare --link');
    console.log(`     spot: ${JSON.stringify(got.map((r) => [r.policy, r.avg, r.gpuHours]))}`);
    await p.context().close();
  });

  await test('the spot trace\'s node table alone changes only the cluster; a bad job table names its line and column and keeps the experiment', async () => {
    const p = await newPage();
    await p.goto(spotLink);
    await summary(p, 2);
    const label = await p.textContent('#workload-label');
    await importSpot(p, 1000, 0);
    const all = await report(p, 'spot-report');
    assert(all.lines.includes('trace: 12 jobs (6 HP, 6 Spot)'), JSON.stringify(all.lines));
    // The node table alone: the cluster, the workload kept.
    await p.click('#spot-jobs-clear');
    await p.waitForFunction(() => document.querySelector('#spot-jobs-status')?.textContent === 'not chosen');
    await setField(p, '#cluster-spec', 'a10:8,h800:32/8,gpu-series-1:14');
    await p.waitForFunction(() => document.querySelector('#cluster-spec')?.value === 'a10:8,h800:32/8,gpu-series-1:14');
    await p.click('#spot-import-button');
    await p.waitForFunction(() => document.querySelector('#notice')?.textContent.includes("with the experiment's workload"));
    assert(await p.inputValue('#cluster-spec') === 'a10:4,h800:16/8,gpu-series-1:14', await p.inputValue('#cluster-spec'));
    const nodesOnly = await report(p, 'spot-report');
    assert(nodesOnly.lines.length === 2 && nodesOnly.rows.length === 3, JSON.stringify(nodesOnly));
    // A bad job table: its line and column, the previous experiment kept.
    const before = linkExperiment(await copyLink(p));
    const bad = fs.readFileSync(JOBS, 'utf8').replace('j3,57,H800,15,1,8,300,7200,HP', 'j3,57,H800,15,1,8,300,7200,Low');
    await p.setInputFiles('#spot-jobs', text('bad_jobs.csv', bad));
    await p.waitForFunction(() => document.querySelector('#spot-jobs-status')?.textContent.includes('bad_jobs.csv'));
    await p.click('#spot-import-button');
    await p.waitForSelector('#spot-error');
    const msg = await p.textContent('#spot-error');
    assert(msg.includes('bad_jobs.csv:4:') && msg.includes("'job_type'") && msg.includes('kept as it was'), msg);
    assert(!(await p.$('#spot-report')), 'a summary is shown for a table that could not be read');
    same(linkExperiment(await copyLink(p)), before, 'the experiment after a refused import');
    assert(await p.textContent('#workload-label') === label, await p.textContent('#workload-label'));
    // A bad sampling field says why.
    await setField(p, '#spot-max-jobs', '0');
    assert((await p.textContent('#spot-error')).includes('max jobs'), await p.textContent('#spot-error'));
    await p.context().close();
  });

  await test('an Acme Kalos table imports as orrery import-acme reads it, runs profile-free as orrery run does on its output, and a job too large for the cluster says what it needs', async () => {
    const p = await newPage();
    await p.goto(BASE);
    await summary(p, 2);
    await p.selectOption('#import-format', 'acme');
    await p.setInputFiles('#acme-file', file(KALOS));
    await p.waitForFunction(() => document.querySelector('#acme-file-status')?.textContent.includes('(13 lines)'));
    await setField(p, '#acme-max-jobs', '');
    // The default cluster's largest GPU type has 12 GPUs; one job takes 16.
    await p.click('#acme-import-button');
    await p.waitForSelector('#acme-error');
    const msg = await p.textContent('#acme-error');
    assert(msg.includes('16 GPUs') && msg.includes('kept as it was'), msg);
    assert((await p.textContent('#workload-label')).includes("'default'"), await p.textContent('#workload-label'));
    const cluster = 'a100:32/8';
    await setField(p, '#cluster-spec', cluster);
    await p.waitForFunction(() => !document.querySelector('#cluster-error'));
    await setField(p, '#acme-max-jobs', '7');
    await setField(p, '#acme-seed', '5');
    await p.click('#acme-import-button');
    await p.waitForFunction(() => document.querySelector('#notice')?.textContent.includes('imported as acme-kalos.csv'));
    const left = await p.$('#acme-error');
    assert(!left, left && await left.textContent());
    const printed = orrery(['import-acme', KALOS, '--max-jobs', '7', '--seed', '5', '--out', out('acme.csv')]);
    const shown = await report(p, 'acme-report');
    shown.lines = shown.lines.map((l) => l.replace('Acme job trace acme_kalos.csv', `Acme job trace ${KALOS}`));
    sameReport(shown, printed, 'Acme\'s summary');
    assert(shown.lines[0].includes('(Kalos schema): 12 rows, 11 GPU jobs, 1 CPU jobs') && shown.lines[1].startsWith('trace: 7 jobs'), JSON.stringify(shown.lines));
    assert(shown.pairs.some(([k, v]) => k === 'duration = queue + run' && v === '10 of 10 rows'), JSON.stringify(shown.pairs));

    await compare(p);
    const got = await rows(p);
    const want = got.map((r) => fromJson(cli(['run', '--trace', out('acme.csv'), '--profile-free', '--cluster', cluster, '--policy', r.policy, '--format', 'json'])));
    same(got, want, 'orrery run --profile-free on the CLI\'s import');
    assert(got.every((r) => r.jobs === '7'), JSON.stringify(got));
    const link = await copyLink(p);
    const exp = linkExperiment(link);
    assert(exp.workload.text === fs.readFileSync(out('acme.csv'), 'utf8') && exp.profile.kind === 'profile_free', JSON.stringify(exp.profile));
    same(cli(['compare', '--link', link, '--format', 'json']).map(fromJson), want, 'orrery compare --link');
    console.log(`     acme: ${JSON.stringify(got.map((r) => [r.policy, r.avg, r.gpuHours]))}`);

    // A bad date names its line and column.
    const bad = fs.readFileSync(KALOS, 'utf8').replace('2023-06-01 00:30:01+00:00', '2023-06-31 00:30:01+00:00');
    await p.setInputFiles('#acme-file', text('bad_kalos.csv', bad));
    await p.waitForFunction(() => document.querySelector('#acme-file-status')?.textContent.includes('bad_kalos.csv'));
    await p.click('#acme-import-button');
    await p.waitForSelector('#acme-error');
    const badMsg = await p.textContent('#acme-error');
    assert(badMsg.includes('bad_kalos.csv:7:') && badMsg.includes("'start_time'"), badMsg);
    same(linkExperiment(await copyLink(p)), exp, 'the experiment after a refused import');
    await p.context().close();
  });

  for (const [w, h, phone] of [[390, 844, true], [1440, 900, false]]) {
    await test(`the Import panel with a summary lays out without overflow at ${w}x${h}`, async () => {
      const p = await newPage({ width: w, height: h }, phone);
      await p.goto(BASE);
      await summary(p, 2);
      if (phone) await p.click('#controls-toggle');
      await p.waitForSelector('#import-panel', { state: 'visible' });
      const seen = {};
      for (const format of ['pai', 'alibaba-spot', 'acme']) {
        if (format === 'alibaba-spot') await importSpot(p, 1000, 0);
        else await p.selectOption('#import-format', format);
        if (format === 'acme') {
          await p.setInputFiles('#acme-file', file(KALOS));
          await p.click('#acme-import-button');
          await p.waitForSelector('#acme-report');
        }
        seen[format] = {
          page: await overflow(p),
          panel: await inside(p, '#import-panel'),
          // A table wider than the column scrolls in its own box.
          tables: await p.$$eval('#import-panel .table-x', (es) => es.map((e) => [e.scrollWidth - e.clientWidth, getComputedStyle(e).overflowX])),
          // Nothing reaches past the window but what a scrolling box clips.
          wider: await p.$$eval('#import-panel *', (es) => es.filter((e) => !e.parentElement.closest('.table-x')
            && e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5).map((e) => e.id || e.className || e.tagName)),
        };
        const s = seen[format];
        assert(s.page <= 0 && s.panel <= 0 && s.tables.every(([t, o]) => t <= 0 || o === 'auto') && s.wider.length === 0, `overflow at ${w} px with ${format}: ${JSON.stringify(s)}`);
      }
      console.log(`     tables scrolling in their box by (px): ${JSON.stringify(Object.fromEntries(Object.entries(seen).map(([f, s]) => [f, s.tables.map((t) => t[0])])))}`);
      await p.context().close();
    });
  }

  await test('no uncaught errors and no browser dialogs', async () => {
    assert(errors.length === 0, errors.join('\n'));
  });
  fs.rmSync(tmp, { recursive: true, force: true });
});
