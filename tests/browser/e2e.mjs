// End-to-end tests of the web playground in headless Chromium (Debian's), driven by
// playwright-core. Serves dist/ (built by `trunk build --release`) on 127.0.0.1 and checks
// what a person would do: load, run, read the summary, share, reopen, upload a bad file,
// step rounds, open a garbled link; the trace shape panel of a sample trace, and the whole
// Philly trace (Sia's ../shared/reference/sia/philly.csv, 82,247 jobs; SKIPPED when absent)
// uploaded and run under las with progress and a cancel; the same for an elastic (Pollux)
// experiment with its panel, charts, uploads and stepping, an experiment with an inference pool (Aryl) and a
// preemptive one (PickyMan) with its suspension timeline, table and settings, a
// parameter-server one (DL2) with its family, stepping, DL2's network trained in the worker
// (the same weights as natively) and bad DL2 inputs; and that the page's numbers equal the
// native CLI's
// (target/release/orrery, built by `cargo build --release`). The Pollux simulator's data in
// ../shared/reference/pollux is used when present (the folder-upload test says SKIPPED
// otherwise).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import {
  run, sleep, root, BASE, ORRERY, POLLUX_REF, SIA_REF, test, assert, summary, fullSummary, compareAgain, linkExperiment, experimentLink, nativeSummary, canvasDrawn, steppedTo,
} from './harness.mjs';

