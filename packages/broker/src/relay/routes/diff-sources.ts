import { HandlerError } from '../../errors.js';
import type { Session } from '../../sessions/session.js';
import type { Leg } from './records.js';
import { usesDiff } from './templates.js';

/**
 * A leg whose template shows a diff (`{{diff}}`, `{{diff_stat}}`) needs sources in worktrees of
 * their own (docs/worktrees.md): refused when it is added otherwise, saying which leg shapes
 * what (a loop's `--template-b` is for B's answers going back to A).
 */
export function requireDiffSources(leg: Leg, resolve: (ref: string) => Session | undefined): void {
  if (!usesDiff(leg.template)) return;
  const name = leg.template.name;
  for (const f of leg.from) {
    const session = resolve(f.session);
    if (session?.worktree) continue;
    if (!session) {
      throw new HandlerError(
        'invalid_template',
        `template '${name}' shows a diff: '${f.name}' is a session on another machine, whose worktree is not readable from here`,
      );
    }
    const hint =
      leg.kind === 'loop' && leg.name.endsWith('.b')
        ? ' (--template-b shapes what B sends back to A; --template-a what A sends to B)'
        : '';
    throw new HandlerError(
      'invalid_template',
      `template '${name}' shows the diff of '${f.name}', which runs in no worktree of its own (clippy new --worktree): it would shape what ${f.name} sends to ${leg.to.name}${hint}`,
    );
  }
}
