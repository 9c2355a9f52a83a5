#!/usr/bin/env node
import { runLineAgent } from './lib/line-agent.js';
import { parseAgentOptions } from './lib/options.js';

// An aider-style line agent for tests (see lib/line-agent.ts).
await runLineAgent(parseAgentOptions(process.argv.slice(2), { style: 'aider' }));
