import type { AgentDefinition } from '../types.js';
import { QwenChannel } from './channel.js';
import { qwenResumeArgs, wireQwen } from './wiring.js';

/** Qwen Code: hooks through a system defaults file of its own, the transcript they name, `--resume ID`. */
export const qwen: AgentDefinition = {
  agent: 'qwen',
  identity: { bins: ['qwen'], packages: ['@qwen-code/qwen-code'] },
  wire: wireQwen,
  channel: (ctx) => new QwenChannel(ctx),
  resumeArgs: qwenResumeArgs,
};
