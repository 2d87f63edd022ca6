#!/usr/bin/env node
// The served app (report-ui/src/app.html, docs/serve.md "The page") in
// Debian's headless Chromium against the real `heapql serve` on a loopback
// socket, driven as a person uses it: a drag on the chart, typing in the
// form generated from the schema, clicks. Each answer the page drew is
// compared with what the command line prints for the same view (the view's
// options read back from the page's address), and a screenshot of each state
// goes to the artifacts folder.
//
//   run_serve_test.js --heapql BIN --source-dir DIR --artifacts DIR [--only STEP[,STEP...]]
//
// Exit 0 when every step passed, 1 when one failed, 77 (skipped) without
// playwright-core or Chromium.
'use strict';

const assert = require('assert');
const { execFileSync, spawnSync } = require('child_process');
const fs = require('fs');
const http = require('http');
const path = require('path');
const driver = require('./driver');

function parseArgs(argv) {
  const args = {};
  for (let i = 0; i < argv.length; i += 2) args[argv[i].replace(/^--/, '')] = argv[i + 1];
  for (const needed of ['heapql', 'source-dir', 'artifacts']) {
    if (!args[needed]) {
      console.error('usage: run_serve_test.js --heapql BIN --source-dir DIR --artifacts DIR [--only STEPS]');
      process.exit(2);
    }
  }
  return args;
}

const args = parseArgs(process.argv.slice(2));
const playwright = driver.loadPlaywright();
const chromium = driver.findChromium();
const artifacts = path.resolve(args.artifacts);
const work = path.join(artifacts, 'work');
const only = args.only ? new Set(args.only.split(',')) : null;
const heapql = path.resolve(args.heapql);
const exampleTrace = path.resolve(args['source-dir'], 'examples/traces/memory_test_app.zst');

// ---- two small traces to diff (event CSV, docs/import.md) --------------------------

function writeCsv(file, stacks) {
  const lines = ['time,event,process,thread,heap,address,size,old_address,stack'];
  let time = 0;
  let address = 0x10000;
  for (const [size, count, frames] of stacks) {
    for (let i = 0; i < count; i++) {
      time += 1000;
      address += 16;
      lines.push(`${time},alloc,demo (7),,,0x${address.toString(16)},${size},,"${frames.join(';')}"`);
      if (i % 2 === 1) lines.push(`${time + 500},free,demo (7),,,0x${address.toString(16)},,,`);
    }
  }
  fs.writeFileSync(path.join(work, file), lines.join('\n') + '\n');
}

// ---- the command line, for comparing -------------------------------------------------

