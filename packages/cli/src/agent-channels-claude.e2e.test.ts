// Issues 32 and 45: Claude Code 2.1.197, the real CLI, its own answer (the scenarios:
// test-support/agent-channel-suite.ts), Codex beside it.
import { agentChannelSuite } from './test-support/agent-channel-suite.js';

agentChannelSuite('claude', {
  sessionId: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/u,
  partner: 'codex',
  interruptKeys: ['Esc'],
  chrome: /Worked for|Press Ctrl\+O|esc to interrupt|\? for shortcuts/u,
  resume: '--resume',
  pricedModel: null,
  via: 'claude-transcript',
  // Claude Code tells its model the previous request was interrupted, in the same message.
  nextPromptAlone: false,
});
