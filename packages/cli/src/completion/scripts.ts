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
// bash splits words at the characters of COMP_WORDBREAKS, ':' among them, so a turn ID
// `claude:3` arrives as three words: they are joined again before asking clippy, and the part
// before the last ':' is taken off the answers (bash replaces only what follows it).
const BASH = `# clippy completion for bash.
# Install: ${INSTALL.bash}
# (or add 'source <(clippy completion bash)' to ~/.bashrc)
_clippy_complete() {
  local i w cur prefix out line
  local -a words=()
  COMPREPLY=()
  for ((i = 1; i <= COMP_CWORD; i++)); do
    w=\${COMP_WORDS[i]}
    if ((i > 1)) && [[ $COMP_WORDBREAKS == *:* ]] && [[ $w == : || \${COMP_WORDS[i - 1]} == : ]]; then
      words[\${#words[@]} - 1]+=$w
    else
      words+=("$w")
    fi
  done
  cur=\${words[\${#words[@]} - 1]}
  out=$("\${COMP_WORDS[0]}" __complete bash -- "\${words[@]}" 2>/dev/null) || return 0
  if [[ $out == :files ]]; then
    while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen -f -- "$cur")
    compopt -o filenames 2>/dev/null
    return 0
  fi
  [[ -n $out ]] || return 0
  while IFS= read -r line; do COMPREPLY+=("$line"); done <<<"$out"
  if [[ $cur == *:* && $COMP_WORDBREAKS == *:* ]]; then
    prefix=\${cur%"\${cur##*:}"}
    COMPREPLY=("\${COMPREPLY[@]#"$prefix"}")
  fi
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
  if [[ $out == :files ]]; then
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
    set -l out ($words[1] __complete fish -- $words[2..-1] (commandline -ct) 2>/dev/null)
    if test "$out" = ":files"
        __fish_complete_path (commandline -ct)
        return
    end
    printf '%s\\n' $out
end
complete -c clippy -f -a '(__clippy_complete)'
`;

export const SCRIPTS: Record<Shell, string> = { bash: BASH, zsh: ZSH, fish: FISH };
