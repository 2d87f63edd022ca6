#!/usr/bin/env node
// heapql serve's page, timed as a person uses it (issue 48's targets): in
// headless Chromium, against `heapql serve TRACE` on a loopback socket,
// through the browser tests' driver (tests/serve/driver.js).
//
//   serve_latency.js --heapql BIN TRACE [--brushes N] [--regroups N] [--top N] [--seed S] [--json FILE]
//
// - brushed windows: N random drags across the chart (whole trace on the x axis);
// - whole-trace regroups: --by cycled through stack, frame, image, process, stack.
// Each gesture's time runs from the gesture (the mouse up, the Enter) to the
// redrawn table and flame graph, as the page marks them (window.heapqlTimings,
// report-ui/src/app-api.js), split into:
//   engine   the worker's wall time, fork to exit (Server-Timing: engine;dur=)
//   transfer the rest until the answer is parsed: the server's relaying,
//            the socket, the JSON parse in the page
//   table    the page drawing the summary and the table
//   flame    the page drawing the flame graph
// Prints a table of medians and p95s, writes all of it as JSON.
'use strict';

const fs = require('fs');
const path = require('path');
const driver = require('../../tests/serve/driver');

function parseArgs(argv) {
  const args = { brushes: 24, regroups: 10, seed: 48, traces: [] };
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    if (word === '--heapql') args.heapql = argv[++i];
    else if (word === '--brushes') args.brushes = Number(argv[++i]);
    else if (word === '--regroups') args.regroups = Number(argv[++i]);
    else if (word === '--seed') args.seed = Number(argv[++i]);
    else if (word === '--json') args.json = argv[++i];
    else if (word === '--top') args.top = argv[++i];
    else args.traces.push(word);
  }
  if (!args.heapql || args.traces.length !== 1) {
    console.error('usage: serve_latency.js --heapql BIN TRACE [--brushes N] [--regroups N] [--seed S] [--json FILE]');
    process.exit(2);
  }
  return args;
}

// A small deterministic generator: the same brushes each run.
function random(seed) {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
}

// One gesture's costs from its timings entry.
function costs(entry) {
  const steps = entry.steps;
  const total = Math.max(steps.table || 0, steps.flame || 0);
  const parsed = steps.parsed || 0;
  const engine = entry.engine_ms || 0;
  return {
    total_ms: total, engine_ms: engine, transfer_ms: Math.max(0, parsed - engine),
    table_ms: (entry.phases && (entry.phases.summary || 0) + (entry.phases.table || 0)) || 0,
    flame_ms: (entry.phases && entry.phases.flame) || 0,
    chart_ms: (entry.phases && entry.phases.chart) || 0,
    bytes: entry.bytes,
  };
}

function summary(samples) {
  const out = { count: samples.length };
  for (const key of ['total_ms', 'engine_ms', 'transfer_ms', 'table_ms', 'flame_ms', 'chart_ms', 'bytes']) {
    const values = samples.map((s) => s[key]);
    out[key] = { median: driver.median(values), p95: driver.percentile(values, 95) };
  }
  return out;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const playwright = driver.loadPlaywright();
  const chromium = driver.findChromium();
  const trace = path.resolve(args.traces[0]);
  const server = await driver.startServer(path.resolve(args.heapql), [trace, '--no-progress']);
  const { browser, context } = await driver.startBrowser(playwright, chromium, null);
  const page = await context.newPage();
  const failures = [];
  const run = async (kind, act) => {
    const before = await driver.lastGesture(page);
    await act();
    const entry = await driver.gestureDone(page, before, 300000);
    if (entry.error) failures.push(kind + ': ' + entry.error);
    const c = costs(entry);
    process.stderr.write(`${kind}: ${c.total_ms.toFixed(1)} ms (engine ${c.engine_ms.toFixed(1)})${entry.error ? ' ' + entry.error : ''}\n`);
    return entry;
  };
  try {
    // --top N: the views' rows, typed into the form first (default: the command line's).
    const first = await run('load', () => page.goto(server.url + (args.top ? '&top=' + args.top : '')));
    const next = random(args.seed);
    const brushes = [];
    for (let i = 0; i < args.brushes; i++) {
      const from = 0.02 + next() * 0.8;
      const to = Math.min(0.98, from + 0.02 + next() * 0.3);
      brushes.push(costs(await run('brush', () => driver.brush(page, from, to))));
    }
    // Whole trace again, then regroups.
    await run('whole-trace', () => page.locator('#chart-reset').click());
    const regroups = [];
    const groupings = ['frame', 'image', 'process', 'stack'];
    for (let i = 0; i < args.regroups; i++) {
      const by = groupings[i % groupings.length];
      const input = page.locator('#query-fields input[data-field="by"]');
      regroups.push(costs(await run('regroup', async () => {
        await input.fill(by);
        await input.press('Enter');
      })));
    }
    const result = {
      trace, top: args.top || null, heapql: path.resolve(args.heapql), seed: args.seed, first_view: costs(first),
      brush: summary(brushes), regroup: summary(regroups), brushes, regroups, failures,
    };
    const row = (name, s) => {
      const cell = (key) => `${s[key].median.toFixed(0)} / ${s[key].p95.toFixed(0)}`.padStart(17);
      return `${name.padEnd(20)}${String(s.count).padStart(4)}${cell('total_ms')}${cell('engine_ms')}${cell('transfer_ms')}` +
        `${cell('table_ms')}${cell('flame_ms')}`;
    };
    console.log(`heapql serve latency, ${trace}${args.top ? ', --top ' + args.top : ''} (ms, median / p95)`);
    console.log(`${'gesture'.padEnd(20)}${'n'.padStart(4)}${'total'.padStart(17)}${'engine'.padStart(17)}` +
      `${'transfer'.padStart(17)}${'table'.padStart(17)}${'flame'.padStart(17)}`);
    console.log(row('brushed window', result.brush));
    console.log(row('whole-trace regroup', result.regroup));
    if (failures.length) console.log('failures:\n  ' + failures.join('\n  '));
    if (args.json) fs.writeFileSync(args.json, JSON.stringify(result, null, 2) + '\n');
  } finally {
    await browser.close();
    await driver.stopServer(server);
  }
  return failures.length ? 1 : 0;
}

main().then((code) => process.exit(code), (error) => {
  console.error(error && error.stack || error);
  process.exit(1);
});
