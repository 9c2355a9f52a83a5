#!/usr/bin/env node
// What an agent's hook runs (an agent channel, docs/turns.md): hands the event to clippyd.
import { main } from '../dist/agents/hook-entry.js';
await main(process.argv.slice(2));
process.exitCode = 0;
