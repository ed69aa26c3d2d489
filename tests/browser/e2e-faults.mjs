// Browser tests of failures, checkpoints and spot capacity in the page, in headless Chromium:
// the Failures & spot panel's settings go into the experiment and its share link, and a run
// gives the figures of `orrery run` with the same flags (--failures, --repair-s,
// --checkpoint-s, --checkpoint-write-s, --until, --spot), number for number; Llama 3's rate,
// Daly's interval and an edited mix of causes travel in the link to `orrery compare --link`;
// an uploaded spot trace (tests/browser/spot-v100.json) shows what it holds and charts the
// capacity; a link with failures and a spot trace opens, runs and gives the CLI's figures;
// refused values say why next to their field and keep the experiment; an elastic experiment
// with failures gives the CLI's figures (or its refusal, as the run's error) and its board
// marks failed servers, and Gavel's mechanism says why it runs none; Aryl's pools and DL2's
// slots with failures give the CLI's figures and mark failed servers on their boards; the stepper marks the
// servers that failed and those away for repair, and the jobs rolled back; the llama3
// scenario shows its failures as the CLI does; an experiment with failures sweeps the
// checkpoint interval as `orrery sweep --checkpoint-intervals` does, with Young's and Daly's
// intervals marked; any experiment sweeps the failure rate as `orrery sweep --failure-rates`
// does, and a checkpoint sweep takes `auto` (ringed at Daly's interval) as the CLI does,
// refused values saying why next to the field and the sweep links restoring the axis and
// values; the spot scenario with a 10 s warning gives the CLI's spot preemptions,
// GPU-hours preempted and cost on-demand / spot, its link carrying the warning; and the
// panel and the results' failures lay out without overflow on a phone and on a desktop.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  run, root, BASE, ORRERY, test, assert, summary, linkExperiment, experimentLink, canvasDrawn,
} from './harness.mjs';

const SPOT = path.join(root, 'tests/browser/spot-v100.json');

// Set a field as a person does: type, then leave it.
async function setField(p, sel, value) {
  await p.fill(sel, value);
  await p.dispatchEvent(sel, 'change');
}

// Run the comparison of the page's experiment and wait for its fresh, complete results.
async function compare(p, timeout = 300000) {
  await p.click('#compare');
  await p.waitForFunction(() => (document.querySelector('#confirm-run')?.click() || true)
    && !document.querySelector('#cancel')
    && document.querySelector('#summary[data-complete="true"][data-stale="false"]'), null, { timeout });
}

// Every figure of the summary's rows the CLI's JSON also has, failures included.
function rows(p) {
  return p.$$eval('#summary tbody tr', (trs) => trs.map((r) => {
    const n = (k) => (r.getAttribute(k) === '' ? null : Number(r.getAttribute(k)));
    const cat = r.getAttribute('data-failures-by-category');
    return {
      policy: r.getAttribute('data-policy'),
      avg: n('data-avg-jct-s'),
      p99: n('data-p99-jct-s'),
      makespan: n('data-makespan-s'),
      restarts: n('data-restarts'),
      gpuHours: n('data-gpu-hours'),
      failures: n('data-server-failures'),
      byCategory: cat ? JSON.parse(cat) : null,
      interruptions: n('data-interruptions'),
      ettr: n('data-ettr'),
      rolledBack: n('data-lost-rolled-back'),
      restarting: n('data-lost-restarts'),
      checkpoints: n('data-lost-checkpoints'),
    };
  }));
}

// The same figures from a summary of the CLI's JSON.
function fromJson(s) {
  const f = s.faults;
  return {
    policy: s.policy,
    avg: s.avg_jct_s,
    p99: s.p99_jct_s,
    makespan: s.makespan_s,
    restarts: s.restarts,
    gpuHours: s.gpu_hours,
    failures: f ? f.server_failures : null,
    byCategory: f ? f.failures_by_category : null,
    interruptions: f ? f.interruptions : null,
    ettr: f ? f.ettr : null,
    rolledBack: f ? f.lost_gpu_hours.rolled_back : null,
    restarting: f ? f.lost_gpu_hours.restarts : null,
    checkpoints: f ? f.lost_gpu_hours.checkpoints : null,
  };
}

const cli = (args) => JSON.parse(execFileSync(ORRERY, args, { encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'pipe'] }));

// `orrery run` of each policy of the page with `flags`, as the page's rows.
function runEach(policies, flags) {
  return policies.map((p) => fromJson(cli(['run', '--preset', 'default', '--policy', p, ...flags, '--format', 'json'])));
}

// `orrery compare --link` of a link, as the page's rows.
const compareLink = (link) => cli(['compare', '--link', link, '--format', 'json']).map(fromJson);

const same = (a, b, what) => assert(JSON.stringify(a) === JSON.stringify(b), `${what}: page ${JSON.stringify(a)} != CLI ${JSON.stringify(b)}`);

// The document's width beyond the window's (0: no horizontal overflow).
const overflow = (p) => p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

// What overflows inside an element: its content's width beyond its box.
const inside = (p, sel) => p.$eval(sel, (e) => e.scrollWidth - e.clientWidth);

