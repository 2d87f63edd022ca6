// The static HTML report's start (page.html): draws the result embedded in
// the page with view.js, then, with `#selftest=TERM` in the address, runs the
// self-test that tests/html reads back.
(function () {
  'use strict';
  const view = window.heapqlView;
  const problems = window.heapqlProblems || { errors: [], violations: [] };
  let timing = {};
  try {
    const data = JSON.parse(document.getElementById('heapql-data').textContent);
    const page = JSON.parse(document.getElementById('heapql-page').textContent);
    timing = view.start(data, page);
  } catch (error) {
    problems.errors.push('render: ' + (error && error.stack ? error.stack : String(error)));
  }
  // uPlot draws in a microtask: by the next task everything is on screen.
  setTimeout(() => {
    timing.rendered = performance.now();
    const match = /^#selftest=(.*)$/.exec(window.location.hash);
    if (match) view.selfTest(timing, decodeURIComponent(match[1]));
    view.showProblems();
  }, 0);
})();
