/**
 * The scripts `clippy completion SHELL` prints. Each is a thin shim: it hands the words before
 * the cursor to `clippy __complete SHELL -- WORD…` (completion/complete.ts, which knows the
 * commands, options, sessions and turn IDs) and gives the shell what that prints. `:files` on
 * its own means "complete file names".
 */

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** Where each shell finds a completion file (what `--help` and docs/cli.md say). */
export const INSTALL: Record<Shell, string> = {
  bash: 'clippy completion bash > ~/.local/share/bash-completion/completions/clippy',
  zsh: 'clippy completion zsh > ~/.zfunc/_clippy   # with fpath=(~/.zfunc $fpath) before compinit in ~/.zshrc',
  fish: 'clippy completion fish > ~/.config/fish/completions/clippy.fish',
};

// Written for bash 3.2 too (macOS): no mapfile, compopt only where it exists.
// bash splits words at the characters of COMP_WORDBREAKS, ':' and '=' among them, so a turn ID
// `claude:3` or `--preset=claude` arrives as three words: they are joined again before asking
// clippy, and the part bash does not replace (all but its own current word, "$2") is taken off
// the answers.
const BASH = `# clippy completion for bash.
# Install: ${INSTALL.bash}
# (or add 'source <(clippy completion bash)' to ~/.bashrc)
_clippy_complete() {
  local i w cur keep out line pre
  local -a words=()
  COMPREPLY=()
  for ((i = 1; i <= COMP_CWORD; i++)); do
    w=\${COMP_WORDS[i]}
    if ((i > 1)) && _clippy_joins "$w" "\${COMP_WORDS[i - 1]}"; then
      words[\${#words[@]} - 1]+=$w
    else
      words+=("$w")
    fi
  done
  cur=\${words[\${#words[@]} - 1]}
  keep=\${cur%"$2"}
  out=$("\${COMP_WORDS[0]}" __complete bash -- "\${words[@]}" 2>/dev/null) || return 0
  if [[ $out == :files* ]]; then
    pre=\${out#:files}
    pre=\${pre#$'\\t'}
    while IFS= read -r line; do COMPREPLY+=("$pre$line"); done < <(compgen -f -- "\${cur#"$pre"}")
    compopt -o filenames 2>/dev/null
  else
    [[ -n $out ]] || return 0
    while IFS= read -r line; do COMPREPLY+=("$line"); done <<<"$out"
  fi
  [[ -n $keep ]] && COMPREPLY=("\${COMPREPLY[@]#"$keep"}")
  return 0
}
# A ':' or '=' that bash split a word at, or the piece after one: part of the word before.
_clippy_joins() {
  local c
  for c in : =; do
    [[ $COMP_WORDBREAKS == *"$c"* ]] && [[ $1 == "$c" || $2 == "$c" ]] && return 0
  done
  return 1
}
complete -F _clippy_complete clippy
`;

// Works autoloaded from fpath (#compdef) and sourced (compdef at the end).
const ZSH = `#compdef clippy
# clippy completion for zsh.
# Install: ${INSTALL.zsh}
# (or add 'source <(clippy completion zsh)' to ~/.zshrc after compinit)
_clippy() {
  local out line
  local -a values displays
  out=$("\${words[1]}" __complete zsh -- "\${(@)words[2,CURRENT]}" 2>/dev/null) || return 1
  if [[ $out == :files* ]]; then
    # --option=FILE: the part up to the '=' stays, file names complete what follows it.
    [[ $out == :files$'\t'* ]] && compset -P '*='
    _files
    return
  fi
  for line in "\${(@f)out}"; do
    [[ -n $line ]] || continue
    values+=("\${line%%$'\\t'*}")
    if [[ $line == *$'\\t'* ]]; then
      displays+=("\${line%%$'\\t'*}  -- \${line#*$'\\t'}")
    else
      displays+=("\${line}")
    fi
  done
  (( \${#values} )) || return 1
  compadd -l -d displays -a values
}
if [[ \${funcstack[1]} == _clippy ]]; then
  _clippy "$@"
else
  compdef _clippy clippy
fi
`;

const FISH = `# clippy completion for fish.
# Install: ${INSTALL.fish}
function __clippy_complete
    set -l words (commandline -opc)
    set -l token (commandline -ct)
    set -l out ($words[1] __complete fish -- $words[2..-1] $token 2>/dev/null)
    if string match -q -- ':files*' "$out"
        # --option=FILE: file names for what follows the '=', the option put back before them.
        set -l pre (string replace -r -- '^:files\t?' '' "$out")
        for path in (__fish_complete_path (string sub -s (math (string length -- "$pre") + 1) -- $token))
            printf '%s%s\n' $pre $path
        end
        return
    end
    printf '%s\\n' $out
end
complete -c clippy -f -a '(__clippy_complete)'
`;

export const SCRIPTS: Record<Shell, string> = { bash: BASH, zsh: ZSH, fish: FISH };
