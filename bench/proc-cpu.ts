// CPU time from Linux's /proc, for the bench's "where does a request's CPU go" columns: the
// service's process, a local PostgreSQL server's processes, and this process's finished children
// (pgbench). Each is undefined where /proc does not say (another OS, a remote server).
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's times (USER_HZ: 100 on Linux everywhere that matters). */
const TICK_MS = 10;

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces, in parentheses). */
function statFields(pid: number | 'self'): { comm: string; fields: string[] } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    return { comm: stat.slice(stat.indexOf('(') + 1, close), fields: stat.slice(close + 2).split(' ') };
  } catch {
    return undefined;
  }
}

/** CPU time used so far by a process (user + system), in ms. */
export function cpuMsOf(pid: number | undefined): number | undefined {
  const stat = pid === undefined ? undefined : statFields(pid);
  return stat && (Number(stat.fields[11]) + Number(stat.fields[12])) * TICK_MS;
}

/**
 * CPU time used so far by every process of a PostgreSQL server on this machine (its backends,
 * including those that have ended, as the postmaster has waited for them, and its background
 * workers), in ms; undefined when no such process is visible (a server elsewhere).
 */
export function postgresCpuMs(): number | undefined {
  let total = 0;
  let seen = false;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = statFields(Number(entry));
    if (stat?.comm !== 'postgres') continue;
    seen = true;
    // utime, stime, and cutime, cstime: the ended children a process has waited for.
    const [utime, stime, cutime, cstime] = stat.fields.slice(11, 15).map(Number);
    total += (utime + stime + cutime + cstime) * TICK_MS;
  }
  return seen ? total : undefined;
}

/** CPU time of this process's ended children it has waited for (a finished pgbench), in ms. */
export function childrenCpuMs(): number | undefined {
  const stat = statFields('self');
  return stat && (Number(stat.fields[13]) + Number(stat.fields[14])) * TICK_MS;
}
