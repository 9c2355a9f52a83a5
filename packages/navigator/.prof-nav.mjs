import { indexRepository } from '@clippy/repomap';
import { navigate, OfflinePlanner } from '@clippy/navigator';
const root = process.argv[2]; const goal = process.argv[3];
const c0 = process.cpuUsage(); const t0 = Date.now();
const index = await indexRepository({ root, cacheDir: process.env.CD });
const c1 = process.cpuUsage(c0);
const res = await navigate({ root, index, goal, planner: new OfflinePlanner(), pricing: { model: 'offline', input: 0, output: 0 }, tokenBudget: 20000 });
const c2 = process.cpuUsage(c0);
console.log(`index ${Math.round((c1.user + c1.system) / 1000)} ms cpu; whole run ${Math.round((c2.user + c2.system) / 1000)} ms cpu, ${Date.now() - t0} ms wall; ${res.state.iterations} steps`);
