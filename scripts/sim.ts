// `npm run sim -- --seconds N --seed S` (or --steps N; --episode-steps N for longer lives): the simulation of src/sim/simulate.ts for
// as long as asked; prints what ran and, on a failure, the seed, the step and the steps before it.
// Both modes run, the demo's and keys mode's, each for half the seconds (or --steps each);
// `--mode demo` or `--mode keys` runs one of them for all of it.
import { describeApprovals, describeProposals, simulate } from '../src/sim/simulate.ts';

const args = process.argv.slice(2);
const option = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : undefined;
};
const seed = option('--seed') ?? Math.floor(Math.random() * 2 ** 31);
const seconds = option('--seconds') ?? (option('--steps') === undefined ? 10 : undefined);
const modeAt = args.indexOf('--mode');
const chosen = modeAt >= 0 ? args[modeAt + 1] : 'both';
if (!['demo', 'keys', 'both'].includes(chosen)) {
  console.error(`--mode must be demo, keys or both, got ${chosen}`);
  process.exit(2);
}
const modes = chosen === 'both' ? ['demo', 'keys'] : [chosen];
let failed = false;
for (const mode of modes) {
  const report = await simulate({
    seed,
    seconds: seconds === undefined ? undefined : seconds / modes.length,
    steps: option('--steps'),
    episodeSteps: option('--episode-steps'),
    keys: mode === 'keys',
  });
  failed = print(report, mode) || failed;
}
if (failed) process.exit(1);

function print(report: Awaited<ReturnType<typeof simulate>>, mode: string): boolean {
  const kinds = Object.entries(report.kinds)
    .map(([kind, { run, refused }]) => `${kind} ${run} (${refused} refused)`)
    .join(', ');
  console.log(
    `simulation (${mode}): seed ${seed}, ${report.steps} steps in ${report.episodes} episodes, ${report.faults} injected faults; ${kinds}`,
  );
  if (report.keys) {
    const k = report.keys;
    console.log(
      `keys: ${k.refusedKeys} commands refused for their key and ${k.refusedScopes} for its scopes, ${k.crossTenant} on another tenant's record (each answered as an unknown id), ${k.tokens} tokens tried (${k.tokensRefused} rightly refused), ${k.issued} keys issued and ${k.revoked} revoked, ${k.rolled} rolled (${k.rollsRefused} rolls refused to a weaker key), ${k.answersChecked} answers held to their tenant, ${k.asPeople} commands made by people through their sessions; ${k.streamsOpened} event streams opened, ${k.streamEvents} events delivered, ${k.streamsEnded} ended with their key`,
    );
  }
  console.log(describeProposals(report));
  if (report.keys) console.log(describeApprovals(report));
  if (report.final) {
    const f = report.final;
    console.log(
      `left (the episodes added up): ${f.deals} deals (${f.won} won), ${f.gigs} gigs (${f.fulfilled} fulfilled), ${f.closers} closers, ${f.payouts} ledger lines; the books: ${f.transfers} transfers, ${f.refunds} refunds, ${f.releases} releases, ${f.clawbacks} clawbacks, ${f.paid} payouts`,
    );
  }
  if (!report.failure) return false;
  const { step, command, problem, violations, trail } = report.failure;
  console.log(`FAILED at step ${step} (${command}): ${problem}`);
  for (const violation of violations ?? []) console.log(`  ${violation.invariant}: ${violation.message}`);
  console.log(
    `the steps before it:\n  ${trail.join('\n  ')}\nreplay: npm run sim -- --seed ${seed} --steps ${step} --mode ${mode}`,
  );
  return true;
}
