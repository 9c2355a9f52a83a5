// Issue 45: OpenCode 1.18.33, the real CLI (the scenarios: test-support/agent-channel-suite.ts).
import { agentChannelSuite } from './test-support/agent-channel-suite.js';

agentChannelSuite('opencode', {
  sessionId: /^ses_/u,
  partner: 'claude',
  // It stops on a second Esc ("esc again to interrupt").
  interruptKeys: ['Esc', 'Esc'],
  chrome: /┃|▣|ctrl\+p|esc interrupt/u,
  resume: '--session',
  pricedModel: 'fake-model',
  recordModel: 'fake/fake-model',
  via: 'opencode-plugin',
  nextPromptAlone: true,
});
