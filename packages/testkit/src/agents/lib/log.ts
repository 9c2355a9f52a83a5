import { appendFileSync } from 'node:fs';

/** One submission as the agent received it: `bytes` exact (base64), `text` decoded. */
export interface Submission {
  text: string;
  bytes: string;
  pasted: boolean;
}

/** Appends what the agent received to the test's log file, one JSON line per submission. */
export function logSubmission(file: string | undefined, bytes: Buffer, pasted: boolean): void {
  if (!file) return;
  const entry: Submission = {
    text: bytes.toString('utf8'),
    bytes: bytes.toString('base64'),
    pasted,
  };
  // received_hr: sub-millisecond epoch time of the submission, for latency benchmarks.
  const hr = performance.timeOrigin + performance.now();
  appendFileSync(file, `${JSON.stringify({ ...entry, received_hr: hr })}\n`);
}

/** Records that the agent is about to show its prompt (tests check no turn completes before). */
export function logPrompt(file: string | undefined): void {
  if (!file) return;
  // prompt_hr: sub-millisecond epoch time, for latency benchmarks.
  const hr = performance.timeOrigin + performance.now();
  appendFileSync(file, `${JSON.stringify({ prompt_at: Date.now(), prompt_hr: hr })}\n`);
}

/** Records the choice the agent was given to its permission question (`--ask`). */
export function logChoice(file: string | undefined, label: string): void {
  if (!file) return;
  appendFileSync(file, `${JSON.stringify({ choice: label })}\n`);
}
