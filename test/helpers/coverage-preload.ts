// Loaded into a gateway process with `--import` by test/unit/request-path.test.ts: on SIGUSR2 it writes the
// functions that ran since the previous SIGUSR2 (V8's precise coverage resets its counts when taken), so
// a test can see which source files one request runs code in.
import { Session } from 'node:inspector/promises';
import { writeFile, rename } from 'node:fs/promises';

const out = process.env.MODELGATE_COVERAGE_FILE;
if (out !== undefined) {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  let taken = 0;
  process.on('SIGUSR2', () => {
    void session.post('Profiler.takePreciseCoverage').then(async (coverage) => {
      const ran = coverage.result.filter((s) => s.functions.some((f) => f.ranges[0] !== undefined && f.ranges[0].count > 0)).map((s) => s.url);
      // Written whole, then renamed: the test reads a file only once it is complete.
      taken++;
      await writeFile(`${out}.tmp`, JSON.stringify(ran));
      await rename(`${out}.tmp`, `${out}.${taken}`);
    });
  });
}
