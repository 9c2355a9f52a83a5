/** Per-thread CPU of a process from /proc (Linux): where a daemon's time goes, thread by thread. */
import fs from 'node:fs';

export type ThreadCpu = Map<string, number>;

/** CPU seconds per thread ("main", or the thread's name and id: Node names its workers "node" too). */
export function threadCpu(pid: number): ThreadCpu {
  const out: ThreadCpu = new Map();
  let tids: string[];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const name = tid === String(pid) ? 'main' : `${comm}#${tid}`;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cpu = (Number(fields[11]) + Number(fields[12])) / 100;
      out.set(name, (out.get(name) ?? 0) + cpu);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

/** "name 1.23 s, …" of the CPU each thread used between two samples, busiest first. */
export function threadCpuDelta(before: ThreadCpu, after: ThreadCpu): string {
  const rows: [string, number][] = [];
  for (const [name, cpu] of after) {
    const d = cpu - (before.get(name) ?? 0);
    if (d >= 0.01) rows.push([name, d]);
  }
  rows.sort((a, b) => b[1] - a[1]);
  return rows.map(([n, d]) => `${n} ${d.toFixed(2)} s`).join(', ');
}
