// The environment's typed values: a number or a whole number within bounds, true or false, a
// comma-separated list. Each refuses what it cannot read, naming the variable (the service does
// not start on a mistyped setting).

export function number(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new Error(`${name} must be a number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

export function boolean(env: NodeJS.ProcessEnv, name: string, fallback = false): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'false') return false;
  if (raw === 'true') return true;
  throw new Error(`${name} must be true or false, got ${JSON.stringify(raw)}`);
}

export function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const value = number(env, name, fallback, min, max);
  if (!Number.isInteger(value)) throw new Error(`${name} must be a whole number, got ${JSON.stringify(env[name])}`);
  return value;
}

/** A comma-separated list; undefined when unset or blank. An empty entry is a mistake. */
export function list(env: NodeJS.ProcessEnv, name: string, example: string): string[] | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const entries = raw.split(',').map((entry) => entry.trim());
  if (entries.includes('')) throw new Error(`${name} has an empty entry (${example}), got ${JSON.stringify(raw)}`);
  return entries;
}

/** A switch set `on` or `off`. */
export function onOff(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw !== 'on' && raw !== 'off') throw new Error(`${name} must be on or off, got ${JSON.stringify(raw)}`);
  return raw === 'on';
}
