// Times the simulator's computation in V8 (Node) without a page: the module that
// tests/browser/compute.sh builds runs an experiment (a share link or its fragment) several
// times in one process, the first run cold and the rest warm, and prints each build's
// warm minimum and median and the first policy's average JCT, whose bits must equal the
// native CLI's (`orrery compare --link LINK --format json`). With several builds it runs
// them in rounds, each run of a build in a fresh process, so that a shared machine's
// changing load falls on every build alike. Not a test.
//   node tests/browser/compute.mjs '#x1....' /tmp/compute [/tmp/compute-other ...]
// ORRERY_COMPUTE_RUNS: runs per process (default 4, the first one cold);
// ORRERY_COMPUTE_ROUNDS: processes per build (default 3).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { median } from './harness.mjs';

const [link, ...builds] = process.argv.slice(2);
if (process.env.ORRERY_COMPUTE_ONE) {
  // One process: one build's runs, printed as JSON.
  const dir = path.resolve(builds[0]);
  const glue = await import(pathToFileURL(path.join(dir, 'compute.js')).href);
  const wasm = glue.initSync({ module: readFileSync(path.join(dir, 'compute_bg.wasm')) });
  const bytes = new TextEncoder().encode(link);
  const times = [];
  let jct = NaN;
  for (let r = 0; r < Number(process.env.ORRERY_COMPUTE_RUNS || 4); r++) {
    for (const b of bytes) wasm.push(b);
    const t = performance.now();
    jct = wasm.run();
    times.push(performance.now() - t);
  }
  console.log(JSON.stringify({ times, jct }));
  process.exit(0);
}
if (!link || builds.length === 0) {
  console.error('usage: node tests/browser/compute.mjs LINK BUILD [BUILD...]');
  process.exit(2);
}
const rounds = Number(process.env.ORRERY_COMPUTE_ROUNDS || 3);
const results = builds.map(() => ({ cold: [], warm: [], jct: new Set() }));
for (let r = 0; r < rounds; r++) {
  builds.forEach((b, i) => {
    const out = execFileSync(process.execPath, [new URL(import.meta.url).pathname, link, b], {
      env: { ...process.env, ORRERY_COMPUTE_ONE: '1' },
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    });
    const { times, jct } = JSON.parse(out.trim().split('\n').pop());
    results[i].cold.push(times[0]);
    results[i].warm.push(...times.slice(1));
    results[i].jct.add(jct);
  });
}
builds.forEach((b, i) => {
  const { cold, warm, jct } = results[i];
  const ms = (v) => `${v.toFixed(0)} ms`;
  console.log(
    `${b.padEnd(24)} warm min ${ms(Math.min(...warm))} median ${ms(median(warm))}` +
      `  cold median ${ms(median(cold))}  avg JCT ${[...jct].join(', ')}`,
  );
});
