#!/usr/bin/env node
import { runStyled } from './run.js';

// Starts answering, then exits with code 3 before showing a prompt: no turn may come of it.
await runStyled({ crash: true });
