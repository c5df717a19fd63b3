// A node:test reporter that only counts: tests passed, failed (cancelled ones included: they did
// not pass), skipped and todo, and suites, failed or skipped with the reason of each skip (the
// PostgreSQL suites skip without TEST_DATABASE_URL). Node's own `# skipped` counts tests only, so
// without this a skipped suite goes unreported. It also keeps each failed test's file, name and
// the first lines of its error: CI shows only the tail of a long run, so the closing summary must
// name what failed. It writes one JSON object when the run ends; scripts/run-tests.mjs turns it
// into the closing summary.

const marked = (flag) => flag !== undefined && flag !== false;

export default async function* summary(source) {
  const counts = { passed: 0, failed: 0, cancelled: 0, skipped: 0, todo: 0, suites: 0, failedSuites: 0 };
  /** reason → names of the suites it skipped */
  const skippedSuites = {};
  /** the failed tests: where, which, and why in a few lines */
  const failures = [];
  for await (const { type, data } of source) {
    if (type !== 'test:pass' && type !== 'test:fail') continue;
    if (data.details?.type === 'suite') {
      counts.suites++;
      if (marked(data.skip)) {
        const reason = typeof data.skip === 'string' ? data.skip : 'no reason given';
        skippedSuites[reason] = [...(skippedSuites[reason] ?? []), data.name];
      } else if (type === 'test:fail') counts.failedSuites++;
    } else if (marked(data.skip)) counts.skipped++;
    else if (marked(data.todo)) counts.todo++;
    else if (type === 'test:pass') counts.passed++;
    else {
      counts.failed++;
      const error = data.details?.error;
      if (error?.failureType === 'cancelledByParent') counts.cancelled++;
      else failures.push({ file: data.file, name: data.name, why: firstLines(error) });
    }
  }
  yield `${JSON.stringify({ ...counts, skippedSuites, failures })}\n`;
}

function firstLines(error) {
  const cause = error?.cause ?? error;
  const text = cause instanceof Error ? (cause.stack ?? cause.message) : String(cause);
  return text.split('\n').slice(0, 12).join('\n');
}
