// Issue 45: Qwen Code 0.24.4, the real CLI, against the fake model's OpenAI Chat Completions (the
// scenarios: test-support/agent-channel-suite.ts), Codex beside it.
import { QWEN_MODEL } from '@clippy/testkit/real-agents';
import { agentChannelSuite } from './test-support/agent-channel-suite.js';

agentChannelSuite('qwen', {
  sessionId: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/u,
  partner: 'codex',
  interruptKeys: ['Esc'],
  chrome: /Worked for|Press Ctrl\+O|esc to interrupt|\? for shortcuts/u,
  resume: '--resume',
  pricedModel: QWEN_MODEL,
  via: 'qwen-transcript',
  // Qwen Code puts a cancelled prompt back in its box: the next one must not carry it.
  nextPromptAlone: true,
});
