#!/usr/bin/env node
import { runStyled } from './run.js';

/** Default size of the big answer: 5 MB, above the default 4 MiB per-turn cap. */
const BIG_ANSWER_BYTES = 5_000_000;

// Streams a 5 MB answer in one turn (with stdout backpressure), then shows its prompt.
await runStyled({ big: BIG_ANSWER_BYTES });
