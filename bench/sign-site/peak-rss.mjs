// Peak RSS of this process's memory (all its threads): VmHWM. Not getrusage's maxRSS, which Linux carries
// over from the parent across fork + exec, so it reports the spawning process's size when that is larger.
import { readFileSync } from 'node:fs';

/** Peak resident memory of this process so far, in KiB. */
export function peakRssKib() {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1]);
  } catch {
    return process.resourceUsage().maxRSS;
  }
}
