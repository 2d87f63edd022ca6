// heapql's HTML report: draws the result embedded in this page (the JSON of
// `heapql query --format json`, docs/json.md) as a summary, a chart of
// outstanding size over time (uPlot), a flame graph (d3-flame-graph) and a
// sortable table. Every string from the trace reaches the DOM as text
// (textContent, d3's .text/.attr), never as markup: frame names are the traced
// program's to choose.
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

  const data = JSON.parse(document.getElementById('heapql-data').textContent);
  const page = JSON.parse(document.getElementById('heapql-page').textContent);
  const problems = window.heapqlProblems || { errors: [], violations: [] };
  const reallocKnown = data.totals.src !== null;
  const measures = MEASURES.filter((m) => m !== 'src' || reallocKnown);
  const stackLevel = data.query.by.indexOf('stack');

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

  function plural(n, word) {
    return formatCount(n) + ' ' + word + (n === 1 ? '' : 's');
  }

  // ---- the paths of the rows -----------------------------------------------

  // A row's path from the root: its other levels in key order, then its
  // stack's frames (JSON lists them top first: allocator first, thread entry
  // last). Top-down puts the outermost caller first; bottom-up the allocation
  // site (as heapql's stack tree does, engine/report/stack_tree.h).
  function rowPath(row, direction) {
    const path = [];
    row.key.forEach((value, level) => {
      if (level !== stackLevel) {
        path.push(String(value));
      } else if (value.length === 0) {
        path.push('[empty stack]');
      } else {
        const frames = value.map(String);
        if (direction === 'top-down') frames.reverse();
        path.push(...frames);
      }
    });
    return path;
  }

  function zeroMeasures() {
    return { so: 0, soc: 0, st: 0, stc: 0, src: 0 };
  }

  function addMeasures(into, from) {
    for (const m of MEASURES) into[m] += from[m] || 0;
  }

  // The whole tree of one direction: every path prefix one node, with its
  // inclusive measures; [other] (rows past --top and rows the page pruned) a
  // child of the root.
  function fullTree(direction) {
    const root = { name: '[total]', m: zeroMeasures(), kids: new Map(), special: true };
    for (const row of data.rows) {
      let node = root;
      addMeasures(node.m, row);
      for (const label of rowPath(row, direction)) {
        let child = node.kids.get(label);
        if (!child) {
          child = { name: label, m: zeroMeasures(), kids: new Map() };
          node.kids.set(label, child);
        }
        addMeasures(child.m, row);
        node = child;
      }
    }
    if (data.other) {
      const other = { name: '[other: ' + plural(data.other.rows, 'more row') + ']', m: zeroMeasures(), kids: new Map(), special: true };
      addMeasures(other.m, data.other);
      addMeasures(root.m, data.other);
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
      const out = { name: node.name, value: node.m[measure], m: node.m, special: !!node.special, children: [] };
      const pruned = { count: 0, m: zeroMeasures() };
      for (const child of node.kids.values()) {
        if (keep(child)) {
          out.children.push(copy(child));
        } else if (child.m[measure] > 0) {
          pruned.count++;
          addMeasures(pruned.m, child.m);
        }
      }
      if (pruned.count > 0) {
        hiddenFrames += pruned.count;
        if (pruned.m[measure] >= floor) {
          nodes++;
          out.children.push({
            name: '[pruned: ' + plural(pruned.count, 'smaller frame') + ']',
            value: pruned.m[measure], m: pruned.m, special: true, children: [],
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
    for (const filter of page.filters) {
      const values = filter.values.map((v) => (v === '' ? 'yes' : v));
      if (values.length <= 3) {
        add(summary, filter.option, values.join(', '));
        continue;
      }
      // A long list (a recipe's cull list) only when asked for.
      const details = el('details', null, el('summary', { text: plural(values.length, 'value') + ': ' +
        values.slice(0, 3).join(', ') + ', ...' }));
      details.append(el('div', { className: 'values', text: values.join(', ') }));
      summary.append(el('dt', { text: filter.option }), el('dd', null, details));
    }
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
    }
    const pruning = page.pruning;
    if (pruning.rows_pruned > 0) {
      note('Pruned: this page shows ' + formatCount(pruning.rows_kept) + ' of the result\'s ' +
        formatCount(pruning.rows_before) + ' rows: the first ' + formatCount(pruning.rows_always_kept) +
        ', then those with at least ' + (pruning.min_share_per_million / 1e4) + '% of some measure\'s total, while their keys fit in ' +
        formatBytes(pruning.key_text_budget) + '. The other ' + plural(pruning.rows_pruned, 'row') +
        ' are summed into [other], which holds ' +
        measures.map((m) => m + ' ' + formatMeasure(m, pruning.pruned[m]) + ' (' + percent(pruning.pruned[m], data.totals[m]) + ')').join(', ') +
        ' from them. Totals are exact.');
    } else {
      note('Not pruned: every row of the result is on this page.');
    }
    if (pruning.other_rows_before > 0) {
      note('--top ' + formatCount(query.top) + ' left ' + plural(pruning.other_rows_before, 'row') + ' in [other].');
    }
    if (!data.series) note('No series in this result: the chart needs a query with --series N.');
  }

  // ---- the chart -------------------------------------------------------------

  const chartState = { plot: null, peakDrawn: false, windowDrawn: false };

  function drawChart() {
    const container = document.getElementById('chart');
    const series = data.series;
    if (!series || series.max_bytes.length === 0) {
      const empty = document.getElementById('chart-empty');
      empty.hidden = false;
      empty.textContent = 'No series in this result (a query with --series N has one).';
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

    const windowStart = data.window.start_ns / 1e9;
    const windowEnd = (data.window.end_ns === null ? data.trace.duration_ns : data.window.end_ns) / 1e9;
    const ratio = window.devicePixelRatio || 1;

    function shadeWindow(u) {
      const left = Math.max(u.bbox.left, u.valToPos(windowStart, 'x', true));
      const right = Math.min(u.bbox.left + u.bbox.width, u.valToPos(windowEnd, 'x', true));
      if (right <= left) return;
      u.ctx.save();
      u.ctx.fillStyle = 'rgba(41, 128, 185, 0.14)';
      u.ctx.fillRect(left, u.bbox.top, right - left, u.bbox.height);
      u.ctx.restore();
      chartState.windowDrawn = true;
    }

    function markPeak(u) {
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

    const options = {
      width: Math.max(400, container.clientWidth),
      height: 280,
      // Outstanding size from 0, so that the steps are to scale.
      scales: { x: { time: false }, y: { range: (u, min, max) => [0, max > 0 ? max * 1.08 : 1] } },
      legend: { live: true },
      cursor: { drag: { x: true, y: false } },
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
      hooks: { drawClear: [shadeWindow], draw: [markPeak] },
    };
    chartState.plot = new uPlot(options, [xs, ys], container);
    document.getElementById('chart-reset').addEventListener('click', () => {
      chartState.plot.setScale('x', { min: xs[0], max: xs[xs.length - 1] });
    });
  }

  // ---- the flame graph -------------------------------------------------------

  const flame = {
    chart: null,
    measure: measures.includes(data.query.sort) ? data.query.sort : 'so',
    direction: 'top-down',
    trees: {},
    shown: null,
    term: '',
  };

  function makeTooltip() {
    const box = el('div', { className: 'flame-tip' });
    box.hidden = true;
    document.body.append(box);
    const tip = function () {};
    tip.show = function (event, d) {
      const total = flame.trees[flame.direction].m;
      const body = el('tbody');
      for (const m of measures) {
        body.append(el('tr', null, el('td', { text: m }), el('td', { text: formatMeasure(m, d.data.m[m]) }),
          el('td', { text: percent(d.data.m[m], total[m]) })));
      }
      const path = d.ancestors().reverse().slice(1).map((a) => a.data.name);
      box.replaceChildren(
        el('div', { className: 'name', text: d.data.name }),
        el('div', { text: 'depth ' + d.depth + (path.length > 1 ? ', under ' + path[path.length - 2] : '') }),
        el('table', null, body));
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

  // Rows whose path has a label holding `term` (any case): what a search
  // matches, as a share of the total of each measure.
  function searchShare(term) {
    const lower = term.toLowerCase();
    const matched = zeroMeasures();
    let rows = 0;
    for (const row of data.rows) {
      if (rowPath(row, 'top-down').some((label) => label.toLowerCase().includes(lower))) {
        addMeasures(matched, row);
        rows++;
      }
    }
    return { matched, rows };
  }

  function showSearch(results) {
    const details = document.getElementById('flame-details');
    if (!flame.term) {
      details.textContent = '';
      return;
    }
    const share = searchShare(flame.term);
    const m = flame.measure;
    details.textContent = 'search "' + flame.term + '": ' + plural(results.length, 'frame') + ' highlighted; ' +
      plural(share.rows, 'row') + ' with a matching frame hold ' + formatMeasure(m, share.matched[m]) + ' of ' +
      formatMeasure(m, data.totals[m]) + ' ' + m + ' (' + percent(share.matched[m], data.totals[m]) + ')' +
      (data.other ? '; [other] is not searched' : '');
    flame.lastSearch = { frames: results.length, rows: share.rows, share: share.matched[m] / (data.totals[m] || 1) };
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
      empty.textContent = 'Nothing to draw: the total ' + flame.measure + ' of this result is 0.';
      prunedNote.textContent = '';
      return;
    }
    empty.hidden = true;
    prunedNote.textContent = shown.hiddenFrames > 0
      ? 'Frames below ' + Number((shown.share * 100).toPrecision(3)) + '% of the total ' + flame.measure + ' are hidden (' +
        plural(shown.hiddenFrames, 'frame') + '); where those under one frame add up to that share, ' +
        '"[pruned: N smaller frames]" stands for them. Click a frame to zoom in.'
      : 'Every frame is drawn. Click a frame to zoom in.';
    const chart = flamegraph.default()
      .width(Math.max(400, container.clientWidth))
      .cellHeight(18)
      .inverted(true)
      .minFrameSize(0)
      .transitionDuration(300)
      .tooltip(makeTooltip())
      .getName((d) => d.data.name)
      .setSearchMatch((d, term) => !!term && d.data.name.toLowerCase().includes(term.toLowerCase()))
      .setSearchHandler((results) => showSearch(results))
      .setDetailsHandler(() => {})
      .setColorMapper((d, original) => (d.highlight ? original : d.data.special ? '#c8ccd4' : original));
    d3.select(container).datum(shown.root).call(chart);
    settleFlame(container, chart);
    flame.chart = chart;
    if (flame.term) chart.search(flame.term);
  }

  // d3-flame-graph eases new frames in (widths, then labels) on animation
  // frames; a fresh graph is shown at once instead, so that a page printed or
  // captured right after loading is complete. Zooming still animates.
  function settleFlame(container, chart) {
    const svg = d3.select(container).select('svg');
    svg.selectAll('rect').interrupt();
    svg.selectAll('foreignObject div').interrupt();
    const width = chart.width();
    svg.selectAll('g.frame').each(function (d) {
      const frame = d3.select(this);
      frame.select('rect').attr('width', (d.x1 - d.x0) * width);
      frame.select('foreignObject div').text(d.data.name);
    });
  }

  function setupFlameControls() {
    const choice = document.getElementById('flame-measures');
    for (const m of measures) {
      const input = el('input', { type: 'radio', name: 'measure', value: m });
      input.checked = m === flame.measure;
      input.addEventListener('change', () => {
        flame.measure = m;
        renderFlame();
      });
      choice.append(el('label', { title: MEASURE_TITLES[m] }, input, ' ' + m));
    }
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
  }

  // ---- the table ---------------------------------------------------------------

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
    // The whole stack only when asked for: thousands of rows stay light.
    const details = el('details');
    const more = stack.length > 1 ? '  (+' + plural(stack.length - 1, 'frame') + ')' : '';
    details.append(el('summary', { text: prefix + stack[0] + more }));
    details.addEventListener('toggle', () => {
      if (!details.open || details.querySelector('ol')) return;
      const list = el('ol', { start: '2' });
      for (const frame of stack.slice(1)) list.append(el('li', { text: frame }));
      details.append(list);
    }, { once: false });
    cell.append(details);
    return cell;
  }

  function measureCells(m, derivedNames, derived) {
    const cells = measures.map((name) => el('td', { text: formatMeasure(name, m[name]) }));
    for (const name of derivedNames) cells.push(el('td', { text: derived ? derived[name] || '' : '' }));
    return cells;
  }

  function fillTable() {
    const table = document.getElementById('rows');
    const derivedNames = data.rows.length && data.rows[0].derived ? Object.keys(data.rows[0].derived) : [];
    const columns = ['#'].concat(measures, derivedNames, ['key']);
    const headRow = el('tr');
    columns.forEach((name, i) => {
      const th = el('th', { text: name, title: MEASURE_TITLES[name] || '' });
      if (name === 'key') th.className = 'key';
      if (name === data.query.sort) th.classList.add('sort-measure');
      th.dataset.column = String(i);
      headRow.append(th);
    });
    table.tHead.append(headRow);
    const body = table.tBodies[0];
    const entries = data.rows.map((row, index) => {
      const tr = el('tr', null, el('td', { text: String(index + 1) }), ...measureCells(row, derivedNames, row.derived), keyCell(row));
      return { row, index, tr };
    });
    body.append(...entries.map((e) => e.tr));
    if (data.other) {
      table.tFoot.append(el('tr', null, el('td'), ...measureCells(data.other, derivedNames, null),
        el('td', { className: 'key', text: '[other: ' + plural(data.other.rows, 'more row') + ']' })));
    }
    table.tFoot.append(el('tr', null, el('td'), ...measureCells(data.totals, derivedNames, null),
      el('td', { className: 'key', text: '[total]' })));
    document.getElementById('rows-note').textContent = plural(data.rows.length, 'row') +
      ', sorted by ' + data.query.sort + ' as the query asked; click a heading to sort by it (again: the other way).';

    let sortedBy = null;
    let descending = true;
    headRow.addEventListener('click', (event) => {
      const th = event.target.closest('th');
      if (!th) return;
      const name = columns[Number(th.dataset.column)];
      descending = sortedBy === name ? !descending : name !== 'key' && name !== '#';
      sortedBy = name;
      const value = (e) => {
        if (name === '#') return e.index;
        if (name === 'key') return e.tr.lastChild.textContent;
        if (derivedNames.includes(name)) {
          const text = e.row.derived ? e.row.derived[name] || '' : '';
          const number = Number(text);
          return text !== '' && !Number.isNaN(number) ? number : text;
        }
        return e.row[name];
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

  // ---- self-test ---------------------------------------------------------------

  // `#selftest=TERM` in the address: search TERM and write what was drawn as
  // JSON into #selftest-verdict (tests/html reads it back from the DOM).
  function selfTest(startedAt) {
    const match = /^#selftest=(.*)$/.exec(window.location.hash);
    if (!match) return;
    const term = decodeURIComponent(match[1]);
    const search = document.getElementById('flame-search');
    search.value = term;
    search.dispatchEvent(new Event('input'));
    const frames = [];
    let highlighted = [];
    if (flame.chart) {
      const nodes = d3.select('#flame').selectAll('svg g.frame');
      nodes.each((d) => frames.push(d));
      highlighted = frames.filter((d) => d.highlight).map((d) => d.ancestors().reverse().slice(1).map((a) => a.data.name));
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
      },
      flame: {
        measure: flame.measure,
        direction: flame.direction,
        frames: frames.length,
        tree_nodes: flame.shown ? flame.shown.nodes : 0,
        min_share: flame.shown ? flame.shown.share : null,
        labels_drawn: document.querySelectorAll('#flame svg g.frame foreignObject div').length,
        highlighted,
        search: flame.lastSearch || null,
      },
      table: {
        rows: document.querySelectorAll('#rows tbody tr').length,
        footer: Array.from(document.querySelectorAll('#rows tfoot td.key')).map((td) => td.textContent),
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

  const timing = {};
  const phase = (name, draw) => {
    const start = performance.now();
    draw();
    timing[name] = Math.round(performance.now() - start);
  };
  try {
    phase('summary', fillSummary);
    phase('chart', drawChart);
    phase('flame', () => {
      setupFlameControls();
      renderFlame();
    });
    phase('table', fillTable);
  } catch (error) {
    problems.errors.push('render: ' + (error && error.stack ? error.stack : String(error)));
  }
  // uPlot draws in a microtask: by the next task everything is on screen.
  setTimeout(() => {
    timing.rendered = performance.now();
    selfTest(timing);
    showProblems();
  }, 0);
})();
