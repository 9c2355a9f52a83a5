// Issue 45: GitHub Copilot CLI 1.0.102, the real CLI, offline against the fake model (its own
// provider, COPILOT_PROVIDER_*: no GitHub sign-in). The scenarios:
// test-support/agent-channel-suite.ts, Claude Code beside it.
import { agentChannelSuite } from './test-support/agent-channel-suite.js';

agentChannelSuite('copilot', {
  sessionId: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/u,
  partner: 'claude',
  // One Ctrl-C: its "esc esc interrupt" wants the two Escs read apart, which a loaded Copilot
  // does not.
  interruptKeys: ['C-c'],
  chrome: /❯|esc esc interrupt|\/ commands|● |─{10}/u,
  resume: '--session-id',
  pricedModel: 'fake-model',
  via: 'copilot-events',
  nextPromptAlone: true,
});
