// The page on any screen, never silently stale, and inputs that cannot confuse, in headless
// Chromium: no horizontal overflow (document width <= window width) for every bundled
// scenario at 390x844 and 1440x900 before and after its run and with the stepper showing,
// and for the default scenario at every width from 390 to 1920 px; on a phone the settings
// fold under a toggle and the results come first; every kind of edit marks the results
// stale (with a Run button in the note) and an uploaded trace re-runs; keys act only when no
// control has the focus; refused values say why next to their field; no internal names in
// messages; the ticked policies are listed above the policy box; a huge workload's run
// shows an estimate and an in-page confirmation (Cancel keeps the results); and the longest
// main-thread block of one step at 1,000,000 jobs, as a reported number.
// ORRERY_SCREENSHOT and ORRERY_SCREENSHOT_PHONE (paths) take the README's screenshots.
import {
  run, sleep, BASE, test, assert, summary,
} from './harness.mjs';

const SCENARIOS = ['default', 'gavel', 'classic', 'pollux', 'sia', 'aryl', 'pickyman', 'dl2'];
// Scenarios whose full runs take minutes on two cores: their layout after a run is checked
// once their first policy's results (table, charts) are shown.
const LONG = new Set(['pollux', 'sia']);

// The document's width beyond the window's (0: no horizontal overflow).
const overflow = (p) => p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

// Wait for the run the page started (confirming a long one) to show results: every policy,
// or the first for the long scenarios.
async function results(p, scenario) {
  await p.waitForFunction(() => document.querySelector('#progress, #run-confirm, #summary[data-complete="true"]'), null, { timeout: 60000 });
  if (await p.$('#run-confirm')) await p.click('#confirm-run');
  if (LONG.has(scenario)) {
    await p.waitForFunction(() => document.querySelectorAll('#summary tbody tr').length > 0, null, { timeout: 600000 });
  } else {
    await p.waitForSelector('#summary[data-complete="true"]', { timeout: 600000 });
  }
}

