// The served app's side of heapql serve's API (docs/serve.md): every request
// carries the token (read from the address once) in X-Heapql-Token and a
// `view` that lets the server cancel what this view no longer wants; the
// page's own fetch of a view is aborted too. Timings of each gesture are
// marked (performance.mark) and kept in window.heapqlTimings for the tests
// and bench/serve-latency.
(function () {
  'use strict';

  const token = new URLSearchParams(window.location.search).get('token') || '';

  // An answer the page shows as a message: the CLI's own error and exit code.
  class ApiError extends Error {
    constructor(status, message, exit) {
      super(message);
      this.status = status;
      this.exit = exit;
    }
  }
  // The server cancelled it (409: a newer request of the same view) or the
  // page aborted it: nothing to show.
  class Superseded extends Error {}

  const controllers = new Map();  // view -> AbortController of its fetch in flight

  // `Server-Timing: engine;dur=12.5` -> 12.5 (null without one).
  function engineDuration(header) {
    if (!header) return null;
    for (const part of header.split(',')) {
      const fields = part.trim().split(';').map((f) => f.trim());
      if (fields[0] !== 'engine') continue;
      for (const field of fields.slice(1)) {
        const match = /^dur=([0-9.]+)$/.exec(field);
        if (match) return Number(match[1]);
      }
    }
    return null;
  }

  // GET `path` with `params` ([[name, value]...], in order) for `view`.
  // Resolves to {json, text, engineMs, fetchMs, responseAt}; rejects with
  // ApiError or Superseded.
  async function get(path, params, view, timing) {
    const query = new URLSearchParams();
    for (const [name, value] of params) query.append(name, value);
    if (view) query.append('view', view);
    const previous = controllers.get(view);
    if (previous) previous.abort();
    const controller = new AbortController();
    if (view) controllers.set(view, controller);
    const started = performance.now();
    let response;
    let text;
    try {
      response = await fetch(path + '?' + query.toString(), {
        headers: { 'X-Heapql-Token': token }, signal: controller.signal, cache: 'no-store',
      });
      if (timing) timing.mark('response');
      text = await response.text();
    } catch (error) {
      if (error && error.name === 'AbortError') throw new Superseded('aborted');
      throw new ApiError(0, 'the server did not answer ' + path + ': ' + String(error && error.message || error));
    } finally {
      if (controllers.get(view) === controller) controllers.delete(view);
    }
    const engineMs = engineDuration(response.headers.get('Server-Timing'));
    if (timing) {
      timing.engine_ms = engineMs;
      timing.fetch_ms = performance.now() - started;
      timing.bytes = text.length;
    }
    if (response.status === 409) throw new Superseded('superseded');
    if (!response.ok) {
      let message = text.trim() || response.statusText;
      let exit;
      try {
        const body = JSON.parse(text);
        if (body && typeof body.error === 'string') {
          message = body.error;
          exit = body.exit;
        }
      } catch (ignored) {
        // not JSON: the text as it is
      }
      throw new ApiError(response.status, message, exit);
    }
    const type = response.headers.get('Content-Type') || '';
    const json = type.startsWith('application/json') ? JSON.parse(text) : null;
    if (timing) timing.mark('parsed');
    return { json, text, engineMs };
  }

  // ---- gesture timings ---------------------------------------------------------

  // One gesture: performance marks `heapql:ID:STEP` (gesture, response,
  // parsed, table, flame), and an entry in window.heapqlTimings holding each
  // step's time from the gesture, the engine's Server-Timing, the page's
  // drawing phases.
  window.heapqlTimings = [];
  let gestures = 0;
  function startGesture(kind) {
    const id = ++gestures;
    const entry = { id, kind, steps: {}, engine_ms: null, fetch_ms: null, bytes: 0, phases: null, done: false };
    const origin = performance.now();
    performance.mark('heapql:' + id + ':gesture');
    entry.mark = (step) => {
      performance.mark('heapql:' + id + ':' + step);
      entry.steps[step] = performance.now() - origin;
    };
    window.heapqlTimings.push(entry);
    return entry;
  }

  // ---- the command line ------------------------------------------------------

  // A word for a POSIX shell: as it is when it holds only safe characters,
  // else single-quoted (a ' inside written '\'').
  function shellQuote(word) {
    const text = String(word);
    if (text !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(text)) return text;
    return "'" + text.replace(/'/g, "'\\''") + "'";
  }

  function commandLine(words) {
    return words.map(shellQuote).join(' ');
  }

  window.heapqlApi = { token, get, ApiError, Superseded, startGesture, shellQuote, commandLine, engineDuration };
})();
