// What the browser tests (run_serve_test.js) and bench/serve-latency share:
// starting `heapql serve` on a real loopback socket, starting Debian's
// Chromium through playwright-core (headless, every host but the loopback
// resolving to nowhere), and driving the page as a person does (a drag on
// the chart, typing in the form) while reading the timings the page marks
// (window.heapqlTimings, report-ui/src/app-api.js).
'use strict';

const { spawn } = require('child_process');
const fs = require('fs');
const path = require('path');

const SKIP = 77;

// playwright-core from tests/serve/node_modules (npm ci --prefix tests/serve),
// or exit 77 saying what is missing.
function loadPlaywright() {
  try {
    return require(path.join(__dirname, 'node_modules', 'playwright-core'));
  } catch (error) {
    console.log('SKIPPED: playwright-core is missing (run: npm ci --prefix tests/serve; scripts/install-deps.sh does): ' +
      error.message.split('\n')[0]);
    process.exit(SKIP);
  }
}

function findChromium() {
  for (const candidate of [process.env.HEAPQL_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser']) {
    if (candidate && fs.existsSync(candidate)) return candidate;
  }
  console.log('SKIPPED: Chromium is missing (Debian: chromium)');
  process.exit(SKIP);
  return null;
}

// Starts `heapql serve ARGS...`; resolves to {url, base, token, child, stderr()} once its
// first stdout line names the address.
function startServer(heapql, args, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(heapql, ['serve', ...args], { cwd: options && options.cwd, env: options && options.env,
      stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('heapql serve printed no address in 600 s; stderr:\n' + err.slice(-3000)));
    }, 600000);
    child.stderr.on('data', (chunk) => { err += chunk; });
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const line = out.split('\n')[0];
      if (out.includes('\n')) {
        clearTimeout(timer);
        const match = /^heapql serve: (http:\/\/([^/]+)\/\?token=([0-9a-f]{32}))$/.exec(line);
        if (!match) {
          child.kill('SIGKILL');
          reject(new Error('heapql serve\'s first line is not its address: ' + JSON.stringify(line)));
          return;
        }
        resolve({ url: match[1], base: 'http://' + match[2], token: match[3], child, stderr: () => err });
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error('heapql serve exited ' + (signal || code) + ' before printing its address:\n' + err.slice(-3000)));
    });
  });
}

// SIGTERM, and the exit code (heapql serve exits 0 on SIGTERM).
function stopServer(server) {
  return new Promise((resolve) => {
    if (server.child.exitCode !== null) {
      resolve(server.child.exitCode);
      return;
    }
    server.child.removeAllListeners('exit');
    server.child.on('exit', (code, signal) => resolve(signal || code));
    server.child.kill('SIGTERM');
  });
}

async function startBrowser(playwright, chromium, artifacts) {
  const browser = await playwright.chromium.launch({
    executablePath: chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--disable-extensions', '--no-first-run', '--disable-quic',
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1'],
  });
  const context = await browser.newContext({
    viewport: { width: 1400, height: 1000 }, acceptDownloads: true,
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  if (artifacts) fs.mkdirSync(artifacts, { recursive: true });
  return { browser, context };
}

// The number of the last gesture the page started (0 before any).
async function lastGesture(page) {
  return page.evaluate(() => (window.heapqlTimings || []).reduce((n, t) => Math.max(n, t.id), 0));
}

// Waits for the first gesture after `after` (of a kind other than the drill's
// own detail fetch) to be done: drawn, or failed with a message. Resolves
// to its timings.
async function gestureDone(page, after, timeout) {
  // Superseded gestures (a newer one replaced them) are passed over.
  await page.waitForFunction((n) => (window.heapqlTimings || []).some((t) => t.id > n && t.done && !t.superseded &&
    t.kind !== 'drill-detail'), after, { timeout: timeout || 120000 });
  return page.evaluate((n) => {
    const entry = window.heapqlTimings.find((t) => t.id > n && t.done && !t.superseded && t.kind !== 'drill-detail');
    return JSON.parse(JSON.stringify(entry));
  }, after);
}

// A drag across the chart from `from` to `to`, fractions of its plot's width.
async function brush(page, from, to) {
  const over = page.locator('#chart .u-over');
  const box = await over.boundingBox();
  if (!box) throw new Error('the chart has no plot area to drag on');
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width * from, y);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * ((from + to) / 2), y, { steps: 4 });
  await page.mouse.move(box.x + box.width * to, y, { steps: 4 });
  await page.mouse.up();
}

function median(values) {
  return percentile(values, 50);
}

function percentile(values, p) {
  if (!values.length) return null;
  const sorted = values.slice().sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p / 100 * sorted.length) - 1));
  return sorted[rank];
}

module.exports = {
  SKIP, loadPlaywright, findChromium, startServer, stopServer, startBrowser, lastGesture, gestureDone, brush,
  median, percentile,
};
