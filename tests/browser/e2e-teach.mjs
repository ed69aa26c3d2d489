// Browser tests of the page's teaching features in headless Chromium: every paper preset
// opened by its link (#preset=NAME) runs in the page, shows the paper's number beside its
// own, and (with them) every mechanism's summary table: a glossary tooltip and accessible
// description on every column header and chart axis, a paper link on every policy line, the profile's job
// types listed in the Workload panel, and an introduction on the panels. Gavel's preset must
// show heterogeneity-aware LAS at least 20% below plain LAS in average JCT, and the page's
// numbers must equal the native CLI's (`orrery compare --preset NAME`); the gavel-load preset sweeps
// its figure against the load by itself, with the numbers of `orrery sweep --preset gavel-load`.
import { execFileSync } from 'node:child_process';
import { run, BASE, ORRERY, test, assert, summary } from './harness.mjs';

// Paper presets: name, mechanism, rows, first policy, job types the profile lists.
const PRESETS = [
  { name: 'gavel-paper', rows: 2, first: 'max_min_fairness', types: 26, ratio: ['max_min_fairness_perf', 'max_min_fairness'] },
  { name: 'pollux', rows: 3, first: 'pollux', types: 6 },
  { name: 'aryl', rows: 4, first: 'aryl', types: 26 },
  { name: 'pickyman', rows: 5, first: 'pickyman', types: 26 },
  { name: 'dl2', rows: 5, first: 'dl2', types: 8 },
];