await run(async (browser) => {
  const errors = [];
  const newPage = async (viewport = { width: 1440, height: 1000 }, phone = false) => {
    const ctx = await browser.newContext(phone
      ? { viewport, deviceScaleFactor: 2, isMobile: true, hasTouch: true }
      : { viewport, acceptDownloads: true });
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE });
    const p = await ctx.newPage();
    p.on('pageerror', (e) => errors.push(String(e)));
    p.on('dialog', (d) => { errors.push(`a ${d.type()} dialog: ${d.message()}`); d.dismiss(); });
    return p;
  };
  const copyLink = async (p) => {
    await p.click('#copy-link');
    await p.waitForFunction(() => location.href.includes('#x1.'));
    return p.url();
  };

  await test('failures set in the panel go into the link, and a run gives orrery run\'s figures with the same flags, number for number', async () => {
    const p = await newPage();
    await p.goto(BASE);
    await summary(p, 2);
    assert((await p.textContent('#faults-label')).includes('never fail'), await p.textContent('#faults-label'));
    await setField(p, '#fault-rate', '0.5');
    await p.waitForSelector('#fault-meaning');
    await setField(p, '#fault-repair', '3600');
    await setField(p, '#fault-checkpoint', '600');
    await setField(p, '#fault-write', '30');
    await p.waitForFunction(() => document.querySelector('#faults-label').textContent.includes('writes of 30 s'));
    await p.waitForSelector('#results[data-stale="true"]');
    await compare(p);
    const got = await rows(p);
    assert(got.length === 2 && got.every((r) => r.failures > 0 && r.interruptions > 0 && r.ettr > 0 && r.ettr < 1), JSON.stringify(got));
    const flags = ['--failures', '0.5', '--repair-s', '3600', '--checkpoint-s', '600', '--checkpoint-write-s', '30'];
    same(got, runEach(got.map((r) => r.policy), flags), 'orrery run with the flags');
    const link = await copyLink(p);
    const exp = linkExperiment(link);
    same(exp.faults, { failures: { per_server_day: 0.5, repair_s: 3600 }, checkpoint: { interval: { every: 600 }, write_s: 30 } }, 'the link\'s failures');
    same(got, compareLink(link), 'orrery compare --link');
    // The results' failures: the table, the interruptions over time and the GPU-hours lost.
    const table = await p.$$eval('#fault-table tbody tr', (trs) => trs.map((r) => ({
      interruptions: Number(r.getAttribute('data-interruptions')), charted: Number(r.getAttribute('data-charted')),
    })));
    assert(table.length === 2 && table.every((r, i) => r.interruptions === got[i].interruptions && r.charted === r.interruptions), JSON.stringify(table));
    for (const c of ['interruptions', 'lost-gpu-hours']) assert(await canvasDrawn(p, `#chart-${c}`) > 500, `${c} is blank`);
    const heads = await p.$$eval('#summary thead th', (ths) => ths.map((th) => th.getAttribute('data-term')));
    assert(['server-failures', 'interruptions', 'ettr', 'gpu-h-lost'].every((k) => heads.includes(k)), JSON.stringify(heads));
    // No failures: the link carries none.
    await p.click('#faults-off');
    await p.waitForFunction(() => document.querySelector('#faults-label').textContent.includes('never fail'));
    assert(linkExperiment(await copyLink(p)).faults === undefined, 'the link still carries failures');
    await p.context().close();
  });

  await test('Llama 3\'s rate, Daly\'s interval, a stop time and an edited mix of causes travel in the link to orrery compare', async () => {
    const p = await newPage();
    await p.goto(BASE);
    await summary(p, 2);
    await p.click('#faults-llama3');
    await p.waitForFunction(() => document.querySelector('#fault-rate').value !== '');
    assert(Number(await p.inputValue('#fault-rate')) === 419 / (2048 * 54), await p.inputValue('#fault-rate'));
    assert((await p.textContent('#faults-label')).includes('3.789 failures per 1,000 server-days'), await p.textContent('#faults-label'));
    // Llama 3's Table 5 is shown: 18 causes, Faulty GPU first.
    await p.click('#fault-causes summary');
    const causes = await p.$$eval('#fault-causes tbody tr', (trs) => trs.map((r) => r.getAttribute('data-cause')));
    assert(causes.length === 18 && causes[0] === 'Faulty GPU', JSON.stringify(causes));
    assert((await p.textContent('#fault-categories')).includes('GPU 64.0%'), await p.textContent('#fault-categories'));
    await setField(p, '#fault-rate', '2');
    await setField(p, '#fault-checkpoint', 'auto');
    await setField(p, '#fault-write', '60');
    await setField(p, '#fault-until', '50h');
    await setField(p, '#fault-cause-0', '0');
    await p.waitForSelector('#fault-causes[data-own="true"]');
    await p.waitForFunction(() => document.querySelector('#fault-until').value === '180000');
    assert((await p.textContent('#fault-meaning')).includes("Daly's optimum"), await p.textContent('#fault-meaning'));
    await compare(p);
    const got = await rows(p);
    const link = await copyLink(p);
    const exp = linkExperiment(link);
    assert(exp.until_s === 180000 && exp.faults.checkpoint.interval === 'auto' && exp.faults.checkpoint.write_s === 60, JSON.stringify(exp.faults));
    assert(exp.faults.failures.causes.length === 18 && exp.faults.failures.causes[0].weight === 0, JSON.stringify(exp.faults.failures.causes.slice(0, 2)));
    same(got, compareLink(link), 'orrery compare --link');
    // Every run stops at 50 h: nothing ends after it.
    assert(got.every((r) => r.makespan <= 180000 && r.failures > 0), JSON.stringify(got));
    await p.click('#fault-causes-llama3');
    await p.waitForSelector('#fault-causes[data-own="false"]');
    assert(linkExperiment(await copyLink(p)).faults.failures.causes === undefined, 'Llama 3\'s mix is carried as a list');
    await p.context().close();
  });

  await test('an uploaded spot trace shows what it holds, charts its capacity, and a run gives orrery run --spot\'s figures', async () => {
    const p = await newPage();
    await p.goto(BASE);
    await summary(p, 2);
    await p.setInputFiles('#spot-file-v100', SPOT);
    await p.waitForSelector('#spot-v100-summary');
    const s = await p.$eval('#spot-v100-summary', (e) => ({
      steps: Number(e.getAttribute('data-steps')), hours: Number(e.getAttribute('data-instance-hours')), preemptions: Number(e.getAttribute('data-preemptions')), text: e.textContent,
    }));
    assert(s.steps === 12 && s.hours === 94 && s.preemptions === 3 && s.text.includes('20 instances lost') && s.text.includes('0 to 12 instances'), JSON.stringify(s));
    await compare(p);
    const got = await rows(p);
    same(got, runEach(got.map((r) => r.policy), ['--spot', `v100=${SPOT}`]), 'orrery run --spot');
    const link = await copyLink(p);
    assert(linkExperiment(link).spot.v100.text === fs.readFileSync(SPOT, 'utf8'), 'the link does not carry the trace');
    same(got, compareLink(link), 'orrery compare --link');
    assert(await canvasDrawn(p, '#chart-spot-capacity') > 500, 'no capacity chart');
    assert(await p.getAttribute('#chart-spot-capacity', 'data-steps') === '12', 'the chart is not of the trace');
    // Removed, the experiment has no spot type.
    await p.click('#spot-remove-v100');
    await p.waitForFunction(() => !document.querySelector('#spot-v100-summary'));
    assert(linkExperiment(await copyLink(p)).spot === undefined, 'the trace stayed in the link');
    await p.context().close();
  });

  let faultyLink;
  await test('a link with failures, a stop time and a spot trace opens, runs, and gives orrery compare --link\'s figures', async () => {
    const p = await newPage();
    await p.goto(BASE);
    await summary(p, 2);
    const exp = {
      ...linkExperiment(await copyLink(p)),
      faults: { failures: { per_server_day: 1.5, repair_s: 1800 }, checkpoint: { interval: { every: 900 }, write_s: 20 } },
      until_s: 400000,
      spot: { v100: { name: 'spot-v100.json', text: fs.readFileSync(SPOT, 'utf8') } },
    };
    faultyLink = experimentLink(exp);
    await p.goto('about:blank');
    await p.goto(faultyLink);
    await summary(p, 2);
    await p.waitForSelector('#summary[data-complete="true"][data-stale="false"]');
    const got = await rows(p);
    same(got, compareLink(faultyLink), 'orrery compare --link');
    assert(got.every((r) => r.failures > 0), JSON.stringify(got));
    // The panel shows the link's settings.
    assert(await p.inputValue('#fault-rate') === '1.5' && await p.inputValue('#fault-repair') === '1800' && await p.inputValue('#fault-checkpoint') === '900'
      && await p.inputValue('#fault-write') === '20' && await p.inputValue('#fault-until') === '400000', 'the panel does not show the link\'s settings');
    await p.waitForSelector('#spot-v100-summary[data-steps="12"]');
    for (const c of ['interruptions', 'lost-gpu-hours', 'spot-capacity']) assert(await canvasDrawn(p, `#chart-${c}`) > 500, `${c} is blank`);
    await p.context().close();
  });

  await test('refused values say why next to their field and keep the experiment; a bad spot trace names what is wrong', async () => {
    const p = await newPage();
    await p.goto(BASE);
    await summary(p, 2);
    const before = linkExperiment(await copyLink(p));
    for (const [field, value, why] of [
      ['#fault-rate', 'often', 'failures per server per day'],
      ['#fault-rate', '-1', 'at least 0'],
      ['#fault-checkpoint', '0', 'above 0'],
      ['#fault-write', 'x', 'checkpoint write time'],
      ['#fault-until', 'soon', 'stop time'],
      ['#fault-repair', '-5', 'at least 0'],
    ]) {
      await setField(p, field, value);
      await p.waitForSelector(`${field}-error`, { timeout: 5000 }).catch(() => { throw new Error(`${field} = ${value}: no message`); });
      const text = await p.textContent(`${field}-error`);
      assert(text.includes(why) && text.includes('refused'), `${field} = ${value}: '${text}'`);
      assert(!/per_server_day|repair_s|write_s|until_s/.test(text), `internal name in '${text}'`);
      assert(await p.inputValue(field) === value && await p.getAttribute(field, 'aria-invalid') === 'true', `${field} lost what was typed`);
      assert(await p.$eval(`${field}-error`, (n, f) => !!n.closest('label')?.querySelector(f), field), `${field}: the message is not next to it`);
    }
    await p.setInputFiles('#spot-file-v100', { name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('0,add,a\n5,boom,b\n') });
    await p.waitForSelector('#spot-v100-error');
    const bad = await p.textContent('#spot-v100-error');
    assert(bad.includes('bad.csv') && bad.includes("line 2: event 'boom'"), bad);
    const after = linkExperiment(await copyLink(p));
    same(after, before, 'the experiment after refused values');
    await p.context().close();
  });

  // The page's outcome of its experiment against the CLI's: the same figures when the CLI
  // runs it, the CLI's message as the run's error (and the stepper's) when it refuses it.
  async function asTheCli(p) {
    const link = await copyLink(p);
    let native;
    try {
      native = { rows: compareLink(link) };
    } catch (e) {
      native = { error: String(e.stderr || e.message).replace(/^error: /i, '').trim() };
    }
    await p.click('#compare');
    if (native.error) {
      await p.waitForFunction(() => (document.querySelector('#confirm-run')?.click() || true) && document.querySelector('#run-error'), null, { timeout: 120000 });
      const text = await p.textContent('#run-error');
      assert(text.includes(native.error), `page '${text}' != CLI '${native.error}'`);
      await p.click('#step');
      await p.waitForFunction((m) => [...document.querySelectorAll('#step-panel .error')].some((e) => e.textContent.includes(m)), native.error, { timeout: 60000 });
      await p.click('#reset');
    } else {
      await p.waitForFunction(() => (document.querySelector('#confirm-run')?.click() || true)
        && document.querySelector('#summary[data-complete="true"][data-stale="false"]'), null, { timeout: 900000 });
      same(await rows(p), native.rows, 'orrery compare --link');
    }
    return native;
  }

  // At 90 failures per server-day, steps (at most `steps`) until a board marks the servers
  // that failed since the previous one: some, and no more than failed.
  async function failedOnBoard(p, what, steps) {
    await setField(p, '#fault-rate', '90');
    await p.waitForFunction(() => document.querySelector('#faults-label').textContent.includes('90000.000'));
    let m = { failed: 0 };
    for (let i = 1; i <= steps && !m.failed; i++) {
      await p.click('#step');
      await p.waitForFunction((n) => Number(document.querySelector('#clock')?.getAttribute('data-round')) >= n, i, { timeout: 120000 });
      m = await p.$eval('#step-faults', (e) => ({ failed: Number(e.getAttribute('data-failed')), servers: document.querySelectorAll('#step-panel .server.failed').length }));
    }
    assert(m.failed > 0 && m.servers > 0 && m.servers <= m.failed, `${what}'s marks: ${JSON.stringify(m)}`);
    console.log(`     ${m.servers} failed servers marked on ${what}`);
  }

  // With a repair time at 90 failures per server-day, steps (at most `steps`) until a
  // board shows a server away: its GPUs marked away and its title saying so.
  async function awayOnBoard(p, what, steps) {
    await setField(p, '#fault-repair', '3600');
    await p.waitForFunction(() => document.querySelector('#faults-label').textContent.includes('3600 s for repair'));
    let m = { down: 0 };
    for (let i = 1; i <= steps && !(m.down && m.titled); i++) {
      await p.click('#step');
      await p.waitForFunction((n) => Number(document.querySelector('#clock')?.getAttribute('data-round')) >= n, i, { timeout: 120000 });
      m = await p.$eval('#step-faults', (e) => ({
        down: Number(e.getAttribute('data-down')),
        titled: [...document.querySelectorAll('#step-panel .server')].filter((s) => (s.getAttribute('title') || s.textContent).includes('away')).length,
      }));
    }
    assert(m.down > 0 && m.titled > 0, `${what}: no server shown away: ${JSON.stringify(m)}`);
    console.log(`     ${m.down} servers away on ${what} (${m.titled} titled so)`);
  }

  await test('an elastic experiment with failures, a repair time or spot capacity gives the CLI\'s figures and marks failed and away servers on its board; Gavel\'s mechanism says why', async () => {
    const p = await newPage();
    await p.goto(`${BASE}#preset=pollux`);
    await p.waitForSelector('#fault-rate');
    // A spare at once: the figures of the CLI.
    await setField(p, '#fault-rate', '0.5');
    await p.waitForFunction(() => document.querySelector('#faults-label').textContent.includes('failures per 1,000'));
    const spare = await asTheCli(p);
    assert(!spare.error, spare.error);
    // Servers away for repair: the same, jobs stopped and waiting for them.
    await setField(p, '#fault-repair', '3600');
    await p.waitForFunction(() => document.querySelector('#faults-label').textContent.includes('3600 s for repair'));
    const away = await asTheCli(p);
    assert(!away.error, away.error);
    const stopped = away.rows.reduce((n, r) => n + (r.interruptions ?? 0), 0);
    assert(stopped > 0, `${stopped} interruptions with servers away`);
    console.log(`     away for repair: ${stopped} interruptions, as the CLI gives them`);
    // Its stepper marks the servers that failed, and those away, on its board of servers.
    await setField(p, '#fault-repair', '0');
    await failedOnBoard(p, 'the elastic board', 20);
    await p.click('#reset');
    await awayOnBoard(p, 'the elastic board', 40);
    // Gavel's mechanism has no failures: the run says so.
    await p.goto(BASE);
    await summary(p, 2);
    await setField(p, '#fault-rate', '0.5');
    await p.waitForSelector('#fault-meaning');
    await p.click('#settings-panel input[type=checkbox]:not(#fairness)');
    await p.click('#compare');
    await p.waitForSelector('#run-error', { timeout: 60000 });
    assert((await p.textContent('#run-error')).includes('Gavel'), await p.textContent('#run-error'));
    await p.context().close();
  });

  await test('Aryl\'s pools and DL2\'s slots with failures give orrery compare --link\'s figures and mark failed servers on their boards', async () => {
    for (const preset of ['aryl', 'dl2']) {
      const p = await newPage();
      await p.goto(`${BASE}#preset=${preset}`);
      await p.waitForSelector('#fault-rate');
      await setField(p, '#fault-rate', '4');
      await p.waitForFunction(() => document.querySelector('#faults-label').textContent.includes('failures per 1,000'));
      await setField(p, '#fault-write', '30');
      const native = await asTheCli(p);
      assert(!native.error, `${preset}: ${native.error}`);
      const interrupted = native.rows.reduce((n, r) => n + (r.interruptions ?? 0), 0);
      assert(interrupted > 100, `${preset}: ${interrupted} interruptions`);
      console.log(`     ${preset}: ${interrupted} interruptions over its policies, as the CLI gives them`);
      await failedOnBoard(p, `${preset}'s board`, 40);
      await p.context().close();
    }
  });

  await test('the stepper marks the servers that failed, those away for repair, and the jobs rolled back with the work they lost', async () => {
    const p = await newPage();
    const base = linkExperiment(faultyLink);
    const exp = {
      ...base,
      cluster: 'v100:12/4,p100:12/4,k80:12/4',
      faults: { failures: { per_server_day: 40, repair_s: 1800 }, checkpoint: { interval: { every: 600 }, write_s: 0 } },
      spot: {},
      until_s: undefined,
      fairness: false,
    };
    await p.goto(experimentLink(exp));
    await summary(p, 2);
    const seen = { failed: 0, down: 0, interrupted: 0, rows: 0 };
    for (let i = 1; i <= 80 && !(seen.failed && seen.down && seen.interrupted && seen.rows); i++) {
      await p.click('#step');
      await p.waitForFunction((n) => Number(document.querySelector('#clock')?.getAttribute('data-round')) >= n, i, { timeout: 60000 });
      const m = await p.$eval('#step-faults', (e) => ({
        failed: Number(e.getAttribute('data-failed')), down: Number(e.getAttribute('data-down')), interrupted: Number(e.getAttribute('data-interrupted')),
        gpusFailed: document.querySelectorAll('.gpu.failed').length, gpusDown: document.querySelectorAll('.gpu.down').length,
        rows: document.querySelectorAll('#step-panel table.jobs tr.rolled-back').length,
        items: [...e.querySelectorAll('li.rolled-back')].map((l) => l.textContent),
      }));
      // Every failed server shows its four GPUs (a server away since an earlier step too).
      assert(m.gpusFailed === 4 * m.failed, `step ${i}: ${m.gpusFailed} GPUs marked failed for ${m.failed} servers`);
      assert(m.gpusDown === 4 * m.down, `step ${i}: ${m.gpusDown} GPUs marked away for ${m.down} servers`);
      assert(m.items.every((t) => t.includes('rolls back to its last checkpoint')), JSON.stringify(m.items));
      seen.failed += m.failed;
      seen.down += m.down;
      seen.interrupted += m.interrupted;
      seen.rows += m.rows;
    }
    assert(seen.failed && seen.down && seen.interrupted && seen.rows, `not every mark was seen in 80 rounds: ${JSON.stringify(seen)}`);
    console.log(`     marks seen: ${JSON.stringify(seen)}`);
    await p.context().close();
  });

  await test('the llama3 scenario shows its failures, interruptions, ETTR and GPU-hours lost, as the CLI does', async () => {
    const p = await newPage();
    await p.goto(BASE);
    await summary(p, 2);
    await p.selectOption('#scenario', 'llama3');
    await p.waitForFunction(() => (document.querySelector('#confirm-run')?.click() || true)
      && document.querySelector('#summary[data-complete="true"]')
      && document.querySelector('#summary tbody tr')?.getAttribute('data-policy') === 'fifo', null, { timeout: 600000 });
    const got = await rows(p);
    same(got, cli(['compare', '--preset', 'llama3', '--format', 'json']).map(fromJson), 'orrery compare --preset llama3');
    assert(Number(await p.inputValue('#fault-until')) === 54 * 86400, await p.inputValue('#fault-until'));
    console.log(`     llama3: ${got[0].failures} failures, ${got[0].interruptions} interruptions, ETTR ${got[0].ettr.toFixed(4)}`);
    await p.context().close();
  });

  await test('a failure domain of one GPU goes into the link and gives orrery compare --link\'s figures, with fewer jobs stopped than whole servers', async () => {
    // PickyMan's scenario on servers of 8 (on servers of one GPU both domains are one).
    const first = await newPage();
    await first.goto(`${BASE}#preset=pickyman`);
    await first.waitForSelector('#fault-rate');
    const exp = { ...linkExperiment(await copyLink(first)), cluster: 'v100:32/8' };
    await first.context().close();
    const p = await newPage();
    await p.goto(experimentLink(exp));
    await p.waitForSelector('#fault-rate');
    await setField(p, '#fault-rate', '4');
    await p.waitForFunction(() => document.querySelector('#faults-label').textContent.includes('failures per 1,000'));
    const server = await asTheCli(p);
    assert(!server.error, server.error);
    await p.selectOption('#fault-domain', 'gpu');
    await p.waitForFunction(() => document.querySelector('#faults-label').textContent.includes('one GPU'));
    const link = await copyLink(p);
    assert(linkExperiment(link).faults.failures.domain === 'gpu', JSON.stringify(linkExperiment(link).faults));
    const gpu = await asTheCli(p);
    assert(!gpu.error, gpu.error);
    const stopped = (r) => r.rows.reduce((n, x) => n + (x.interruptions ?? 0), 0);
    const failed = (r) => r.rows.reduce((n, x) => n + (x.failures ?? 0), 0);
    assert(failed(gpu) > 0 && stopped(gpu) < stopped(server), `server ${stopped(server)}, gpu ${stopped(gpu)}`);
    console.log(`     jobs stopped: ${stopped(server)} by whole servers, ${stopped(gpu)} with one GPU per GPU cause`);
    await p.context().close();
  });

  await test('the spot scenario under Sia (elastic) and PickyMan (preemptive) gives orrery compare --link\'s figures and spot preemptions', async () => {
    const p = await newPage();
    await p.goto(`${BASE}#preset=spot`);
    await summary(p, 5, 600000, 'fifo');
    const exp = { ...linkExperiment(await copyLink(p)), policies: ['sia', 'pickyman'] };
    const link = experimentLink(exp);
    await p.context().close();
    const q = await newPage();
    await q.goto(link);
    await summary(q, 2, 600000);
    const json = cli(['compare', '--link', link, '--format', 'json']);
    same(await rows(q), json.map(fromJson), 'orrery compare --link');
    const preempted = json.map((s) => `${s.policy} ${s.faults.spot_preemptions ?? 0}`);
    assert(json.every((s) => s.faults.spot_preemptions > 0), JSON.stringify(preempted));
    console.log(`     spot preemptions: ${preempted.join(', ')}, as the CLI gives them`);
    await q.context().close();
  });

  await test('the spot scenario with a 10 s warning goes into the link and gives orrery compare --link\'s figures, spot preemptions, GPU-hours preempted and cost on-demand / spot', async () => {
    const p = await newPage();
    await p.goto(`${BASE}#preset=spot`);
    await summary(p, 5, 600000, 'fifo');
    assert((await p.inputValue('#spot-warning')) === '', await p.inputValue('#spot-warning'));
    // A refused warning says why next to the field and keeps the experiment.
    await setField(p, '#spot-warning', '90000');
    await p.waitForSelector('#spot-warning-error');
    assert((await p.textContent('#spot-warning-error')).includes('0 to 86,400'), await p.textContent('#spot-warning-error'));
    assert(linkExperiment(await copyLink(p)).spot_warning_s === undefined, 'a refused warning went into the link');
    await setField(p, '#spot-warning', '10');
    await p.waitForFunction(() => !document.querySelector('#spot-warning-error'));
    await p.waitForSelector('#results[data-stale="true"]');
    await compare(p, 600000);
    let link = await copyLink(p);
    for (let i = 0; i < 50 && linkExperiment(link).spot_warning_s !== 10; i += 1) {
      await p.waitForTimeout(100);
      link = p.url();
    }
    assert(linkExperiment(link).spot_warning_s === 10, JSON.stringify(linkExperiment(link).spot_warning_s));
    const json = cli(['compare', '--link', link, '--format', 'json']);
    same(await rows(p), json.map(fromJson), 'orrery compare --link');
    const spotRows = await p.$$eval('#summary tbody tr', (trs) => trs.map((r) => ({
      policy: r.getAttribute('data-policy'),
      spotPreemptions: Number(r.getAttribute('data-spot-preemptions')),
      preempted: Number(r.getAttribute('data-lost-preempted')),
      cost: Number(r.getAttribute('data-cost')),
      spotCost: Number(r.getAttribute('data-spot-cost')),
    })));
    const nativeSpot = json.map((s) => ({
      policy: s.policy,
      spotPreemptions: s.faults.spot_preemptions ?? 0,
      preempted: s.faults.lost_gpu_hours.preempted ?? 0,
      cost: s.cost,
      spotCost: s.spot_cost,
    }));
    same(spotRows, nativeSpot, 'orrery compare --link (spot)');
    assert(spotRows.some((r) => r.spotPreemptions > 0 && r.preempted > 0) && spotRows.every((r) => r.spotCost > 0 && r.cost > r.spotCost), JSON.stringify(spotRows));
    // The failures' table shows them as orrery run's table does.
    const text = (policy) => execFileSync(ORRERY, ['run', '--link', link, '--policy', policy], { encoding: 'utf8', maxBuffer: 1 << 26 });
    const cells = await p.$$eval('#fault-table tbody tr', (trs) => trs.map((r) => ({
      preemptions: r.querySelector('.spot-preemptions')?.textContent,
      preempted: r.querySelector('.spot-preempted')?.textContent,
      cost: r.querySelector('.cost-split')?.textContent,
    })));
    assert(cells.length === nativeSpot.length, JSON.stringify(cells));
    cells.forEach((c, i) => {
      const n = nativeSpot[i];
      const t = text(n.policy);
      const kv = (k) => t.split('\n').find((l) => l.startsWith(`${k}  `))?.slice(k.length).trim();
      assert(c.cost && kv('cost on-demand / spot') === c.cost, `${n.policy}: cost ${c.cost} is not orrery run's ${kv('cost on-demand / spot')}`);
      if (n.spotPreemptions > 0) assert(kv('spot preemptions') === `${c.preemptions} (${c.preempted} GPU-hours rolled back)`, `${n.policy}: ${JSON.stringify(c)} is not orrery run's ${kv('spot preemptions')}`);
    });
    console.log(`     warning 10 s: ${spotRows.map((r) => `${r.policy} ${r.spotPreemptions} preemptions, ${r.preempted.toFixed(1)} GPU-h, ${cells[spotRows.indexOf(r)].cost}`).join('; ')}`);
    await p.context().close();
  });

  await test('an experiment with failures sweeps the checkpoint interval: ETTR as orrery sweep --checkpoint-intervals gives it, Young\'s and Daly\'s intervals marked', async () => {
    const p = await newPage();
    await p.goto(BASE);
    await summary(p, 2);
    await p.selectOption('#scenario', 'llama3');
    await p.waitForFunction(() => (document.querySelector('#confirm-run')?.click() || true)
      && document.querySelector('#summary tbody tr')?.getAttribute('data-policy') === 'fifo'
      && document.querySelector('#summary[data-complete="true"]'), null, { timeout: 600000 });
    await setField(p, '#fault-until', '10d');
    await setField(p, '#fault-write', '60');
    await p.waitForFunction(() => document.querySelector('#faults-label').textContent.includes('writes of 60 s'));
    await p.selectOption('#sweep-axis', 'checkpoint');
    await p.fill('#sweep-values', '600, 1080, 1800');
    await p.click('#sweep-run');
    await p.waitForSelector('#sweep-table[data-complete="true"]', { timeout: 600000 });
    const cells = await p.$$eval('#sweep-table td[data-policy]', (tds) => tds.map((t) => ({ interval: Number(t.getAttribute('data-value')), ettr: Number(t.getAttribute('data-ettr')) })));
    await p.click('#copy-link');
    await p.waitForFunction(() => location.href.includes('#x1.'));
    const link = p.url();
    const out = execFileSync(ORRERY, ['sweep', '--link', link, '--checkpoint-intervals', '600,1080,1800', '--format', 'json'], { encoding: 'utf8', maxBuffer: 1 << 26 });
    const native = out.split('\n').filter((l) => l.startsWith('{"cell"')).map((l) => JSON.parse(l.replace(/,$/, '')))
      .map((r) => ({ interval: Number(r.checkpoint_s), ettr: r.summary.faults.ettr }));
    same(cells, native, 'orrery sweep --checkpoint-intervals');
    assert(cells.every((c) => c.ettr > 0.5 && c.ettr < 1), JSON.stringify(cells));
    // Young's and Daly's intervals of the job on 2,048 servers, marked.
    const m = 1 / (2048 * (419 / (2048 * 54)) / 86400);
    const w = 60;
    const x = w / (2 * m);
    const want = [Math.sqrt(2 * w * m), Math.sqrt(2 * w * m) * (1 + Math.sqrt(x) / 3 + x / 9) - w];
    const marks = (await p.getAttribute('#chart-ettr-sweep', 'data-marks')).split(' ').map(Number);
    assert(marks.length === 2 && marks.every((v, i) => Math.abs(v - want[i]) < 1e-6 * want[i]), `marks ${marks} != ${want}`);
    assert(await canvasDrawn(p, '#chart-ettr-sweep') > 500, 'the ETTR chart is blank');
    const axes = await p.$$eval('figure[data-chart="ettr-sweep"] figcaption abbr', (a) => a.map((x) => x.textContent));
    assert(axes[0] === 'checkpoint interval (min)' && axes[1] === 'ETTR', JSON.stringify(axes));
    await p.click('#sweep-link-copy');
    assert((await p.inputValue('#sweep-link')).includes('?sweep=600,1080,1800&axis=checkpoint#x1.'), await p.inputValue('#sweep-link'));
    console.log(`     ETTR at 10, 18 and 30 min: ${cells.map((c) => c.ettr.toFixed(4)).join(', ')}; Young ${(marks[0] / 60).toFixed(1)} min, Daly ${(marks[1] / 60).toFixed(1)} min`);
    await p.context().close();
  });

  // The cells of the page's sweep table and those of `orrery sweep ... --format json`, as
  // { policy, value, avg, p99, ettr } (value: the axis value as text, `auto` included).
  const sweepCells = (p) => p.$$eval('#sweep-table td[data-policy]', (tds) => tds.map((t) => ({
    policy: t.getAttribute('data-policy'),
    value: t.getAttribute('data-value'),
    avg: Number(t.getAttribute('data-avg-jct-s')),
    p99: Number(t.getAttribute('data-p99-jct-s')),
    ettr: Number(t.getAttribute('data-ettr')),
  })));
  const nativeSweep = (link, flags, value) => cli(['sweep', '--link', link, ...flags, '--format', 'json']).rows
    .map((r) => ({ policy: r.policy, value: value(r), avg: r.summary.avg_jct_s, p99: r.summary.p99_jct_s, ettr: r.summary.faults.ettr }));
  const byKey = (a) => [...a].sort((x, y) => `${x.policy} ${x.value}`.localeCompare(`${y.policy} ${y.value}`));
  // A value typed in the sweep's field is refused, saying why next to it.
  const refusedValue = async (p, value, why) => {
    await p.fill('#sweep-values', value);
    await p.dispatchEvent('#sweep-values', 'change');
    await p.waitForSelector('#sweep-values-error', { timeout: 5000 }).catch(() => { throw new Error(`${value}: no message`); });
    const text = await p.textContent('#sweep-values-error');
    assert(text.includes(why), `${value}: '${text}'`);
    assert(await p.$eval('#sweep-values-error', (n) => !!n.closest('label')?.querySelector('#sweep-values')), 'the message is not next to the field');
    assert(await p.getAttribute('#sweep-values', 'aria-invalid') === 'true', `${value}: the field is not marked invalid`);
    assert(await p.inputValue('#sweep-values') === value, `${value}: the field reverted`);
  };

  await test('any experiment sweeps the failure rate: ETTR and JCT as orrery sweep --failure-rates gives them, refused rates say why, and the link restores the axis', async () => {
    const p = await newPage();
    await p.goto(BASE);
    await summary(p, 2);
    assert((await p.textContent('#faults-label')).includes('never fail'), await p.textContent('#faults-label'));
    await p.selectOption('#sweep-axis', 'failures');
    assert(await p.inputValue('#sweep-values') === '0, 1, 2, 4', await p.inputValue('#sweep-values'));
    assert((await p.textContent('#sweep-panel h2')).includes('ETTR against the failure rate'), await p.textContent('#sweep-panel h2'));
    assert(!(await p.$('#sweep-p99')), 'a p99 toggle on an ETTR sweep');
    await refusedValue(p, '0, -1, 2', 'not a number of failures per server-day, 0 or more');
    await refusedValue(p, '2, often', '"often"');
    await refusedValue(p, '150', 'over 100 a day');
    await p.click('#sweep-run');
    assert(!(await p.$('#sweep-table')) && await p.$('#sweep-values-error'), 'a refused sweep ran');
    await p.fill('#sweep-values', '4, 0, 2');
    await p.dispatchEvent('#sweep-values', 'change');
    await p.waitForFunction(() => !document.querySelector('#sweep-values-error'));
    await p.click('#sweep-run');
    await p.waitForSelector('#sweep-table[data-complete="true"]', { timeout: 300000 });
    const cells = await sweepCells(p);
    assert(cells.length === 6 && cells.every((c) => c.avg > 0 && c.ettr > 0 && c.ettr <= 1), JSON.stringify(cells));
    assert(JSON.stringify([...new Set(cells.map((c) => c.value))]) === '["0","2","4"]', JSON.stringify(cells));
    // The sweep link: the rates and the axis before the experiment; the CLI reads the
    // experiment from it and gives the same cells with --failure-rates.
    await p.click('#sweep-link-copy');
    const sweepLink = await p.inputValue('#sweep-link');
    assert(sweepLink.includes('?sweep=0,2,4&axis=failures#x1.'), sweepLink);
    const exp = linkExperiment(sweepLink);
    assert(exp.faults === undefined || exp.faults === null, `the experiment gained failures: ${JSON.stringify(exp.faults)}`);
    const native = nativeSweep(sweepLink, ['--failure-rates', '0,2,4'], (r) => String(r.failures_per_server_day));
    same(byKey(cells), byKey(native), 'orrery sweep --link --failure-rates 0,2,4');
    const ettr = (policy, v) => cells.find((c) => c.policy === policy && c.value === v).ettr;
    assert(cells.every((c) => ettr(c.policy, '4') < ettr(c.policy, '0')), `ETTR does not fall with the failure rate: ${JSON.stringify(cells)}`);
    assert((await p.getAttribute('#chart-ettr-failures', 'data-cells')) === '6', 'the chart misses cells');
    assert(await canvasDrawn(p, '#chart-ettr-failures') > 500, 'the ETTR chart is blank');
    const axes = await p.$$eval('figure[data-chart="ettr-failures"] figcaption abbr', (a) => a.map((x) => x.textContent));
    assert(axes[0] === 'failures per server-day' && axes[1] === 'ETTR', JSON.stringify(axes));
    // On a phone the panel, its table and its message lay out without overflow.
    await refusedValue(p, '-2', '0 or more');
    await p.setViewportSize({ width: 390, height: 844 });
    await p.waitForTimeout(300);
    const wide = await overflow(p);
    assert(wide <= 0, `the page overflows by ${wide} px at 390 px`);
    // The link opened: the same axis and rates.
    const again = await newPage();
    await again.goto(sweepLink);
    await summary(again, 2);
    assert(await again.inputValue('#sweep-axis') === 'failures', await again.inputValue('#sweep-axis'));
    assert(await again.inputValue('#sweep-values') === '0, 2, 4', await again.inputValue('#sweep-values'));
    console.log(`     ETTR at 0, 2, 4 failures per server-day: ${cells.map((c) => `${c.policy}@${c.value} ${c.ettr.toFixed(4)}`).join(', ')}`);
    await again.context().close();
    await p.context().close();
  });

  await test('a checkpoint sweep with auto gives orrery sweep --checkpoint-intervals 600,auto,1800\'s figures, auto ringed at Daly\'s interval, and its link round-trips', async () => {
    const p = await newPage();
    await p.goto(BASE);
    await summary(p, 2);
    await setField(p, '#fault-rate', '2');
    await setField(p, '#fault-write', '60');
    await p.waitForFunction(() => document.querySelector('#faults-label').textContent.includes('writes of 60 s'));
    await p.selectOption('#sweep-axis', 'checkpoint');
    assert((await p.inputValue('#sweep-values')).endsWith(', auto'), await p.inputValue('#sweep-values'));
    await refusedValue(p, '600, often', 'neither a positive number of seconds nor auto');
    await refusedValue(p, '-600', 'neither a positive number of seconds nor auto');
    await p.fill('#sweep-values', '600, auto, 1800');
    await p.click('#sweep-run');
    await p.waitForSelector('#sweep-table[data-complete="true"]', { timeout: 300000 });
    assert(!(await p.$('#sweep-values-error')), 'the message stayed after a good sweep');
    const cells = await sweepCells(p);
    const rowsShown = await p.$$eval('#sweep-table tbody th', (ths) => ths.map((t) => t.textContent));
    assert(JSON.stringify(rowsShown) === '["600","1800","auto"]', JSON.stringify(rowsShown));
    await p.click('#sweep-link-copy');
    const sweepLink = await p.inputValue('#sweep-link');
    assert(sweepLink.includes('?sweep=600,1800,auto&axis=checkpoint#x1.'), sweepLink);
    const native = nativeSweep(sweepLink, ['--checkpoint-intervals', '600,auto,1800'], (r) => r.checkpoint_s);
    same(byKey(cells), byKey(native), 'orrery sweep --link --checkpoint-intervals 600,auto,1800');
    assert(cells.length === 6 && cells.every((c) => c.ettr > 0.5 && c.ettr < 1), JSON.stringify(cells));
    // auto is ringed at Daly's mark, the second of the two.
    const marks = (await p.getAttribute('#chart-ettr-sweep', 'data-marks')).split(' ').map(Number);
    const auto = Number(await p.getAttribute('#chart-ettr-sweep', 'data-auto'));
    assert(marks.length === 2 && auto === marks[1] && auto > 0, `auto at ${auto}, marks ${marks}`);
    assert(await canvasDrawn(p, '#chart-ettr-sweep') > 500, 'the ETTR chart is blank');
    const again = await newPage();
    await again.goto(sweepLink);
    await summary(again, 2);
    assert(await again.inputValue('#sweep-axis') === 'checkpoint', await again.inputValue('#sweep-axis'));
    assert(await again.inputValue('#sweep-values') === '600, 1800, auto', await again.inputValue('#sweep-values'));
    console.log(`     ETTR at 10 min, 30 min and auto (ringed at Daly's ${(auto / 60).toFixed(1)} min): ${cells.map((c) => `${c.policy}@${c.value} ${c.ettr.toFixed(4)}`).join(', ')}`);
    await again.context().close();
    await p.context().close();
  });

  for (const [w, h, phone] of [[390, 844, true], [1440, 900, false]]) {
    await test(`the panel and the results' failures lay out without overflow at ${w}x${h}`, async () => {
      const p = await newPage({ width: w, height: h }, phone);
      await p.goto(faultyLink);
      await summary(p, 2);
      await p.waitForSelector('#fault-results');
      if (phone) await p.click('#controls-toggle');
      await p.waitForSelector('#faults-panel', { state: 'visible' });
      await p.click('#fault-causes summary');
      await p.setInputFiles('#spot-file-p100', { name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from('{"data": [1]}') });
      await p.waitForSelector('#spot-p100-error');
      // Nothing of the panel overflows, its table of causes included; the results' table
      // may scroll in its own box on a phone, nothing else there does.
      const seen = {
        page: await overflow(p),
        panel: await inside(p, '#faults-panel'),
        causes: await inside(p, '#fault-causes .table-x'),
        results: await inside(p, '#fault-results'),
        wider: await p.$$eval('#faults-panel *, #fault-results .charts *', (es) => es.filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5).map((e) => e.id || e.className || e.tagName)),
      };
      assert(seen.page <= 0 && seen.panel <= 0 && seen.causes <= 0 && seen.results <= 0 && seen.wider.length === 0, `overflow at ${w} px: ${JSON.stringify(seen)}`);
      const chart = await p.$eval('#chart-spot-capacity', (c) => [c.getBoundingClientRect().width, c.parentElement.getBoundingClientRect().width]);
      assert(chart[0] <= chart[1] + 0.5, `the capacity chart is ${chart[0]} px wide in ${chart[1]}`);
      await p.context().close();
    });
  }

  await test('no uncaught errors and no browser dialogs', async () => {
    assert(errors.length === 0, errors.join('\n'));
  });
});
