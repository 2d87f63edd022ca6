// heapql's result view, shared by the static HTML report (page.html +
// report.js) and the served app (app.html + app.js): draws the JSON of
// `heapql query --format json` (docs/json.md) as a summary, a chart of
// outstanding size over time (uPlot), a flame graph (d3-flame-graph) and a
// sortable table; or a diff (`heapql diff --format json`) as a summary of
// both sides, a differential flame graph and a delta table. Every string
// from the trace reaches the DOM as text (textContent, d3's .text/.attr),
// never as markup: frame names are the traced program's to choose.
// window.heapqlView.render(data, page, hooks) draws (again) into the page's
// elements; the static page calls it once, the app after every answer.
(function () {
  'use strict';

  const MEASURES = ['so', 'soc', 'st', 'stc', 'src'];
  const BYTE_MEASURES = new Set(['so', 'st']);
  const MEASURE_TITLES = {
    so: 'outstanding size (bytes allocated in the window, not freed in it)',
    soc: 'outstanding count',
    st: 'total size (every byte allocated in the window)',
    stc: 'total count',
    src: 'realloc count',
  };
  // The flame graph hides frames below this share of the shown measure's
  // total (the rows behind them are all in the table), and raises the share a
  // quarter at a time until it draws at most FLAME_MAX_FRAMES frames, so that
  // it opens quickly.
  const FLAME_MIN_SHARE = 0.001;
  const FLAME_MAX_FRAMES = 3000;

  // A diff frame's colour: grey when unchanged, else from a pale to a deep
  // red (grown) or blue (shrunk) by the size of its change against the
  // largest change drawn; square-rooted so that small changes still show.
  const DIFF_NEUTRAL = [221, 221, 221];
  const DIFF_GROWN = { pale: [250, 215, 200], deep: [196, 32, 20] };
  const DIFF_SHRUNK = { pale: [205, 220, 250], deep: [28, 86, 196] };

  // What is drawn now: set by render() (a result or a diff, and what the
  // page added: pruning, filters, short names), read by everything below.
  let data = null;
  let page = null;
  let hooks = {};
  const problems = window.heapqlProblems || { errors: [], violations: [] };
  let isDiff = false;
  let reallocKnown = true;
  let measures = MEASURES;
  let stackLevel = -1;

  // Frame names: the data holds them exactly; the page's metadata has the
  // short form heapql gives each frame whose short form differs (template
  // arguments collapsed, parameters dropped). Short by default, unless the
  // page was written with --full-names; the "full names" box switches.
  let shortNames = new Map();
  const names = { full: false };

  function shortName(frame) {
    const short = shortNames.get(frame);
    return short === undefined ? frame : short;
  }

  // How a node of the flame graph or a frame of the table is labelled now.
  function label(name, isFrame) {
    return isFrame && !names.full ? shortName(name) : name;
  }

  // A search matches a frame by either of its names; other labels as they are.
  function labelMatches(name, isFrame, lowerTerm) {
    return name.toLowerCase().includes(lowerTerm) || (isFrame && shortName(name).toLowerCase().includes(lowerTerm));
  }

  // ---- small helpers -------------------------------------------------------

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(props || {})) {
      if (name === 'text') node.textContent = value;
      else if (name === 'className') node.className = value;
      else node.setAttribute(name, value);
    }
    for (const child of children) {
      if (child !== null && child !== undefined) node.append(child);  // strings become text nodes
    }
    return node;
  }

  // As heapql's tables write sizes: powers of 1000, two decimals.
  function formatBytes(bytes) {
    if (bytes === null || bytes === undefined) return '-';
    if (bytes < 1000) return bytes + ' B';
    const units = ['KB', 'MB', 'GB', 'TB', 'PB', 'EB'];
    let unit = 1000;
    for (let i = 0; i < units.length; i++, unit *= 1000) {
      const value = bytes / unit;
      if (value < 999.995 || i + 1 === units.length) return value.toFixed(2) + ' ' + units[i];
    }
    return String(bytes);
  }

  function formatCount(n) {
    if (n === null || n === undefined) return '-';
    return n.toLocaleString('en-US');
  }

  function formatMeasure(measure, value) {
    return BYTE_MEASURES.has(measure) ? formatBytes(value) : formatCount(value);
  }

  function formatDuration(ns) {
    if (ns === null || ns === undefined) return 'end';
    const magnitude = Math.abs(ns);
    const sign = ns < 0 ? '-' : '';
    const trim = (v) => String(Number(v.toFixed(3)));
    if (magnitude === 0) return '0s';
    if (magnitude < 1e3) return sign + magnitude + 'ns';
    if (magnitude < 1e6) return sign + trim(magnitude / 1e3) + 'us';
    if (magnitude < 1e9) return sign + trim(magnitude / 1e6) + 'ms';
    return sign + trim(magnitude / 1e9) + 's';
  }

  function percent(part, whole) {
    if (!whole) return '-';
    return (100 * part / whole).toFixed(2) + '%';
  }

  // A change, signed: "+1.02 KB", "-3", "0".
  function formatDelta(measure, delta) {
    if (delta === null || delta === undefined) return '-';
    const text = formatMeasure(measure, Math.abs(delta));
    return (delta > 0 ? '+' : delta < 0 ? '-' : '') + text;
  }

  // A change against A: "+25.00%", "new" where A had none.
  function relativeChange(a, b) {
    if (a === b) return '0%';
    if (!a) return 'new';
    return (b > a ? '+' : '') + (100 * (b - a) / a).toFixed(2) + '%';
  }

  function plural(n, word) {
    return formatCount(n) + ' ' + word + (n === 1 ? '' : 's');
  }

  // ---- the paths of the rows -----------------------------------------------

  // A row's path from the root: its other levels in key order, then its
  // stack's frames (JSON lists them top first: allocator first, thread entry
  // last). Top-down puts the outermost caller first; bottom-up the allocation
  // site (as heapql's stack tree does, engine/report/stack_tree.h).
  // Each step is {name, frame}: `frame` when it is a stack frame (which has
  // a short name), not another level's value.
  function rowPath(row, direction) {
    const path = [];
    row.key.forEach((value, level) => {
      if (level !== stackLevel) {
        path.push({ name: String(value), frame: false });
      } else if (value.length === 0) {
        path.push({ name: '[empty stack]', frame: false });
      } else {
        const frames = value.map(String);
        if (direction === 'top-down') frames.reverse();
        for (const name of frames) path.push({ name, frame: true });
      }
    });
    return path;
  }

  // The measures a row (or [other]) gives the flame graph's widths: a
  // result's own; a diff's B side, or A's for a gone row (it has no B), so
  // that what went away is drawn too.
  function rowWidth(row) {
    if (!isDiff) return row;
    return row.status === 'gone' ? row.a : row.b;
  }

  function zeroMeasures() {
    return { so: 0, soc: 0, st: 0, stc: 0, src: 0 };
  }

  function addMeasures(into, from) {
    for (const m of MEASURES) into[m] += from[m] || 0;
  }

  function treeNode(name, frame, special) {
    const node = { name, frame, special, m: zeroMeasures(), kids: new Map() };
    if (isDiff) {
      node.a = zeroMeasures();
      node.b = zeroMeasures();
    }
    return node;
  }

  // `m` is what the widths add up; a diff's nodes add up A and B as well.
  function addRow(node, row) {
    addMeasures(node.m, rowWidth(row));
    if (isDiff) {
      addMeasures(node.a, row.a);
      addMeasures(node.b, row.b);
    }
  }

  // The whole tree of one direction: every path prefix one node, with its
  // inclusive measures; [other] (rows past --top and rows the page pruned) a
  // child of the root.
  function fullTree(direction) {
    const root = treeNode('[total]', false, true);
    for (const row of data.rows) {
      let node = root;
      addRow(node, row);
      for (const step of rowPath(row, direction)) {
        const key = (step.frame ? 'f' : 'l') + step.name;
        let child = node.kids.get(key);
        if (!child) {
          child = treeNode(step.name, step.frame, false);
          node.kids.set(key, child);
        }
        addRow(child, row);
        node = child;
      }
    }
    if (data.other) {
      const other = treeNode('[other: ' + plural(data.other.rows, 'more row') + ']', false, true);
      addRow(other, data.other);
      addRow(root, data.other);
      root.kids.set('\u0000other', other);
    }
    return root;
  }

  // What the flame graph draws for `measure`: nodes below `share` of the
  // root dropped; where the dropped children of a node add up to that share
  // themselves, one "[pruned: N smaller frames]" child stands for them.
  function prunedTree(full, measure, share) {
    const total = full.m[measure];
    const floor = total * share;
    let nodes = 0;
    let hiddenFrames = 0;
    const keep = (node) => node.m[measure] > 0 && node.m[measure] >= floor;
    const byValue = (a, b) => b.value - a.value || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    function copy(node) {
      nodes++;
      const out = {
        name: node.name, frame: node.frame, value: node.m[measure], m: node.m, a: node.a, b: node.b,
        special: !!node.special, children: [],
      };
      const pruned = treeNode('', false, true);
      let prunedCount = 0;
      for (const child of node.kids.values()) {
        if (keep(child)) {
          out.children.push(copy(child));
        } else if (child.m[measure] > 0) {
          prunedCount++;
          addMeasures(pruned.m, child.m);
          if (isDiff) {
            addMeasures(pruned.a, child.a);
            addMeasures(pruned.b, child.b);
          }
        }
      }
      if (prunedCount > 0) {
        hiddenFrames += prunedCount;
        if (pruned.m[measure] >= floor) {
          nodes++;
          out.children.push({
            name: '[pruned: ' + plural(prunedCount, 'smaller frame') + ']', frame: false,
            value: pruned.m[measure], m: pruned.m, a: pruned.a, b: pruned.b, special: true, children: [],
          });
        }
      }
      out.children.sort(byValue);
      return out;
    }
    if (!(total > 0)) return { root: null, nodes: 0, hiddenFrames: 0, share };
    const root = copy(full);
    return { root, nodes, hiddenFrames, share };
  }

  function displayTree(full, measure) {
    let share = FLAME_MIN_SHARE;
    let shown = prunedTree(full, measure, share);
    while (shown.nodes > FLAME_MAX_FRAMES) {
      share *= 1.25;
      shown = prunedTree(full, measure, share);
    }
    return shown;
  }

  // ---- summary, capabilities, notes ----------------------------------------

  // The query's filters, each option once with its values.
  function addFilters(summary) {
    for (const filter of page.filters) {
      const values = filter.values.map((v) => (v === '' ? 'yes' : v));
      if (values.length <= 3) {
        summary.append(el('dt', { text: filter.option }), el('dd', { text: values.join(', ') }));
        continue;
      }
      // A long list (many --require or --cull patterns) only when asked for.
      const details = el('details', null, el('summary', { text: plural(values.length, 'value') + ': ' +
        values.slice(0, 3).join(', ') + ', ...' }));
      details.append(el('div', { className: 'values', text: values.join(', ') }));
      summary.append(el('dt', { text: filter.option }), el('dd', null, details));
    }
  }

  function fillSummary() {
    const trace = data.trace;
    const query = data.query;
    document.title = 'heapql: ' + trace.path;
    document.getElementById('title-trace').textContent = trace.path;
    const summary = document.getElementById('summary');
    const add = (dl, term, value) => dl.append(el('dt', { text: term }), el('dd', { text: value }));
    add(summary, 'trace', trace.path);
    add(summary, 'source', trace.source + ' ' + trace.format + ' (' + trace.compression + ')');
    add(summary, 'duration', formatDuration(trace.duration_ns));
    add(summary, 'window', formatDuration(data.window.start_ns) + '..' + formatDuration(data.window.end_ns));
    add(summary, 'blocks', query.blocks === 'at-peak' ? 'alive at the peak (--at-peak)' : 'allocated in the window');
    add(summary, 'by', query.by.length ? query.by.join(', ') : '- (totals only)');
    add(summary, 'sorted by', query.sort);
    add(summary, 'top', formatCount(query.top));
    addFilters(summary);
    add(summary, 'totals', measures.map((m) => m + ' ' + formatMeasure(m, data.totals[m])).join(', '));
    if (data.excluded.blocks > 0) {
      add(summary, 'excluded', 'the filters removed ' + plural(data.excluded.blocks, 'block') + ' (' +
        formatBytes(data.excluded.bytes) + ') allocated in the window');
    } else {
      add(summary, 'excluded', 'nothing');
    }
    add(summary, 'peak', formatBytes(data.peak.bytes) + ' in ' + plural(data.peak.blocks, 'block') + ' at ' +
      formatDuration(data.peak.time_ns));

    const capabilities = document.getElementById('capabilities');
    add(capabilities, 'block identity', trace.block_identity === 'exact' ? 'exact (block addresses)' :
      trace.block_identity + ' (no block addresses: frees are attributed)');
    add(capabilities, 'realloc', trace.realloc ? 'marked: src known' : 'not marked: src unknown');
    add(capabilities, 'threads', trace.threads ? 'recorded' : 'not recorded');
    add(capabilities, 'time resolution', formatDuration(trace.time_resolution_ns));

    const notes = document.getElementById('notes');
    const note = (text) => notes.append(el('li', { text }));
    if (trace.block_identity === 'bucket-lifo') {
      note('No block addresses in this trace: which block a free ended is attributed (last in, first out per ' +
        'size and stack); window outstanding counts, lifetimes and impacting types are attributions.');
    }
    if (!reallocKnown) note('This source does not mark reallocs: src is unavailable, and the page leaves it out.');
    if (data.window.start_ns > trace.duration_ns) {
      note('The window starts at ' + formatDuration(data.window.start_ns) + ', after the trace ends (' +
        formatDuration(trace.duration_ns) + '): no block was allocated in it.');
    } else if (data.window.end_ns === data.window.start_ns) {
      note('The window is empty (it is [T1, T2) and ends where it begins): no block was allocated in it; the peak ' +
        'is what was outstanding at ' + formatDuration(data.window.start_ns) + '.');
    }
    const pruning = page.pruning;
    note(pruningNote(measures.map((m) => m + ' ' + formatMeasure(m, pruning.pruned[m]) + ' (' +
      percent(pruning.pruned[m], data.totals[m]) + ')').join(', ')));
    if (pruning.other_rows_before > 0) {
      note('--top ' + formatCount(query.top) + ' left ' + plural(pruning.other_rows_before, 'row') + ' in [other].');
    }
    if (!data.series && !hooks.chart && !hooks.exactNames) note('No series in this result: the chart needs a query with --series N.');
  }

  // Pruning, as both pages say it: `pruned` is what the pruned rows held.
  function pruningNote(prunedText) {
    const pruning = page.pruning;
    if (pruning.rows_pruned === 0) return 'Not pruned: every row of the ' + (isDiff ? 'diff' : 'result') + ' is on this page.';
    return 'Pruned: this page shows ' + formatCount(pruning.rows_kept) + ' of the ' + (isDiff ? 'diff' : 'result') +
      '\'s ' + formatCount(pruning.rows_before) + ' rows: the first ' + formatCount(pruning.rows_always_kept) +
      ', then those with at least ' + (pruning.min_share_per_million / 1e4) + '% of some measure\'s total' +
      (isDiff ? ' (on either side, or in their change)' : '') + ', while their keys and short names fit in ' +
      formatBytes(pruning.key_text_budget) + '. The other ' + plural(pruning.rows_pruned, 'row') +
      ' are summed into [other], which holds ' + prunedText + ' from them. Totals are exact.';
  }

  // ---- a diff's summary: both sides and the query -------------------------------

  function fillDiffSummary() {
    const a = data.a;
    const b = data.b;
    const query = data.query;
    document.title = 'heapql diff: ' + a.trace.path + ' \u2192 ' + b.trace.path;
    document.getElementById('page-title').textContent = 'heapql diff';
    document.getElementById('title-trace').textContent = a.trace.path + ' \u2192 ' + b.trace.path;
    document.getElementById('summary-title').textContent = 'A, B and the query';
    if (!hooks.keepChart) document.getElementById('chart-section').hidden = true;
    document.getElementById('flame-title').textContent = 'Differential flame graph';
    document.getElementById('rows-title').textContent = 'Rows: what changed from A to B';

    // One line a property: A, B, and the change where it has one.
    const sides = document.getElementById('sides');
    sides.hidden = false;
    sides.tHead.append(el('tr', null, el('th'), el('th', { text: 'A' }), el('th', { text: 'B' }),
      el('th', { text: 'B \u2212 A' })));
    const line = (term, textA, textB, change, changeClass) => {
      const changeCell = el('td', { text: change || '' });
      if (changeClass) changeCell.className = changeClass;
      sides.tBodies[0].append(el('tr', null, el('th', { text: term }), el('td', { text: textA }), el('td', { text: textB }),
        changeCell));
    };
    const deltaClass = (delta) => (delta > 0 ? 'grown' : delta < 0 ? 'shrunk' : '');
    line('trace', a.trace.path, b.trace.path);
    line('source', a.trace.source + ' ' + a.trace.format + ' (' + a.trace.compression + ')',
      b.trace.source + ' ' + b.trace.format + ' (' + b.trace.compression + ')');
    line('duration', formatDuration(a.trace.duration_ns), formatDuration(b.trace.duration_ns));
    const windowText = (side) => formatDuration(side.window.start_ns) + '..' + formatDuration(side.window.end_ns);
    line('window', windowText(a), windowText(b));
    for (const m of measures) {
      const delta = data.totals.delta[m];
      line('total ' + m, formatMeasure(m, data.totals.a[m]), formatMeasure(m, data.totals.b[m]),
        formatDelta(m, delta) + ' (' + relativeChange(data.totals.a[m], data.totals.b[m]) + ')', deltaClass(delta));
    }
    const peakText = (side) => formatBytes(side.peak.bytes) + ' in ' + plural(side.peak.blocks, 'block') + ' at ' +
      formatDuration(side.peak.time_ns);
    const peakDelta = b.peak.bytes - a.peak.bytes;
    line('peak', peakText(a), peakText(b), formatDelta('so', peakDelta), deltaClass(peakDelta));
    const excludedText = (side) => (side.excluded.blocks > 0
      ? plural(side.excluded.blocks, 'block') + ' (' + formatBytes(side.excluded.bytes) + ')' : 'nothing');
    line('excluded by the filters', excludedText(a), excludedText(b));
    const identity = (t) => (t.block_identity === 'exact' ? 'exact' : t.block_identity + ' (frees attributed)');
    line('block identity', identity(a.trace), identity(b.trace));
    line('realloc', a.trace.realloc ? 'marked' : 'not marked', b.trace.realloc ? 'marked' : 'not marked');
    line('threads', a.trace.threads ? 'recorded' : 'not recorded', b.trace.threads ? 'recorded' : 'not recorded');
    line('time resolution', formatDuration(a.trace.time_resolution_ns), formatDuration(b.trace.time_resolution_ns));

    const summary = document.getElementById('summary');
    const add = (term, value) => summary.append(el('dt', { text: term }), el('dd', { text: value }));
    add('blocks', query.blocks === 'at-peak' ? 'alive at the peak (--at-peak)' : 'allocated in the window');
    add('by', query.by.length ? query.by.join(', ') : '- (totals only)');
    add('sorted by', '|delta ' + query.sort + '|, the biggest change first');
    add('top', formatCount(query.top));
    addFilters(summary);
    document.getElementById('capabilities-block').hidden = true;

    const notes = document.getElementById('notes');
    const note = (text) => notes.append(el('li', { text }));
    for (const text of data.notes) note(text);
    if (a.trace.block_identity === 'bucket-lifo' || b.trace.block_identity === 'bucket-lifo') {
      note('A side has no block addresses: which block a free ended is attributed (last in, first out per size and ' +
        'stack); its window outstanding counts are attributions.');
    }
    if (!reallocKnown) note('A side does not mark reallocs: src is unavailable, and the page leaves it out.');
    const pruned = page.pruning.pruned;
    note(pruningNote(measures.map((m) => m + ' ' + formatMeasure(m, pruned.a[m]) + ' \u2192 ' +
      formatMeasure(m, pruned.b[m])).join(', ')));
    if (page.pruning.other_rows_before > 0) {
      note('--top ' + formatCount(query.top) + ' left ' + plural(page.pruning.other_rows_before, 'row') + ' in [other].');
    }
  }

  // ---- the chart -------------------------------------------------------------

  const chartState = { plot: null, peakDrawn: false, windowDrawn: false, resetBound: false, xs: [] };

  // The chart of `chart.series` (the static page: the result's own; the app:
  // its whole-trace chart query's), shaded over `data`'s window with `data`'s
  // peak marked. With hooks.onBrush, a drag brushes a window (the hook gets
  // its [start, end) in ns) instead of zooming.
  function drawChart(chart) {
    const container = document.getElementById('chart');
    const empty = document.getElementById('chart-empty');
    const series = chart.series;
    if (chartState.plot) {
      chartState.plot.destroy();
      chartState.plot = null;
    }
    chartState.peakDrawn = false;
    chartState.windowDrawn = false;
    container.replaceChildren();
    empty.hidden = true;
    document.getElementById('chart-reset').disabled = false;
    if (!series || series.max_bytes.length === 0) {
      empty.hidden = false;
      empty.textContent = !series ? 'No series in this result (a query with --series N has one).'
        : chart.window.start_ns > chart.trace.duration_ns ? 'No time to chart: the window starts after the trace ends.'
          : 'No time to chart: the window is empty.';
      document.getElementById('chart-reset').disabled = true;
      return;
    }
    // Bucket i covers [start + i*bucket, start + (i+1)*bucket) and holds the
    // most outstanding in it; a last point closes the last bucket's step.
    const xs = [];
    const ys = [];
    series.max_bytes.forEach((bytes, i) => {
      xs.push((series.start_ns + i * series.bucket_ns) / 1e9);
      ys.push(bytes);
    });
    xs.push((series.start_ns + series.max_bytes.length * series.bucket_ns) / 1e9);
    ys.push(series.max_bytes[series.max_bytes.length - 1]);

    const ratio = window.devicePixelRatio || 1;

    // Both read `data` when drawing: the app redraws the same chart for each new window.
    // The result's window; the app's diff of two windows gives both (hooks.windows).
    function shadeWindow(u) {
      const spans = hooks.windows || [{ window: data.window, duration_ns: data.trace.duration_ns }];
      for (const span of spans) {
        const windowStart = span.window.start_ns / 1e9;
        const windowEnd = (span.window.end_ns === null ? span.duration_ns : span.window.end_ns) / 1e9;
        const left = Math.max(u.bbox.left, u.valToPos(windowStart, 'x', true));
        const right = Math.min(u.bbox.left + u.bbox.width, u.valToPos(windowEnd, 'x', true));
        if (right <= left) continue;
        u.ctx.save();
        u.ctx.fillStyle = span.color || 'rgba(41, 128, 185, 0.14)';
        u.ctx.fillRect(left, u.bbox.top, right - left, u.bbox.height);
        if (span.label) {
          u.ctx.fillStyle = '#1d2330';
          u.ctx.font = (12 * ratio) + 'px system-ui, sans-serif';
          u.ctx.fillText(span.label, left + 4 * ratio, u.bbox.top + 14 * ratio);
        }
        u.ctx.restore();
        chartState.windowDrawn = true;
      }
    }

    function markPeak(u) {
      if (!data.peak) return;  // a diff's peaks are its sides'
      const x = u.valToPos(data.peak.time_ns / 1e9, 'x', true);
      const y = u.valToPos(data.peak.bytes, 'y', true);
      if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
      const ctx = u.ctx;
      ctx.save();
      ctx.strokeStyle = '#1d2330';
      ctx.setLineDash([4 * ratio, 3 * ratio]);
      ctx.lineWidth = ratio;
      ctx.beginPath();
      ctx.moveTo(x, u.bbox.top);
      ctx.lineTo(x, u.bbox.top + u.bbox.height);
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.fillStyle = '#1d2330';
      ctx.beginPath();
      ctx.arc(x, y, 4 * ratio, 0, 2 * Math.PI);
      ctx.fill();
      ctx.font = (12 * ratio) + 'px system-ui, sans-serif';
      const label = 'peak ' + formatBytes(data.peak.bytes) + ' at ' + formatDuration(data.peak.time_ns);
      const width = ctx.measureText(label).width;
      const right = x + 8 * ratio + width < u.bbox.left + u.bbox.width;
      ctx.textAlign = right ? 'left' : 'right';
      ctx.fillText(label, right ? x + 8 * ratio : x - 8 * ratio, Math.max(u.bbox.top + 14 * ratio, y - 6 * ratio));
      ctx.restore();
      chartState.peakDrawn = true;
    }

    const brushing = typeof hooks.onBrush === 'function';
    // A drag's span, in ns of the trace, to the hook; the selection box stays
    // until the answer redraws the chart with the new window shaded.
    function brushed(u) {
      if (!brushing || u.select.width < 2) return;
      const from = u.posToVal(u.select.left, 'x');
      const to = u.posToVal(u.select.left + u.select.width, 'x');
      hooks.onBrush(Math.max(0, Math.round(from * 1e9)), Math.max(0, Math.round(to * 1e9)));
    }

    const options = {
      width: Math.max(400, container.clientWidth),
      height: 280,
      // Outstanding size from 0, so that the steps are to scale.
      scales: { x: { time: false }, y: { range: (u, min, max) => [0, max > 0 ? max * 1.08 : 1] } },
      legend: { live: true },
      cursor: { drag: { x: true, y: false, setScale: !brushing } },
      axes: [
        { label: 'time', values: (u, ticks) => ticks.map((t) => formatDuration(Math.round(t * 1e9))) },
        { size: 90, values: (u, ticks) => ticks.map((t) => formatBytes(t)) },
      ],
      series: [
        { label: 'time', value: (u, v) => (v === null || v === undefined ? '-' : formatDuration(Math.round(v * 1e9))) },
        {
          label: 'outstanding (most in the bucket)',
          stroke: '#b03a2e',
          fill: 'rgba(176, 58, 46, 0.12)',
          width: 1.5,
          paths: uPlot.paths.stepped({ align: 1 }),
          points: { show: false },
          value: (u, v) => (v === null || v === undefined ? '-' : formatBytes(v)),
        },
      ],
      hooks: { drawClear: [shadeWindow], draw: [markPeak], setSelect: [brushed] },
    };
    chartState.plot = new uPlot(options, [xs, ys], container);
    chartState.xs = xs;
    chartState.source = chart;
    if (!chartState.resetBound) {
      chartState.resetBound = true;
      document.getElementById('chart-reset').addEventListener('click', () => {
        if (hooks.onChartReset) hooks.onChartReset();
        else if (chartState.plot) chartState.plot.setScale('x', { min: chartState.xs[0], max: chartState.xs[chartState.xs.length - 1] });
      });
    }
  }

  // The app's next window on the same chart: the brush's box cleared, the
  // window and peak drawn anew, without building the chart again.
  function redrawChart() {
    const u = chartState.plot;
    if (!u) return;
    chartState.peakDrawn = false;
    chartState.windowDrawn = false;
    u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
    u.redraw(false);
  }

  // ---- the flame graph -------------------------------------------------------

  const flame = {
    chart: null,
    measure: 'so',  // render() sets it: the query's sort measure, or the one chosen since
    chosen: null,
    direction: 'top-down',
    trees: {},
    shown: null,
    term: '',
    deltaScale: 0,  // a diff's largest |B - A| among the drawn frames
  };

  function nodeDelta(node, m) {
    return node.b[m] - node.a[m];
  }

  function mix(from, to, t) {
    return 'rgb(' + from.map((c, i) => Math.round(c + (to[i] - c) * t)).join(',') + ')';
  }

  function deltaColor(delta) {
    if (delta === 0 || !(flame.deltaScale > 0)) return 'rgb(' + DIFF_NEUTRAL.join(',') + ')';
    const ramp = delta > 0 ? DIFF_GROWN : DIFF_SHRUNK;
    return mix(ramp.pale, ramp.deep, Math.sqrt(Math.min(1, Math.abs(delta) / flame.deltaScale)));
  }

  function tooltipBody(node) {
    const body = el('tbody');
    if (!isDiff) {
      const total = flame.trees[flame.direction].m;
      for (const m of measures) {
        body.append(el('tr', null, el('td', { text: m }), el('td', { text: formatMeasure(m, node.m[m]) }),
          el('td', { text: percent(node.m[m], total[m]) })));
      }
      return el('table', null, body);
    }
    const head = el('thead', null, el('tr', null, ...['', 'A', 'B', 'B \u2212 A', ''].map((t) => el('td', { text: t }))));
    for (const m of measures) {
      const delta = nodeDelta(node, m);
      body.append(el('tr', { className: delta > 0 ? 'grown' : delta < 0 ? 'shrunk' : '' }, el('td', { text: m }),
        el('td', { text: formatMeasure(m, node.a[m]) }), el('td', { text: formatMeasure(m, node.b[m]) }),
        el('td', { text: formatDelta(m, delta) }), el('td', { text: relativeChange(node.a[m], node.b[m]) })));
    }
    return el('table', null, head, body);
  }

  function makeTooltip() {
    const box = el('div', { className: 'flame-tip' });
    box.hidden = true;
    document.body.append(box);
    const tip = function () {};
    tip.show = function (event, d) {
      const path = d.ancestors().reverse().slice(1).map((a) => a.data);
      const parent = path.length > 1 ? path[path.length - 2] : null;
      // The full name always: the label may be the short one.
      box.replaceChildren(
        el('div', { className: 'name', text: d.data.name }),
        el('div', { text: 'depth ' + d.depth + (parent ? ', under ' + label(parent.name, parent.frame) : '') }),
        tooltipBody(d.data));
      box.hidden = false;
      const left = Math.min(event.pageX + 12, window.scrollX + window.innerWidth - box.offsetWidth - 8);
      box.style.left = Math.max(window.scrollX + 4, left) + 'px';
      box.style.top = (event.pageY + 14) + 'px';
      return tip;
    };
    tip.hide = function () {
      box.hidden = true;
      return tip;
    };
    tip.destroy = function () {
      box.remove();
    };
    return tip;
  }

  // Rows whose path has a label holding `term` (any case, either name of a
  // frame): what a search matches, summed per measure (a diff: each side).
  function searchShare(term) {
    const lower = term.toLowerCase();
    const matched = zeroMeasures();
    const a = zeroMeasures();
    const b = zeroMeasures();
    let rows = 0;
    for (const row of data.rows) {
      if (rowPath(row, 'top-down').some((step) => labelMatches(step.name, step.frame, lower))) {
        addMeasures(matched, rowWidth(row));
        if (isDiff) {
          addMeasures(a, row.a);
          addMeasures(b, row.b);
        }
        rows++;
      }
    }
    return { matched, a, b, rows };
  }

  function showSearch(results) {
    const details = document.getElementById('flame-details');
    if (!flame.term) {
      details.textContent = '';
      return;
    }
    const share = searchShare(flame.term);
    const m = flame.measure;
    const found = 'search "' + flame.term + '": ' + plural(results.length, 'frame') + ' highlighted; ' +
      plural(share.rows, 'row') + ' with a matching frame ';
    const unsearched = data.other ? '; [other] is not searched' : '';
    if (isDiff) {
      const delta = share.b[m] - share.a[m];
      details.textContent = found + 'went from ' + formatMeasure(m, share.a[m]) + ' to ' + formatMeasure(m, share.b[m]) +
        ' ' + m + ' (' + formatDelta(m, delta) + ', ' + relativeChange(share.a[m], share.b[m]) + ')' + unsearched;
      flame.lastSearch = { frames: results.length, rows: share.rows, a: share.a[m], b: share.b[m], delta };
      return;
    }
    details.textContent = found + 'hold ' + formatMeasure(m, share.matched[m]) + ' of ' +
      formatMeasure(m, data.totals[m]) + ' ' + m + ' (' + percent(share.matched[m], data.totals[m]) + ')' + unsearched;
    flame.lastSearch = { frames: results.length, rows: share.rows, share: share.matched[m] / (data.totals[m] || 1) };
  }

  function largestDelta(node, m) {
    let largest = Math.abs(nodeDelta(node, m));
    for (const child of node.children) largest = Math.max(largest, largestDelta(child, m));
    return largest;
  }

  function renderFlame() {
    if (!flame.trees[flame.direction]) flame.trees[flame.direction] = fullTree(flame.direction);
    const shown = displayTree(flame.trees[flame.direction], flame.measure);
    flame.shown = shown;
    const container = document.getElementById('flame');
    const empty = document.getElementById('flame-empty');
    const prunedNote = document.getElementById('flame-pruned');
    if (flame.chart) {
      flame.chart.destroy();
      flame.chart = null;
    }
    container.replaceChildren();
    if (!shown.root) {
      empty.hidden = false;
      empty.textContent = 'Nothing to draw: the total ' + flame.measure + ' of this ' +
        (isDiff ? 'diff (B\'s, and A\'s of the gone rows)' : 'result') + ' is 0.';
      prunedNote.textContent = '';
      return;
    }
    empty.hidden = true;
    prunedNote.textContent = shown.hiddenFrames > 0
      ? 'Frames below ' + Number((shown.share * 100).toPrecision(3)) + '% of the total ' + flame.measure + ' are hidden (' +
        plural(shown.hiddenFrames, 'frame') + '); where those under one frame add up to that share, ' +
        '"[pruned: N smaller frames]" stands for them. Click a frame to zoom in.'
      : 'Every frame is drawn. Click a frame to zoom in.';
    flame.deltaScale = isDiff ? largestDelta(shown.root, flame.measure) : 0;
    if (isDiff) showLegend();
    const colorOf = isDiff
      ? (d, original) => (d.highlight ? original : deltaColor(nodeDelta(d.data, flame.measure)))
      : (d, original) => (d.highlight ? original : d.data.special ? '#c8ccd4' : original);
    const chart = flamegraph.default()
      .width(Math.max(400, container.clientWidth))
      .cellHeight(18)
      .inverted(true)
      .minFrameSize(0)
      .transitionDuration(300)
      .tooltip(makeTooltip())
      .getName((d) => label(d.data.name, d.data.frame))
      .setSearchMatch((d, term) => !!term && labelMatches(d.data.name, d.data.frame, term.toLowerCase()))
      .setSearchHandler((results) => showSearch(results))
      .setDetailsHandler(() => {})
      .setColorMapper(colorOf);
    d3.select(container).datum(shown.root).call(chart);
    settleFlame(container, chart);
    flame.chart = chart;
    if (flame.term) chart.search(flame.term);
  }

  // A diff's colours, with the scale of this drawing.
  function showLegend() {
    const legend = document.getElementById('flame-legend');
    legend.hidden = false;
    const swatch = (color, text) => {
      const box = el('span', { className: 'swatch' });
      box.style.background = color;
      return el('span', { className: 'legend-item' }, box, ' ' + text);
    };
    const scale = flame.deltaScale;
    const m = flame.measure;
    legend.replaceChildren(
      'Width: B\'s ' + m + ' (A\'s for a gone stack). Colour: the change of ' + m + ' from A to B, the deeper the ' +
      'larger, against the largest drawn (' + formatMeasure(m, scale) + '): ',
      swatch(mix(DIFF_GROWN.pale, DIFF_GROWN.deep, 0), 'grew a little'),
      swatch(mix(DIFF_GROWN.pale, DIFF_GROWN.deep, 1), 'grew ' + formatMeasure(m, scale)),
      swatch(mix(DIFF_SHRUNK.pale, DIFF_SHRUNK.deep, 0), 'shrank a little'),
      swatch(mix(DIFF_SHRUNK.pale, DIFF_SHRUNK.deep, 1), 'shrank ' + formatMeasure(m, scale)),
      swatch('rgb(' + DIFF_NEUTRAL.join(',') + ')', 'unchanged'));
  }

  // Every label as the names setting says, at once.
  function labelFlame(svg) {
    svg.selectAll('g.frame').each(function (d) {
      const frame = d3.select(this);
      const text = label(d.data.name, d.data.frame);
      frame.attr('name', text);
      frame.select('foreignObject div').interrupt().text(text);
    });
  }

  // d3-flame-graph eases new frames in (widths, then labels) on animation
  // frames; a fresh graph is shown at once instead, so that a page printed or
  // captured right after loading is complete. Zooming still animates.
  function settleFlame(container, chart) {
    const svg = d3.select(container).select('svg');
    svg.selectAll('rect').interrupt();
    const width = chart.width();
    svg.selectAll('g.frame').each(function (d) {
      d3.select(this).select('rect').attr('width', (d.x1 - d.x0) * width);
    });
    labelFlame(svg);
  }

  // The measure switch, for the measures of what is drawn now.
  function setupMeasures() {
    const choice = document.getElementById('flame-measures');
    choice.replaceChildren();
    flame.measure = measures.includes(flame.chosen) ? flame.chosen : measures.includes(data.query.sort) ? data.query.sort : 'so';
    for (const m of measures) {
      const input = el('input', { type: 'radio', name: 'measure', value: m });
      input.checked = m === flame.measure;
      input.addEventListener('change', () => {
        flame.measure = m;
        flame.chosen = m;
        renderFlame();
        if (hooks.onFlameDrawn) hooks.onFlameDrawn();
      });
      choice.append(el('label', { title: MEASURE_TITLES[m] }, input, ' ' + m));
    }
  }

  // The rest of the toolbar, once: its handlers act on what is drawn then.
  let flameControlsBound = false;
  function setupFlameControls() {
    if (flameControlsBound) return;
    flameControlsBound = true;
    for (const input of document.querySelectorAll('input[name=direction]')) {
      input.addEventListener('change', () => {
        flame.direction = input.value;
        renderFlame();
      });
    }
    const search = document.getElementById('flame-search');
    search.addEventListener('input', () => {
      flame.term = search.value.trim();
      if (!flame.chart) return;
      if (flame.term) flame.chart.search(flame.term);
      else {
        flame.chart.clear();
        showSearch([]);
      }
    });
    document.getElementById('flame-search-clear').addEventListener('click', () => {
      search.value = '';
      flame.term = '';
      if (flame.chart) flame.chart.clear();
      showSearch([]);
    });
    document.getElementById('flame-reset').addEventListener('click', () => {
      if (flame.chart) flame.chart.resetZoom();
    });
    const fullNames = document.getElementById('full-names');
    fullNames.addEventListener('change', () => {
      names.full = fullNames.checked;
      if (flame.chart) labelFlame(d3.select('#flame svg'));
      labelTable();
    });
  }

  // ---- the table ---------------------------------------------------------------

  const rowsTable = { entries: [], keyCells: [] };

  function keyCell(row) {
    const cell = el('td', { className: 'key' });
    const head = [];
    let stack = null;
    row.key.forEach((value, level) => {
      if (level === stackLevel) stack = value;
      else head.push(String(value));
    });
    if (stack === null) {
      cell.textContent = head.join(' > ');
      return cell;
    }
    const prefix = head.length ? head.join(' > ') + ' > ' : '';
    if (stack.length === 0) {
      cell.textContent = prefix + '[empty stack]';
      return cell;
    }
    // The whole stack only when asked for: thousands of rows stay light. A
    // frame's full name is its title when the label is the short one.
    const frameItem = (tag, frame) => {
      const item = el(tag, { className: 'frame', text: label(frame, true) });
      if (item.textContent !== frame) item.title = frame;
      return item;
    };
    const details = el('details');
    const more = stack.length > 1 ? '  (+' + plural(stack.length - 1, 'frame') + ')' : '';
    details.append(el('summary', null, prefix, frameItem('span', stack[0]), more));
    details.addEventListener('toggle', () => {
      if (!details.open || details.querySelector('ol')) return;
      const list = el('ol', { start: '2' });
      for (const frame of stack.slice(1)) list.append(frameItem('li', frame));
      details.append(list);
    }, { once: false });
    cell.append(details);
    return cell;
  }

  // After the names setting changed: every key cell again (closing any open).
  function labelTable() {
    for (const entry of rowsTable.entries) entry.tr.replaceChild(keyCell(entry.row), entry.tr.lastChild);
  }

  // `columns`: {name, title, className, cell(row) -> td, value(row) to sort by,
  // up: sorted ascending on the first click}; the key is the last column.
  // `feet`: [row-like, key text] for [other] and [total].
  // `rowClass(row)`: a class for the whole row (a diff's grown or shrunk).
  // With hooks.onRowClick, a click on a row (not on its stack's toggle)
  // hands the hook the row's rank in the answer, 1-based.
  function fillRowsTable(columns, feet, note, rowClass) {
    const table = document.getElementById('rows');
    const all = [{ name: '#', title: 'the row\'s place in the order heapql gave', up: true }].concat(columns,
      [{ name: 'key', className: 'key', up: true }]);
    const headRow = el('tr');
    all.forEach((column, i) => {
      const th = el('th', { text: column.name, title: column.title || '' });
      if (column.className) th.className = column.className;
      th.dataset.column = String(i);
      headRow.append(th);
    });
    table.tHead.append(headRow);
    const body = table.tBodies[0];
    rowsTable.entries = data.rows.map((row, index) => {
      const tr = el('tr', null, el('td', { text: String(index + 1) }), ...columns.map((c) => c.cell(row)), keyCell(row));
      if (rowClass) tr.className = rowClass(row);
      if (hooks.onRowClick) {
        tr.classList.add('drillable');
        tr.addEventListener('click', (event) => {
          if (event.target.closest('summary')) return;
          hooks.onRowClick(index + 1, row);
        });
      }
      return { row, index, tr };
    });
    const entries = rowsTable.entries;
    body.append(...entries.map((e) => e.tr));
    for (const [row, text] of feet) {
      table.tFoot.append(el('tr', null, el('td'), ...columns.map((c) => c.cell(row)), el('td', { className: 'key', text })));
    }
    document.getElementById('rows-note').textContent = note;

    let sortedBy = null;
    let descending = true;
    headRow.addEventListener('click', (event) => {
      const th = event.target.closest('th');
      if (!th) return;
      const index = Number(th.dataset.column);
      const column = all[index];
      descending = sortedBy === index ? !descending : !column.up;
      sortedBy = index;
      const value = (e) => {
        if (column.name === '#') return e.index;
        if (column.name === 'key') return e.tr.lastChild.textContent;
        return column.value(e.row);
      };
      entries.sort((a, b) => {
        const va = value(a);
        const vb = value(b);
        const order = va < vb ? -1 : va > vb ? 1 : a.index - b.index;
        return descending ? -order : order;
      });
      body.append(...entries.map((e) => e.tr));
      for (const cell of headRow.children) cell.classList.remove('sorted-asc', 'sorted-desc');
      th.classList.add(descending ? 'sorted-desc' : 'sorted-asc');
    });
  }

  // WPA's measures (semantics.md §7), in a query of impacting types: its
  // blocks, their bytes and the impacting size, signed.
  const WPA_COLUMNS = [
    { name: 'count', title: 'blocks of WPA\'s set (alive at some moment of the window, of the types asked)',
      format: formatCount },
    { name: 'size', title: 'their bytes', format: formatBytes },
    { name: 'impacting', title: 'impacting size: AIFO bytes minus AOFI bytes (the change of outstanding size)',
      format: (v) => (v < 0 ? '-' + formatBytes(-v) : formatBytes(v)) },
  ];

  function fillTable() {
    const derivedNames = data.rows.length && data.rows[0].derived ? Object.keys(data.rows[0].derived) : [];
    const columns = measures.map((m) => ({
      name: m, title: MEASURE_TITLES[m], className: m === data.query.sort ? 'sort-measure' : '',
      cell: (row) => el('td', { text: formatMeasure(m, row[m]) }), value: (row) => row[m],
    }));
    if (data.totals.impacting !== undefined && data.totals.impacting !== null) {
      for (const w of WPA_COLUMNS) {
        columns.push({
          name: w.name, title: w.title, className: w.name === data.query.sort ? 'sort-measure' : '',
          cell: (row) => el('td', { text: w.format(row[w.name]) }), value: (row) => row[w.name],
        });
      }
    }
    for (const name of derivedNames) {
      const text = (row) => (row.derived ? row.derived[name] || '' : '');
      columns.push({
        name, cell: (row) => el('td', { text: text(row) }),
        value: (row) => {
          const number = Number(text(row));
          return text(row) !== '' && !Number.isNaN(number) ? number : text(row);
        },
      });
    }
    const feet = (data.other ? [[data.other, '[other: ' + plural(data.other.rows, 'more row') + ']']] : [])
      .concat([[data.totals, '[total]']]);
    fillRowsTable(columns, feet, plural(data.rows.length, 'row') + ', sorted by ' + data.query.sort +
      ' as the query asked; click a heading to sort by it (again: the other way).' + namesNote());
  }

  // Status, A's and B's sort measure, and the change of every measure, as
  // `heapql diff` prints them.
  function fillDiffTable() {
    const sort = data.query.sort;
    const statusCell = (row) => {
      const cell = el('td', { className: 'status' });
      if (row.status === 'new' || row.status === 'gone') cell.append(el('span', { className: row.status, text: row.status }));
      return cell;
    };
    const columns = [
      { name: 'status', title: 'new: only in B; gone: only in A', cell: statusCell, value: (row) => row.status || '', up: true },
      { name: sort + ' A', title: MEASURE_TITLES[sort] + ', in A', cell: (row) => el('td', { text: formatMeasure(sort, row.a[sort]) }),
        value: (row) => row.a[sort] },
      { name: sort + ' B', title: MEASURE_TITLES[sort] + ', in B', cell: (row) => el('td', { text: formatMeasure(sort, row.b[sort]) }),
        value: (row) => row.b[sort] },
    ];
    for (const m of measures) {
      columns.push({
        name: '\u0394 ' + m, title: 'B \u2212 A of ' + MEASURE_TITLES[m], className: m === sort ? 'sort-measure' : '',
        cell: (row) => {
          const delta = row.delta[m];
          return el('td', { className: delta > 0 ? 'grown' : delta < 0 ? 'shrunk' : '', text: formatDelta(m, delta) });
        },
        value: (row) => row.delta[m],
      });
    }
    const feet = (data.other ? [[data.other, '[other: ' + plural(data.other.rows, 'more row') + ']']] : [])
      .concat([[data.totals, '[total]']]);
    const count = (status) => data.rows.filter((row) => row.status === status).length;
    fillRowsTable(columns, feet, plural(data.rows.length, 'row') + ' (' + formatCount(count('new')) + ' new, ' +
      formatCount(count('gone')) + ' gone), the biggest change of ' + sort + ' first; click a heading to sort by it ' +
      '(again: the other way).' + namesNote(),
    (row) => (row.delta[sort] > 0 ? 'row-grown' : row.delta[sort] < 0 ? 'row-shrunk' : ''));
  }

  // The table's note on names: the app (hooks.exactNames) shows exact names
  // only and has no "full names" box.
  function namesNote() {
    return hooks.exactNames ? '' : ' Frames show as the flame graph\'s "full names" box says.';
  }

  // ---- self-test ---------------------------------------------------------------

  const SELFTEST_NAMES_KEPT = 400;  // labels reported per kind: enough to check, small on a large page

  function framePath(d) {
    return d.ancestors().reverse().slice(1).map((a) => a.data.name);
  }

  // How each drawn frame's rectangle is coloured, read from the SVG: grown
  // (more red than blue), shrunk (more blue than red) or neither.
  function frameColors() {
    const colors = { grown: [], shrunk: [], neutral: 0 };
    d3.select('#flame').selectAll('svg g.frame').each(function (d) {
      const rgb = d3.rgb(d3.select(this).select('rect').attr('fill'));
      if (rgb.r > rgb.b) colors.grown.push(framePath(d));
      else if (rgb.b > rgb.r) colors.shrunk.push(framePath(d));
      else colors.neutral++;
    });
    return colors;
  }

  // The labels shown now: flame frames as [full name, is a frame, label], the
  // table's top frames as [full name, label].
  function shownLabels() {
    const flameLabels = [];
    d3.select('#flame').selectAll('svg g.frame').each(function (d) {
      if (flameLabels.length < SELFTEST_NAMES_KEPT) {
        flameLabels.push([d.data.name, !!d.data.frame, d3.select(this).select('foreignObject div').text()]);
      }
    });
    const tableLabels = rowsTable.entries.slice(0, SELFTEST_NAMES_KEPT).flatMap((e) => {
      const shown = e.tr.lastChild.querySelector('summary .frame');
      return shown && stackLevel >= 0 ? [[e.row.key[stackLevel][0], shown.textContent]] : [];
    });
    return { flame: flameLabels, table: tableLabels };
  }

  // Hovers a frame (one whose label is shortened, if any) and reads the
  // tooltip back: the name it shows and its lines of measures.
  function hoverProbe() {
    const drawn = [];
    d3.select('#flame').selectAll('svg g.frame').each(function (d) {
      drawn.push([this, d]);
    });
    const pick = drawn.find(([, d]) => d.data.frame && label(d.data.name, true) !== d.data.name) || drawn[1] || drawn[0];
    if (!pick) return null;
    const [node, d] = pick;
    const box = node.getBoundingClientRect();
    node.dispatchEvent(new MouseEvent('mouseover', { bubbles: true, clientX: box.left + 2, clientY: box.top + 2 }));
    const tip = document.querySelector('.flame-tip');
    const probe = {
      frame: d.data.name,
      label: node.querySelector('foreignObject div').textContent,
      shown: tip && !tip.hidden ? tip.querySelector('.name').textContent : null,
      lines: tip ? Array.from(tip.querySelectorAll('tbody tr')).map((tr) => Array.from(tr.children, (td) => td.textContent)) : [],
    };
    node.dispatchEvent(new MouseEvent('mouseout', { bubbles: true }));
    return probe;
  }

  // `#selftest=TERM` in the address: switch the "full names" box and back,
  // hover a frame, search TERM, and write what was drawn as JSON into #selftest-verdict
  // (tests/html reads it back from the DOM).
  function selfTest(startedAt, term) {
    const colors = flame.chart && isDiff ? frameColors() : null;
    const fullNames = document.getElementById('full-names');
    const namesBefore = shownLabels();
    fullNames.click();
    const namesToggled = shownLabels();
    fullNames.click();
    const namesAfter = shownLabels();
    const tooltip = flame.chart ? hoverProbe() : null;
    const search = document.getElementById('flame-search');
    search.value = term;
    search.dispatchEvent(new Event('input'));
    const frames = [];
    let highlighted = [];
    if (flame.chart) {
      const nodes = d3.select('#flame').selectAll('svg g.frame');
      nodes.each((d) => frames.push(d));
      highlighted = frames.filter((d) => d.highlight).map(framePath);
    }
    let linePixels = 0;
    if (chartState.plot) {
      const u = chartState.plot;
      const pixels = u.ctx.getImageData(u.bbox.left, u.bbox.top, u.bbox.width, u.bbox.height).data;
      for (let i = 0; i < pixels.length; i += 4) {
        // The series' stroke, #b03a2e, antialiased.
        if (pixels[i + 3] > 200 && pixels[i] > 140 && pixels[i + 1] < 110 && pixels[i + 2] < 110) linePixels++;
      }
    }
    const verdict = {
      render_ms: Math.round(startedAt.rendered),
      phases_ms: { summary: startedAt.summary, chart: startedAt.chart, flame: startedAt.flame, table: startedAt.table },
      errors: problems.errors.slice(),
      violations: problems.violations.slice(),
      resources: performance.getEntriesByType('resource').map((r) => r.name),
      chart: {
        present: !!chartState.plot,
        points: chartState.plot ? chartState.plot.data[0].length : 0,
        line_pixels: linePixels,
        peak_marked: chartState.peakDrawn,
        window_shaded: chartState.windowDrawn,
        canvases: document.querySelectorAll('#chart canvas').length,
        empty_text: document.getElementById('chart-empty').hidden ? null
          : document.getElementById('chart-empty').textContent,
      },
      notes: Array.from(document.querySelectorAll('#notes li')).map((li) => li.textContent),
      flame: {
        measure: flame.measure,
        direction: flame.direction,
        frames: frames.length,
        tree_nodes: flame.shown ? flame.shown.nodes : 0,
        min_share: flame.shown ? flame.shown.share : null,
        labels_drawn: document.querySelectorAll('#flame svg g.frame foreignObject div').length,
        highlighted,
        search: flame.lastSearch || null,
        colors: colors && { grown: colors.grown, shrunk: colors.shrunk, neutral: colors.neutral },
        delta_scale: flame.deltaScale,
      },
      names: {
        full_at_start: !!page.full_names,
        full_now: names.full,
        before: namesBefore,
        toggled: namesToggled,
        after: namesAfter,
      },
      tooltip,
      kind: isDiff ? 'diff' : 'result',
      table: {
        rows: document.querySelectorAll('#rows tbody tr').length,
        footer: Array.from(document.querySelectorAll('#rows tfoot td.key')).map((td) => td.textContent),
        new: document.querySelectorAll('#rows tbody td.status .new').length,
        gone: document.querySelectorAll('#rows tbody td.status .gone').length,
        headings: Array.from(document.querySelectorAll('#rows thead th')).map((th) => th.textContent),
        first_row: Array.from(document.querySelectorAll('#rows tbody tr:first-child td')).map((td) => td.textContent),
      },
      measures,
      pwned: window.pwned === undefined ? null : String(window.pwned),  // tests/html's hostile names
    };
    const out = document.getElementById('selftest-verdict');
    out.textContent = JSON.stringify(verdict);
  }

  function showProblems() {
    const all = problems.errors.concat(problems.violations.map((v) => 'blocked: ' + v));
    if (all.length === 0) return;
    const box = document.getElementById('problems');
    box.hidden = false;
    box.textContent = 'This page hit a problem (please report it):\n' + all.join('\n');
  }

  // What render() empties and puts back before drawing: the elements the
  // fill functions append to, and what a diff hides or renames.
  const TITLES = {};
  function clearView() {
    for (const id of ['page-title', 'summary-title', 'flame-title', 'rows-title']) {
      const node = document.getElementById(id);
      if (!(id in TITLES)) TITLES[id] = node.textContent;
      node.textContent = TITLES[id];
    }
    for (const id of ['summary', 'capabilities', 'notes', 'flame-legend', 'flame-details']) {
      document.getElementById(id).replaceChildren();
    }
    const sides = document.getElementById('sides');
    sides.hidden = true;
    sides.tHead.replaceChildren();
    sides.tBodies[0].replaceChildren();
    const rows = document.getElementById('rows');
    rows.tHead.replaceChildren();
    rows.tBodies[0].replaceChildren();
    rows.tFoot.replaceChildren();
    for (const id of ['summary-section', 'chart-section', 'flame-section', 'rows-section']) {
      const section = document.getElementById(id);
      if (section) section.hidden = false;
    }
    document.getElementById('capabilities-block').hidden = false;
    document.getElementById('flame-legend').hidden = true;
    flame.trees = {};
    flame.lastSearch = null;
  }

  // Draws `result` (a query's or a diff's JSON) with what the page knows of
  // it (`pageInfo`: pruning, filters, short_names, full_names, as
  // html_report.cpp writes them). `options`: the app's hooks (onBrush,
  // onChartReset, onRowClick, onFlameDrawn), `chart` (the answer whose series
  // the chart draws; by default the result's own), `keepChart` (a diff keeps
  // the chart). Returns each phase's milliseconds; throws what went wrong.
  function render(result, pageInfo, options) {
    data = result;
    page = pageInfo;
    hooks = options || {};
    isDiff = data.kind === 'diff';
    // A diff's totals are {a, b, delta}; a result's are the measures.
    reallocKnown = (isDiff ? data.totals.a.src : data.totals.src) !== null;
    measures = MEASURES.filter((m) => m !== 'src' || reallocKnown);
    stackLevel = data.query.by.indexOf('stack');
    shortNames = new Map(Object.entries(page.short_names || {}));
    const timing = {};
    const phase = (name, draw) => {
      const start = performance.now();
      draw();
      timing[name] = Math.round(performance.now() - start);
      if (hooks.onPhase) hooks.onPhase(name);
    };
    clearView();
    phase('summary', isDiff ? fillDiffSummary : fillSummary);
    const chart = hooks.chart || data;
    if (!isDiff || hooks.keepChart) {
      phase('chart', () => (chartState.plot && chartState.source === chart ? redrawChart() : drawChart(chart)));
    }
    phase('table', isDiff ? fillDiffTable : fillTable);
    phase('flame', () => {
      setupFlameControls();
      setupMeasures();
      renderFlame();
    });
    return timing;
  }

  // The static page's start: names as the page was written, then drawn once.
  function start(result, pageInfo) {
    names.full = !!pageInfo.full_names;
    document.getElementById('full-names').checked = names.full;
    return render(result, pageInfo);
  }

  window.heapqlView = {
    MEASURES, BYTE_MEASURES, MEASURE_TITLES,
    el, formatBytes, formatCount, formatMeasure, formatDuration, formatDelta, relativeChange, plural, percent,
    render, start, selfTest, showProblems,
    names,
  };
})();
