/**
 * What happens to a text of several lines typed into a session: the help of every command that
 * types text (`relay`, `paste`, `deliver`, `send`, `ask`); docs/turns.md "Injection" says more.
 */
export const MULTILINE_HELP =
  'Multi-line text: a program that enabled bracketed paste (Claude Code, Codex, Gemini CLI, ' +
  'bash) gets it as one paste, one submission. In one that did not (a line program), every ' +
  "newline typed is an Enter, and the session's preset says how the lines go in (its " +
  '"multiline"): "lines", the default, types them as they are, each submitted on its own (a ' +
  'shell runs them one by one); "block" types them between an opening and a closing line, one ' +
  'message (aider: {clippy … clippy}); "join" makes them one line; "continuation" ends each ' +
  'but the last with a backslash. Set it per preset in presets.json (docs/presets.md).';
