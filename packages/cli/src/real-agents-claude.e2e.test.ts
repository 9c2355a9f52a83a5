// Issue 31: the real claude CLI under clippy's daemon and CLI (the scenarios:
// test-support/real-agents-suite.ts; one file per agent, so that the agents run side by side).
import { realAgentSuite } from './test-support/real-agents-suite.js';

realAgentSuite('claude');
