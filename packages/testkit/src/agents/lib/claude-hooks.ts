import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** The model the fake agent says it used (in its transcript, as Claude Code writes it). */
export const FAKE_MODEL = 'fake-claude-model';

/**
 * The tokens the fake agent says a turn took: derived from the texts, so a test can assert
 * them (input: the prompt's characters, output: the answer's).
 */
export function fakeUsage(prompt: string, answer: string): { input: number; output: number } {
  return { input: prompt.length, output: answer.length };
}

/**
 * Claude Code's hooks as the fake agent runs them (`--hooks`): the `--settings` JSON's command
 * hooks per event, each run through `sh -c` with the event's JSON on stdin (`session_id`,
 * `transcript_path`, `cwd`, `hook_event_name`, and the event's own fields), waited for as
 * Claude Code waits for them (not those marked `async`: they run in the background). The
 * transcript is a JSONL file as Claude Code keeps it: a `user` line per prompt (its
 * `promptId`), an `assistant` line per answer with its model and usage. Checked against Claude Code 2.1.197's (see the broker's agents/claude readers).
 */
export class ClaudeHooks {
  readonly session: string;
  readonly transcript: string;
  private promptId: string | undefined;
  /** Per event, its command hooks; `async` ones run in the background (Claude Code's `async`). */
  private readonly commands: Map<string, { command: string; async: boolean }[]>;

  /** `resume`: the session this run goes on with (`--resume ID`); a new one without. */
  constructor(
    settings: string,
    dir: string,
    private readonly resume?: string,
  ) {
    this.session = resume ?? randomUUID();
    const hooks = (JSON.parse(settings) as { hooks?: Record<string, unknown> }).hooks ?? {};
    this.commands = new Map(
      Object.entries(hooks).map(([event, groups]) => [
        event,
        (groups as { hooks?: { type?: string; command?: string; async?: boolean }[] }[]).flatMap(
          (g) =>
            (g.hooks ?? [])
              .filter((h) => h.type === 'command' && h.command)
              .map((h) => ({ command: h.command!, async: h.async === true })),
        ),
      ]),
    );
    const folder = join(dir, '.fake-claude');
    mkdirSync(folder, { recursive: true });
    this.transcript = join(folder, `${this.session}.jsonl`);
  }

  started(): Promise<void> {
    return this.run('SessionStart', { source: this.resume ? 'resume' : 'startup' });
  }

  /** The agent took `prompt`: the transcript opens its turn, UserPromptSubmit runs. */
  prompt(prompt: string): Promise<void> {
    this.promptId = randomUUID();
    this.write({
      type: 'user',
      promptId: this.promptId,
      sessionId: this.session,
      message: { role: 'user', content: prompt },
      timestamp: new Date().toISOString(),
    });
    return this.run('UserPromptSubmit', { prompt, prompt_id: this.promptId });
  }

  /** The turn's answer: written to the transcript, then Stop runs with the hook's trimmed copy. */
  stop(prompt: string, answer: string): Promise<void> {
    const usage = fakeUsage(prompt, answer);
    this.write({
      type: 'assistant',
      sessionId: this.session,
      message: {
        id: `msg_${randomUUID()}`,
        role: 'assistant',
        model: FAKE_MODEL,
        content: [{ type: 'text', text: answer }],
        usage: { input_tokens: usage.input, output_tokens: usage.output },
      },
      timestamp: new Date().toISOString(),
    });
    return this.run('Stop', {
      prompt_id: this.promptId,
      stop_hook_active: false,
      last_assistant_message: answer.trim(),
    });
  }

  private write(line: object): void {
    appendFileSync(this.transcript, `${JSON.stringify(line)}\n`);
  }

  private async run(event: string, fields: object): Promise<void> {
    const input = JSON.stringify({
      session_id: this.session,
      transcript_path: this.transcript,
      cwd: process.cwd(),
      hook_event_name: event,
      ...fields,
    });
    for (const { command, async } of this.commands.get(event) ?? []) {
      const done = new Promise<void>((resolve) => {
        const child = spawn('sh', ['-c', command], { stdio: ['pipe', 'ignore', 'ignore'] });
        child.on('error', () => resolve());
        child.on('exit', () => resolve());
        child.stdin.on('error', () => {});
        child.stdin.end(input);
      });
      if (!async) await done;
    }
  }
}
