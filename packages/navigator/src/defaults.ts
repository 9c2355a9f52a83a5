// Defaults of a navigator run, in a module of their own so that the CLI can show them in
// `--help` without loading the navigator (and the Gemini SDK).

/** Token budget of the map when none is given. */
export const DEFAULT_TOKEN_BUDGET = 20_000;
/** Cost limit of a run in USD when none is given. */
export const DEFAULT_MAX_SPEND_USD = 2.0;
/** Planner steps before a run stops with `max_iterations`. */
export const DEFAULT_MAX_ITERATIONS = 20;
/** Gemini model when `--model` is not given: a current Flash model (cheap, fast, tool use). */
export const DEFAULT_MODEL = 'gemini-2.5-flash';
