// The command line's name: package.json `name` and its one `bin` entry (a test holds them
// equal). No other npm package answers to it, so `npx sales-pipeline-gate` run outside a clone
// finds nothing to run rather than someone else's code.
export const COMMAND = 'sales-pipeline-gate';
