// The process's open-file limit, and the default connection cap derived from it (D-44).
// Every socket holds a file descriptor: a cap at or above the limit lets a flood of stalled
// sockets take every descriptor, and then nothing (not even the store) can open one.
import { readFileSync } from 'node:fs';

/** When the limit cannot be read (no /proc: macOS, Windows). */
export const FALLBACK_MAX_CONNECTIONS = 1000;
export const MIN_DEFAULT_MAX_CONNECTIONS = 16;
export const MAX_DEFAULT_MAX_CONNECTIONS = 50_000;

/**
 * The soft "Max open files" of this process from /proc/self/limits (Node raises the soft limit
 * to the hard one at start, so this is the figure that counts); Infinity for "unlimited",
 * undefined when it cannot be read.
 */
export function openFileLimit(limits?: string): number | undefined {
  let text = limits;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return undefined;
    }
  }
  const soft = /^Max open files\s+(\S+)/m.exec(text)?.[1];
  if (soft === undefined) return undefined;
  if (soft === 'unlimited') return Number.POSITIVE_INFINITY;
  const value = Number(soft);
  return Number.isInteger(value) && value > 0 ? value : undefined;
}

/**
 * Half the open-file limit, bounded to 16..50,000: the other half stays for the store, logs and
 * files. 1000 when the limit is unknown.
 */
export function defaultMaxConnections(limit: number | undefined): number {
  if (limit === undefined) return FALLBACK_MAX_CONNECTIONS;
  return Math.min(MAX_DEFAULT_MAX_CONNECTIONS, Math.max(MIN_DEFAULT_MAX_CONNECTIONS, Math.floor(limit / 2)));
}
