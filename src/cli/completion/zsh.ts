// The zsh completion script: a compsys function, _tend, with the verb table
// written into it, offering verbs and options with their descriptions.
import { optionNames, type VerbSpec } from './grammar.js';
import { posixCallFunction, type TendCallback } from './callback.js';
import { posixQuote } from './shell-quote.js';
import { posixVerbCaseArm } from './posix-case-arm.js';

export function zshCompletion(grammar: readonly VerbSpec[], callback: TendCallback | null): string {
  return `#compdef tend
# zsh completion for tend, written by \`tend completion zsh\` from tend's verbs.
# Load it from ~/.zshrc, after compinit:  source <(tend completion zsh)
# or save it as _tend in a directory on $fpath.

${posixCallFunction(callback)}

_tend() {
  local -a verbs flags valued directories operands
  local repeats=0 dash_command=0
  verbs=(${grammar.map((v) => described(v.name, v.summary)).join(' ')})
  if (( CURRENT == 2 )); then
    _describe -t verbs 'tend verb' verbs
    return
  fi
  case $words[2] in
${grammar.map((verb) => posixVerbCaseArm(verb, (o) => optionNames(o).map((name) => described(name, o.description)))).join('\n')}
    *) return 1 ;;
  esac
  # Which operand the cursor is on: options and their values are not operands;
  # after a bare -- come either more operands or a command line, which zsh
  # completes as it would on its own.
  local i word pending="" count=0 dashes=0 literal=0
  for (( i = 3; i < CURRENT; i++ )); do
    word=$words[i]
    if (( dashes )); then
      continue
    elif [[ -n $pending ]]; then
      pending=""
    elif (( literal )) || [[ $word != -* ]]; then
      count=$(( count + 1 ))
    elif [[ $word == -- ]]; then
      if (( dash_command )); then dashes=$i; else literal=1; fi
    else
      (( \${valued[(Ie)$word]} )) && pending=$word
    fi
  done
  if (( dashes )); then
    words=("\${(@)words[dashes+1,-1]}")
    (( CURRENT -= dashes ))
    _normal
    return
  fi
  if [[ -n $pending ]]; then
    if (( \${directories[(Ie)$pending]} )); then
      _files -/
    else
      _message "the value of $pending"
    fi
    return
  fi
  if [[ $PREFIX == -* ]] && (( ! literal )); then
    _describe -t options 'option' flags
    return
  fi
  # Past the last operand there is nothing to type but options: offer those.
  local slot=""
  if (( count < \${#operands} )); then
    slot=$operands[count+1]
  elif (( repeats && \${#operands} > 0 )); then
    slot=$operands[-1]
  fi
  local -a offers
  case $slot in
    @target)
      offers=(\${(f)"$(__tend_call completion --list sessions 2>/dev/null)"})
      compadd -a offers ;;
    @word) _message 'text' ;;
    '') _describe -t options 'option' flags ;;
    *)
      offers=(\${(s:|:)slot})
      compadd -a offers ;;
  esac
}

if [[ \${zsh_eval_context[-1]} == loadautofunc ]]; then
  _tend "$@"
else
  compdef _tend tend
fi
`;
}

/** A "word:description" item for _describe, whose separator a colon in the word or text would break. */
function described(word: string, description: string): string {
  const escape = (text: string) => text.replace(/\\/g, '\\\\').replace(/:/g, '\\:');
  return posixQuote(description ? `${escape(word)}:${escape(description)}` : escape(word));
}

