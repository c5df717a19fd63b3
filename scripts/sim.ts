// `npm run sim -- --seconds N --seed S` (or --steps N; --episode-steps N for longer lives): the simulation of src/sim/simulate.ts for
// as long as asked; prints what ran and, on a failure, the seed, the step and the steps before it.
import { simulate } from '../src/sim/simulate.ts';

const args = process.argv.slice(2);
const option = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : undefined;
};
const seed = option('--seed') ?? Math.floor(Math.random() * 2 ** 31);
const seconds = option('--seconds') ?? (option('--steps') === undefined ? 10 : undefined);
const report = await simulate({ seed, seconds, steps: option('--steps'), episodeSteps: option('--episode-steps') });
const kinds = Object.entries(report.kinds)
  .map(([kind, { run, refused }]) => `${kind} ${run} (${refused} refused)`)
  .join(', ');
console.log(
  `simulation: seed ${seed}, ${report.steps} steps in ${report.episodes} episodes, ${report.faults} injected faults; ${kinds}`,
);
if (report.final) {
  const f = report.final;
  console.log(
    `left (the episodes added up): ${f.deals} deals (${f.won} won), ${f.gigs} gigs (${f.fulfilled} fulfilled), ${f.closers} closers, ${f.payouts} ledger lines`,
  );
}
if (report.failure) {
  const { step, command, problem, violations, trail } = report.failure;
  console.log(`FAILED at step ${step} (${command}): ${problem}`);
  for (const violation of violations ?? []) console.log(`  ${violation.invariant}: ${violation.message}`);
  console.log(`the steps before it:\n  ${trail.join('\n  ')}\nreplay: npm run sim -- --seed ${seed} --steps ${step}`);
  process.exit(1);
}
