// Reading GET /metrics as a scraper would: Prometheus's text format, parsed into its samples.

/** The samples of an exposition: `name{labels}` → value, labels in the order written. */
export function parse(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    samples.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return samples;
}

/** A sample's value (0 when absent, as Prometheus reads a series not yet seen). */
export function sample(samples: Map<string, number>, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels);
  for (const [key, value] of samples) {
    const open = key.indexOf('{');
    if ((open < 0 ? key : key.slice(0, open)) !== name) continue;
    const written = open < 0 ? '' : key.slice(open + 1, -1);
    if (wanted.every(([k, v]) => written.includes(`${k}="${v}"`))) return value;
  }
  return 0;
}