await run(async (browser) => {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const errors = [];
  const times = {};

  for (const p of PRESETS) {
    await test(`paper preset ${p.name}: opens by link, runs, and states the paper's number beside ours`, async () => {
      const page = await context.newPage();
      page.on('pageerror', (e) => errors.push(String(e)));
      const t0 = Date.now();
      await page.goto(`${BASE}#preset=${p.name}`);
      const rows = await summary(page, p.rows, 120000, p.first);
      times[p.name] = Date.now() - t0;
      assert(rows.length === p.rows, JSON.stringify(rows));
      assert(times[p.name] < 30000, `${p.name} took ${times[p.name]} ms in the page`);
      await page.waitForSelector('#paper-claim .claim-line');
      const claim = await page.$eval('#paper-claim', (el) => ({
        text: el.textContent,
        lines: [...el.querySelectorAll('.claim-line')].map((l) => ({ text: l.textContent, ratio: Number(l.getAttribute('data-ratio')), paper: l.querySelector('.paper-number')?.textContent, ours: l.querySelector('.our-number')?.textContent })),
        link: el.querySelector('.source a')?.getAttribute('href'),
      }));
      assert(claim.lines.length >= 1, JSON.stringify(claim));
      assert(claim.lines.every((l) => l.paper.includes('reports') && /here: \d+\.\d\dx (lower|higher)/.test(l.ours) && l.ratio > 0), JSON.stringify(claim.lines));
      assert(claim.link && claim.link.startsWith('https://'), JSON.stringify(claim));
      assert(claim.text.includes('Source:'), claim.text);
      // The same numbers natively, from the CLI's preset.
      const native = JSON.parse(execFileSync(ORRERY, ['compare', '--preset', p.name, '--format', 'json'], { encoding: 'utf8', maxBuffer: 1 << 26 }))
        .map((s) => ({ policy: s.policy, avg: s.avg_jct_s, makespan: s.makespan_s }));
      assert(JSON.stringify(native) === JSON.stringify(rows), `${JSON.stringify(native)} != ${JSON.stringify(rows)}`);
      if (p.ratio) {
        const [aware, plain] = p.ratio.map((n) => rows.find((r) => r.policy === n).avg);
        assert(aware <= 0.8 * plain, `heterogeneity-aware LAS ${aware} s is not 20% below LAS ${plain} s`);
        console.log(`     ${p.ratio[0]} ${(aware / 3600).toFixed(2)} h vs ${p.ratio[1]} ${(plain / 3600).toFixed(2)} h: ${(100 * (1 - aware / plain)).toFixed(1)}% lower`);
      }
      console.log(`     ${p.name}: ${times[p.name]} ms to the complete summary; ${claim.lines.map((l) => l.ours).join('; ')}`);

      // Every summary column of this mechanism has its glossary tooltip and description.
      const heads = await page.$$eval('#summary thead th', (ths) => ths.map((th) => ({ label: th.textContent, title: th.getAttribute('title'), desc: th.getAttribute('aria-description'), term: th.getAttribute('data-term') })));
      const cells = await page.$$eval('#summary tbody tr:first-child td', (tds) => tds.length);
      assert(heads.length === cells && heads.length >= 9, `${heads.length} headers, ${cells} cells`);
      assert(heads.every((h) => h.title && h.title.length > 20 && h.desc === h.title && h.term), JSON.stringify(heads.filter((h) => !(h.title && h.desc === h.title))));
      if (p.name === 'dl2') {
        assert(heads.some((h) => h.label === 'reward/slot') && !heads.some((h) => h.label === 'total reward'), JSON.stringify(heads));
        const per = await page.$$eval('#summary tbody tr', (trs) => trs.map((tr) => tr.children[10].textContent));
        assert(new Set(per).size > 1, `reward per slot the same for every policy: ${per}`);
      }
      if (p.name === 'gavel-paper') {
        const rho = heads.find((h) => h.label === 'max rho');
        assert(rho && rho.title.includes('isolated'), JSON.stringify(rho));
      }

      // Every policy line links its paper.
      const lines = await page.$$eval('#policy-panel ul.policies li', (lis) => lis.map((li) => ({
        policy: li.querySelector('input[type=checkbox]')?.getAttribute('data-policy'),
        href: li.querySelector('.paper a')?.getAttribute('href'),
        text: li.querySelector('.paper')?.textContent,
      })));
      assert(lines.length >= p.rows, JSON.stringify(lines));
      assert(lines.every((l) => l.href && l.href.startsWith('https://') && /\(\S.* \d{4}\)/.test(l.text)), JSON.stringify(lines.filter((l) => !l.href)));

      // The profile's job types, with speeds per GPU type.
      const types = await page.$$eval('#job-types-table tbody tr', (trs) => trs.map((tr) => ({ name: tr.getAttribute('data-job-type'), speeds: [...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent) })));
      assert(types.length === p.types, `${types.length} job types listed, expected ${p.types}: ${JSON.stringify(types.map((t) => t.name))}`);
      assert(types.every((t) => t.name && t.speeds.some((s) => Number(s) > 0)), JSON.stringify(types));

      // Every chart on show names its two axes, each with its meaning as tooltip and
      // accessible description.
      const charts = await page.$$eval('figure.chart', (fs) => fs.filter((f) => f.offsetParent !== null).map((f) => ({
        chart: f.getAttribute('data-chart'),
        axes: [...f.querySelectorAll('figcaption.axes abbr')].map((a) => ({ axis: a.getAttribute('data-axis'), label: a.textContent, title: a.getAttribute('title'), desc: a.getAttribute('aria-description') })),
      })));
      assert(charts.length >= 4, JSON.stringify(charts));
      assert(charts.every((c) => c.axes.length === 2 && c.axes.every((a) => a.label && a.title && a.title.length > 20 && a.desc === a.title)), JSON.stringify(charts.filter((c) => c.axes.length !== 2)));

      // Each panel on show opens with its introduction.
      const intros = await page.$$eval('section.panel', (ss) => ss.filter((s) => s.offsetParent !== null).map((s) => [s.id, !!s.querySelector('details.intro summary')]));
      assert(intros.length >= 5 && intros.every(([, has]) => has), JSON.stringify(intros));
      await page.close();
    });
  }

  await test('the gavel-load preset sweeps JCT against load by itself, as orrery sweep does, and states the paper\'s figure beside ours', async () => {
    const page = await context.newPage();
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${BASE}#preset=gavel-load`);
    await page.waitForSelector('#sweep-table[data-complete="true"]', { timeout: 300000 });
    const cells = await page.$$eval('#sweep-table td[data-policy]', (tds) => tds.map((t) => ({ policy: t.getAttribute('data-policy'), rate: Number(t.getAttribute('data-value')), avg: Number(t.getAttribute('data-avg-jct-s')) })));
    assert(cells.length === 8, JSON.stringify(cells));
    // The CLI's sweep of the same preset: the same cells, number for number.
    const csv = execFileSync(ORRERY, ['sweep', '--preset', 'gavel-load'], { encoding: 'utf8' }).trim().split('\n').slice(2);
    for (const line of csv) {
      const f = line.replace(/"[^"]*"/, 'CLUSTER').split(',');
      const [policy, rate, avg] = [f[1], Number(f[4]), Number(f[9])];
      const c = cells.find((x) => x.policy === policy && x.rate === rate);
      assert(c && c.avg === avg, `${policy} at ${rate}: page ${c && c.avg}, CLI ${avg}`);
    }
    const sweepMs = await page.getAttribute('#sweep-ms', 'data-ms');
    console.log(`     gavel-load: the sweep's 8 runs took ${sweepMs} ms in the page (with the comparison beside it)`);
    const claim = await page.$eval('#sweep-claim', (el) => ({ points: Number(el.getAttribute('data-points')), text: el.textContent }));
    assert(claim.points === 4 && claim.text.includes('Gavel reports') && claim.text.includes('at 8 jobs/h') && claim.text.includes('OSDI'), JSON.stringify(claim));
    // The comparison ran too, at the preset's 8 jobs per hour.
    await summary(page, 2);
    // Picking another scenario and then this one from the list sweeps again.
    await page.selectOption('#scenario', 'default');
    await summary(page, 2);
    await page.selectOption('#scenario', 'gavel-load');
    await page.waitForSelector('#sweep-progress, #sweep-cancel', { timeout: 60000 });
    await page.waitForSelector('#sweep-table[data-complete="true"]', { timeout: 300000 });
    await page.close();
  });

  await test('the job types name the bundled profile\'s, with its throughputs', async () => {
    const page = await context.newPage();
    await page.goto(`${BASE}#preset=default`);
    await summary(page, 2);
    await page.click('#job-types summary');
    const a3c = await page.$eval('#job-types-table tr[data-job-type="A3C"]', (tr) => [...tr.children].map((td) => td.textContent));
    const gpus = await page.$$eval('#job-types-table thead th', (ths) => ths.map((th) => th.textContent));
    assert(a3c[gpus.indexOf('v100')] === '5.20' && a3c[gpus.indexOf('k80')] === '3.90', JSON.stringify([gpus, a3c]));
    assert(await page.isVisible('#job-types-table'), 'job types hidden after opening');
    await page.close();
  });

  await test('no uncaught page errors', async () => {
    assert(errors.length === 0, errors.join('\n'));
    console.log(`     page times (ms): ${JSON.stringify(times)}`);
  });
});
