#!/usr/bin/env node
// Prints exactly one line, `N passed, M failed`, from vitest's JSON report (the path is the
// first argument; default test-results/vitest.json).
//   N = numPassedTests.
//   M = numFailedTests, plus tests that did not run because their suite failed (a failed
//       beforeAll marks the tests of its describe as skipped), plus 1 for each failed file
//       whose failure is not explained by a failed test (an import error, a failed afterAll).
// A missing or unreadable report prints `0 passed, 1 failed`.
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? 'test-results/vitest.json';

function count(report) {
  const passed = Number(report.numPassedTests ?? 0);
  let failed = Number(report.numFailedTests ?? 0);
  const files = Array.isArray(report.testResults) ? report.testResults : [];
  for (const result of files) {
    if (result.status !== 'failed') continue;
    const tests = Array.isArray(result.assertionResults) ? result.assertionResults : [];
    if (tests.length === 0) {
      failed += 1;
      continue;
    }
    // Group the tests by their describe path: a group in a failed file in which nothing ran
    // (no test passed or failed) did not run because its suite failed.
    const groups = new Map();
    for (const test of tests) {
      const key = JSON.stringify(test.ancestorTitles ?? []);
      const group = groups.get(key) ?? { ran: 0, notRun: 0 };
      if (test.status === 'passed' || test.status === 'failed') group.ran += 1;
      else group.notRun += 1;
      groups.set(key, group);
    }
    let notRun = 0;
    for (const group of groups.values()) if (group.ran === 0) notRun += group.notRun;
    const fileHasFailedTest = tests.some((test) => test.status === 'failed');
    if (notRun > 0) failed += notRun;
    else if (!fileHasFailedTest) failed += 1;
  }
  if (files.length === 0 && Number(report.numFailedTestSuites ?? 0) > 0 && Number(report.numTotalTests ?? 0) === 0) {
    failed += Number(report.numFailedTestSuites);
  }
  return { passed, failed };
}

let line;
try {
  const { passed, failed } = count(JSON.parse(readFileSync(file, 'utf8')));
  line = `${passed} passed, ${failed} failed`;
} catch {
  line = '0 passed, 1 failed';
}
process.stdout.write(`${line}\n`);
