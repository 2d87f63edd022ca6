// The served app (app.html, docs/serve.md "The page"): the HTML report's
// view (view.js) over heapql serve's API. Every view is a query the command
// line answers; the page's address holds the whole state (mode, trace, the
// query's options in the schema's order, the recipe and its params, the
// diff's sides, the row drilled into), so reload, back, forward and a shared
// link show the same view.
(function () {
  'use strict';
  const view = window.heapqlView;
  const api = window.heapqlApi;
  const forms = window.heapqlForm;
  const { el, formatBytes, formatCount, formatDuration, plural } = view;
  const problems = window.heapqlProblems;

  // The address's own parameters; every other one is a query option's field.
  const APP_KEYS = new Set(['token', 'mode', 'trace', 'b', 'window-a', 'window-b', 'recipe', 'param', 'drill']);
  const CHART_BUCKETS = '1000';
  // The rows a view lists when the page is opened with no state: a table and
  // flame graph of the command line's 10000 deep rows take seconds to draw.
  // Written into the address (and so the command line and a saved recipe).
  const FIRST_VIEW_TOP = '100';

  const app = {
    traces: [],
    schema: null,
    recipes: [],
    form: null,
    recipeForm: null,
    chart: null,        // {key, result} of the whole-trace chart query
    chartPending: null, // {key, promise}
    nextBrush: 'a',     // a diff of two windows: which side the next brush sets
    shown: null,        // the answer drawn now
    liveTimer: null,    // the next refresh of a recording in progress
    pointerDown: false, // a drag goes on: no refresh redraws under it
  };
  // A recording in progress (docs/serve.md): the view is asked again this
  // often, until an answer no longer says the recording goes on.
  const LIVE_REFRESH_MS = 1000;
  view.names.full = true;  // the API's JSON has exact names; the page shows them

  const $ = (id) => document.getElementById(id);

  // ---- messages --------------------------------------------------------------------

  function showMessage(text) {
    const box = $('message');
    box.hidden = false;
    box.textContent = text;
  }

  function clearMessage() {
    $('message').hidden = true;
    $('message').textContent = '';
  }

  // An answer that failed: its message in the page; a cancelled one nothing.
  function failed(error, what) {
    if (error instanceof api.Superseded) return;
    if (error instanceof api.ApiError) {
      showMessage(what + ' failed' + (error.status ? ' (' + error.status + (error.exit !== undefined ? ', exit ' +
        error.exit : '') + ')' : '') + ': ' + error.message);
      return;
    }
    showMessage(what + ' failed in the page: ' + String(error && error.message || error));
    problems.errors.push('page: ' + String(error && error.stack || error));
  }

  function busy(on) {
    $('busy').hidden = !on;
  }

  // ---- the state: the address -----------------------------------------------

  function traceOf(key) {
    return app.traces.find((t) => t.key === key) || app.traces[0];
  }

  // The state shown by the controls, as the address's parameters.
  function stateFromControls() {
    const mode = document.querySelector('input[name=mode]:checked').value;
    const state = [['mode', mode], ['trace', $('trace').value]];
    if (mode === 'recipe') {
      state.push(['recipe', $('recipe').value]);
      for (const [name, value] of app.recipeForm.read()) state.push(['param', name + '=' + value]);
      return state;
    }
    if (mode === 'diff') {
      state.push(['b', $('trace-b').value]);
      if ($('trace-b').value === $('trace').value) {
        state.push(['window-a', $('window-a').value.trim()], ['window-b', $('window-b').value.trim()]);
      }
    }
    for (const [field, value] of app.form.read()) {
      if (mode === 'diff' && field === 'window' && $('trace-b').value === $('trace').value) continue;
      state.push([field, value]);
    }
    return state;
  }

  function currentState() {
    const state = [];
    for (const [name, value] of new URLSearchParams(window.location.search)) {
      if (name !== 'token') state.push([name, value]);
    }
    return state;
  }

  function addressOf(state) {
    const query = new URLSearchParams();
    query.append('token', api.token);
    for (const [name, value] of state) query.append(name, value);
    return window.location.pathname + '?' + query.toString();
  }

  const get1 = (state, name) => {
    const found = state.find(([n]) => n === name);
    return found ? found[1] : null;
  };

  // The controls as `state` says.
  function showState(state) {
    const mode = get1(state, 'mode') || 'query';
    for (const input of document.querySelectorAll('input[name=mode]')) input.checked = input.value === mode;
    const trace = traceOf(get1(state, 'trace'));
    if (trace) $('trace').value = trace.key;
    const b = traceOf(get1(state, 'b') || (trace && trace.key));
    if (b) $('trace-b').value = b.key;
    $('window-a').value = get1(state, 'window-a') || '';
    $('window-b').value = get1(state, 'window-b') || '';
    app.form.write(state.filter(([name]) => !APP_KEYS.has(name)));
    const recipe = get1(state, 'recipe');
    if (recipe && app.recipes.some((r) => r.name === recipe)) $('recipe').value = recipe;
    chooseRecipe();
    app.recipeForm.write(state.filter(([name]) => name === 'param').map(([, value]) => {
      const at = value.indexOf('=');
      return [value.slice(0, at), value.slice(at + 1)];
    }));
    showPanels(mode);
  }

  function showPanels(mode) {
    $('query-form').hidden = mode === 'recipe';
    $('recipe-panel').hidden = mode !== 'recipe';
    $('diff-panel').hidden = mode !== 'diff';
    $('save-recipe').disabled = mode !== 'query';
    $('recipe-name').disabled = mode !== 'query';
    const twoWindows = mode === 'diff' && $('trace-b').value === $('trace').value;
    $('window-a').disabled = !twoWindows;
    $('window-b').disabled = !twoWindows;
    // Two windows of one trace: the query's own window does not apply.
    for (const node of document.querySelectorAll('#query-fields [data-field="window"]')) node.disabled = twoWindows;
    $('brush-next').textContent = twoWindows ? 'drag on the chart: the next drag sets window ' +
      app.nextBrush.toUpperCase() : '';
    $('chart-hint').textContent = mode === 'query' ? 'drag across the chart to choose a window: the table, the flame ' +
      'graph and the peak follow' : twoWindows ? 'drag across the chart for window A, then again for window B'
      : 'drag across the chart to zoom';
  }

  // A change of the controls: a new address (history) and its answers.
  // A drill-down is the one gesture that keeps the rest of the view.
  function gesture(kind, options) {
    const state = stateFromControls();
    const opts = options || {};
    if (opts.drill) state.push(['drill', String(opts.drill)]);
    const address = addressOf(state);
    const same = address === window.location.pathname + window.location.search;
    // A text box's Enter both changes and submits: one view, one query.
    if (same && kind === 'form' && app.loading === address) return Promise.resolve();
    if (!same) window.history.pushState(null, '', address);
    $('command-line').hidden = true;  // it was the previous view's
    showPanels(get1(state, 'mode'));
    return load(state, kind);
  }

  // ---- a recording in progress -----------------------------------------------

  // The answer's trace says whether its recording goes on (docs/json.md,
  // trace.recording_in_progress): then the note says how far it has come and
  // the same view is asked again in a second; once it has ended, the note
  // says so and the refreshing stops.
  function followRecording(result) {
    const live = result && result.trace && result.trace.recording_in_progress;
    const note = $('live-note');
    clearTimeout(app.liveTimer);
    app.liveTimer = null;
    if (live) {
      note.hidden = false;
      note.textContent = 'Recording in progress, up to ' + formatDuration(live.up_to_ns) +
        ': the view covers the part recorded so far and is asked again every second.';
      app.liveTimer = setTimeout(refreshRecording, LIVE_REFRESH_MS);
    } else if (!note.hidden) {
      note.textContent = 'The recording has ended: the view is of the whole recording.';
    }
  }

  function refreshRecording() {
    app.liveTimer = null;
    // Not under the user's hand: a gesture loading, or a drag going on.
    if (app.loading || app.pointerDown) {
      app.liveTimer = setTimeout(refreshRecording, LIVE_REFRESH_MS / 4);
      return;
    }
    app.chart = null;  // the whole-trace chart has grown too
    load(currentState(), 'live');
  }

  // ---- answers -----------------------------------------------------------------

  // The options of the query (diff) in the order given.
  function optionParams(state) {
    return state.filter(([name]) => !APP_KEYS.has(name));
  }

  const zero = () => ({ so: 0, soc: 0, st: 0, stc: 0, src: 0 });

  // What the page adds to the data for view.js: no pruning (the API gives
  // every row of --top), the filters as given, exact names.
  function pageInfo(result, params) {
    const filters = [];
    for (const [field, value] of params) {
      if (['by', 'sort', 'top', 'window', 'series', 'detail'].includes(field)) continue;
      const option = '--' + field;
      let filter = filters.find((f) => f.option === option);
      if (!filter) filters.push(filter = { option, values: [] });
      filter.values.push(value);
    }
    return {
      pruning: {
        rows_pruned: 0, other_rows_before: result.other ? result.other.rows : 0,
        pruned: result.kind === 'diff' ? { a: zero(), b: zero() } : zero(),
      },
      filters, short_names: {}, full_names: true,
    };
  }

  // The whole-trace chart query: the view's filters without its window,
  // grouping, sort and top (the series does not depend on them), with a
  // series; fetched again only when the filters change.
  function chartFor(traceKey, params) {
    const chartParams = [['trace', traceKey]].concat(params.filter(([f]) => !['window', 'by', 'top', 'sort', 'at-peak',
      'totals'].includes(f)), [['series', CHART_BUCKETS], ['top', '1']]);
    const key = JSON.stringify(chartParams);
    if (app.chart && app.chart.key === key) return Promise.resolve(app.chart.result);
    if (app.chartPending && app.chartPending.key === key) return app.chartPending.promise;
    const promise = api.get('/api/query', chartParams, 'chart').then((answer) => {
      app.chart = { key, result: answer.json };
      return answer.json;
    }).finally(() => {
      if (app.chartPending && app.chartPending.promise === promise) app.chartPending = null;
    });
    app.chartPending = { key, promise };
    return promise;
  }

  function hooksFor(mode, timing, extra) {
    return Object.assign({
      exactNames: true,
      onPhase: (name) => {
        if (name === 'table' || name === 'flame') timing.mark(name);
      },
      onRowClick: mode === 'query' ? (rank) => drillInto(rank) : null,
      onBrush: mode === 'query' || mode === 'diff' ? brushed : null,
      onChartReset: () => {
        if (mode === 'query') {
          app.form.write(app.form.read().filter(([f]) => f !== 'window'));
          gesture('whole-trace');
        }
      },
    }, extra);
  }

  let loads = 0;
  async function load(state, kind) {
    const id = ++loads;
    app.loading = addressOf(state);
    const timing = api.startGesture(kind);
    const mode = get1(state, 'mode') || 'query';
    const trace = traceOf(get1(state, 'trace'));
    const params = optionParams(state);
    busy(true);
    $('title-trace').textContent = trace ? trace.path : '';
    try {
      let drawn;
      const key = JSON.stringify([trace.key, params]);
      if (mode === 'query' && (kind === 'drill' || kind === 'drill-close') && app.shown && app.shown.key === key) {
        drawn = {};  // the same answer: only the row's detail changes
      } else if (mode === 'query') drawn = await loadQuery(trace, params, timing);
      else if (mode === 'recipe') drawn = await loadRecipe(trace, state, timing);
      else drawn = await loadDiff(trace, state, params, timing);
      if (id !== loads) {  // a newer gesture drew since
        timing.superseded = true;
        timing.done = true;
        return;
      }
      timing.phases = drawn;
      timing.done = true;
      clearMessage();
      followRecording(app.shown && app.shown.json);
      const drill = get1(state, 'drill');
      if (mode === 'query' && drill) await loadDrill(trace, params, Number(drill));
      else $('drill-section').hidden = true;
    } catch (error) {
      timing.error = String(error && error.message || error);
      timing.superseded = error instanceof api.Superseded || id !== loads;
      timing.done = true;
      failed(error, kind === 'recipe' || mode === 'recipe' ? 'The recipe' : mode === 'diff' ? 'The diff' : 'The query');
      // A recording's files change hands at its end (journal, then store): asked again.
      if (kind === 'live' && !timing.superseded) app.liveTimer = setTimeout(refreshRecording, LIVE_REFRESH_MS);
    } finally {
      if (id === loads) {
        busy(false);
        app.loading = null;
      }
    }
  }

  async function loadQuery(trace, params, timing) {
    const chart = chartFor(trace.key, params).catch((error) => {
      failed(error, 'The chart');
      return null;
    });
    const answer = await api.get('/api/query', [['trace', trace.key]].concat(params), 'main', timing);
    const chartResult = await chart;
    $('output-section').hidden = true;
    app.shown = { mode: 'query', json: answer.json, text: answer.text, params, trace, key: JSON.stringify([trace.key, params]) };
    return view.render(answer.json, pageInfo(answer.json, params), hooksFor('query', timing, { chart: chartResult || answer.json }));
  }

  async function loadRecipe(trace, state, timing) {
    const recipe = get1(state, 'recipe');
    const params = [['trace', trace.key], ['recipe', recipe]].concat(state.filter(([n]) => n === 'param'));
    const answer = await api.get('/api/run', params, 'recipe', timing);
    app.shown = { mode: 'recipe', json: answer.json, text: answer.text, params, trace };
    const result = answer.json;
    const drawable = result && Array.isArray(result.rows) && result.query && (result.totals || result.kind === 'diff');
    $('output-section').hidden = !!drawable;
    $('output').textContent = drawable ? '' : JSON.stringify(result, null, 2);
    if (!drawable) return {};
    const drawn = view.render(result, pageInfo(result, []), hooksFor('recipe', timing, {}));
    if (!result.series) $('chart-section').hidden = true;  // a recipe's own queries asked for none
    return drawn;
  }

  async function loadDiff(trace, state, params, timing) {
    const b = get1(state, 'b') || trace.key;
    const twoWindows = b === trace.key;
    const request = [['a', trace.key]];
    if (twoWindows) {
      const windowA = get1(state, 'window-a');
      const windowB = get1(state, 'window-b');
      if (!windowA || !windowB) return chartAlone(trace, params, timing);
      request.push(['window-a', windowA], ['window-b', windowB]);
    } else {
      request.push(['b', b]);
    }
    const chart = twoWindows ? chartFor(trace.key, params.filter(([f]) => f !== 'window')).catch(() => null) : null;
    const answer = await api.get('/api/diff', request.concat(params), 'diff', timing);
    const chartResult = chart ? await chart : null;
    $('output-section').hidden = true;
    app.shown = { mode: 'diff', json: answer.json, text: answer.text, params, trace, b: traceOf(b), twoWindows };
    const diff = answer.json;
    const extra = twoWindows && chartResult ? {
      chart: chartResult, keepChart: true,
      windows: [
        { window: diff.a.window, duration_ns: diff.a.trace.duration_ns, color: 'rgba(41, 128, 185, 0.18)', label: 'A' },
        { window: diff.b.window, duration_ns: diff.b.trace.duration_ns, color: 'rgba(176, 58, 46, 0.16)', label: 'B' },
      ],
    } : {};
    return view.render(diff, pageInfo(diff, params), hooksFor('diff', timing, extra));
  }

  // A diff of two windows before it has both: the whole trace's chart alone,
  // to brush A and B on.
  async function chartAlone(trace, params, timing) {
    const chartResult = await chartFor(trace.key, params.filter(([f]) => f !== 'window'));
    app.shown = null;
    const windows = [['window-a', 'A'], ['window-b', 'B']].filter(([id]) => $(id).value.trim()).map(([, label]) => label);
    const drawn = view.render(chartResult, pageInfo(chartResult, []), hooksFor('diff', timing, { chart: chartResult, windows: [] }));
    for (const id of ['summary-section', 'flame-section', 'rows-section']) $(id).hidden = true;
    $('chart-hint').textContent = (windows.length ? 'window ' + windows.join(' and ') + ' chosen; ' : '') +
      'drag across the chart for window ' + app.nextBrush.toUpperCase();
    return drawn;
  }

  // ---- a brush on the chart ----------------------------------------------------------

  // As the command line writes a window: 1.25s..2.5s (ns kept to 3 decimals of the unit).
  function windowText(startNs, endNs) {
    return formatDuration(startNs) + '..' + formatDuration(endNs);
  }

  function brushed(startNs, endNs) {
    if (!(endNs > startNs)) return;
    const text = windowText(startNs, endNs);
    const mode = document.querySelector('input[name=mode]:checked').value;
    if (mode === 'diff') {
      if ($('trace-b').value !== $('trace').value) return;
      $(app.nextBrush === 'a' ? 'window-a' : 'window-b').value = text;
      app.nextBrush = app.nextBrush === 'a' ? 'b' : 'a';
      showPanels('diff');
      if ($('window-a').value && $('window-b').value && app.nextBrush === 'a') gesture('brush-diff');
      return;
    }
    const params = app.form.read().filter(([f]) => f !== 'window');
    params.push(['window', text]);
    app.form.write(params);
    gesture('brush');
  }

  // ---- a row's detail ----------------------------------------------------------------

  function drillInto(rank) {
    gesture('drill', { drill: rank });
  }

  function bars(table, bins, label) {
    const body = table.tBodies[0];
    body.replaceChildren();
    const most = Math.max(1, ...bins.map((bin) => bin.bytes));
    for (const bin of bins) {
      const bar = el('div', { className: 'bar' });
      bar.style.width = Math.max(1, Math.round(100 * bin.bytes / most)) + '%';
      body.append(el('tr', null, el('th', { text: label(bin) }), el('td', { className: 'bar-cell' }, bar),
        el('td', { text: formatBytes(bin.bytes) }), el('td', { text: plural(bin.blocks, 'block') })));
    }
    if (!bins.length) body.append(el('tr', null, el('td', { className: 'empty', text: 'none' })));
  }

  async function loadDrill(trace, params, rank) {
    const section = $('drill-section');
    const timing = api.startGesture('drill-detail');
    const request = [['trace', trace.key]].concat(params.filter(([f]) => f !== 'detail'), [['detail', String(rank)]]);
    let answer;
    try {
      answer = await api.get('/api/query', request, 'drill', timing);
    } catch (error) {
      failed(error, 'The row\'s detail');
      return;
    }
    const detail = answer.json && answer.json.detail;
    for (const tr of document.querySelectorAll('#rows tbody tr')) {
      tr.classList.toggle('selected', tr.firstChild.textContent === String(rank));
    }
    section.hidden = false;
    $('drill-title').textContent = 'Row ' + rank;
    if (!detail) {
      $('drill-key').textContent = 'This heapql answers without a row\'s detail (--detail).';
      for (const id of ['drill-sizes', 'drill-lifetimes']) $(id).tBodies[0].replaceChildren();
      $('drill-stacks').replaceChildren();
      return;
    }
    $('drill-key').textContent = detail.key.map((part) => (Array.isArray(part) ? (part[0] || '[empty stack]') : String(part))).join(' > ');
    bars($('drill-sizes'), detail.sizes || [], (bin) => formatBytes(bin.from) + ' .. ' + formatBytes(bin.to));
    bars($('drill-lifetimes'), detail.lifetimes || [], (bin) => formatDuration(bin.from_ns) + ' .. ' + formatDuration(bin.to_ns));
    const notFreed = detail.not_freed || { blocks: 0, bytes: 0 };
    $('drill-not-freed').textContent = 'not freed: ' + plural(notFreed.blocks, 'block') + ', ' + formatBytes(notFreed.bytes);
    const stacks = $('drill-stacks');
    stacks.replaceChildren();
    (detail.stacks || []).forEach((stack, i) => {
      const list = el('ol', { className: 'frames' }, ...stack.frames.map((frame) => el('li', { text: frame })));
      stacks.append(el('div', { className: 'stack' }, el('p', { className: 'hint', text: '#' + (i + 1) + ': ' +
        formatBytes(stack.bytes) + ' in ' + plural(stack.blocks, 'block') }), list));
    });
    timing.done = true;
  }

  // ---- copy as command line, save as recipe ---------------------------------------------

  function optionWords(params) {
    const words = [];
    for (const [field, value] of params) {
      words.push('--' + field);
      if (value !== '') words.push(value);
    }
    return words;
  }

  function commandWords() {
    const state = currentState();
    const mode = get1(state, 'mode') || 'query';
    const trace = traceOf(get1(state, 'trace'));
    const params = optionParams(state);
    if (mode === 'recipe') {
      const words = ['heapql', 'run', get1(state, 'recipe'), trace.path];
      for (const [, value] of state.filter(([n]) => n === 'param')) words.push('--param', value);
      return words;
    }
    if (mode === 'diff') {
      const b = traceOf(get1(state, 'b') || trace.key);
      if (b.key === trace.key) {
        return ['heapql', 'diff', trace.path, '--window-a', get1(state, 'window-a') || '', '--window-b',
          get1(state, 'window-b') || ''].concat(optionWords(params));
      }
      return ['heapql', 'diff', trace.path, b.path].concat(optionWords(params));
    }
    return ['heapql', 'query', trace.path].concat(optionWords(params));
  }

  async function copyCommand() {
    const text = api.commandLine(commandWords());
    const shown = $('command-line');
    shown.hidden = false;
    shown.textContent = text;
    try {
      await navigator.clipboard.writeText(text);
      shown.title = 'copied to the clipboard';
    } catch (ignored) {
      shown.title = 'select and copy (the clipboard was not available)';
    }
  }

  async function saveRecipe() {
    const state = currentState();
    const trace = traceOf(get1(state, 'trace'));
    const name = ($('recipe-name').value.trim() || 'view').replace(/[^A-Za-z0-9_.-]/g, '_');
    try {
      const answer = await api.get('/api/recipe', [['trace', trace.key]].concat(optionParams(state)), 'save');
      const url = URL.createObjectURL(new Blob([answer.text], { type: 'text/x-lua' }));
      const link = el('a', { href: url, download: name + '.lua' });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
    } catch (error) {
      failed(error, 'Save as recipe');
    }
  }

  // ---- start -----------------------------------------------------------------------

  function chooseRecipe() {
    const recipe = app.recipes.find((r) => r.name === $('recipe').value);
    $('recipe-doc').textContent = recipe ? recipe.doc || '' : '';
    app.recipeForm = forms.buildRecipe($('recipe-fields'), recipe);
  }

  function fillTraces() {
    for (const id of ['trace', 'trace-b']) {
      const select = $(id);
      select.replaceChildren(...app.traces.map((t) => el('option', { value: t.key, text: t.key + ': ' + t.name })));
    }
  }

  function bind() {
    $('query-form').addEventListener('submit', (event) => {
      event.preventDefault();
      gesture('form');
    });
    $('query-form').addEventListener('change', () => gesture('form'));
    $('recipe-form').addEventListener('submit', (event) => {
      event.preventDefault();
      gesture('recipe');
    });
    $('recipe').addEventListener('change', () => {
      chooseRecipe();
      gesture('recipe');
    });
    $('trace').addEventListener('change', () => gesture('trace'));
    $('trace-b').addEventListener('change', () => gesture('diff'));
    for (const id of ['window-a', 'window-b']) $(id).addEventListener('change', () => {
      if ($('window-a').value.trim() && $('window-b').value.trim()) gesture('diff');
    });
    $('diff-run').addEventListener('click', () => gesture('diff'));
    for (const input of document.querySelectorAll('input[name=mode]')) {
      input.addEventListener('change', () => gesture('mode'));
    }
    $('copy-command').addEventListener('click', copyCommand);
    $('save-recipe').addEventListener('click', saveRecipe);
    $('drill-close').addEventListener('click', () => gesture('drill-close'));
    document.addEventListener('pointerdown', () => { app.pointerDown = true; });
    document.addEventListener('pointerup', () => { app.pointerDown = false; });
    window.addEventListener('popstate', () => {
      showState(currentState());
      load(currentState(), 'history');
    });
  }

  async function start() {
    try {
      const [traces, schema, recipes] = await Promise.all([
        api.get('/api/traces', [], null), api.get('/api/schema', [], null), api.get('/api/recipes', [], null)]);
      app.traces = traces.json.traces;
      app.schema = schema.json;
      app.recipes = recipes.json.recipes || [];
    } catch (error) {
      failed(error, 'Starting the page');
      const timing = api.startGesture('load');  // done, failed: what the tests wait for
      timing.error = String(error && error.message || error);
      timing.done = true;
      return;
    }
    fillTraces();
    $('recipe').replaceChildren(...app.recipes.map((r) => el('option', { value: r.name, text: r.name })));
    app.form = forms.build($('query-fields'), app.schema);
    bind();
    const state = currentState();
    if (state.length === 0) {
      state.push(['top', FIRST_VIEW_TOP]);
      window.history.replaceState(null, '', addressOf(state));
    }
    showState(state);
    await load(state, 'load');
  }

  window.heapqlApp = { state: currentState, commandWords, app };
  start();
})();
