import { readFileSync } from 'node:fs'

/**
 * CPU seconds the calling thread has used (user + system), from /proc/thread-self/stat; null
 * where that file does not exist (not Linux). Wall-clock phase timings on a shared machine count
 * the time a thread waited for a core; this counts only the work.
 */
export function threadCpuSeconds(): number | null {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'latin1')
    // fields after the command name (which is in parentheses and may hold spaces)
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(f[11]) + Number(f[12])) / TICKS_PER_SECOND
  } catch {
    return null
  }
}
const TICKS_PER_SECOND = 100