function cli(argv) {
  const result = spawnSync(heapql, argv, { cwd: work, encoding: 'utf8', maxBuffer: 1 << 30 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function cliJson(argv) {
  const result = cli(argv.concat(['--format', 'json']));
  if (result.code !== 0) throw new Error('heapql ' + argv.join(' ') + ' exited ' + result.code + ': ' + result.stderr);
  return JSON.parse(result.stdout);
}

// The view's state as the page's address holds it.
function stateOf(url) {
  const state = [];
  for (const [name, value] of new URL(url).searchParams) if (name !== 'token') state.push([name, value]);
  return state;
}

// A pattern with a space and a quote: the address, the API and the copied
// command line (quoted for sh) must all carry it whole.
const ODD_PATTERN = "no such frame's at all";

const APP_KEYS = new Set(['token', 'mode', 'trace', 'b', 'window-a', 'window-b', 'recipe', 'param', 'drill']);

function get1(state, name) {
  const found = state.find(([n]) => n === name);
  return found ? found[1] : null;
}

function optionArgs(state) {
  const argv = [];
  for (const [name, value] of state) {
    if (APP_KEYS.has(name)) continue;
    argv.push('--' + name);
    if (value !== '') argv.push(value);
  }
  return argv;
}

// What `heapql` prints (as JSON) for the view in `url`: the test's own reading of the address.
function cliFor(url, traces) {
  const state = stateOf(url);
  const mode = get1(state, 'mode') || 'query';
  const trace = traces.find((t) => t.key === (get1(state, 'trace') || '1'));
  if (mode === 'recipe') {
    return cliJson(['run', get1(state, 'recipe'), trace.path].concat(
      state.filter(([n]) => n === 'param').flatMap(([, v]) => ['--param', v])));
  }
  if (mode === 'diff') {
    const b = traces.find((t) => t.key === (get1(state, 'b') || trace.key));
    const sides = b.key === trace.key ? [trace.path, '--window-a', get1(state, 'window-a'), '--window-b', get1(state, 'window-b')]
      : [trace.path, b.path];
    return cliJson(['diff'].concat(sides, optionArgs(state)));
  }
  return cliJson(['query', trace.path].concat(optionArgs(state)));
}

// ---- the page ---------------------------------------------------------------------

async function shown(page) {
  return page.evaluate(() => {
    const s = window.heapqlApp.app.shown;
    return s ? { text: s.text, mode: s.mode } : null;
  });
}

async function shownJson(page) {
  const s = await shown(page);
  assert(s, 'the page shows no answer');
  return JSON.parse(s.text);
}

async function pageState(page) {
  return page.evaluate(() => ({
    message: document.getElementById('message').hidden ? null : document.getElementById('message').textContent,
    rows: document.querySelectorAll('#rows tbody tr').length,
    frames: document.querySelectorAll('#flame svg g.frame').length,
    problems: window.heapqlProblems,
  }));
}

// The page drew `json` without a problem: every row in the table, a flame graph.
async function assertDrawn(page, json) {
  const state = await pageState(page);
  assert.strictEqual(state.message, null, 'the page shows a message: ' + state.message);
  assert.deepStrictEqual(state.problems, { errors: [], violations: [] }, 'the page hit problems');
  assert.strictEqual(state.rows, json.rows.length, 'table rows');
  if (json.rows.length) assert(state.frames > 0, 'no flame graph frames drawn');
}

// Does what `act` does and waits until the page has drawn its answer.
async function gesture(page, act) {
  const before = await driver.lastGesture(page);
  await act();
  return driver.gestureDone(page, before);
}

async function fillField(page, field, value, index) {
  const input = page.locator(`#query-fields [data-field="${field}"]:is(input, select)`).nth(index || 0);
  if ((await input.evaluate((node) => node.tagName)) === 'SELECT') {
    await input.selectOption(value);
  } else {
    await input.fill(value);
    await input.press('Enter');
  }
}

function fetchJson(server, pathName) {
  return new Promise((resolve, reject) => {
    http.get(server.base + pathName, { headers: { 'X-Heapql-Token': server.token } }, (response) => {
      let body = '';
      response.on('data', (chunk) => { body += chunk; });
      response.on('end', () => {
        try {
          resolve(JSON.parse(body));
        } catch (error) {
          reject(new Error(pathName + ' answered ' + response.statusCode + ': ' + body.slice(0, 300)));
        }
      });
    }).on('error', reject);
  });
}

// ---- the steps, in the order a person might take them --------------------------------

const steps = [];
function step(name, body) {
  steps.push({ name, body });
}

step('load', async ({ page, server, traces }) => {
  const done = await gesture(page, () => page.goto(server.url));
  assert(!done.error, 'the first view failed: ' + done.error);
  const json = await shownJson(page);
  assert.deepStrictEqual(json, cliFor(page.url(), traces), 'the first view differs from heapql query --format json');
  await assertDrawn(page, json);
  // The form is the schema's: every query option (its own group) has a field, none by hand.
  const schema = await fetchJson(server, '/api/schema');
  const fields = await page.$$eval('#query-fields .field', (nodes) => nodes.map((n) => n.dataset.field));
  const name = (o) => o.option.replace(/^--/, '');
  const wanted = schema.options.filter((o) => o.field && !['series', 'detail'].includes(name(o))).map(name);
  assert(wanted.length >= 10, 'the schema lists only ' + wanted.length + ' query options');
  for (const field of wanted) assert(fields.includes(field), 'the form has no field for --' + field);
  for (const field of fields) assert(wanted.includes(field), 'the form has --' + field + ', not a query option of the schema');
  // A cull list and suppressions are chosen from the lists the server names.
  const cullLists = await page.$$eval('#query-fields select[data-field="cull-list"] option', (n) => n.map((o) => o.value));
  assert.deepStrictEqual(cullLists.filter((v) => v), schema.cull_lists, 'the cull-list choices');
});

step('brush', async ({ page, traces }) => {
  const done = await gesture(page, () => driver.brush(page, 0.3, 0.6));
  assert(!done.error, done.error);
  const window = get1(stateOf(page.url()), 'window');
  assert(window && /\.\./.test(window), 'the address holds no window after a brush: ' + page.url());
  const json = await shownJson(page);
  assert(json.window.start_ns > 0, 'the brushed window starts at 0');
  assert(json.window.end_ns < json.trace.duration_ns, 'the brushed window ends at the trace end');
  assert.deepStrictEqual(json, cliFor(page.url(), traces), 'the brushed view differs from heapql query --window');
  await assertDrawn(page, json);
  // The peak followed: it is the window's.
  const peak = await page.evaluate(() => document.querySelector('#summary').textContent);
  assert(peak.includes('peak'), 'no peak in the summary');
  // Two brushes in a row: the first answer is not wanted any more; the page ends on the second.
  const before = await driver.lastGesture(page);
  await driver.brush(page, 0.1, 0.3);
  await driver.brush(page, 0.5, 0.8);
  await page.waitForFunction((n) => window.heapqlTimings.filter((t) => t.id > n && t.done).length >= 1 &&
    window.heapqlTimings[window.heapqlTimings.length - 1].done, before);
  const second = await shownJson(page);
  assert.deepStrictEqual(second, cliFor(page.url(), traces), 'after two quick brushes the page does not show the second');
  assert(second.window.start_ns > json.window.start_ns, 'the second brush\'s window is not the one shown');
  await assertDrawn(page, second);
});

step('regroup', async ({ page, traces }) => {
  const done = await gesture(page, () => fillField(page, 'by', 'frame'));
  assert(!done.error, done.error);
  assert.strictEqual(get1(stateOf(page.url()), 'by'), 'frame');
  const json = await shownJson(page);
  assert.deepStrictEqual(json.query.by, ['frame']);
  assert.deepStrictEqual(json, cliFor(page.url(), traces));
  await assertDrawn(page, json);
  await gesture(page, () => fillField(page, 'sort', 'st'));
  const sorted = await shownJson(page);
  assert.strictEqual(sorted.query.sort, 'st');
  assert.deepStrictEqual(sorted, cliFor(page.url(), traces));
});

step('filter', async ({ page, traces }) => {
  await gesture(page, () => fillField(page, 'by', 'stack'));
  await gesture(page, () => fillField(page, 'require', 'main'));
  // A repeatable option: "+" adds another input.
  await page.locator('#query-fields .field[data-field="exclude"] .add-more').click();
  await gesture(page, () => fillField(page, 'exclude', 'AllocateSteadyState', 0));
  await gesture(page, () => fillField(page, 'exclude', ODD_PATTERN, 1));
  const state = stateOf(page.url());
  assert.deepStrictEqual(state.filter(([n]) => n === 'exclude').map(([, v]) => v),
    ['AllocateSteadyState', ODD_PATTERN], 'both excludes in the address');
  const json = await shownJson(page);
  assert.deepStrictEqual(json, cliFor(page.url(), traces));
  for (const row of json.rows) {
    assert(!row.key[0].some((frame) => frame.includes('AllocateSteadyState')), 'an excluded frame is still shown');
  }
  await assertDrawn(page, json);
  // A cull list from the served lists' names.
  await gesture(page, () => fillField(page, 'cull-list', 'stl'));
  assert.strictEqual(get1(stateOf(page.url()), 'cull-list'), 'stl');
  assert.deepStrictEqual(await shownJson(page), cliFor(page.url(), traces));
  // A flag is a checkbox.
  const flag = page.locator('#query-fields .field[data-field="no-default-cull"] input[type=checkbox]');
  await gesture(page, () => flag.check());
  assert.strictEqual(get1(stateOf(page.url()), 'no-default-cull'), '');
  assert.deepStrictEqual(await shownJson(page), cliFor(page.url(), traces));
  await gesture(page, () => flag.uncheck());
});

step('drill', async ({ page, traces }) => {
  const before = await driver.lastGesture(page);
  await page.locator('#rows tbody tr').first().locator('td').first().click();
  await driver.gestureDone(page, before);
  await page.waitForFunction(() => !document.getElementById('drill-section').hidden ||
    !document.getElementById('message').hidden);
  assert.strictEqual(get1(stateOf(page.url()), 'drill'), '1', 'the address holds the row drilled into');
  const state = stateOf(page.url()).filter(([n]) => n !== 'drill').concat([['detail', '1']]);
  const trace = traces.find((t) => t.key === get1(state, 'trace'));
  const expected = cli(['query', trace.path, '--format', 'json'].concat(optionArgs(state)));
  if (expected.code !== 0) {
    // A heapql without --detail: the page says what the CLI said.
    const message = await page.locator('#message').textContent();
    assert(message.includes(expected.stderr.trim().split('\n')[0]), 'the message is not the CLI\'s: ' + message);
    return;
  }
  const detail = JSON.parse(expected.stdout).detail;
  assert(detail, 'heapql --detail gave no detail');
  await page.waitForFunction(() => document.querySelectorAll('#drill-stacks .stack').length > 0);
  const drawn = await page.evaluate(() => ({
    stacks: Array.from(document.querySelectorAll('#drill-stacks .stack'), (s) => Array.from(s.querySelectorAll('li'), (li) => li.textContent)),
    sizes: document.querySelectorAll('#drill-sizes tbody tr').length,
    lifetimes: document.querySelectorAll('#drill-lifetimes tbody tr').length,
  }));
  assert.deepStrictEqual(drawn.stacks, detail.stacks.map((s) => s.frames), 'the drilled row\'s stacks');
  assert.strictEqual(drawn.sizes, Math.max(1, detail.sizes.length), 'size histogram bins');
  assert.strictEqual(drawn.lifetimes, Math.max(1, detail.lifetimes.length), 'lifetime bins');
  const selected = await page.locator('#rows tbody tr.selected').count();
  assert.strictEqual(selected, 1, 'the row drilled into is marked');
});

step('history', async ({ page, traces }) => {
  const here = page.url();
  const text = (await shown(page)).text;
  // Reload with the address: the same view.
  await page.reload();  // a new page: its gestures count from 0
  const reloaded = await driver.gestureDone(page, 0);
  assert(!reloaded.error, reloaded.error);
  assert.strictEqual(page.url(), here);
  assert.strictEqual((await shown(page)).text, text, 'the reloaded view differs');
  // Back: the view before the drill-down (and before that, the flag's).
  await gesture(page, () => page.goBack());
  const back = page.url();
  assert.notStrictEqual(back, here, 'back did not change the address');
  assert.strictEqual(get1(stateOf(back), 'drill'), null);
  assert.deepStrictEqual(await shownJson(page), cliFor(back, traces));
  await gesture(page, () => page.goForward());
  assert.strictEqual(page.url(), here);
  assert.strictEqual((await shown(page)).text, text, 'forward does not come back to the same view');
  // The form shows what the address says.
  const exclude = await page.$$eval('#query-fields [data-field="exclude"]:is(input)', (nodes) => nodes.map((n) => n.value));
  assert.deepStrictEqual(exclude, ['AllocateSteadyState', ODD_PATTERN]);
});

step('copy-command', async ({ page }) => {
  await page.locator('#copy-command').click();
  const text = await page.locator('#command-line').textContent();
  assert(text.startsWith('heapql query '), 'not a heapql query command: ' + text);
  const clipboard = await page.evaluate(() => navigator.clipboard.readText());
  assert.strictEqual(clipboard, text, 'the clipboard holds another text');
  // Run for real, by a POSIX shell, with the installed heapql's name mapped to this one.
  const result = spawnSync('sh', ['-c', text.replace(/^heapql /, '"$HEAPQL" ') + ' --format json'],
    { cwd: work, encoding: 'utf8', env: Object.assign({}, process.env, { HEAPQL: heapql }), maxBuffer: 1 << 30 });
  assert.strictEqual(result.status, 0, result.stderr);
  assert.deepStrictEqual(JSON.parse(result.stdout), await shownJson(page), 'the command\'s JSON differs from the page\'s');
});

step('save-recipe', async ({ page, traces }) => {
  await page.locator('#recipe-name').fill('my view');
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#save-recipe').click()]);
  assert.strictEqual(download.suggestedFilename(), 'my_view.lua');
  const file = path.join(work, 'my_view.lua');
  await download.saveAs(file);
  fs.copyFileSync(file, path.join(artifacts, 'my_view.lua'));
  const trace = traces.find((t) => t.key === get1(stateOf(page.url()), 'trace'));
  const ran = cliJson(['run', file, trace.path]);
  const json = await shownJson(page);
  assert.deepStrictEqual(ran.rows.map((r) => [r.key, r.so, r.soc, r.st, r.stc, r.src]),
    json.rows.map((r) => [r.key, r.so, r.soc, r.st, r.stc, r.src]), 'the recipe\'s rows differ from the page\'s');
  for (const m of ['so', 'soc', 'st', 'stc', 'src']) assert.strictEqual(ran.totals[m], json.totals[m], 'totals ' + m);
});

step('bad-query', async ({ page, traces }) => {
  const done = await gesture(page, () => fillField(page, 'top', 'many'));
  assert(done.error, 'a bad --top drew an answer');
  const trace = traces.find((t) => t.key === get1(stateOf(page.url()), 'trace'));
  const expected = cli(['query', trace.path, '--top', 'many', '--format', 'json']);
  assert.notStrictEqual(expected.code, 0);
  const message = await page.locator('#message').textContent();
  assert(await page.locator('#message').isVisible(), 'no message shown');
  assert(message.includes(expected.stderr.trim().split('\n').pop()), 'the message is not the CLI\'s:\n' + message +
    '\nCLI: ' + expected.stderr);
  const problems = await page.evaluate(() => window.heapqlProblems);
  assert.deepStrictEqual(problems, { errors: [], violations: [] }, 'a failing query left a console error');
  await page.screenshot({ path: path.join(artifacts, 'bad-query.png') });
  // And it goes on: a good query again.
  const fixed = await gesture(page, () => fillField(page, 'top', '5'));
  assert(!fixed.error, fixed.error);
  assert.strictEqual(await page.locator('#message').isVisible(), false, 'the message stays after a good answer');
  assert.deepStrictEqual(await shownJson(page), cliFor(page.url(), traces));
});

step('recipe', async ({ page, traces }) => {
  await gesture(page, () => page.locator('input[name=mode][value=recipe]').check());
  await gesture(page, () => page.locator('#recipe').selectOption('leaks'));
  const top = page.locator('#recipe-fields input[name=top]');
  assert(await top.count() === 1, 'the leaks recipe\'s form has no top param');
  await top.fill('3');
  const done = await gesture(page, () => top.press('Enter'));
  assert(!done.error, done.error);
  const state = stateOf(page.url());
  assert.strictEqual(get1(state, 'recipe'), 'leaks');
  assert.deepStrictEqual(state.filter(([n]) => n === 'param').map(([, v]) => v), ['top=3']);
  const json = await shownJson(page);
  assert(json.rows.length <= 3, 'top=3 gave ' + json.rows.length + ' rows');
  assert.deepStrictEqual(json, cliFor(page.url(), traces));
  await assertDrawn(page, json);
});

step('diff-windows', async ({ page, traces }) => {
  await gesture(page, () => page.locator('input[name=mode][value=diff]').check());
  await page.locator('#trace').selectOption('1');
  await page.locator('#trace-b').selectOption('1');
  await page.waitForSelector('#chart .u-over');
  await driver.brush(page, 0.05, 0.3);
  const done = await gesture(page, () => driver.brush(page, 0.5, 0.95));
  assert(!done.error, done.error);
  const state = stateOf(page.url());
  assert(get1(state, 'window-a') && get1(state, 'window-b'), 'the address holds both windows');
  assert(await page.locator('#query-fields input[data-field="window"]').isDisabled(),
    'the query\'s --window box is enabled in a diff of two windows, where it does not apply');
  const json = await shownJson(page);
  assert.strictEqual(json.kind, 'diff');
  assert.deepStrictEqual(json, cliFor(page.url(), traces));
  await assertDrawn(page, json);
  const coloured = await page.evaluate(() => ({
    grown: document.querySelectorAll('#rows tbody tr.row-grown').length,
    shrunk: document.querySelectorAll('#rows tbody tr.row-shrunk').length,
  }));
  const sort = json.query.sort;
  assert.strictEqual(coloured.grown, json.rows.filter((r) => r.delta[sort] > 0).length, 'rows coloured as grown');
  assert.strictEqual(coloured.shrunk, json.rows.filter((r) => r.delta[sort] < 0).length, 'rows coloured as shrunk');
});

step('diff-traces', async ({ page, traces }) => {
  await page.locator('#trace').selectOption('2');
  await gesture(page, () => page.locator('#trace-b').selectOption('3'));
  // The whole traces: the window the query had set (its box is enabled again
  // now that A and B are two traces) is cleared.
  assert.strictEqual(await page.locator('#query-fields input[data-field="window"]').isDisabled(), false);
  await gesture(page, () => fillField(page, 'window', ''));
  const json = await shownJson(page);
  assert.strictEqual(json.kind, 'diff');
  assert.strictEqual(json.b.trace.path, traces[2].path);
  assert.deepStrictEqual(json, cliFor(page.url(), traces));
  await assertDrawn(page, json);
  const statuses = new Set(json.rows.map((r) => r.status));
  assert(statuses.has('new') && statuses.has('gone'), 'the two traces\' diff has no new or gone row');
  assert.strictEqual(await page.locator('#rows tbody td.status .new').count(), json.rows.filter((r) => r.status === 'new').length);
});

// A recording in progress (docs/serve.md): `serve --record` shows it as it
// grows, its note saying how far it has come and the view asked again each
// second; once the program ends, the last view is the store's.
function pythonExecutable() {
  const r = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

step('live-recording', async ({ page }) => {
  const python = pythonExecutable();
  if (!python || spawnSync('sh', ['-c', 'command -v heaptrack']).status !== 0) {
    console.log('  (skipped: needs heaptrack and python3)');
    return;
  }
  const program = 'import time\nkeep = []\nfor i in range(60):\n    keep.append(bytearray(100000 + i))\n' +
    '    junk = [bytes(64 + j % 100) for j in range(1000)]\n    time.sleep(0.1)\n';
  const recording = path.join(work, 'live');
  const live = await driver.startServer(heapql, ['--record', '-o', recording, '--no-progress', '--', python, '-c', program],
    { cwd: work, env: Object.assign({}, process.env, { PYTHONMALLOC: 'malloc' }) });
  try {
    await page.goto(live.url + '&top=5');
    const note = page.locator('#live-note');
    await note.waitFor({ state: 'visible', timeout: 30000 });
    const upTo = async () => (await note.textContent()).replace(/^Recording in progress, up to ([^:]*):.*$/, '$1');
    assert.match(await note.textContent(), /^Recording in progress, up to /);
    const first = await upTo();
    await page.screenshot({ path: path.join(artifacts, 'live-recording-in-progress.png') });
    // Asked again every second: the note (and the view under it) moves on.
    await page.waitForFunction((seen) => {
      const text = document.getElementById('live-note').textContent;
      return text.startsWith('Recording in progress') && !text.includes('up to ' + seen + ':');
    }, first, { timeout: 20000 });
    // The program's end: the note says so, and the view is the store's.
    await page.waitForFunction(() => document.getElementById('live-note').textContent.startsWith('The recording has ended'),
      null, { timeout: 60000 });
    const json = await shownJson(page);
    assert(!json.trace.recording_in_progress, 'the last view still says the recording goes on');
    assert.deepStrictEqual(json, cliJson(['query', recording + '.zst', '--top', '5']),
      'the last view is not heapql query on the finished recording');
    await assertDrawn(page, json);
    await page.screenshot({ path: path.join(artifacts, 'live-recording-ended.png') });
  } finally {
    assert.strictEqual(await driver.stopServer(live), 0);
  }
});

// ---- run ------------------------------------------------------------------------------

async function main() {
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(work, { recursive: true });
  const main = ['app!main', 'libc.so.6!__libc_start_main'];
  writeCsv('a.csv', [[4096, 40, ['app!Cache::fill(unsigned long)'].concat(main)], [1000, 20, ['app!Old::gone()'].concat(main)],
    [512, 10, ['app!Same::alloc()'].concat(main)]]);
  writeCsv('b.csv', [[4096, 90, ['app!Cache::fill(unsigned long)'].concat(main)], [2000, 30, ['app!Fresh::made()'].concat(main)],
    [512, 10, ['app!Same::alloc()'].concat(main)]]);
  const server = await driver.startServer(heapql, [exampleTrace, 'a.csv', 'b.csv', '--no-progress'], { cwd: work });
  const traces = (await fetchJson(server, '/api/traces')).traces;
  const { browser, context } = await driver.startBrowser(playwright, chromium, artifacts);
  const page = await context.newPage();
  let passed = 0;
  let failed = 0;
  let index = 0;
  for (const { name, body } of steps) {
    index++;
    if (only && !only.has(name)) continue;
    const started = Date.now();
    try {
      await body({ page, server, traces });
      passed++;
      console.log(`PASS ${name} (${Date.now() - started} ms)`);
    } catch (error) {
      failed++;
      console.log(`FAIL ${name}: ${error && error.stack || error}`);
    }
    await page.screenshot({ path: path.join(artifacts, `${String(index).padStart(2, '0')}-${name}.png`) });
    await page.screenshot({ path: path.join(artifacts, `${String(index).padStart(2, '0')}-${name}-tall.png`), fullPage: true });
  }
  await browser.close();
  const code = await driver.stopServer(server);
  if (code !== 0) {
    failed++;
    console.log('FAIL heapql serve exited ' + code + ' on SIGTERM:\n' + server.stderr().slice(-2000));
  }
  console.log(`serve: ${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

main().then((code) => process.exit(code), (error) => {
  console.log('FAIL ' + (error && error.stack || error));
  process.exit(1);
});