await run(async (browser) => {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE });
  const page = await context.newPage();
  const consoleErrors = [];
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  // Finish-time fairness in any mechanism: once the isolated baseline has run, every one of
  // the `n` rows has its max rho and the rho CDF is drawn.
  async function rhoShown(pg, n) {
    await pg.waitForFunction((k) => {
      const rows = [...document.querySelectorAll('#summary tbody tr')];
      return rows.length >= k && rows.every((r) => Number(r.getAttribute('data-max-rho')) > 0);
    }, n, { timeout: 300000 });
    assert(await canvasDrawn(pg, '#chart-rho-cdf') > 0, 'no rho CDF');
  }

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

  await test('the per-round and per-job CSV downloads hold the CLI\'s rows of each policy, to the byte', async () => {
    // The series travel from the workers as numbers beside the JSON (ui/src/wire.rs), the
    // per-job rows as the CSV the worker wrote; both must come out as the CLI writes them.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orrery-csv-'));
    try {
      const want = { rounds: '', jobs: '' };
      for (const { policy } of first) {
        const [rounds, jobs] = [path.join(dir, 'rounds.csv'), path.join(dir, 'jobs.csv')];
        execFileSync(ORRERY, ['run', '--link', link, '--policy', policy, '--series-csv', rounds, '--jobs-csv', jobs, '--format', 'json'], { encoding: 'utf8' });
        want.rounds += `# policy: ${policy}\n${fs.readFileSync(rounds, 'utf8')}`;
        want.jobs += `# policy: ${policy}\n${fs.readFileSync(jobs, 'utf8')}`;
      }
      for (const kind of ['rounds', 'jobs']) {
        const [d] = await Promise.all([page.waitForEvent('download'), page.click(`#download-${kind}`)]);
        const got = fs.readFileSync(await d.path(), 'utf8');
        assert(got.split('\n').length > 100, `${kind}: only ${got.split('\n').length} lines`);
        assert(got === want[kind], `the page's ${kind} CSV differs from the CLI's (${got.length} against ${want[kind].length} characters)`);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  await test('runs again in the workers the last run left idle, with the same numbers', async () => {
    // A run's workers stay for the next run once they have answered everything; only a
    // worker that is no longer needed (none here) or a cancelled run's ends.
    let started = 0;
    const count = () => { started += 1; };
    page.on('worker', count);
    try {
      for (let i = 0; i < 2; i++) {
        await compareAgain(page, 120000);
        const again = await fullSummary(page);
        const want = nativeSummary(link);
        assert(JSON.stringify(again) === JSON.stringify(want), `run ${i + 2}: ${JSON.stringify(again)} != native ${JSON.stringify(want)}`);
      }
      assert(started === 0, `${started} workers started for two runs again (expected none: the last run's are kept)`);
      // A cancelled run's workers end; the next run starts others and still gets the numbers.
      // (Cancelled as soon as the page shows the run, long before its workers are done.)
      await page.evaluate(() => new Promise((resolve) => {
        const cancel = () => { const b = document.querySelector('#cancel'); if (b) { b.click(); resolve(); return true; } return false; };
        new MutationObserver((_, o) => { if (cancel()) o.disconnect(); }).observe(document.body, { childList: true, subtree: true });
        document.querySelector('#compare').click();
      }));
      await page.waitForSelector('#cancel', { state: 'detached' });
      assert(await page.$('#summary[data-complete=true]') === null, 'the run completed before it was cancelled');
      await page.click('#compare');
      const after = await summary(page, 2);
      assert(JSON.stringify(after) === JSON.stringify(first), `after a cancel: ${JSON.stringify(after)} != ${JSON.stringify(first)}`);
      assert(started >= 1, 'no worker started after a cancelled run');
    } finally {
      page.off('worker', count);
    }
  });

  await test('a policy\'s results show before the run ends, also when they come in its first 250 ms', async () => {
    // Results that arrive in a run's first 250 ms are drawn at 250 ms (a run that ends sooner
    // draws once); here fifo_perf ends long before finish_time_fairness_perf, whose 60 s rounds
    // keep it running for about 0.6 s once warm.
    const exp = { ...linkExperiment(link), cluster: 'v100:12,p100:12,k80:12', profile: { kind: 'preset', name: 'gavel-types' }, policies: ['fifo_perf', 'finish_time_fairness_perf[round_s=60]'] };
    const p = await context.newPage();
    try {
      await p.goto(experimentLink(exp));
      await summary(p, 2);
      await p.click('#compare');
      await p.waitForFunction(() => {
        const rows = document.querySelectorAll('#summary tbody tr');
        return document.querySelector('#summary')?.getAttribute('data-complete') === 'false'
          && rows.length === 1 && rows[0].getAttribute('data-policy') === 'fifo_perf';
      }, null, { timeout: 60000, polling: 5 });
      await p.waitForSelector('#summary[data-complete=true]', { timeout: 120000 });
      const got = await fullSummary(p);
      const want = nativeSummary(experimentLink(exp));
      assert(JSON.stringify(got) === JSON.stringify(want), `${JSON.stringify(got)} != native ${JSON.stringify(want)}`);
    } finally {
      await p.close();
    }
  });

  await test('a run started soon after a short one is drawn once, not early by the last run\'s 250 ms timer', async () => {
    // The default scenario's two policies run again in well under 250 ms once the workers
    // are warm, so each run's results are held and drawn once, when it ends. Two such runs
    // close together: the first run's timer (due 250 ms after it started) must not draw the
    // second run's first policy alone while the second is still running. The second run
    // starts 0 to 200 ms after the first ends, so that the first run's timer falls inside
    // the second run after its first results for some of the delays.
    const p = await context.newPage();
    try {
      await p.goto(link);
      await summary(p, 2);
      for (let i = 0; i < 3; i++) await compareAgain(p);
      for (let delay = 0; delay <= 200; delay += 25) {
        const seen = await p.evaluate((wait) => new Promise((resolve) => {
          const rows = () => document.querySelectorAll('#summary tbody tr').length;
          const done = () => document.querySelector('#summary')?.getAttribute('data-complete') === 'true'
            && !document.querySelector('#cancel');
          const early = [];
          let second = null;
          let left = false;
          const obs = new MutationObserver(() => {
            if (!done()) left = true;
            if (second === null || second === Infinity) {
              if (left && done()) {
                left = false;
                second = Infinity;
                setTimeout(() => {
                  second = performance.now();
                  document.querySelector('#compare').click();
                }, wait);
              }
              return;
            }
            const t = performance.now() - second;
            if (rows() < 2 && t < 250) early.push(Math.round(t));
            if (left && done()) {
              obs.disconnect();
              resolve({ early, ms: Math.round(t) });
            }
          });
          obs.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
          document.querySelector('#compare').click();
        }), delay);
        assert(seen.early.length === 0, `started ${delay} ms after the last run ended, the run's results were drawn in part at ${seen.early.join(', ')} ms into it (it took ${seen.ms} ms)`);
      }
      const again = await fullSummary(p);
      assert(JSON.stringify(again.map((r) => [r.policy, r.avg])) === JSON.stringify(first.map((r) => [r.policy, r.avg])), `${JSON.stringify(again)} != ${JSON.stringify(first)}`);
    } finally {
      await p.close();
    }
  });

  await test('the order of GPU types changes no number; a type no job can use is warned about', async () => {
    const setCluster = async (spec) => {
      await page.fill('#cluster-spec', spec);
      await page.dispatchEvent('#cluster-spec', 'change');
    };
    const known = await page.textContent('#profile-types');
    assert(known.includes('GPU types a100, h100, k80, p100, t4, v100') && known.includes('ResNet-50 (batch size 128)'), known);
    await setCluster('k80:12,v100:12,p100:12,tpu:4');
    await page.waitForFunction(() => [...document.querySelectorAll('.experiment-warning')].some((e) => e.textContent.includes("'tpu' (4 GPUs)")));
    await setCluster('v100:12,p100:12,k80:12');
    await page.waitForFunction(() => document.querySelectorAll('.experiment-warning').length === 0);
    // The default scenario's link with its types listed in another order, in a fresh page.
    const exp = linkExperiment(link);
    exp.cluster = 'k80:12,v100:12,p100:12';
    const fresh = await context.newPage();
    await fresh.goto(experimentLink(exp));
    const again = await summary(fresh, 2);
    assert(await fresh.inputValue('#cluster-spec') === 'k80:12,v100:12,p100:12', 'the permuted cluster did not load');
    assert(JSON.stringify(again) === JSON.stringify(first), `${JSON.stringify(again)} != ${JSON.stringify(first)}`);
    await fresh.close();
  });

  await test('PickyMan runs the rigid workload beside round-based policies on one GPU type, as natively', async () => {
    const exp = linkExperiment(link);
    exp.cluster = 'v100:32';
    exp.policies = ['las', 'max_min_fairness_perf', 'pickyman'];
    const mixedLink = experimentLink(exp);
    const p = await context.newPage();
    p.on('pageerror', (e) => consoleErrors.push(String(e)));
    await p.goto(mixedLink);
    await summary(p, 3, 300000, 'las');
    const rows = await fullSummary(p);
    assert(rows.map((r) => r.policy).join() === exp.policies.join(), JSON.stringify(rows));
    const native = nativeSummary(mixedLink);
    assert(JSON.stringify(native) === JSON.stringify(rows), `native ${JSON.stringify(native)} != page ${JSON.stringify(rows)}`);
    // PickyMan steps from event to event.
    await p.selectOption('#step-policy', 'pickyman');
    for (let i = 0; i < 3; i++) await p.click('#step');
    await p.waitForFunction(() => document.querySelector('#clock').textContent.includes('event 3'));
    await p.close();
  });

  await test('Pollux, PickyMan and round-based policies on one rigid workload of two GPU types, as natively', async () => {
    const exp = linkExperiment(link);
    exp.cluster = 'v100:8/4,k80:8/4';
    exp.workload = { kind: 'generated', num_jobs: 40, jobs_per_hour: 4, multi_gpu: true, seed: 5 };
    // Pollux's search at 2 generations: this is about the families sharing one workload.
    exp.policies = ['las', 'max_min_fairness_perf', 'pollux[generations=2]', 'pickyman'];
    exp.fairness = false;
    const mixedLink = experimentLink(exp);
    const p = await context.newPage();
    p.on('pageerror', (e) => consoleErrors.push(String(e)));
    await p.goto(mixedLink);
    // The catalog offers Pollux and PickyMan beside the round-based policies.
    for (const spec of ['pollux', 'pickyman', 'las']) {
      assert(await p.$(`#policy-panel input[data-policy="${spec}"]`), `no row for ${spec}`);
    }
    await summary(p, 4, 300000, 'las');
    const rows = await fullSummary(p);
    assert(rows.map((r) => r.policy).join() === exp.policies.join(), JSON.stringify(rows));
    const native = nativeSummary(mixedLink);
    assert(JSON.stringify(native) === JSON.stringify(rows), `native ${JSON.stringify(native)} != page ${JSON.stringify(rows)}`);
    // Pollux steps in its ticks on the cluster's servers, each rigid job on its own GPUs.
    await p.selectOption('#step-policy', 'pollux');
    for (let i = 0; i < 4; i++) await p.click('#step');
    await p.waitForFunction(() => document.querySelectorAll('#servers .gpu.busy').length > 0);
    await p.close();
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

  await test('the trace shape panel charts the bundled and an uploaded trace, follows the filter and the profile, and is gone for the generator', async () => {
    const p = await context.newPage();
    p.on('pageerror', (e) => consoleErrors.push(String(e)));
    await p.goto(BASE);
    await p.waitForSelector('#trace-shape-panel[data-jobs="120"]');
    await p.click('#cancel', { timeout: 5000 }).catch(() => { /* already finished */ });
    // Sia's Philly CSV sample: 5 jobs of 45 s to 1 day from 2017-10-04 09:00 to 10-05 14:00.
    await p.setInputFiles('#trace-file', path.join(root, 'tests/data/philly_sia.csv'));
    await p.waitForSelector('#trace-shape-panel[data-jobs="5"]');
    assert((await p.getAttribute('#trace-shape-panel', 'data-gpu-hours')) === '196.4', await p.getAttribute('#trace-shape-panel', 'data-gpu-hours'));
    const numbers = await p.textContent('#trace-shape-numbers');
    for (const want of ['2017-10-04 09:00:00 to 2017-10-05 14:00:00', 'median 10 min', 'longest 1 d', 'GPU-hours196.4']) {
      assert(numbers.includes(want), `no '${want}' in ${numbers}`);
    }
    for (const c of ['trace-gpus', 'trace-durations', 'trace-arrivals']) {
      assert((await canvasDrawn(p, `#chart-${c}`)) > 500, `${c} is blank`);
    }
    assert(!(await p.$('#trace-shape-error')), 'a chart failed');
    // 29 hours of arrivals: one bar per hour.
    assert((await p.getAttribute('#chart-trace-arrivals', 'data-bins')) === '30', await p.getAttribute('#chart-trace-arrivals', 'data-bins'));
    // The filter's sample is charted.
    await p.fill('#filter-max-jobs', '2');
    await p.dispatchEvent('#filter-max-jobs', 'change');
    await p.waitForSelector('#trace-shape-panel[data-jobs="2"]');
    // With a profile the jobs draw job types; the shape keeps the traced durations.
    await p.selectOption('#profile-preset', 'gavel-types');
    await p.waitForFunction(() => [...document.querySelectorAll('.workload-note')].some((n) => n.textContent.includes('job types drawn')));
    const sampled = await p.getAttribute('#trace-shape-panel', 'data-gpu-hours');
    assert(Number(sampled) > 0 && Number(sampled) < 196.4, sampled);
    assert((await p.getAttribute('#trace-shape-panel', 'data-jobs')) === '2', 'the sample changed');
    await p.click('#generate');
    await p.waitForFunction(() => !document.querySelector('#trace-shape-panel') || document.querySelector('#workload-error'));
    const error = await p.$('#workload-error');
    assert(!error, error && await error.textContent());
    assert(!(await p.$('#trace-shape-panel')), 'the shape of a generated workload');
    await p.close();
  });

  await test('the whole Philly trace (82,247 jobs) uploads with its shape and runs las in the worker on 2,496 GPUs, with progress and a cancel, as natively', async () => {
    const file = path.join(SIA_REF, 'philly.csv');
    if (!fs.existsSync(file)) {
      console.log('     SKIPPED: ../shared/reference absent');
      return;
    }
    const p = await context.newPage();
    p.on('pageerror', (e) => consoleErrors.push(String(e)));
    await p.goto(BASE);
    await p.click('#cancel', { timeout: 5000 }).catch(() => { /* already finished */ });
    const setCluster = async (spec) => {
      await p.fill('#cluster-spec', spec);
      await p.dispatchEvent('#cluster-spec', 'change');
      await p.waitForFunction((s) => !document.querySelector('#cluster-error')
        && document.querySelector('.cluster-table input[type=text]')?.value === s.split(':')[0], spec, { timeout: 60000 });
    };
    // Its 128-GPU jobs fit no GPU type of the default cluster: the message says so.
    await p.setInputFiles('#trace-file', file);
    await p.waitForFunction(() => document.querySelector('#workload-error')?.textContent.includes('largest job takes 128 GPUs'), null, { timeout: 60000 });
    const hint = await p.textContent('#workload-error');
    assert(hint.includes('(v100:128/8, say)') && hint.includes('the previous workload is kept'), hint);
    await setCluster('v100:2496/8');
    let t0 = Date.now();
    await p.setInputFiles('#trace-file', file);
    await p.waitForSelector('#trace-shape-panel[data-jobs="82247"]', { timeout: 120000 });
    const uploadMs = Date.now() - t0;
    const shapeMs = Number(await p.getAttribute('#trace-shape-panel', 'data-ms'));
    assert((await p.getAttribute('#trace-shape-panel', 'data-gpu-hours')) === '978078.5', await p.getAttribute('#trace-shape-panel', 'data-gpu-hours'));
    const numbers = await p.textContent('#trace-shape-numbers');
    assert(numbers.includes('82,247') && numbers.includes('2017-09-04 10:30:41 to 2017-12-22 08:02:11'), numbers);
    // 110 days of arrivals: one bar per day.
    assert((await p.getAttribute('#chart-trace-arrivals', 'data-bins')) === '110', await p.getAttribute('#chart-trace-arrivals', 'data-bins'));
    for (const c of ['trace-gpus', 'trace-durations', 'trace-arrivals']) {
      assert((await canvasDrawn(p, `#chart-${c}`)) > 500, `${c} is blank`);
    }
    assert((await p.textContent('#notice')).includes('profile-free'), await p.textContent('#notice'));
    await setCluster('gpu:2496/8');
    await p.check('#policy-panel input[data-policy="las"]');
    for (const other of ['max_min_fairness', 'max_min_fairness_perf']) await p.uncheck(`#policy-panel input[data-policy="${other}"]`);
    await p.uncheck('#fairness');
    t0 = Date.now();
    await p.click('#compare');
    // A run this long asks first, in the page.
    await p.click('#confirm-run');
    await p.waitForSelector('#progress');
    const moved = await p.waitForFunction(() => Number(document.querySelector('#progress')?.getAttribute('value')) > 0
      || document.querySelector('#summary')?.getAttribute('data-complete') === 'true', null, { timeout: 300000 });
    const progressed = await moved.evaluate(() => !!document.querySelector('#progress'));
    const rows = await summary(p, 1, 600000, 'las');
    const runMs = Date.now() - t0;
    assert(progressed, 'the progress bar never moved');
    assert(rows.length === 1, JSON.stringify(rows));
    assert((await p.getAttribute('#summary tbody tr', 'data-num-jobs')) === '82247', await p.getAttribute('#summary tbody tr', 'data-num-jobs'));
    const native = JSON.parse(execFileSync(ORRERY, ['run', '--trace', file, '--cluster', 'gpu:2496/8', '--policy', 'las', '--no-fairness', '--format', 'json'], { encoding: 'utf8', maxBuffer: 1 << 26 }));
    assert(native.num_jobs === 82247 && native.profile_free === true, JSON.stringify(native));
    assert(rows[0].avg === native.avg_jct_s && rows[0].makespan === native.makespan_s, `page ${JSON.stringify(rows[0])} != native ${native.avg_jct_s} / ${native.makespan_s}`);
    const pageMs = Number(await p.getAttribute('#run-ms', 'data-ms'));
    const computeMs = Number(await p.getAttribute('#run-ms', 'data-compute-ms'));
    // A second run, cancelled: the first one's results stay.
    await p.click('#compare');
    await p.waitForSelector('#progress');
    await p.click('#cancel');
    await p.waitForFunction(() => document.querySelector('#run-error')?.textContent.includes('cancelled'));
    assert(!(await p.$('#progress')), 'still running');
    assert((await p.getAttribute('#summary tbody tr', 'data-num-jobs')) === '82247', 'the results went');
    console.log(`     upload to shape ${uploadMs} ms (statistics ${shapeMs} ms); las run ${runMs} ms to the summary (page: ${pageMs} ms, ${computeMs} ms computing in the worker)`);
    await p.close();
  });

  await test('the restart model is named and edited in the page, and a link carries it to the CLI', async () => {
    const p = await context.newPage();
    p.on('pageerror', (e) => consoleErrors.push(String(e)));
    await p.goto(BASE);
    await summary(p, 2);
    await p.click('#settings-panel h2').catch(() => {});
    assert(await p.getAttribute('#restart-model', 'data-model') === 'none', await p.textContent('#restart-model'));
    await p.fill('#restart-cost', '30');
    await p.press('#restart-cost', 'Enter');
    await p.waitForFunction(() => document.querySelector('#restart-model').getAttribute('data-model') === 'fixed');
    await p.fill('#restart-types', 'A3C=abc');
    await p.press('#restart-types', 'Enter');
    await p.waitForFunction(() => (document.querySelector('#restart-types-error')?.textContent || '').includes("'abc'"));
    await p.fill('#restart-types', 'A3C=600, CycleGAN=5');
    await p.press('#restart-types', 'Enter');
    await p.waitForFunction(() => document.querySelector('#restart-model').getAttribute('data-model') === 'per_type');
    const text = await p.textContent('#restart-model');
    assert(text.includes('A3C 600 s') && text.includes('others 30 s'), text);
    await p.click('#compare');
    await p.waitForSelector('#summary[data-stale="false"][data-complete="true"]');
    await p.click('#copy-link');
    await p.waitForFunction(() => location.href.includes('#x1.'));
    const exp = linkExperiment(p.url());
    assert(exp.restart_cost_s === 30 && exp.restart_by_type.A3C === 600 && exp.restart_by_type.CycleGAN === 5, JSON.stringify(exp));
    const rows = await fullSummary(p);
    const native = nativeSummary(p.url());
    assert(JSON.stringify(native) === JSON.stringify(rows), `native ${JSON.stringify(native)} != page ${JSON.stringify(rows)}`);
    await p.close();
  });

  await test('results of an edited experiment are marked stale until it is run again', async () => {
    assert(await page.getAttribute('#summary', 'data-stale') === 'false', 'fresh results marked stale');
    const seed = await page.inputValue('#seed');
    await page.fill('#seed', '7');
    await page.dispatchEvent('#seed', 'change');
    await page.waitForSelector('#summary[data-stale="true"]');
    assert((await page.textContent('#stale-note')).includes('Run comparison'), 'no stale note');
    await page.fill('#seed', seed);
    await page.dispatchEvent('#seed', 'change');
    await page.waitForSelector('#summary[data-stale="false"]');
    assert(!(await page.$('#stale-note')), 'stale note after the edit was undone');
  });

  await test('stepping three rounds advances the clock', async () => {
    const t0 = Number(await page.getAttribute('#clock', 'data-now-s'));
    for (let i = 0; i < 3; i++) await page.click('#step');
    await steppedTo(page, 3);
    await page.waitForFunction(() => document.querySelectorAll('.gpu.busy').length > 0);
    const t1 = Number(await page.getAttribute('#clock', 'data-now-s'));
    assert(t1 > t0, `clock ${t0} -> ${t1}`);
    const text = await page.textContent('#clock');
    assert(text.includes('round 3'), text);
    // The keys act when no control (the Step button, say) has the focus.
    await page.click('#step-panel h2');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => document.querySelector('#clock').textContent.includes('round 4'));
  });

  await test('stepping a packing policy shows jobs sharing GPUs in pairs', async () => {
    // Twelve one-GPU jobs at once on four V100s, of two types that gain from sharing a GPU.
    const colo = (w) => [{ scale: 1, with: w, with_scale: 1, gpu: 'v100', this: 0.7, other: 0.7 }];
    const profile = { format: 'orrery-profile', version: 1, job_types: {
      A: { throughputs: { 1: { v100: 1.0 } }, colocated: colo('B') },
      B: { throughputs: { 1: { v100: 1.0 } }, colocated: colo('A') },
    } };
    const csv = 'job_type,arrival_s,total_steps\n' + Array.from({ length: 12 }, (_, i) => `${i % 2 ? 'B' : 'A'},0,${20000 + 1000 * i}`).join('\n') + '\n';
    const tmp = (name, text) => { const f = path.join(os.tmpdir(), `orrery-${process.pid}-${name}`); fs.writeFileSync(f, text); return f; };
    const pairLink = execFileSync(ORRERY, ['link', '--trace', tmp('pairs.csv', csv), '--profile', tmp('pairs.json', JSON.stringify(profile)), '--cluster', 'v100:4', '--policy', 'max_min_fairness_packed', '--policy', 'gandiva', '--base', BASE], { encoding: 'utf8' }).trim();
    const pp = await context.newPage();
    await pp.goto(pairLink);
    await summary(pp, 2);
    let shared = 0;
    for (let i = 0; i < 12 && shared === 0; i++) {
      await pp.click('#step');
      await steppedTo(pp, i + 1);
      shared = await pp.$$eval('.gpu.shared', (g) => g.length);
    }
    assert(shared > 0, 'no GPU shared by a pair within 12 rounds');
    const pairs = await pp.$$eval('#step-panel td.pair', (cells) => cells.map((c) => c.textContent.trim()).filter((t) => t.length > 0));
    assert(pairs.length >= 1, `pair cells ${JSON.stringify(pairs)}`);
    const title = await pp.getAttribute('.gpu.shared', 'title');
    assert(/jobs \d+ and \d+, sharing it/.test(title), title);
    await pp.close();
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

  // Elastic jobs (Pollux's model). The page's Pollux runs use a lighter genetic search
  // (20 generations instead of 100) to keep the suite quick; the link carries the spec, so
  // the native comparison is exact all the same.
  let polluxLink;
  let polluxRows;
  await test('the pollux preset loads elastic policies and runs them in the worker', async () => {
    await page.selectOption('#scenario', 'pollux');
    await page.waitForSelector('#policy-panel input[data-policy="optimus"]');
    // The preset starts running at once: cancel it to run the lighter search instead.
    await page.click('#cancel', { timeout: 5000 }).catch(() => { /* already finished */ });
    const label = await page.textContent('#workload-label');
    assert(label.includes('elastic') && label.includes('160 jobs'), label);
    const boxes = await page.$$eval('#policy-panel input[type=checkbox]', (xs) => xs.map((x) => x.getAttribute('data-policy')));
    assert(JSON.stringify(boxes.slice(0, 3)) === JSON.stringify(['pollux', 'tiresias', 'optimus']), JSON.stringify(boxes));
    // Round-based policies run the elastic jobs rigid in rounds, PickyMan in its events.
    assert(boxes.includes('las') && boxes.includes('max_min_fairness_perf') && boxes.includes('pickyman'), JSON.stringify(boxes));
    await page.fill('#policy-panel li:has(input[data-policy="pollux"]) input[type=text]', 'generations=20');
    await page.press('#policy-panel li:has(input[data-policy="pollux"]) input[type=text]', 'Enter');
    await page.click('#settings-panel h2');
    const t0 = Date.now();
    await page.click('#compare');
    const rows = await summary(page, 3, 300000, 'pollux[generations=20]');
    assert(rows.map((r) => r.policy).join() === 'pollux[generations=20],tiresias,optimus', JSON.stringify(rows));
    assert(rows.every((r) => r.avg > 0 && Number.isFinite(r.avg) && r.makespan >= r.avg), JSON.stringify(rows));
    const head = await page.$$eval('#summary thead th', (ths) => ths.map((t) => t.textContent));
    assert(head.includes('max rho') && head.includes('GPU-h') && head.includes('preemptions'), JSON.stringify(head));
    await rhoShown(page, 3);
    const util = await page.$$eval('#summary tbody tr td:nth-child(7)', (tds) => tds.map((t) => parseFloat(t.textContent)));
    assert(util.every((u) => u > 0 && u <= 100), JSON.stringify(util));
    const ms = await page.getAttribute('#run-ms', 'data-compute-ms');
    const kb = Number(await page.getAttribute('#run-ms', 'data-transfer-bytes')) / 1000;
    console.log(`     3 elastic policies in ${Date.now() - t0} ms (${ms} ms computing in the worker, ${kb.toFixed(0)} kB of results): ${JSON.stringify(rows)}`);
    polluxRows = await fullSummary(page);
  });

  await test('the elastic panel shows a job over time and its goodput curve, with an epoch slider', async () => {
    await page.waitForSelector('#elastic-panel');
    await page.waitForFunction(() => Number(document.querySelector('#chart-job-history')?.getAttribute('data-points')) > 0
      && Number(document.querySelector('#chart-goodput')?.getAttribute('data-points')) > 0);
    assert(await canvasDrawn(page, '#chart-job-history') > 1000, 'job history chart is blank');
    assert(await canvasDrawn(page, '#chart-goodput') > 1000, 'goodput chart is blank');
    const options = await page.$$eval('#elastic-job option', (os) => os.length);
    assert(options === 160, `${options} jobs in the selector`);
    const perPolicy = await page.$$eval('#elastic-job-table tbody tr', (rows) => rows.length);
    assert(perPolicy === 3, `${perPolicy} rows in the job table`);
    // Another job, then another epoch: both charts are redrawn for them.
    await page.selectOption('#elastic-job', '3');
    await page.waitForFunction(() => document.querySelector('#elastic-job').value === '3');
    const max = Number(await page.getAttribute('#elastic-epoch', 'max'));
    assert(max >= 1, `epoch slider max ${max}`);
    await page.$eval('#elastic-epoch', (el, v) => { el.value = String(v); el.dispatchEvent(new Event('input', { bubbles: true })); }, max);
    await page.waitForFunction((v) => document.querySelector('#chart-goodput').getAttribute('data-epoch') === String(v), max);
    assert(Number(await page.getAttribute('#chart-goodput', 'data-points')) > 0, 'no goodput points at the last epoch');
    const rho = await canvasDrawn(page, '#chart-rho-cdf');
    assert(rho > 0, 'rho chart should explain itself');
  });

  await test('a copied link of the pollux experiment reproduces the native numbers exactly', async () => {
    await page.click('#copy-link');
    await page.waitForFunction((old) => location.href !== old, link);
    await page.waitForSelector('#notice.ok');
    polluxLink = page.url();
    const native = nativeSummary(polluxLink);
    assert(JSON.stringify(native) === JSON.stringify(polluxRows), `native ${JSON.stringify(native)} != page ${JSON.stringify(polluxRows)}`);
    const fresh = await context.newPage();
    fresh.on('pageerror', (e) => consoleErrors.push(String(e)));
    await fresh.goto(polluxLink);
    await summary(fresh, 3, 300000, 'pollux[generations=20]');
    const again = await fullSummary(fresh);
    assert(JSON.stringify(again) === JSON.stringify(polluxRows), `${JSON.stringify(again)} != ${JSON.stringify(polluxRows)}`);
    await fresh.waitForSelector('#elastic-panel');
    await fresh.close();
  });

  await test('one comparison holds Pollux, its baseline and round-based policies on the elastic workload, as natively', async () => {
    const exp = linkExperiment(polluxLink);
    exp.policies = ['pollux[generations=20]', 'tiresias', 'las', 'max_min_fairness_perf[round_s=360]'];
    const mixedLink = experimentLink(exp);
    const p = await context.newPage();
    p.on('pageerror', (e) => consoleErrors.push(String(e)));
    await p.goto(mixedLink);
    await summary(p, 4, 300000, 'pollux[generations=20]');
    const rows = await fullSummary(p);
    assert(rows.map((r) => r.policy).join() === exp.policies.join(), JSON.stringify(rows));
    const native = nativeSummary(mixedLink);
    assert(JSON.stringify(native) === JSON.stringify(rows), `native ${JSON.stringify(native)} != page ${JSON.stringify(rows)}`);
    // The rigid policy steps in rounds, every GPU coloured by its job.
    await p.selectOption('#step-policy', 'las');
    for (let i = 0; i < 3; i++) await p.click('#step');
    await p.waitForFunction(() => document.querySelectorAll('.gpu.busy').length > 0);
    await p.close();
  });

  await test('elastic jobs on two GPU types with servers of their own sizes, beside round-based and preemptive policies, as natively', async () => {
    const exp = linkExperiment(polluxLink);
    exp.cluster = 'a100:32/8,t4:32/4';
    exp.policies = ['pollux[generations=20]', 'tiresias', 'max_min_fairness_perf[round_s=360]', 'pickyman'];
    const heteroLink = experimentLink(exp);
    const p = await context.newPage();
    p.on('pageerror', (e) => consoleErrors.push(String(e)));
    await p.goto(heteroLink);
    await summary(p, 4, 300000, 'pollux[generations=20]');
    const rows = await fullSummary(p);
    assert(rows.map((r) => r.policy).join() === exp.policies.join(), JSON.stringify(rows));
    const native = nativeSummary(heteroLink);
    assert(JSON.stringify(native) === JSON.stringify(rows), `native ${JSON.stringify(native)} != page ${JSON.stringify(rows)}`);
    const types = await p.textContent('#profile-types');
    assert(types.includes('a100') && types.includes('t4'), types);
    // Stepping Pollux shows the real servers of each type: 4 of 8 A100s, 8 of 4 T4s.
    await p.selectOption('#step-policy', 'pollux');
    for (let i = 0; i < 3; i++) await p.click('#step');
    await p.waitForFunction(() => document.querySelectorAll('#servers .gpu.busy').length > 0);
    const servers = await p.$$eval('#servers .server', (ss) => ss.map((s) => `${s.getAttribute('data-type')}:${s.querySelectorAll('.gpu').length}`));
    assert(servers.filter((s) => s === 'a100:8').length === 4 && servers.filter((s) => s === 't4:4').length === 8, JSON.stringify(servers));
    await p.close();
  });

  await test('the sia scenario: Sia, its Gavel baseline and Tiresias on three GPU types as natively; the stepper shows each job\'s type and why Sia chose it', async () => {
    let p = await context.newPage();
    p.on('pageerror', (e) => consoleErrors.push(String(e)));
    await p.goto(BASE);
    await summary(p, 2);
    await p.selectOption('#scenario', 'sia');
    await p.waitForSelector('#policy-panel input[data-policy="sia"]');
    await p.click('#cancel', { timeout: 5000 }).catch(() => { /* already finished */ });
    await p.click('#copy-link');
    await p.waitForFunction(() => location.href.includes('#x1.'));
    const exp = linkExperiment(p.url());
    assert(exp.cluster === 't4:24/4,a100:16/8,v100:24/8', exp.cluster);
    assert(exp.policies[0] === 'sia' && exp.policies.includes('max_sum_throughput_perf[round_s=360]'), JSON.stringify(exp.policies));
    exp.policies = ['sia', 'max_sum_throughput_perf[round_s=360]', 'tiresias'];
    const siaLink = experimentLink(exp);
    await p.close();
    p = await context.newPage();
    p.on('pageerror', (e) => consoleErrors.push(String(e)));
    await p.goto(siaLink);
    await summary(p, 3, 300000, 'sia');
    const rows = await fullSummary(p);
    assert(rows.map((r) => r.policy).join() === exp.policies.join(), JSON.stringify(rows));
    const native = nativeSummary(siaLink);
    assert(JSON.stringify(native) === JSON.stringify(rows), `native ${JSON.stringify(native)} != page ${JSON.stringify(rows)}`);
    assert(rows[0].avg < rows[1].avg, `sia ${rows[0].avg} s not below the Gavel baseline's ${rows[1].avg} s`);
    // Stepping Sia: each running job's type and GPU count are what the last decision chose.
    await p.selectOption('#step-policy', 'sia');
    for (let i = 0; i < 4; i++) await p.click('#step');
    await steppedTo(p, 4);
    await p.waitForSelector('#choices[data-job]');
    const jobs = await p.$$eval('#elastic-step-jobs tbody tr', (rs) => rs.map((r) => ({ job: r.getAttribute('data-job'), gpus: Number(r.getAttribute('data-gpus')), type: r.getAttribute('data-type') })));
    const running = jobs.filter((j) => j.gpus > 0);
    assert(running.length > 0 && running.every((j) => ['t4', 'a100', 'v100'].includes(j.type)), JSON.stringify(jobs));
    const options = await p.$$eval('#choices-job option', (os) => os.map((o) => o.value));
    assert(options.length > 1, JSON.stringify(options));
    for (const job of options.slice(0, 4)) {
      await p.selectOption('#choices-job', job);
      await p.waitForFunction((j) => document.querySelector('#choices').getAttribute('data-job') === j, job);
      const chosen = await p.getAttribute('#choices', 'data-chosen');
      const row = jobs.find((j) => j.job === job);
      const expected = row && row.gpus > 0 ? `${row.gpus} × ${row.type}` : 'no GPUs';
      assert(chosen === expected, `job ${job}: chose ${chosen}, runs on ${expected}`);
      const cell = await p.$$eval('#choices-table td.chosen', (cs) => cs.map((c) => c.getAttribute('data-config')));
      assert(JSON.stringify(cell) === JSON.stringify(chosen === 'no GPUs' ? [] : [chosen]), JSON.stringify(cell));
    }
    assert(await canvasDrawn(p, '#chart-choices') > 1000, 'the goodput chart is blank');
    // A policy that does not say why shows no such view.
    await p.selectOption('#step-policy', 'tiresias');
    await p.click('#step');
    await p.waitForFunction(() => document.querySelector('#clock').textContent.includes('tick 1'));
    assert(!(await p.$('#choices')), 'tiresias explained');
    await p.close();
  });

  await test('stepping an elastic experiment shows servers, GPUs, batch sizes and epochs', async () => {
    await page.click('#reset');
    for (let i = 0; i < 3; i++) await page.click('#step');
    await page.waitForFunction(() => document.querySelector('#clock').textContent.includes('tick 3'));
    await page.waitForFunction(() => document.querySelectorAll('#servers .gpu.busy').length > 0);
    const rows = await page.$$eval('#elastic-step-jobs tbody tr', (rs) => rs.map((r) => Number(r.getAttribute('data-gpus'))));
    assert(rows.length > 0 && rows.some((g) => g > 0), JSON.stringify(rows));
    await page.selectOption('#step-policy', 'tiresias');
    await page.click('#step');
    await page.waitForFunction(() => document.querySelector('#clock').textContent.includes('tick 1'));
  });

  await test('a Pollux workload CSV on a round-based profile switches to the elastic applications', async () => {
    const p = await context.newPage();
    p.on('pageerror', (e) => consoleErrors.push(String(e)));
    await p.goto(BASE);
    await summary(p, 2);
    await p.setInputFiles('#trace-file', { name: 'tiny-pollux.csv', mimeType: 'text/csv', buffer: Buffer.from('name,time,application,num_replicas,batch_size\ncifar10-0,0,cifar10,2,256\nbert-1,120,bert,1,24\nbogus\n') });
    await p.waitForSelector('#workload-error');
    const bad = await p.textContent('#workload-error');
    assert(bad.includes('tiny-pollux.csv:4'), bad);
    await p.setInputFiles('#trace-file', { name: 'tiny-pollux.csv', mimeType: 'text/csv', buffer: Buffer.from('name,time,application,num_replicas,batch_size\ncifar10-0,0,cifar10,2,256\nbert-1,120,bert,1,24\n') });
    await p.waitForFunction(() => document.querySelector('#workload-label').textContent.includes('tiny-pollux.csv'));
    const notice = await p.textContent('#notice');
    assert(notice.includes('pollux-apps'), notice);
    await p.waitForSelector('#policy-panel input[data-policy="optimus"]');
    await p.click('#compare');
    const rows = await summary(p, 3, 300000, 'pollux');
    assert(rows.length === 3 && rows.every((r) => r.avg > 0), JSON.stringify(rows));
    // And back: a round-based profile brings the round-based policies and a workload that fits.
    await p.selectOption('#profile-preset', 'gavel-types');
    await p.waitForSelector('#policy-panel input[data-policy="max_min_fairness_perf"]');
    const back = await p.textContent('#notice');
    assert(back.includes('Round-based profile'), back);
    assert(!(await p.$('#elastic-settings')), 'elastic settings still shown');
    await p.close();
  });

  await test('a profile folder with a bad file names file, line and field; the profile stays', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orrery-apps-'));
    const app = path.join(dir, 'apps', 'toy');
    fs.mkdirSync(app, { recursive: true });
    fs.writeFileSync(path.join(app, 'placements.csv'), 'placement,local_bsz,step_time,sync_time\n1,32,0.04,0.001\n2,32,oops,0.01\n');
    fs.writeFileSync(path.join(app, 'validation-128.csv'), 'progress,iteration,metric,grad_sqr,grad_var\n391,390,0.4,8.9,5.0\n');
    const before = await page.$eval('#profile-preset', (s) => s.options[s.selectedIndex].textContent);
    await page.setInputFiles('#profile-folder', path.join(dir, 'apps'));
    await page.waitForSelector('#profile-error');
    const msg = await page.textContent('#profile-error');
    assert(msg.includes('toy/placements.csv:3') && msg.includes("field 'step_time'"), msg);
    const after = await page.$eval('#profile-preset', (s) => s.options[s.selectedIndex].textContent);
    assert(after === before, `profile changed: ${before} -> ${after}`);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  await test('the Pollux simulator\'s folders and workload upload, run, and travel in a link', async () => {
    if (!fs.existsSync(path.join(POLLUX_REF, 'traces'))) {
      console.log('SKIPPED: ../shared/reference/pollux is absent');
      return;
    }
    const p = await context.newPage();
    p.on('pageerror', (e) => consoleErrors.push(String(e)));
    await p.goto(BASE);
    await summary(p, 2);
    await p.setInputFiles('#trace-file', path.join(POLLUX_REF, 'workload-6.csv'));
    await p.waitForFunction(() => document.querySelector('#workload-label').textContent.includes('workload-6.csv'));
    await p.setInputFiles('#profile-folder', path.join(POLLUX_REF, 'traces'));
    await p.waitForFunction(() => document.querySelector('#notice')?.textContent.includes("Read 6 applications from folder 'traces'"));
    const profile = await p.$eval('#profile-preset', (s) => s.options[s.selectedIndex].textContent);
    assert(profile.includes("uploaded folder 'traces'"), profile);
    await p.fill('#policy-panel li:has(input[data-policy="pollux"]) input[type=text]', 'generations=20');
    await p.press('#policy-panel li:has(input[data-policy="pollux"]) input[type=text]', 'Enter');
    await p.click('#settings-panel h2');
    await p.click('#compare');
    await summary(p, 3, 300000, 'pollux[generations=20]');
    const rows = await fullSummary(p);
    await p.click('#copy-link');
    await p.waitForSelector('#notice');
    const notice = await p.textContent('#notice');
    const link = p.url();
    assert(link.includes('#x1.'), 'no link in the address bar');
    if (link.length > 100000) assert(notice.includes('long') && notice.includes('--config'), `no warning for a ${link.length}-character link: ${notice}`);
    // The experiment download carries what the link carries, and the CLI runs it.
    const [download] = await Promise.all([p.waitForEvent('download'), p.click('#download-experiment')]);
    const config = await download.path();
    const fromFile = JSON.parse(fs.readFileSync(config, 'utf8'));
    assert(JSON.stringify(fromFile) === JSON.stringify(linkExperiment(link)), 'the link and the experiment download differ');
    assert(fromFile.profile.kind === 'files' && fromFile.profile.files.some((f) => f.path === 'cifar10/placements.csv'), JSON.stringify(fromFile.profile.files.map((f) => f.path)).slice(0, 300));
    const native = nativeSummary({ config });
    assert(JSON.stringify(native) === JSON.stringify(rows), `native ${JSON.stringify(native)} != page ${JSON.stringify(rows)}`);
    console.log(`     link ${(link.length / 1000).toFixed(0)} kB; ${JSON.stringify(rows)}`);
    await p.close();
  });

  await test('Sia\'s folders and saturn workload-2 on Sia\'s three-type cluster: eight policies of four families, as natively', async () => {
    if (!fs.existsSync(path.join(SIA_REF, 'traces'))) {
      console.log('SKIPPED: ../shared/reference/sia is absent');
      return;
    }
    const p = await context.newPage();
    p.on('pageerror', (e) => consoleErrors.push(String(e)));
    await p.goto(BASE);
    await summary(p, 2);
    await p.setInputFiles('#trace-file', path.join(SIA_REF, 'workloads/saturn/workload-2.csv'));
    await p.waitForFunction(() => document.querySelector('#workload-label').textContent.includes('workload-2.csv'));
    await p.setInputFiles('#profile-folder', path.join(SIA_REF, 'traces'));
    await p.waitForFunction(() => document.querySelector('#notice')?.textContent.includes("Read 6 applications from folder 'traces'"));
    const known = await p.textContent('#profile-types');
    assert(known.includes('aws') && known.includes('dgx-ext') && known.includes('rtx'), known);
    await p.click('#copy-link');
    await p.waitForFunction(() => location.href.includes('#x1.'));
    const exp = linkExperiment(p.url());
    await p.close();
    exp.cluster = 'aws:24/4,dgx-ext:16/8,rtx:24/8';
    exp.policies = ['pollux[generations=20]', 'tiresias', 'optimus', 'max_min_fairness_perf', 'finish_time_fairness_perf', 'fifo', 'las', 'pickyman'];
    const q = await context.newPage();
    q.on('pageerror', (e) => consoleErrors.push(String(e)));
    const t0 = Date.now();
    await q.goto(experimentLink(exp));
    await summary(q, 8, 600000, 'pollux[generations=20]');
    const rows = await fullSummary(q);
    assert(rows.map((r) => r.policy).join() === exp.policies.join(), JSON.stringify(rows));
    const jobs = await q.$$eval('#summary tbody tr td:nth-child(2)', (tds) => tds.map((t) => t.textContent.trim()));
    assert(jobs.every((n) => n === '160'), JSON.stringify(jobs));
    const config = path.join(os.tmpdir(), `orrery-${process.pid}-saturn.json`);
    fs.writeFileSync(config, JSON.stringify(exp));
    const native = nativeSummary({ config });
    assert(JSON.stringify(native) === JSON.stringify(rows), `native ${JSON.stringify(native)} != page ${JSON.stringify(rows)}`);
    console.log(`     8 policies on saturn workload-2 in ${Date.now() - t0} ms: ${JSON.stringify(rows.map((r) => [r.policy, Math.round(r.avg)]))}`);
    await q.close();
  });

  // Aryl: an inference pool whose idle servers are loaned to training.
  async function arylSummary(pg) {
    return pg.$$eval('#summary tbody tr', (rows) => rows.map((r) => ({
      policy: r.getAttribute('data-policy'),
      avg: Number(r.getAttribute('data-avg-jct-s')),
      wait: Number(r.getAttribute('data-avg-wait-s')),
      makespan: Number(r.getAttribute('data-makespan-s')),
      preemptions: Number(r.getAttribute('data-preemptions')),
      loans: Number(r.getAttribute('data-loans')),
      reclaims: Number(r.getAttribute('data-reclaims')),
      loaned: Number(r.getAttribute('data-avg-loaned-gpus')),
      usage: Number(r.getAttribute('data-cluster-usage')),
    })));
  }
  const ARYL = ['aryl', 'aryl[loaning=false]', 'aryl[elastic=false]', 'aryl[elastic=false,loaning=false]'];
  let arylRows;
  const ap = await context.newPage();
  ap.on('pageerror', (e) => consoleErrors.push(String(e)));
  await test('the aryl preset runs in the worker and shows the inference pool chart', async () => {
    await ap.goto(BASE);
    await summary(ap, 2);
    const t0 = Date.now();
    await ap.selectOption('#scenario', 'aryl');
    await ap.waitForSelector('#policy-panel input[data-policy="aryl[elastic=false]"]');
    const boxes = await ap.$$eval('#policy-panel input[type=checkbox]', (xs) => xs.filter((x) => x.checked).map((x) => x.getAttribute('data-policy')));
    assert(JSON.stringify(boxes) === JSON.stringify(ARYL), JSON.stringify(boxes));
    const rows = await summary(ap, 4, 600000, 'aryl');
    const ms = Date.now() - t0;
    assert(rows.map((r) => r.policy).join() === ARYL.join(), JSON.stringify(rows));
    arylRows = await arylSummary(ap);
    assert(arylRows.every((r) => r.avg > 0 && Number.isFinite(r.wait) && r.usage > 0 && r.usage <= 1), JSON.stringify(arylRows));
    assert(arylRows[0].loans > 0 && arylRows[1].loans === 0 && arylRows[0].loaned > 0, JSON.stringify(arylRows));
    const head = await ap.$$eval('#summary thead th', (ths) => ths.map((t) => t.textContent));
    assert(head.includes('max rho') && head.includes('loans') && head.includes('reclaims') && head.includes('avg GPUs on loan') && head.includes('cluster usage'), JSON.stringify(head));
    assert(await ap.$('#inference-panel #inference-peak') && !(await ap.$('#settings-panel input[type=checkbox]:not(#fairness)')) && await ap.$('#settings-panel #fairness'), 'pool settings, hidden gavel, rho offered');
    await rhoShown(ap, 4);
    await ap.waitForFunction(() => Number(document.querySelector('#chart-inference-pool')?.getAttribute('data-points')) > 0
      && Number(document.querySelector('#chart-inference-pool')?.getAttribute('data-marks')) > 0);
    assert(await canvasDrawn(ap, '#chart-inference-pool') > 2000, 'pool chart is blank');
    const compute = await ap.getAttribute('#run-ms', 'data-compute-ms');
    const kb = Number(await ap.getAttribute('#run-ms', 'data-transfer-bytes')) / 1000;
    const n0 = Date.now();
    execFileSync(ORRERY, ['compare', '--preset', 'aryl', '--format', 'json'], { encoding: 'utf8', maxBuffer: 1 << 26 });
    console.log(`     aryl preset: ${ms} ms in the page (${compute} ms computing in the worker, ${kb.toFixed(0)} kB of results), ${Date.now() - n0} ms native`);
  });

  await test('a copied link of the aryl experiment reproduces the native numbers exactly', async () => {
    await ap.click('#copy-link');
    await ap.waitForFunction(() => location.hash.startsWith('#x1.'));
    await ap.waitForSelector('#notice.ok');
    const arylLink = ap.url();
    assert(linkExperiment(arylLink).inference?.kind === 'diurnal', 'the link carries no inference pool');
    const out = JSON.parse(execFileSync(ORRERY, ['compare', '--link', arylLink, '--format', 'json'], { encoding: 'utf8', maxBuffer: 1 << 26 }));
    const native = out.map((s) => ({
      policy: s.policy, avg: s.avg_jct_s, wait: s.avg_wait_s, makespan: s.makespan_s, preemptions: s.preemptions,
      loans: s.pool.loans, reclaims: s.pool.reclaims, loaned: s.pool.avg_loaned_gpus, usage: s.pool.cluster_usage,
    }));
    assert(JSON.stringify(native) === JSON.stringify(arylRows), `native ${JSON.stringify(native)} != page ${JSON.stringify(arylRows)}`);
  });

  await test('a bad inference load CSV of an aryl experiment names file, line and field and keeps the load', async () => {
    await ap.setInputFiles('#inference-file', { name: 'load.csv', mimeType: 'text/csv', buffer: Buffer.from('time_s,servers\n0,3\n600,lots\n') });
    await ap.waitForSelector('#inference-error');
    const msg = await ap.textContent('#inference-error');
    assert(msg.includes('load.csv') && msg.includes('3') && msg.includes('servers') && msg.includes('previous load is kept'), msg);
    assert((await ap.textContent('#inference-label')).includes('diurnal'), 'the load changed');
    await ap.setInputFiles('#inference-file', { name: 'good.csv', mimeType: 'text/csv', buffer: Buffer.from('time_s,servers\n0,4\n43200,14\n') });
    await ap.waitForFunction(() => document.querySelector('#inference-label')?.textContent.includes('good.csv'));
    assert(!(await ap.$('#inference-error')), 'error stays after a good file');
  });

  await test('stepping an aryl experiment shows both pools, loaned servers and jobs', async () => {
    await ap.click('#reset');
    for (let i = 0; i < 3; i++) await ap.click('#step');
    await ap.waitForFunction(() => document.querySelector('#clock').textContent.includes('tick 3'));
    await ap.waitForSelector('#pool-state');
    const shape = await ap.evaluate(() => ({
      training: document.querySelectorAll('#training-servers .server').length,
      inference: document.querySelectorAll('#inference-servers .server').length,
      busy: document.querySelectorAll('#pool-state .gpu.busy').length,
      loaned: document.querySelectorAll('#inference-servers .server.loaned').length,
      serving: document.querySelectorAll('#inference-servers .server.serving').length,
      jobs: document.querySelectorAll('#pool-step-jobs tbody tr').length,
    }));
    assert(shape.training === 16 && shape.inference === 16 && shape.jobs > 0 && shape.busy > 0 && shape.serving > 0 && shape.loaned > 0, JSON.stringify(shape));
    await ap.selectOption('#step-policy', 'aryl[elastic=false,loaning=false]');
    await ap.click('#step');
    await ap.waitForFunction(() => document.querySelector('#clock').textContent.includes('tick 1'));
    assert(await ap.$$eval('#inference-servers .server.loaned', (x) => x.length) === 0, 'loaning=false loaned servers');
  });
  await ap.close();

  await test('the Alibaba PAI tables import into an aryl experiment and run; a bad task table names line and field', async () => {
    const pp = await context.newPage();
    pp.on('pageerror', (e) => consoleErrors.push(String(e)));
    await pp.goto(BASE);
    await summary(pp, 2);
    await pp.selectOption('#scenario', 'aryl');
    await pp.waitForSelector('#policy-panel input[data-policy="aryl[elastic=false]"]');
    await pp.click('#cancel', { timeout: 2000 }).catch(() => { /* the run already ended */ });
    assert(await pp.isDisabled('#pai-import-button'), 'Import enabled before the tables are read');
    const csv = (name, text) => ({ name, mimeType: 'text/csv', buffer: Buffer.from(text) });
    await pp.setInputFiles('#pai-jobs', csv('pai_job_table.csv', 'j1,i1,u1,Terminated,100,700\nj2,i2,u2,Terminated,200,5000\n'));
    await pp.waitForFunction(() => document.querySelector('#pai-jobs-status')?.textContent.includes('pai_job_table.csv'));
    assert(await pp.isDisabled('#pai-import-button'), 'Import enabled with one table');
    await pp.setInputFiles('#pai-tasks', csv('pai_task_table.csv', 'j1,worker,2,Terminated,110,700,600,29,100,V100\nj2,tensorflow,1,Terminated,250,5000,600,29,400,V100\n'));
    await pp.waitForFunction(() => !document.querySelector('#pai-import-button')?.disabled);
    await pp.click('#pai-import-button');
    await pp.waitForFunction(() => document.querySelector('#notice.ok')?.textContent.includes('imported'));
    const notice = await pp.textContent('#notice');
    assert(notice.includes('2 jobs imported') && !notice.includes('no inference pool'), notice);
    assert((await pp.textContent('#workload-label')).includes('pai-sample.csv'), 'workload label');
    await pp.click('#compare');
    const rows = await summary(pp, 4, 600000, 'aryl');
    const jobs = await pp.$$eval('#summary tbody tr td:nth-child(2)', (tds) => tds.map((t) => t.textContent.trim()));
    assert(rows.length === 4 && rows.every((r) => r.avg > 0 && Number.isFinite(r.avg)) && jobs.every((j) => j === '2'), `${JSON.stringify(rows)} ${JSON.stringify(jobs)}`);
    await pp.click('#copy-link');
    await pp.waitForFunction(() => location.hash.startsWith('#x1.'));
    const shared = JSON.stringify(linkExperiment(pp.url()).workload);
    assert(shared.includes('pai-sample.csv') && shared.includes('tensorflow') && !shared.includes('V100'), shared);

    await pp.setInputFiles('#pai-tasks', csv('pai_task_table.csv', 'j1,worker,two,Terminated,110,700,600,29,100,V100\n'));
    await pp.waitForFunction(() => document.querySelector('#pai-tasks-status')?.textContent.includes('(1 line)'));
    await pp.click('#pai-import-button');
    await pp.waitForSelector('#pai-error');
    const msg = await pp.textContent('#pai-error');
    assert(msg.includes('pai_task_table.csv:1:') && msg.includes('inst_num') && msg.includes('previous workload is kept'), msg);
    assert((await pp.textContent('#workload-label')).includes('pai-sample.csv'), 'the workload changed');
    await pp.close();
  });

  // PickyMan: a preemptive experiment, where a suspension costs the rest of the victim's
  // epoch, a checkpoint and a reload.
  async function pickymanSummary(pg) {
    return pg.$$eval('#summary tbody tr', (rows) => rows.map((r) => ({
      policy: r.getAttribute('data-policy'),
      avg: Number(r.getAttribute('data-avg-jct-s')),
      makespan: Number(r.getAttribute('data-makespan-s')),
      wait: Number(r.getAttribute('data-avg-wait-s')),
      lost: Number(r.getAttribute('data-time-lost-s')),
      preemptions: Number(r.getAttribute('data-preemptions')),
    })));
  }
  const PICKYMAN = ['pickyman', 'pickyman[overhead_aware=false]', 'srtf', 'las', 'fifo'];
  let pickymanRows;
  const pk = await context.newPage();
  pk.on('pageerror', (e) => consoleErrors.push(String(e)));
  await test('the pickyman preset runs in the worker with its suspension timeline and table', async () => {
    await pk.goto(BASE);
    await summary(pk, 2);
    const t0 = Date.now();
    await pk.selectOption('#scenario', 'pickyman');
    await pk.waitForSelector('#policy-panel input[data-policy="pickyman[overhead_aware=false]"]');
    const offered = await pk.$$eval('#policy-panel input[type=checkbox]', (xs) => xs.map((x) => x.getAttribute('data-policy')));
    // PickyMan's family first, then the other families that take its rigid jobs.
    assert(JSON.stringify(offered.slice(0, 5)) === JSON.stringify(['pickyman', 'pickyman[overhead_aware=false]', 'srtf', 'las', 'fifo']), JSON.stringify(offered));
    assert(offered.includes('max_min_fairness_perf') && offered.includes('pollux') && !offered.includes('dl2') && !offered.includes('aryl'), JSON.stringify(offered));
    const boxes = await pk.$$eval('#policy-panel input[type=checkbox]', (xs) => xs.filter((x) => x.checked).map((x) => x.getAttribute('data-policy')));
    assert(JSON.stringify(boxes) === JSON.stringify(PICKYMAN), JSON.stringify(boxes));
    const params = await pk.getAttribute('#policy-panel li:has(input[data-policy="pickyman"]) input[type=text]', 'placeholder');
    assert(params.includes('max_preemptions=2') && params.includes('overhead_aware=true'), params);
    const rows = await summary(pk, 5, 600000, 'pickyman');
    const ms = Date.now() - t0;
    assert(rows.map((r) => r.policy).join() === PICKYMAN.join(), JSON.stringify(rows));
    pickymanRows = await pickymanSummary(pk);
    const by = Object.fromEntries(pickymanRows.map((r) => [r.policy, r]));
    assert(pickymanRows.every((r) => r.avg > 0 && Number.isFinite(r.wait) && Number.isFinite(r.lost)), JSON.stringify(pickymanRows));
    assert(by.pickyman.wait < by.srtf.wait, `pickyman waits ${by.pickyman.wait} s, srtf ${by.srtf.wait} s`);
    assert(by.fifo.preemptions === 0 && by.fifo.lost === 0 && by.srtf.preemptions > 0, JSON.stringify(pickymanRows));
    const head = await pk.$$eval('#summary thead th', (ths) => ths.map((t) => t.textContent));
    for (const h of ['avg wait (h)', 'p99 wait (h)', 'time lost (h)', 'preemptions', 'duration error', 'overhead error', 'max rho']) assert(head.includes(h), `no '${h}' in ${JSON.stringify(head)}`);
    await rhoShown(pk, 5);
    const errors = await pk.$$eval('#summary tbody tr', (rs) => rs.map((r) => r.getAttribute('data-duration-error')));
    assert(Number(errors[0]) > 0 && errors[2] === '', JSON.stringify(errors));
    // The timeline of pickyman's suspensions, their table, and its predictions.
    await pk.waitForFunction(() => Number(document.querySelector('#chart-preemption-timeline')?.getAttribute('data-bars')) > 0
      && document.querySelector('#chart-preemption-timeline')?.getAttribute('data-policy') === 'pickyman');
    assert(await canvasDrawn(pk, '#chart-preemption-timeline') > 2000, 'timeline chart is blank');
    const table = await pk.$$eval('#suspension-table tbody tr', (rs) => rs.map((r) => [...r.children].map((c) => c.textContent)));
    assert(table.length > 0 && table.length <= 200 && table.every((r) => r.length === 9), `${table.length} rows: ${JSON.stringify(table[0])}`);
    assert(table.every((r) => r[8] !== ''), 'pickyman rows without a predicted value');
    assert(Number(await pk.getAttribute('#chart-predictions', 'data-points')) > 0, 'no predictions charted');
    assert(await canvasDrawn(pk, '#chart-predictions') > 1000, 'prediction chart is blank');
    await pk.click('#preempt-sort-lost');
    await pk.waitForFunction(() => document.querySelector('#preempt-sort-lost')?.disabled);
    const lost = await pk.$$eval('#suspension-table tbody tr', (rs) => rs.map((r) => Number(r.getAttribute('data-lost-s'))));
    assert(lost.every((v, i) => i === 0 || lost[i - 1] >= v), 'not sorted by time lost');
    // Another policy: its own suspensions, no predictions.
    await pk.selectOption('#preempt-policy', '2');
    await pk.waitForFunction(() => document.querySelector('#chart-preemption-timeline')?.getAttribute('data-policy') === 'srtf');
    const srtf = await pk.$$eval('#suspension-table tbody tr', (rs) => rs.map((r) => r.lastElementChild.textContent));
    assert(srtf.length > 0 && srtf.every((t) => t === ''), 'srtf rows with predictions');
    assert(Number(await pk.getAttribute('#suspension-table', 'data-rows')) === by.srtf.preemptions, 'srtf suspensions != its preemptions');
    const compute = await pk.getAttribute('#run-ms', 'data-compute-ms');
    const kb = Number(await pk.getAttribute('#run-ms', 'data-transfer-bytes')) / 1000;
    const n0 = Date.now();
    execFileSync(ORRERY, ['compare', '--preset', 'pickyman', '--format', 'json'], { encoding: 'utf8', maxBuffer: 1 << 26 });
    console.log(`     pickyman preset: ${ms} ms in the page (${compute} ms computing in the worker, ${kb.toFixed(0)} kB of results), ${Date.now() - n0} ms native`);
  });

  await test('a copied link of the pickyman experiment reproduces the native numbers exactly', async () => {
    await pk.click('#copy-link');
    await pk.waitForFunction(() => location.hash.startsWith('#x1.'));
    await pk.waitForSelector('#notice.ok');
    const pickymanLink = pk.url();
    const shared = linkExperiment(pickymanLink);
    assert(shared.preemption?.read_gbps > 0 && shared.workload.duration_scale === 0.1, JSON.stringify(shared));
    const out = JSON.parse(execFileSync(ORRERY, ['compare', '--link', pickymanLink, '--format', 'json'], { encoding: 'utf8', maxBuffer: 1 << 26 }));
    const native = out.map((s) => ({
      policy: s.policy, avg: s.avg_jct_s, makespan: s.makespan_s, wait: s.avg_wait_s, lost: s.time_lost_s, preemptions: s.preemptions,
    }));
    assert(JSON.stringify(native) === JSON.stringify(pickymanRows), `native ${JSON.stringify(native)} != page ${JSON.stringify(pickymanRows)}`);
    const fresh = await context.newPage();
    fresh.on('pageerror', (e) => consoleErrors.push(String(e)));
    await fresh.goto(pickymanLink);
    await summary(fresh, 5, 600000, 'pickyman');
    const again = await pickymanSummary(fresh);
    assert(JSON.stringify(again) === JSON.stringify(pickymanRows), `${JSON.stringify(again)} != ${JSON.stringify(pickymanRows)}`);
    await fresh.waitForSelector('#policy-panel input[data-policy="pickyman[overhead_aware=false]"]:checked');
    await fresh.waitForFunction(() => Number(document.querySelector('#chart-preemption-timeline')?.getAttribute('data-bars')) > 0);
    const [download] = await Promise.all([fresh.waitForEvent('download'), fresh.click('#download-suspensions')]);
    const csv = fs.readFileSync(await download.path(), 'utf8').trim().split('\n');
    const total = pickymanRows.reduce((n, r) => n + r.preemptions, 0);
    assert(csv[0].startsWith('policy,decided_s,job_id') && csv.length - 1 >= total, `${csv.length - 1} suspensions in the CSV, ${total} preemptions`);
    await fresh.close();
  });

  await test('a bad preemption value of a pickyman experiment names the field and keeps the experiment', async () => {
    const before = await pk.textContent('#preemption-label');
    await pk.fill('#preemption-read_gbps', '0');
    await pk.press('#preemption-read_gbps', 'Tab');
    await pk.waitForSelector('#preemption-error');
    const msg = await pk.textContent('#preemption-error');
    assert(msg.includes('read GB/s') && msg.includes('read_gbps') && msg.includes('previous settings are kept'), msg);
    assert((await pk.textContent('#preemption-label')) === before, 'the settings changed');
    await pk.click('#copy-link');
    await pk.waitForSelector('#notice.ok');
    assert(linkExperiment(pk.url()).preemption.read_gbps === 0.5, 'the experiment changed');
    await pk.fill('#preemption-noise', '2');
    await pk.press('#preemption-noise', 'Tab');
    await pk.waitForFunction(() => document.querySelector('#preemption-error')?.textContent.includes('preemption.noise'));
    assert((await pk.textContent('#preemption-label')) === before, 'the settings changed');
    await pk.fill('#preemption-noise', '0.2');
    await pk.press('#preemption-noise', 'Tab');
    await pk.waitForFunction(() => document.querySelector('#preemption-label')?.textContent.includes('noise 20%'));
    assert(!(await pk.$('#preemption-error')), 'error stays after a good value');
  });

  await test('stepping a pickyman experiment goes from event to event and shows who holds the GPUs', async () => {
    await pk.click('#reset');
    for (let i = 0; i < 40; i++) await pk.click('#step');
    await pk.waitForFunction(() => document.querySelector('#clock').textContent.includes('event 40'));
    const shape = await pk.evaluate(() => ({
      gpus: document.querySelectorAll('#preempt-gpus .gpu').length,
      busy: document.querySelectorAll('#preempt-gpus .gpu.busy').length,
      jobs: document.querySelectorAll('#preempt-step-jobs tbody tr').length,
    }));
    assert(shape.gpus === 32 && shape.busy > 0 && shape.jobs > 0, JSON.stringify(shape));
    await pk.selectOption('#step-policy', 'fifo');
    await pk.click('#run-to-end');
    await pk.waitForSelector('#step-panel .done', { timeout: 120000 });
    const hint = await pk.textContent('#preempt-state');
    assert(hint.includes('0 suspensions so far'), hint);
  });
  await pk.close();

  await test('a round-based experiment turns preemptive (pickyman) and back; the generator edits duration scale', async () => {
    const p = await context.newPage();
    p.on('pageerror', (e) => consoleErrors.push(String(e)));
    await p.goto(BASE);
    await summary(p, 2);
    await p.click('#preemption-on');
    await p.waitForSelector('#preemption-read_gbps');
    await p.waitForSelector('#policy-panel input[data-policy="pickyman[overhead_aware=false]"]');
    const notice = await p.textContent('#notice');
    // PickyMan's mechanism takes every GPU type of the cluster, a pool each.
    assert(notice.includes('Preemptive') && !notice.includes('one GPU type'), notice);
    assert((await p.inputValue('#cluster-spec')) === 'v100:12,p100:12,k80:12', 'the cluster changed');
    await p.waitForSelector('#preemption-read_gbps');
    await p.fill('#gen-duration-scale', '0.05');
    await p.press('#gen-duration-scale', 'Tab');
    await p.fill('#policy-panel li:has(input[data-policy="pickyman"]) input[type=text]', 'max_preemptions=1');
    await p.press('#policy-panel li:has(input[data-policy="pickyman"]) input[type=text]', 'Tab');
    await p.click('#generate');
    await p.waitForFunction(() => document.querySelector('#workload-label').textContent.includes('durations × 0.05'));
    await p.click('#compare');
    const rows = await summary(p, 5, 600000, 'pickyman[max_preemptions=1]');
    assert(rows.map((r) => r.policy).join() === 'pickyman[max_preemptions=1],pickyman[overhead_aware=false],srtf,las,fifo', JSON.stringify(rows));
    await p.click('#preemption-off');
    await p.waitForSelector('#policy-panel input[data-policy="max_min_fairness_perf"]');
    assert(!(await p.$('#preemption-read_gbps')) && await p.$('#preemption-on'), 'still preemptive');
    await p.click('#compare');
    const back = await summary(p, 2, 300000, 'max_min_fairness');
    assert(back.length === 2, JSON.stringify(back));
    await p.fill('#gen-duration-scale', '0');
    await p.press('#gen-duration-scale', 'Tab');
    await p.waitForFunction(() => document.querySelector('#gen-duration-scale-error')?.textContent.includes('durations factor must be above 0'));
    await p.close();
  });

  // DL2: parameter-server jobs in the slot simulator with the dl2 family, and DL2's network
  // trained in the worker.
  async function dl2Summary(pg) {
    return pg.$$eval('#summary tbody tr', (rows) => rows.map((r) => ({
      policy: r.getAttribute('data-policy'),
      avg: Number(r.getAttribute('data-avg-jct-s')),
      makespan: Number(r.getAttribute('data-makespan-s')),
      workers: Number(r.getAttribute('data-avg-workers')),
      ps: Number(r.getAttribute('data-avg-ps')),
      cpu: Number(r.getAttribute('data-cpu-utilization')),
      reward: Number(r.getAttribute('data-total-reward')),
    })));
  }
  function nativeDl2(args) {
    const out = JSON.parse(execFileSync(ORRERY, ['compare', ...args, '--format', 'json'], { encoding: 'utf8', maxBuffer: 1 << 26 }));
    return out.map((s) => ({
      policy: s.policy, avg: s.avg_jct_s, makespan: s.makespan_s, workers: s.ps.avg_workers, ps: s.ps.avg_ps, cpu: s.ps.cpu_utilization, reward: s.ps.total_reward,
    }));
  }
  // A share link of an experiment object (deflate, base64url), as the page writes them.
  const DL2 = ['dl2', 'drf', 'fifo', 'srtf', 'optimus'];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'orrery-dl2-'));
  let dl2Rows;
  const dp = await context.newPage();
  // DL2's bundled network is not in the page's module: it is fetched once, when a
  // parameter-server experiment first shows.
  const networkFetches = [];
  dp.on('request', (r) => { if (r.url().endsWith('/dl2_weights.json')) networkFetches.push(r.url()); });
  dp.on('pageerror', (e) => consoleErrors.push(String(e)));
  await test('the dl2 preset runs in the worker with the dl2 family and the native CLI\'s numbers', async () => {
    await dp.goto(BASE);
    await summary(dp, 2);
    assert(networkFetches.length === 0, `the default scenario fetched DL2's network: ${networkFetches}`);
    const t0 = Date.now();
    await dp.selectOption('#scenario', 'dl2');
    await dp.waitForSelector('#policy-panel input[data-policy="optimus"]');
    const offered = await dp.$$eval('#policy-panel input[type=checkbox]', (xs) => xs.map((x) => x.getAttribute('data-policy')));
    // DL2's family first, then the other families', which run the jobs as rigid ones.
    assert(JSON.stringify(offered.slice(0, 6)) === JSON.stringify([...DL2, 'tetris']), JSON.stringify(offered));
    assert(offered.includes('max_min_fairness_perf') && offered.includes('pollux') && offered.includes('pickyman') && !offered.includes('aryl'), JSON.stringify(offered));
    const boxes = await dp.$$eval('#policy-panel input[type=checkbox]', (xs) => xs.filter((x) => x.checked).map((x) => x.getAttribute('data-policy')));
    assert(JSON.stringify(boxes) === JSON.stringify(DL2), JSON.stringify(boxes));
    const params = await dp.getAttribute('#policy-panel li:has(input[data-policy="fifo"]) input[type=text]', 'placeholder');
    assert(params === 'min_gain=0.05', params);
    const desc = await dp.textContent('#policy-panel li:has(input[data-policy="dl2"]) .desc');
    assert(desc.includes('neural network'), desc);
    assert((await dp.inputValue('#ps-cpus_per_server')) === '48', 'CPUs per server');
    assert((await dp.getAttribute('#dl2-network', 'data-custom')) === 'false', 'not the bundled network');
    const rows = await summary(dp, 5, 600000, 'dl2');
    const ms = Date.now() - t0;
    assert(rows.map((r) => r.policy).join() === DL2.join(), JSON.stringify(rows));
    const head = await dp.$$eval('#summary thead th', (ths) => ths.map((t) => t.textContent));
    for (const h of ['avg workers', 'avg PS', 'CPU utilization', 'reward/slot', 'max rho']) assert(head.includes(h), `no '${h}' in ${JSON.stringify(head)}`);
    await rhoShown(dp, 5);
    dl2Rows = await dl2Summary(dp);
    assert(networkFetches.length === 1, `DL2's network fetched ${networkFetches.length} times`);
    const n0 = Date.now();
    const native = nativeDl2(['--preset', 'dl2']);
    const nativeMs = Date.now() - n0;
    assert(JSON.stringify(native) === JSON.stringify(dl2Rows), `native ${JSON.stringify(native)} != page ${JSON.stringify(dl2Rows)}`);
    assert(dl2Rows.every((r) => r.workers >= 1 && r.ps >= 1 && r.cpu > 0 && r.cpu <= 1 && r.reward > 0), JSON.stringify(dl2Rows));
    for (const c of ['#chart-jct-cdf', '#chart-utilization', '#chart-queue']) assert(await canvasDrawn(dp, c) > 1000, `${c} is blank`);
    const compute = await dp.getAttribute('#run-ms', 'data-compute-ms');
    console.log(`     dl2 preset: ${ms} ms in the page (${compute} ms computing in the worker), ${nativeMs} ms native; avg JCT (s): ${dl2Rows.map((r) => `${r.policy} ${r.avg.toFixed(0)}`).join(', ')}`);
    // The dl2 policy alone: its network's inference (with the simulation) in the worker and natively.
    for (const p of DL2.slice(1)) await dp.uncheck(`#policy-panel input[data-policy="${p}"]`);
    const runs = [];
    for (let i = 0; i < 3; i++) {
      await dp.click('#compare');
      await dp.waitForFunction(() => document.querySelector('#summary')?.getAttribute('data-complete') === 'true' && document.querySelectorAll('#summary tbody tr').length === 1, null, { timeout: 600000 });
      runs.push(Number(await dp.getAttribute('#run-ms', 'data-compute-ms')));
    }
    const alone = await dl2Summary(dp);
    assert(JSON.stringify(alone) === JSON.stringify(dl2Rows.slice(0, 1)), JSON.stringify(alone));
    const natives = [];
    for (let i = 0; i < 3; i++) {
      const a0 = process.hrtime.bigint();
      execFileSync(ORRERY, ['run', '--preset', 'dl2', '--policy', 'dl2', '--format', 'json'], { encoding: 'utf8' });
      natives.push(Number(process.hrtime.bigint() - a0) / 1e6);
    }
    const med = (xs) => [...xs].sort((a, b) => a - b)[1];
    const figures = JSON.parse(execFileSync(ORRERY, ['run', '--preset', 'dl2', '--policy', 'dl2', '--format', 'json'], { encoding: 'utf8' }));
    const f = Array.isArray(figures) ? figures[0] : figures;
    const decisions = f.ps.actions + f.ps.invalid_actions + f.ps.slots;
    console.log(`     dl2 alone on the dl2 scenario (${decisions} decisions of the network): ${med(runs)} ms in the worker (${(med(runs) * 1000 / decisions).toFixed(0)} µs a decision, simulation included), ${med(natives).toFixed(0)} ms natively with process start`);
    for (const p of DL2.slice(1)) await dp.check(`#policy-panel input[data-policy="${p}"]`);
  });

  await test('stepping a dl2 experiment goes slot by slot and shows every job\'s workers and parameter servers', async () => {
    await dp.click('#reset');
    for (let i = 0; i < 3; i++) await dp.click('#step');
    await dp.waitForFunction(() => document.querySelector('#clock').textContent.includes('slot 3'));
    const shape = await dp.evaluate(() => ({
      servers: document.querySelectorAll('#slot-servers .server').length,
      gpus: document.querySelectorAll('#slot-servers .gpu').length,
      busy: document.querySelectorAll('#slot-servers .gpu.busy').length,
      jobs: [...document.querySelectorAll('#slot-jobs tbody tr')].map((r) => [Number(r.getAttribute('data-workers')), Number(r.getAttribute('data-ps'))]),
      workers: Number(document.querySelector('#slot-state').getAttribute('data-workers')),
    }));
    assert(shape.servers === 8 && shape.gpus === 64, JSON.stringify(shape));
    assert(shape.jobs.length > 0 && shape.jobs.some(([w, p]) => w >= 1 && p >= 1) && shape.jobs.every(([w, p]) => (w >= 1) === (p >= 1)), JSON.stringify(shape.jobs));
    assert(shape.busy === shape.workers, `${shape.busy} busy GPUs, ${shape.workers} workers`);
    assert((await dp.textContent('#step-panel h2')) === 'Step through slots', 'heading');
    await dp.selectOption('#step-policy', 'optimus');
    await dp.click('#run-to-end');
    await dp.waitForSelector('#step-panel .done', { timeout: 120000 });
    const slots = Number(await dp.getAttribute('#clock', 'data-round'));
    const native = JSON.parse(execFileSync(ORRERY, ['compare', '--preset', 'dl2', '--format', 'json'], { encoding: 'utf8' })).find((s) => s.policy === 'optimus');
    assert(slots === native.ps.slots, `stepped ${slots} slots, native optimus ${native.ps.slots}`);
  });

  await test('a dl2 link opened in a fresh page steps at once: the step waits for DL2\'s network, then runs with it', async () => {
    const p = await context.newPage();
    p.on('pageerror', (e) => consoleErrors.push(String(e)));
    const fetched = [];
    p.on('request', (r) => { if (r.url().endsWith('/dl2_weights.json')) fetched.push(r.url()); });
    const link = experimentLink(linkExperiment(execFileSync(ORRERY, ['link', '--preset', 'dl2'], { encoding: 'utf8' }).trim()));
    await p.goto(link);
    await p.waitForSelector('#step');
    for (let i = 0; i < 2; i++) await p.click('#step');
    await p.waitForFunction(() => document.querySelector('#clock').textContent.includes('slot 2'), null, { timeout: 60000 });
    assert((await p.$('#slot-servers .server')) !== null, 'no servers drawn');
    const rows = await summary(p, 5, 600000, 'dl2');
    assert(rows.length === 5, JSON.stringify(rows));
    assert(fetched.length === 1, `DL2's network fetched ${fetched.length} times`);
    await p.close();
  });

  let trainedWeights;
  await test('dl2 training in the worker gives a live learning curve, as natively, and its network runs and travels in a link', async () => {
    // Settings smaller than the page's defaults, typed into its fields (the defaults' time is
    // measured by tests/browser/bench.mjs).
    // A window of 12 jobs and the gain of the work left (the bundled networks' rule) too.
    for (const [field, value] of [['window', '12'], ['warmup_episodes', '6'], ['warmup_epochs', '8'], ['iterations', '40']]) {
      await dp.fill(`#train-${field}`, value);
      await dp.press(`#train-${field}`, 'Tab');
    }
    await dp.selectOption('#train-gain', 'left');
    await dp.waitForFunction(() => document.querySelector('#train-panel')?.textContent.includes('--window 12 --episode-jobs 40 --warmup-episodes 6 --warmup-epochs 8 --iterations 40 --gain left'));
    const t0 = Date.now();
    await dp.click('#train');
    await dp.waitForSelector('#train-progress');
    // The warm-up's curve, then the evaluations of reinforcement learning, arrive while it trains.
    await dp.waitForFunction(() => Number(document.querySelector('#chart-learning-warmup')?.getAttribute('data-points')) > 0 && !document.querySelector('#trained'), null, { timeout: 600000 });
    await dp.waitForSelector('#trained', { timeout: 600000 });
    const wall = Date.now() - t0;
    const t = await dp.evaluate(() => Object.fromEntries(['slots', 'ms', 'slots-per-s', 'agreement', 'jct-before', 'jct-after'].map((k) => [k, Number(document.querySelector('#trained').getAttribute(`data-${k}`))])));
    assert(t.slots > 0 && t['slots-per-s'] > 0 && t.agreement > 0 && t['jct-after'] > 0, JSON.stringify(t));
    assert(Number(await dp.getAttribute('#chart-learning-warmup', 'data-points')) === 8, 'warm-up points');
    assert(Number(await dp.getAttribute('#chart-learning-rl', 'data-points')) === 3, 'RL points: after the warm-up and every 20 of 40 iterations');
    for (const c of ['#chart-learning-warmup', '#chart-learning-rl']) assert(await canvasDrawn(dp, c) > 1000, `${c} is blank`);
    // The same settings natively give the same weights and curve.
    const [wd] = await Promise.all([dp.waitForEvent('download'), dp.click('#download-weights')]);
    trainedWeights = fs.readFileSync(await wd.path(), 'utf8');
    const [cd] = await Promise.all([dp.waitForEvent('download'), dp.click('#download-curve')]);
    const curve = fs.readFileSync(await cd.path(), 'utf8');
    const n0 = Date.now();
    execFileSync(ORRERY, ['dl2', 'train', '--preset', 'dl2', '--seed', '0', '--window', '12', '--episode-jobs', '40', '--warmup-episodes', '6', '--warmup-epochs', '8', '--iterations', '40', '--gain', 'left',
      '--out', path.join(tmp, 'native.json'), '--curve', path.join(tmp, 'native.csv')], { stdio: 'ignore' });
    const nativeMs = Date.now() - n0;
    const layers = (text) => JSON.stringify(JSON.parse(text).layers);
    assert(layers(trainedWeights) === layers(fs.readFileSync(path.join(tmp, 'native.json'), 'utf8')), 'the page\'s weights differ from orrery dl2 train\'s');
    assert(curve === fs.readFileSync(path.join(tmp, 'native.csv'), 'utf8'), `the page's curve differs:\n${curve}`);
    console.log(`     dl2 training (window 12, 6 warm-up episodes of 40 jobs, 8 epochs, 40 iterations, gain of the work left): ${t.slots} slots in ${t.ms} ms in the worker = ${t['slots-per-s']} slots/s (${wall} ms in the page); natively ${nativeMs} ms (the CLI, with its own evaluations)`);
    // Use it: dl2 runs the trained network against the heuristics.
    await dp.click('#use-trained');
    await dp.waitForFunction(() => document.querySelector('#dl2-network')?.getAttribute('data-custom') === 'true');
    await dp.click('#compare');
    await dp.waitForFunction(() => document.querySelector('#summary')?.getAttribute('data-complete') === 'false', null, { timeout: 60000 }).catch(() => {});
    await summary(dp, 5, 600000, 'dl2');
    const rows = await dl2Summary(dp);
    assert(rows.map((r) => r.policy).join() === DL2.join(), JSON.stringify(rows));
    assert(JSON.stringify(rows.slice(1)) === JSON.stringify(dl2Rows.slice(1)), 'the heuristics changed');
    await dp.click('#copy-link');
    await dp.waitForFunction(() => location.hash.startsWith('#x1.'));
    const link = dp.url();
    console.log(`     the link with the trained network: ${(link.length / 1000).toFixed(0)} kB`);
    const shared = linkExperiment(link);
    assert(shared.network?.kind === 'inline' && layers(shared.network.text) === layers(trainedWeights), 'the link does not carry the trained network');
    const config = path.join(tmp, 'experiment.json');
    fs.writeFileSync(config, JSON.stringify(shared));
    const native = nativeDl2(['--config', config]);
    assert(JSON.stringify(native) === JSON.stringify(rows), `native ${JSON.stringify(native)} != page ${JSON.stringify(rows)}`);
    fs.writeFileSync(path.join(tmp, 'weights.json'), trainedWeights);
    const viaFile = nativeDl2(['--preset', 'dl2', '--network', path.join(tmp, 'weights.json')]);
    assert(JSON.stringify(viaFile) === JSON.stringify(rows), `orrery --network with the downloaded weights: ${JSON.stringify(viaFile)} != ${JSON.stringify(rows)}`);
    const fresh = await context.newPage();
    fresh.on('pageerror', (e) => consoleErrors.push(String(e)));
    await fresh.goto(link);
    await summary(fresh, 5, 600000, 'dl2');
    const again = await dl2Summary(fresh);
    assert(JSON.stringify(again) === JSON.stringify(rows), `${JSON.stringify(again)} != ${JSON.stringify(rows)}`);
    assert((await fresh.getAttribute('#dl2-network', 'data-custom')) === 'true', 'the reopened link lost the network');
    await fresh.close();
    console.log(`     dl2 with the network trained in the page: avg JCT ${rows[0].avg.toFixed(0)} s (bundled network ${dl2Rows[0].avg.toFixed(0)} s, drf ${dl2Rows[1].avg.toFixed(0)} s, optimus ${dl2Rows[4].avg.toFixed(0)} s)`);
    // Back to the bundled network.
    await dp.click('#network-bundled');
    await dp.waitForFunction(() => document.querySelector('#dl2-network')?.getAttribute('data-custom') === 'false');
    await dp.click('#compare');
    await summary(dp, 5, 600000, 'dl2');
    await dp.waitForFunction((avg) => Number(document.querySelector('#summary tbody tr')?.getAttribute('data-avg-jct-s')) === avg, dl2Rows[0].avg, { timeout: 600000 });
  });

  await test('bad dl2 inputs (network files, settings, links) give messages and keep the experiment', async () => {
    await dp.setInputFiles('#network-file', { name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"format": "orrery-mlp", "layers": [') });
    await dp.waitForSelector('#dl2-error');
    let msg = await dp.textContent('#dl2-error');
    assert(msg.includes('broken.json') && msg.includes('previous network is kept'), msg);
    const small = { format: 'orrery-mlp', version: 1, activation: 'relu', layers: [{ inputs: 3, outputs: 4, weights: Array(12).fill(0.1), biases: Array(4).fill(0) }] };
    await dp.setInputFiles('#network-file', { name: 'small.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(small)) });
    await dp.waitForFunction(() => document.querySelector('#dl2-error')?.textContent.includes('small.json'));
    msg = await dp.textContent('#dl2-error');
    assert(msg.includes('previous network is kept'), msg);
    assert((await dp.getAttribute('#dl2-network', 'data-custom')) === 'false', 'a bad network was taken');
    await dp.fill('#ps-cpus_per_server', '0');
    await dp.press('#ps-cpus_per_server', 'Tab');
    await dp.waitForFunction(() => document.querySelector('#dl2-error')?.textContent.includes('CPUs per server'));
    msg = await dp.textContent('#dl2-error');
    assert(msg.includes('previous settings are kept'), msg);
    await dp.fill('#ps-max_workers', '2.5');
    await dp.press('#ps-max_workers', 'Tab');
    await dp.waitForFunction(() => document.querySelector('#dl2-error')?.textContent.includes('ps.max_workers'));
    await dp.fill('#train-episode_jobs', '1');
    await dp.press('#train-episode_jobs', 'Tab');
    await dp.waitForFunction(() => document.querySelector('#train-error')?.textContent.includes('episode_jobs'));
    await dp.fill('#train-iterations', '-3');
    await dp.press('#train-iterations', 'Tab');
    await dp.waitForFunction(() => document.querySelector('#train-error')?.textContent.includes('iterations'));
    await dp.click('#copy-link');
    await dp.waitForFunction(() => location.hash.startsWith('#x1.'));
    const exp = linkExperiment(dp.url());
    assert(exp.ps.cpus_per_server === 48 && !exp.network, JSON.stringify(exp.ps));
    // Training a workload that is not generated is refused with a message.
    await dp.setInputFiles('#trace-file', { name: 'ps.csv', mimeType: 'text/csv', buffer: Buffer.from('job_type,arrival_s,total_steps\nresnet50,0,1000\nvgg16,600,2000\n') });
    await dp.waitForFunction(() => document.querySelector('#workload-label').textContent.includes('ps.csv') || document.querySelector('#workload-error'));
    if (await dp.$('#workload-error')) throw new Error(await dp.textContent('#workload-error'));
    await dp.click('#train');
    await dp.waitForFunction(() => document.querySelector('#train-error')?.textContent.includes('generator'));
    // A link whose network is broken opens the default scenario with a message.
    const bad = { ...exp, network: { kind: 'inline', name: 'garbled.json', text: '{"format": "orrery-mlp"' } };
    const p2 = await context.newPage();
    p2.on('pageerror', (e) => consoleErrors.push(String(e)));
    await p2.goto(experimentLink(bad));
    await p2.waitForSelector('#notice');
    msg = await p2.textContent('#notice');
    assert(msg.includes('garbled.json') && msg.includes('default scenario'), msg);
    await summary(p2, 2);
    await p2.close();
    // Cancelling a training stops the worker.
    await dp.selectOption('#scenario', 'dl2');
    await summary(dp, 5, 600000, 'dl2');
    await dp.click('#train');
    await dp.waitForSelector('#train-cancel');
    await dp.click('#train-cancel');
    await dp.waitForFunction(() => document.querySelector('#train-error')?.textContent.includes('cancelled'));
    assert(!(await dp.$('#train-progress')), 'still training');
  });
  await dp.close();
  fs.rmSync(tmp, { recursive: true, force: true });

  await test('the parameter-server profile turns a round-based experiment into the dl2 scenario, and back', async () => {
    const p = await context.newPage();
    p.on('pageerror', (e) => consoleErrors.push(String(e)));
    await p.goto(BASE);
    await summary(p, 2);
    await p.selectOption('#profile-preset', 'dl2-models');
    await p.waitForSelector('#policy-panel input[data-policy="optimus"]');
    const notice = await p.textContent('#notice');
    assert(notice.includes('Parameter-server (DL2) profile') && notice.includes('policies dl2, drf, fifo, srtf, optimus') && notice.includes('cluster gpu:64/8'), notice);
    assert(await p.$('#dl2-panel') && await p.$('#train-panel') && !(await p.$('#preemption-on')) && !(await p.$('#inference-on')), 'panels');
    await p.click('#compare');
    await summary(p, 5, 600000, 'dl2');
    const rows = await dl2Summary(p);
    assert(JSON.stringify(rows) === JSON.stringify(dl2Rows), `${JSON.stringify(rows)} != the dl2 scenario's ${JSON.stringify(dl2Rows)}`);
    await p.selectOption('#profile-preset', 'gavel-types');
    await p.waitForSelector('#policy-panel input[data-policy="max_min_fairness_perf"]');
    assert((await p.textContent('#notice')).includes('Round-based profile'), await p.textContent('#notice'));
    assert(!(await p.$('#dl2-panel')) && !(await p.$('#train-panel')), 'the DL2 panels stay');
    await p.click('#compare');
    await summary(p, 2, 300000, 'max_min_fairness');
    await p.close();
  });

  await test('DL2\'s profile folder and one of its traces, in DL2-compatible mode, give DL2\'s simulator\'s numbers and the CLI\'s', async () => {
    const ref = path.resolve(root, '../shared/reference/dl2');
    if (!fs.existsSync(path.join(ref, 'speed_function.csv'))) {
      console.log('SKIPPED: ../shared/reference/dl2 is absent');
      return;
    }
    // Trace 0 of DL2's testbed workload, as a file of its own.
    const lines = fs.readFileSync(path.join(ref, 'workloads/testbed_seed9973.csv'), 'utf8').trim().split('\n');
    const traceFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'orrery-dl2ref-')), 'testbed_0.csv');
    fs.writeFileSync(traceFile, [lines[0], ...lines.slice(1).filter((l) => l.startsWith('0,'))].join('\n') + '\n');
    const p = await context.newPage();
    p.on('pageerror', (e) => consoleErrors.push(String(e)));
    await p.goto(BASE);
    await summary(p, 2);
    await p.setInputFiles('#profile-folder', ref);
    await p.waitForFunction(() => document.querySelector('#notice')?.textContent.includes("Read DL2's 8 job types"));
    await p.setInputFiles('#trace-file', traceFile);
    await p.waitForFunction(() => document.querySelector('#workload-label').textContent.includes('testbed_0.csv'));
    await p.fill('#cluster-spec', 'gpu:12/2');
    await p.dispatchEvent('#cluster-spec', 'change');
    await p.fill('#round', '300');
    await p.dispatchEvent('#round', 'change');
    await p.check('#dl2-compat');
    const POLICIES = ['drf', 'srtf', 'fifo', 'tetris', 'optimus'];
    for (const q of ['dl2', ...POLICIES]) {
      const box = `#policy-panel input[data-policy="${q}"]`;
      if (q === 'dl2') await p.uncheck(box); else await p.check(box);
    }
    await p.click('#compare');
    const rows = await summary(p, 5, 300000);
    // DL2's simulator's average JCT (s) of each policy on testbed trace `t`.
    const table = fs.readFileSync(path.join(ref, 'summary.csv'), 'utf8').trim().split('\n').map((l) => l.split(','));
    const testbed = (t) => Object.fromEntries(table.filter((r) => r[1] === 'testbed' && r[4] === t).map((r) => [r[3], Number(r[5]) * 300]));
    const reference = testbed('0');
    for (const r of rows) {
      assert(Math.abs(r.avg / reference[r.policy] - 1) < 1e-6, `${r.policy}: ${r.avg} s against DL2's ${reference[r.policy]} s`);
    }
    await p.click('#copy-link');
    await p.waitForSelector('#notice');
    const link = p.url();
    const exp = linkExperiment(link);
    assert(exp.dl2_compat === true && exp.profile.kind === 'files' && exp.profile.files.map((f) => f.path).join() === 'models.csv,speed_function.csv', JSON.stringify(exp.profile.files?.map((f) => f.path)));
    const native = nativeSummary(link);
    const page = await fullSummary(p);
    assert(JSON.stringify(native) === JSON.stringify(page), `native ${JSON.stringify(native)} != page ${JSON.stringify(page)}`);
    console.log(`     DL2 testbed trace 0 in the page: ${rows.map((r) => `${r.policy} ${(r.avg / 300).toFixed(4)} slots`).join(', ')}; link ${(link.length / 1000).toFixed(0)} kB`);
    // DL2's generator draws trace 1 of seed 9973 itself; DL2's network runs beside the
    // heuristics, and the CLI gives the same numbers for the link.
    await p.selectOption('#gen-dl2', 'testbed');
    await p.waitForSelector('#gen-dl2-trace');
    assert(await p.inputValue('#gen-jobs') === '10', 'the scale sets the job count');
    await p.fill('#gen-dl2-trace', '1');
    await p.dispatchEvent('#gen-dl2-trace', 'change');
    await p.fill('#gen-seed', '9973');
    await p.dispatchEvent('#gen-seed', 'change');
    await p.click('#generate');
    await p.waitForFunction(() => document.querySelector('#workload-label').textContent.includes("DL2's generator"));
    await p.check('#policy-panel input[data-policy="dl2"]');
    await p.click('#compare');
    const gen = await summary(p, 6, 300000);
    const trace1 = testbed('1');
    for (const r of gen.filter((r) => r.policy !== 'dl2')) {
      assert(Math.abs(r.avg / trace1[r.policy] - 1) < 1e-6, `${r.policy}: ${r.avg} s against DL2's ${trace1[r.policy]} s on trace 1`);
    }
    await p.click('#copy-link');
    const genLink = p.url();
    const genExp = linkExperiment(genLink);
    assert(genExp.workload.kind === 'generated' && genExp.workload.dl2?.scale === 'testbed' && genExp.workload.dl2?.trace === 1, JSON.stringify(genExp.workload));
    const genNative = nativeSummary(genLink);
    const genPage = await fullSummary(p);
    assert(JSON.stringify(genNative) === JSON.stringify(genPage), `native ${JSON.stringify(genNative)} != page ${JSON.stringify(genPage)}`);
    console.log(`     DL2's generator, testbed trace 1: ${gen.map((r) => `${r.policy} ${(r.avg / 300).toFixed(4)} slots`).join(', ')}`);
    await p.close();
  });

  await test('no uncaught errors in the page', async () => {
    assert(consoleErrors.length === 0, consoleErrors.join('\n'));
  });
});
