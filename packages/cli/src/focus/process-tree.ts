import { runProgram } from '../run-program.js';

/** Longest `ps` listing read where there is no /proc (a few thousand processes). */
const PS_MAX_BUFFER = 8 * 1024 * 1024;

/** Every process's parent, keyed by PID: from /proc on Linux, else from `ps`. */
export async function parentMap(): Promise<Map<number, number>> {
  try {
    return await parentsFromProc();
  } catch {
    return parentsFromPs();
  }
}

/** Process `pid`'s parent, from /proc (Linux); null when it cannot be read. */
export async function parentOf(pid: number): Promise<number | null> {
  const { readFile } = process.getBuiltinModule('node:fs/promises');
  try {
    return ppidOf(await readFile(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return null;
  }
}

/** "pid (comm) state ppid …": comm may hold spaces and parentheses, so cut after the last ')'. */
function ppidOf(stat: string): number {
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

async function parentsFromProc(): Promise<Map<number, number>> {
  const parents = new Map<number, number>();
  // Loaded here, not imported: the fast path's commands load this module and need none of it.
  const { readdir, readFile } = process.getBuiltinModule('node:fs/promises');
  const entries = await readdir('/proc');
  await Promise.all(
    entries.map(async (entry) => {
      if (!/^\d+$/.test(entry)) return;
      try {
        parents.set(Number(entry), ppidOf(await readFile(`/proc/${entry}/stat`, 'latin1')));
      } catch {
        // The process ended while we looked.
      }
    }),
  );
  if (parents.size === 0) throw new Error('no /proc');
  return parents;
}

async function parentsFromPs(): Promise<Map<number, number>> {
  const { stdout } = await runProgram('ps', ['-A', '-o', 'pid=', '-o', 'ppid='], {
    maxBuffer: PS_MAX_BUFFER,
  });
  const parents = new Map<number, number>();
  for (const line of stdout.split('\n')) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number);
    if (pid && ppid !== undefined && !Number.isNaN(ppid)) parents.set(pid, ppid);
  }
  return parents;
}

/** `root` and every process below it. */
export function descendants(root: number, parents: Map<number, number>): Set<number> {
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of parents) {
    const list = children.get(ppid);
    if (list) list.push(pid);
    else children.set(ppid, [pid]);
  }
  const found = new Set<number>([root]);
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.pop()!) ?? []) {
      if (!found.has(child)) {
        found.add(child);
        queue.push(child);
      }
    }
  }
  return found;
}
