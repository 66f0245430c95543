// The bash completion script: one function, _tend, with the verb table
// written into it as a case per verb, so a Tab costs no process except for
// session names, which only the server knows.
import type { VerbSpec } from './grammar.js';
import { posixCallFunction, type TendCallback } from './callback.js';
import { posixVerbCaseArm } from './posix-case-arm.js';

export function bashCompletion(grammar: readonly VerbSpec[], callback: TendCallback | null): string {
  return `# bash completion for tend, written by \`tend completion bash\` from tend's verbs.
# Load it from ~/.bashrc:  source <(tend completion bash)

${posixCallFunction(callback)}

# Offers each word after the first argument that starts with it. Bash replaces
# only what follows the word's last ':' (a word break), so that much of a
# ":name" target is offered.
__tend_offer() {
  local cur=$1 word before=""
  shift
  [[ $cur == *:* ]] && before=\${cur%"\${cur##*:}"}
  for word in "$@"; do
    [[ -n $word && $word == "$cur"* ]] && COMPREPLY+=("\${word#"$before"}")
  done
}

_tend() {
  COMPREPLY=()
  # The words come from the line itself, not COMP_WORDS, which bash splits at
  # every ':' and so cuts a ":name" target in two.
  local line=\${COMP_LINE:0:COMP_POINT} cur=""
  local -a words
  read -ra words <<<"$line"
  if [[ -n $line && $line != *[[:space:]] ]]; then
    cur=\${words[-1]}
    unset 'words[-1]'
  fi
  if (( \${#words[@]} < 2 )); then
    __tend_offer "$cur" ${grammar.map((v) => v.name).join(' ')}
    return 0
  fi
  local -a flags=() valued=() directories=() operands=()
  local repeats=0 dash_command=0
  case \${words[1]} in
${grammar.map((verb) => posixVerbCaseArm(verb)).join('\n')}
    *) return 0 ;;
  esac
  # Which operand the cursor is on: options and their values are not operands;
  # after a bare -- come either more operands or a command line.
  local i word pending="" count=0 dashes=-1 literal=0
  for (( i = 2; i < \${#words[@]}; i++ )); do
    word=\${words[i]}
    if (( dashes >= 0 )); then
      continue
    elif [[ -n $pending ]]; then
      pending=""
    elif (( literal )) || [[ $word != -* ]]; then
      count=$(( count + 1 ))
    elif [[ $word == -- ]]; then
      if (( dash_command )); then dashes=$i; else literal=1; fi
    else
      [[ " \${valued[*]} " == *" $word "* ]] && pending=$word
    fi
  done
  if (( dashes >= 0 )); then
    if (( \${#words[@]} == dashes + 1 )); then
      mapfile -t COMPREPLY < <(compgen -c -- "$cur")
    else
      compopt -o default 2>/dev/null
    fi
    return 0
  fi
  if [[ -n $pending ]]; then
    if [[ " \${directories[*]} " == *" $pending "* ]]; then
      compopt -o filenames 2>/dev/null
      mapfile -t COMPREPLY < <(compgen -d -- "$cur")
    fi
    return 0
  fi
  if [[ $cur == -* ]] && (( ! literal )); then
    __tend_offer "$cur" "\${flags[@]}"
    return 0
  fi
  # Past the last operand there is nothing to type but options: offer those.
  local slot=""
  if (( count < \${#operands[@]} )); then
    slot=\${operands[count]}
  elif (( repeats && \${#operands[@]} > 0 )); then
    slot=\${operands[-1]}
  fi
  local -a offers=()
  case $slot in
    @target) mapfile -t offers < <(__tend_call completion --list sessions 2>/dev/null) ;;
    @word) ;;
    '') offers=("\${flags[@]}") ;;
    *) IFS='|' read -ra offers <<<"$slot" ;;
  esac
  __tend_offer "$cur" "\${offers[@]}"
  return 0
}

complete -F _tend tend
`;
}

