// Where the page and its workers spend their time: records a Chromium trace with V8's
// sampling profiler on every thread (the page's and each worker's) from navigation until
// the first chart (ORRERY_PROFILE_UNTIL=complete: until the summary is complete; =rerun: one
// more run of the same experiment in the same page, from its click to its summary),
// and prints for each thread its busiest functions by self time and by total time.
// Not a test. Function names need a module that keeps its name section, which the page's
// build drops: `bash tests/browser/profile-build.sh` makes one in /tmp/dist-prof, then
//   ORRERY_DIST=/tmp/dist-prof node tests/browser/profile.mjs ['#fragment']
import path from 'node:path';
import { root, sleep, serve, launch, compareAgain } from './harness.mjs';

const PORT = 8097;
const BASE = `http://127.0.0.1:${PORT}/`;
const dist = process.env.ORRERY_DIST || path.join(root, 'dist');
const until = process.env.ORRERY_PROFILE_UNTIL || 'first-chart';
const top = Number(process.env.ORRERY_PROFILE_TOP || 25);

const server = await serve(dist, PORT);
const browser = await launch();
let events;
try {
  const page = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
  const categories = ['v8', 'disabled-by-default-v8.cpu_profiler', 'devtools.timeline', '__metadata'];
  const complete = () => page.waitForSelector('#summary[data-complete=true] tbody tr', { timeout: 300000 });
  if (until === 'rerun') {
    // A later run in the same page: the module's hot functions are optimised by then.
    await page.goto(BASE + (process.argv[2] || ''));
    await complete();
    await browser.startTracing(page, { categories });
    await compareAgain(page);
    console.log(`computing in the worker: ${await page.getAttribute('#run-ms', 'data-compute-ms')} ms`);
  } else {
    await browser.startTracing(page, { categories });
    await page.goto(BASE + (process.argv[2] || ''));
    if (until === 'complete') await complete();
    else await page.waitForFunction(() => document.documentElement.hasAttribute('data-first-chart-ms'), null, { timeout: 120000 });
  }
  const marks = await page.evaluate(() => performance.getEntriesByType('mark').map((m) => `${m.name} ${m.startTime.toFixed(0)} ms`));
  await sleep(200);
  events = JSON.parse((await browser.stopTracing()).toString()).traceEvents;
  console.log(`marks: ${marks.join(', ')}`);
} finally {
  await browser.close();
  server.kill();
}

const threadName = new Map();
for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') threadName.set(`${e.pid}:${e.tid}`, e.args.name);
// One profile per thread: its nodes (id -> {name, parent}) and its samples with their time.
const profiles = new Map();
for (const e of events) {
  if (e.name !== 'ProfileChunk') continue;
  const key = `${e.pid}:${e.id}`;
  if (!profiles.has(key)) profiles.set(key, { thread: threadName.get(`${e.pid}:${e.tid}`) || `${e.pid}:${e.tid}`, nodes: new Map(), samples: [], deltas: [] });
  const p = profiles.get(key);
  const cpu = e.args.data.cpuProfile || {};
  for (const n of cpu.nodes || []) p.nodes.set(n.id, { name: n.callFrame.functionName || `(${n.callFrame.url ? path.basename(n.callFrame.url) : 'anonymous'})`, parent: n.parent });
  p.samples.push(...(cpu.samples || []));
  p.deltas.push(...(e.args.data.timeDeltas || []));
}
for (const p of profiles.values()) {
  const self = new Map();
  const total = new Map();
  let busy = 0;
  p.samples.forEach((id, i) => {
    const ms = Math.max(0, (p.deltas[i + 1] ?? 0) / 1000);
    const leaf = p.nodes.get(id);
    if (!leaf || leaf.name === '(idle)' || leaf.name === '(program)') return;
    busy += ms;
    self.set(leaf.name, (self.get(leaf.name) || 0) + ms);
    const seen = new Set();
    for (let n = id; n !== undefined; n = p.nodes.get(n)?.parent) {
      const name = p.nodes.get(n)?.name;
      if (!name || seen.has(name)) continue;
      seen.add(name);
      total.set(name, (total.get(name) || 0) + ms);
    }
  });
  if (busy < 5) continue;
  console.log(`\n== ${p.thread}: ${busy.toFixed(0)} ms busy`);
  const show = (m, label) => {
    console.log(`  -- by ${label}`);
    for (const [name, ms] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${ms.toFixed(1).padStart(8)} ms  ${name.slice(0, 110)}`);
  };
  show(self, 'self time');
  show(total, 'total time');
}