await run(async (browser) => {
  const consoleErrors = [];
  const newPage = async (width, height, phone = false) => {
    const ctx = await browser.newContext(phone
      ? { viewport: { width, height }, deviceScaleFactor: 2, isMobile: true, hasTouch: true }
      : { viewport: { width, height } });
    const p = await ctx.newPage();
    p.on('pageerror', (e) => consoleErrors.push(String(e)));
    p.on('dialog', (d) => { consoleErrors.push(`a ${d.type()} dialog: ${d.message()}`); d.dismiss(); });
    return p;
  };

  for (const [w, h] of [[390, 844], [1440, 900]]) {
    await test(`every bundled scenario lays out without horizontal overflow at ${w}x${h}, before and after its run and with the stepper showing`, async () => {
      const p = await newPage(w, h, w < 700);
      await p.goto(BASE);
      await summary(p, 2);
      const seen = [];
      for (const sc of SCENARIOS) {
        await p.selectOption('#scenario', sc);
        await p.waitForFunction(() => document.querySelector('#progress, #run-confirm'), null, { timeout: 60000 }).catch(() => {});
        const before = await overflow(p);
        await results(p, sc);
        await sleep(300);
        const after = await overflow(p);
        await p.click('#step');
        await p.waitForFunction(() => Number(document.querySelector('#clock')?.getAttribute('data-round')) >= 1, null, { timeout: 120000 });
        const stepping = await overflow(p);
        const top = await p.$eval('#compare-panel', (e) => Math.round(e.getBoundingClientRect().top + window.scrollY));
        seen.push(`${sc} ${before}/${after}/${stepping} (results at ${top} px)`);
        assert(before <= 0 && after <= 0 && stepping <= 0, `${sc} at ${w} px overflows by ${before} px before, ${after} px after the run, ${stepping} px stepping`);
        if (w < 700) assert(top < 250, `${sc}: the results start ${top} px down on a phone`);
        await p.click('#cancel', { timeout: 1000 }).catch(() => { /* finished */ });
      }
      console.log(`     overflow before/after/stepping: ${seen.join('; ')}`);
      await p.context().close();
    });
  }

  await test('the default scenario has no horizontal overflow at any width from 390 to 1920 px, before and after a run', async () => {
    const p = await newPage(390, 844);
    await p.goto(BASE);
    const widths = [390, 420, 480, 560, 640, 700, 701, 768, 900, 1000, 1001, 1100, 1280, 1440, 1600, 1920];
    const bad = [];
    for (const w of widths) {
      await p.setViewportSize({ width: w, height: 900 });
      await sleep(100);
      if (await overflow(p) > 0) bad.push(`${w} before: ${await overflow(p)}`);
    }
    await summary(p, 2);
    await p.click('#step');
    await p.waitForFunction(() => Number(document.querySelector('#clock').getAttribute('data-round')) >= 1);
    for (const w of widths) {
      await p.setViewportSize({ width: w, height: 900 });
      await sleep(100);
      const o = await overflow(p);
      if (o > 0) bad.push(`${w} after: ${o}`);
    }
    assert(bad.length === 0, `overflow at ${bad.join(', ')}`);
    await p.context().close();
  });

  await test('on a phone the settings fold under a toggle, the results come first, and the settings open without overflow', async () => {
    const p = await newPage(390, 844, true);
    await p.goto(BASE);
    await summary(p, 2);
    assert(await p.isVisible('#controls-toggle'), 'no settings toggle');
    assert(!(await p.isVisible('#workload-panel')), 'the settings are not folded');
    const top = await p.$eval('#compare-panel', (e) => e.getBoundingClientRect().top + window.scrollY);
    assert(top < 250, `the results start ${top} px down`);
    assert(await p.$eval('#controls-toggle', (e) => e.getBoundingClientRect().top + window.scrollY) < top, 'the toggle is under the results');
    await p.click('#controls-toggle');
    await p.waitForSelector('#workload-panel', { state: 'visible' });
    assert(await p.getAttribute('#controls-toggle', 'aria-expanded') === 'true', 'aria-expanded');
    assert(await overflow(p) <= 0, `overflow with the settings open: ${await overflow(p)}`);
    // Open, the settings come right under the toggle, before the results.
    const toggleTop = await p.$eval('#controls-toggle', (e) => e.getBoundingClientRect().top + window.scrollY);
    const settingsTop = await p.$eval('#settings-column', (e) => e.getBoundingClientRect().top + window.scrollY);
    const resultsTop = await p.$eval('#compare-panel', (e) => e.getBoundingClientRect().top + window.scrollY);
    assert(toggleTop < top && toggleTop < settingsTop && settingsTop < resultsTop, JSON.stringify({ toggleTop, settingsTop, resultsTop }));
    await p.click('#controls-toggle');
    await p.waitForSelector('#workload-panel', { state: 'hidden' });
    // On a wide screen the toggle is not there and the settings always show.
    await p.setViewportSize({ width: 1200, height: 900 });
    assert(!(await p.isVisible('#controls-toggle')) && await p.isVisible('#workload-panel'), 'the wide layout');
    await p.context().close();
  });

  // The default scenario, run; each edit marks the results stale with a Run button in the
  // note, and the button runs the edited experiment.
  await test('every kind of edit marks the results stale, with a note whose Run button re-runs them', async () => {
    const p = await newPage(1440, 900);
    await p.goto(BASE);
    await summary(p, 2);
    const fresh = async () => {
      await p.waitForSelector('#summary[data-complete="true"][data-stale="false"]', { timeout: 300000 });
      assert(await p.getAttribute('#results', 'data-stale') === 'false', 'results still stale');
      assert(!(await p.$('#stale-note')), 'stale note after the run');
    };
    const edits = [
      ['cluster', async () => { await p.fill('#cluster-spec', 'v100:8,p100:8,k80:8'); await p.dispatchEvent('#cluster-spec', 'change'); }],
      ['a policy ticked', async () => { await p.check('#policy-panel input[data-policy="tiresias"]'); }],
      ['a policy parameter', async () => {
        await p.fill('#policy-panel li:has(input[data-policy="tiresias"]) input[type=text]', 'threshold_gpu_h=4');
        await p.dispatchEvent('#policy-panel li:has(input[data-policy="tiresias"]) input[type=text]', 'change');
      }],
      ['the profile', async () => { await p.selectOption('#profile-preset', 'profile-free'); }],
      ['back to a profile', async () => { await p.selectOption('#profile-preset', 'gavel-types'); }],
      ['a generated workload', async () => { await p.fill('#gen-jobs', '40'); await p.dispatchEvent('#gen-jobs', 'change'); await p.click('#generate'); }],
      ['the seed', async () => { await p.fill('#seed', '11'); await p.dispatchEvent('#seed', 'change'); }],
      ['the round', async () => { await p.fill('#round', '600'); await p.dispatchEvent('#round', 'change'); }],
      ['the restart cost', async () => { await p.fill('#restart-cost', '15'); await p.dispatchEvent('#restart-cost', 'change'); }],
      ['fairness', async () => { await p.click('#fairness'); }],
      ['the preemption mode', async () => { await p.click('#preemption-on'); }],
      ['the preemption settings', async () => { await p.fill('#preemption-noise', '0.2'); await p.dispatchEvent('#preemption-noise', 'change'); }],
      ['back to round-based', async () => { await p.click('#preemption-off'); }],
      ['the inference pool', async () => { await p.click('#inference-on'); }],
    ];
    const seen = [];
    for (const [what, edit] of edits) {
      await p.waitForSelector('#summary[data-complete="true"]', { timeout: 300000 });
      await edit();
      await p.waitForSelector('#results[data-stale="true"]', { timeout: 20000 }).catch(() => { throw new Error(`${what}: not marked stale`); });
      assert(await p.getAttribute('#summary', 'data-stale') === 'true', `${what}: the table is not marked`);
      assert(await p.isVisible('#stale-note'), `${what}: no visible note`);
      assert((await p.textContent('#stale-note')).includes('before your last edits'), `${what}: ${await p.textContent('#stale-note')}`);
      await p.click('#stale-note #stale-run');
      if (await p.waitForSelector('#run-confirm', { timeout: 1500 }).catch(() => null)) await p.click('#confirm-run');
      await fresh();
      seen.push(what);
    }
    console.log(`     stale after: ${seen.join(', ')}`);
    await p.context().close();
  });

  await test('an uploaded trace re-runs the comparison by itself', async () => {
    const p = await newPage(1440, 900);
    await p.goto(BASE);
    await summary(p, 2);
    const csv = 'job_type,arrival_s,total_steps,scale_factor\n'
      + 'ResNet-18 (batch size 128),0,200000,1\nResNet-18 (batch size 256),60,300000,2\n'
      + 'Recommendation (batch size 512),120,400000,1\nResNet-18 (batch size 128),600,150000,1\n';
    await p.setInputFiles('#trace-file', { name: 'four.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await p.waitForFunction(() => document.querySelector('#workload-label').textContent.includes('four.csv'));
    await p.waitForFunction(() => document.querySelector('#summary')?.getAttribute('data-complete') === 'true'
      && document.querySelector('#summary tbody tr')?.getAttribute('data-num-jobs') === '4', null, { timeout: 120000 });
    assert(await p.getAttribute('#results', 'data-stale') === 'false', 'the upload left stale results');
    await p.context().close();
  });

  await test('keys step and play only when no control has the focus; Escape gives them back', async () => {
    const p = await newPage(1440, 900);
    await p.goto(BASE);
    await summary(p, 2);
    const round = async () => Number(await p.getAttribute('#clock', 'data-round'));
    await p.click('#step-panel h2');
    await p.keyboard.press('ArrowRight');
    await p.waitForFunction(() => document.querySelector('#clock').getAttribute('data-round') === '1');
    // In the policy box, a field or on a button, the keys are the control's.
    await p.focus('#policy-panel input[data-policy="las"]');
    await p.keyboard.press('ArrowRight');
    await p.focus('#seed');
    await p.keyboard.press('ArrowRight');
    await p.keyboard.press(' ');
    await sleep(300);
    assert(await round() === 1, `a key in the policy box or a field stepped: round ${await round()}`);
    assert(!(await p.textContent('#play')).includes('Pause'), 'a space in a field played');
    await p.click('#step');
    await p.waitForFunction(() => document.querySelector('#clock').getAttribute('data-round') === '2');
    await p.keyboard.press('ArrowRight');
    await sleep(300);
    assert(await round() === 2, `a key on a button stepped: round ${await round()}`);
    // Escape leaves the control; then the arrow steps.
    await p.keyboard.press('Escape');
    await p.keyboard.press('ArrowRight');
    await p.waitForFunction(() => document.querySelector('#clock').getAttribute('data-round') === '3');
    // In the stepper's policy list the arrow is the list's own (it may pick another policy,
    // which starts the stepping over): it never steps.
    await p.focus('#step-policy');
    await p.keyboard.press('ArrowRight');
    await sleep(300);
    assert(await round() <= 3, `a key in the policy list stepped: round ${await round()}`);
    await p.context().close();
  });

  await test('refused values say why next to their field, keep what was typed, and name no internal field', async () => {
    const p = await newPage(1440, 900);
    await p.goto(BASE);
    await summary(p, 2);
    const cases = [
      ['#gen-jobs', '0', 'kept 100'],
      ['#gen-jobs', '2000000', '1 to 1,000,000'],
      ['#gen-rate', '-1', '0 or more'],
      ['#gen-duration-scale', '0', 'at most 100'],
      ['#gen-seed', '-5', 'whole number'],
      ['#seed', '-1', 'whole number'],
      ['#round', '0', 'positive number of seconds'],
      ['#restart-cost', '-3', '0 or more seconds'],
      ['#window', '5', 'A:B'],
      ['#restart-types', 'A3C=abc', "'abc'"],
    ];
    for (const [field, value, why] of cases) {
      await p.fill(field, value);
      await p.dispatchEvent(field, 'change');
      const note = `${field}-error`;
      await p.waitForSelector(note, { timeout: 5000 }).catch(() => { throw new Error(`${field} = ${value}: no message`); });
      const text = await p.textContent(note);
      assert(text.includes(why), `${field} = ${value}: '${text}'`);
      assert(!/num_jobs|jobs_per_hour|duration_scale|restart_cost|round_s|per_server/.test(text), `internal name in '${text}'`);
      // Next to the field: in the same label.
      assert(await p.$eval(note, (n, f) => !!n.closest('label')?.querySelector(f), field), `${note} is not next to ${field}`);
      assert(await p.inputValue(field) === value, `${field} reverted to ${await p.inputValue(field)}`);
      assert(await p.getAttribute(field, 'aria-invalid') === 'true', `${field} not marked invalid`);
    }
    // A good value takes the message away.
    await p.fill('#gen-jobs', '50');
    await p.dispatchEvent('#gen-jobs', 'change');
    await p.waitForFunction(() => !document.querySelector('#gen-jobs-error'));
    // A refused cluster cell names what it is, in words.
    await p.fill('.cluster-table tbody tr:first-child td:nth-child(3) input', '0.5');
    await p.dispatchEvent('.cluster-table tbody tr:first-child td:nth-child(3) input', 'change');
    await p.waitForSelector('#cluster-error');
    const cell = await p.textContent('#cluster-error');
    assert(cell.includes('GPUs per server') && !cell.includes('per_server'), cell);
    await p.context().close();
  });

  await test('messages name no internal identifiers: a link cut short says so in words', async () => {
    const p = await newPage(1440, 900);
    await p.goto(BASE);
    await summary(p, 2);
    await p.click('#copy-link');
    await p.waitForFunction(() => location.href.includes('#x1.'));
    const link = p.url();
    const cut = await newPage(1440, 900);
    await cut.goto(link.slice(0, link.length - 12));
    await cut.waitForSelector('#notice');
    const text = await cut.textContent('#notice');
    assert(text.includes('cut short') || text.includes('ends too early') || text.includes('garbled'), text);
    assert(!/Failed|CannotMakeProgress|NeedsMoreInput|JsValue|Some\(|None\b|Err\(/.test(text), `internal name in '${text}'`);
    await cut.context().close();
    await p.context().close();
  });

  await test('the ticked policies are listed above the policy box, and las and max_min_fairness read differently', async () => {
    const p = await newPage(1440, 900);
    await p.goto(BASE);
    await summary(p, 2);
    const chips = async () => p.$$eval('#policies-ticked .chip', (cs) => cs.map((c) => c.getAttribute('data-policy')));
    assert(JSON.stringify(await chips()) === JSON.stringify(['max_min_fairness', 'max_min_fairness_perf']), JSON.stringify(await chips()));
    // The box scrolls; the list above it does not.
    const box = await p.$eval('ul.policies', (u) => ({ scroll: u.scrollHeight > u.clientHeight, top: u.getBoundingClientRect().top }));
    const ticked = await p.$eval('#policies-ticked', (d) => d.getBoundingClientRect().top);
    assert(box.scroll && ticked < box.top, JSON.stringify({ box, ticked }));
    await p.check('#policy-panel input[data-policy="max_sum_throughput_normalized_by_cost_packed_slos"]');
    await p.waitForFunction(() => document.querySelectorAll('#policies-ticked .chip').length === 3);
    await p.click('#policies-ticked .chip[data-policy="max_min_fairness"]');
    await p.waitForFunction(() => !document.querySelector('#policies-ticked .chip[data-policy="max_min_fairness"]'));
    assert(!(await p.isChecked('#policy-panel input[data-policy="max_min_fairness"]')), 'the chip did not untick');
    const row = (name) => p.textContent(`#policy-panel li:has(input[data-policy="${name}"])`);
    const las = await row('las');
    const mmf = await row('max_min_fairness');
    assert(las !== mmf && las.trim().startsWith('las') && mmf.trim().startsWith('max_min_fairness'), `${las} | ${mmf}`);
    assert(mmf.includes('Max-min fairness') && !las.includes('max-min'), mmf);
    await p.context().close();
  });

  let generated;
  await test('a huge workload (1,000,000 jobs) shows an estimate and an in-page confirmation before its run; Cancel keeps the results', async () => {
    const p = await newPage(1440, 900);
    generated = p;
    await p.goto(BASE);
    await summary(p, 2);
    await p.fill('#gen-jobs', '1000000');
    await p.dispatchEvent('#gen-jobs', 'change');
    const t0 = Date.now();
    await p.click('#generate');
    await p.waitForFunction(() => document.querySelector('#workload-label').textContent.includes('1000000'), null, { timeout: 300000 });
    console.log(`     1,000,000 jobs generated in ${Date.now() - t0} ms`);
    await p.waitForSelector('#results[data-stale="true"]');
    await p.click('#compare');
    await p.waitForSelector('#run-confirm');
    const text = await p.textContent('#run-confirm');
    assert(text.includes('1,000,000 jobs') && /about \d/.test(text), text);
    assert(!(await p.$('#progress')), 'the run started without a confirmation');
    console.log(`     ${text.replace('Run itCancel', '')}`);
    await p.click('#confirm-cancel');
    await p.waitForFunction(() => !document.querySelector('#run-confirm'));
    assert(!(await p.$('#progress')), 'Cancel started the run');
    assert(await p.$$eval('#summary tbody tr', (r) => r.length) === 2, 'the results went');
    assert(await p.getAttribute('#results', 'data-stale') === 'true', 'the results are not marked stale');
    // Confirmed, it runs, with the time left in the progress label.
    await p.click('#compare');
    await p.click('#confirm-run');
    await p.waitForSelector('#progress');
    await p.waitForSelector('#expected');
    const label = await p.textContent('#expected');
    assert(label.includes('expected about'), label);
    await p.click('#cancel');
    await p.waitForFunction(() => !document.querySelector('#progress'));
  });

  await test('the stepper shows the first 40 active jobs, all of them on request, also asked while a step is on its way', async () => {
    const p = await newPage(1440, 900);
    await p.goto(BASE);
    await summary(p, 2);
    await p.fill('#gen-jobs', '200');
    await p.dispatchEvent('#gen-jobs', 'change');
    await p.fill('#gen-rate', '0');
    await p.dispatchEvent('#gen-rate', 'change');
    await p.click('#generate');
    await p.waitForFunction(() => document.querySelector('#workload-label').textContent.includes('200'));
    await p.click('#step');
    await p.waitForFunction(() => Number(document.querySelector('#clock').getAttribute('data-round')) >= 1, null, { timeout: 60000 });
    const rows = () => p.$$eval('#step-panel table.jobs tbody tr', (t) => t.length);
    assert(await rows() === 40, `rows ${await rows()}`);
    const toggle = '#step-panel label.hint input[type=checkbox]';
    assert((await p.textContent('#step-panel label.hint')).includes('show all 200 active jobs (160 more)'), await p.textContent('#step-panel label.hint'));
    await p.click(toggle);
    await p.waitForFunction(() => document.querySelectorAll('#step-panel table.jobs tbody tr').length === 200);
    // Back to 40 asked for together with a step: both arrive.
    await p.click('#step');
    await p.click(toggle);
    await p.waitForFunction(() => Number(document.querySelector('#clock').getAttribute('data-round')) >= 2 && document.querySelectorAll('#step-panel table.jobs tbody tr').length === 40, null, { timeout: 60000 });
    await p.context().close();
  });

  await test('one step of 1,000,000 jobs: the longest main-thread block (reported)', async () => {
    // A fresh page (no comparison's workers starting or stopping beside it).
    if (generated) await generated.context().close();
    const p = await newPage(1440, 900);
    await p.goto(BASE);
    await summary(p, 2);
    await p.fill('#gen-jobs', '1000000');
    await p.dispatchEvent('#gen-jobs', 'change');
    await p.click('#generate');
    await p.waitForFunction(() => document.querySelector('#workload-label').textContent.includes('1000000'), null, { timeout: 300000 });
    await sleep(1000);
    await p.evaluate(() => {
      window.orreryLong = [];
      new PerformanceObserver((l) => { for (const e of l.getEntries()) window.orreryLong.push(e.duration); }).observe({ type: 'longtask' });
    });
    // The setup of the first step's run gets a note first, rendered before it.
    await p.evaluate(() => {
      window.orreryNoted = false;
      new MutationObserver(() => { if (document.querySelector('#step-preparing')) window.orreryNoted = true; })
        .observe(document.body, { childList: true, subtree: true });
    });
    const blocks = [];
    for (let i = 1; i <= 3; i++) {
      await p.evaluate(() => { window.orreryLong = []; });
      await p.click('#step-panel h2');
      await p.keyboard.press('ArrowRight');
      if (i === 1) {
        // The set-up runs in the worker: the page's thread runs other tasks (a script of
        // this test, a frame) while it goes on.
        await p.waitForSelector('#step-preparing');
        assert(await p.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(!!document.querySelector('#step-preparing'))))),
          'the page did not answer during the set-up');
      }
      await p.waitForFunction((n) => Number(document.querySelector('#clock').getAttribute('data-round')) >= n, i, { timeout: 300000 });
      await sleep(500);
      blocks.push(Math.round(Math.max(0, ...await p.evaluate(() => window.orreryLong))));
    }
    console.log(`     longest main-thread block per step at 1,000,000 jobs: ${blocks.join(' ms, ')} ms (steps 1-3; 0: none over 50 ms)`);
    assert(await p.evaluate(() => window.orreryNoted), 'no note before the setup');
    assert(!(await p.$('#step-preparing')), 'the note stayed after the setup');
    await p.context().close();
  });

  if (process.env.ORRERY_SCREENSHOT) {
    const p = await newPage(1440, 900);
    await p.goto(BASE);
    await summary(p, 2);
    await p.click('#step-panel h2');
    for (let i = 0; i < 6; i++) await p.click('#step');
    await sleep(300);
    await p.screenshot({ path: process.env.ORRERY_SCREENSHOT, fullPage: true });
    await p.context().close();
  }
  if (process.env.ORRERY_SCREENSHOT_PHONE) {
    const p = await newPage(390, 844, true);
    await p.goto(BASE);
    await summary(p, 2);
    await sleep(300);
    await p.screenshot({ path: process.env.ORRERY_SCREENSHOT_PHONE });
    await p.context().close();
  }

  await test('no uncaught errors and no browser dialogs', async () => {
    assert(consoleErrors.length === 0, consoleErrors.join('\n'));
  });
});
