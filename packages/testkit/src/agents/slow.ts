#!/usr/bin/env node
import { runStyled } from './run.js';

// Answers in three pieces with pauses longer than any quiet period, and no prompt in between.
await runStyled({ pieces: 3 });
