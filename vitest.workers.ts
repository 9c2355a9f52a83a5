/**
 * How many test files run at once, per kind of project (vitest's default is one less than the
 * cores: a single worker on a 2-core machine, which left the CPU three quarters idle). vitest
 * runs projects of one `groupOrder` together and the groups one after the other, so each kind
 * is a group. `--maxWorkers` overrides both for a run.
 */

/** Pure computation (turn engine, schemas, maps): one file per core; more only slice the CPU. */
export const CPU_BOUND = { maxWorkers: 2, sequence: { groupOrder: 0 } } as const;

/**
 * Files that start daemons, agents, PTYs, shells and browsers and mostly wait on them: four at
 * once keep two cores busy; more lengthen each file's waits past what a test can bear.
 * A worker runs file after file in one process and module graph (`isolate: false`): a fresh
 * process per file (vitest's default) cost a node start and an import of testkit, client and
 * protocol every file, 35% of the broker project's CPU time. What these files change in the
 * process (an environment variable, at most) they put back; what they start, they stop.
 */
export const PROCESS_BOUND = {
  maxWorkers: 4,
  sequence: { groupOrder: 1 },
  isolate: false,
} as const;
