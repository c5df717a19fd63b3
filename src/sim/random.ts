// mulberry32: a small, fast generator whose whole state is its seed, so that a seed replays a
// run exactly (the simulation, the fuzzer, the crash tests' load).
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A run's choices, all from one seeded generator: a number, a chance, an item of a list. */
export interface Dice {
  random: () => number;
  chance: (p: number) => boolean;
  pick: <T>(items: readonly T[]) => T | undefined;
}

export function seededDice(seed: number): Dice {
  const random = seededRandom(seed);
  return {
    random,
    chance: (p) => random() < p,
    pick: (items) => (items.length === 0 ? undefined : items[Math.floor(random() * items.length)]),
  };
}
