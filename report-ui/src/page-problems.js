// Before anything else runs: collect what would make this page wrong
// (script errors, console errors and warnings, blocked loads), for the
// banner, the static report's self-test (view.js) and the served app's
// browser tests (tests/serve). Both pages inline it first.
(function () {
  var problems = { errors: [], violations: [] };
  window.heapqlProblems = problems;
  window.addEventListener('error', function (e) { problems.errors.push('error: ' + String(e.message)); });
  window.addEventListener('unhandledrejection', function (e) { problems.errors.push('rejection: ' + String(e.reason)); });
  document.addEventListener('securitypolicyviolation', function (e) {
    problems.violations.push(e.violatedDirective + ' ' + e.blockedURI);
  });
  ['error', 'warn'].forEach(function (level) {
    var original = console[level];
    console[level] = function () {
      problems.errors.push('console.' + level + ': ' + Array.prototype.map.call(arguments, String).join(' '));
      return original.apply(console, arguments);
    };
  });
})();
