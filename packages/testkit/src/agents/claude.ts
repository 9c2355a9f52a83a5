#!/usr/bin/env node
import { parseAgentOptions } from './lib/options.js';
import { runTuiAgent } from './lib/tui-agent.js';

// A Claude-Code-style TUI agent for tests (see lib/tui-agent.ts).
await runTuiAgent(parseAgentOptions(process.argv.slice(2), { style: 'claude' }));
