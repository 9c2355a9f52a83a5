// `npm run eval:navigator`: the navigator's quality on real commits (../shared/eval), when its
// cases and the repositories' git mirrors are on this machine; otherwise it says what is
// missing and exits 0 (the measure needs network-fetched mirrors that CI does not have).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = process.cwd();
/** Where the eval lives: beside the checkout, as the workspace lays it out. */
const evalDir = process.env.NAVIGATOR_EVAL_DIR ?? path.join(root, '..', 'shared', 'eval');
const script = path.join(evalDir, 'navigator-eval');
const cases = path.join(evalDir, 'navigator-devset.json');
/** The runner's own default: bare mirrors at MIRROR/<owner>+<name>/repo. */
const mirror = process.env.MIRROR ?? path.join(root, '..', '.mirror');

function skip(why: string): never {
  process.stdout.write(`eval:navigator skipped: ${why}\n`);
  process.exit(0);
}

if (!fs.existsSync(script) || !fs.existsSync(cases))
  skip(`no eval at ${evalDir} (set NAVIGATOR_EVAL_DIR)`);
const repos = [
  ...new Set(
    (JSON.parse(fs.readFileSync(cases, 'utf8')) as { cases: { repo: string }[] }).cases.map(
      (c) => c.repo,
    ),
  ),
];
const missing = repos.filter((r) => !fs.existsSync(path.join(mirror, r.replace('/', '+'), 'repo')));
if (missing.length)
  skip(
    `no git mirror of ${missing.join(', ')} under ${mirror} (set MIRROR; each is a bare clone at MIRROR/<owner>+<name>/repo)`,
  );
const r = spawnSync('python3', [script, ...process.argv.slice(2), '--mirror', mirror], {
  stdio: 'inherit',
});
process.exit(r.status ?? 1);
