// The zsh snippet. zsh has real hooks, so no mark is inferred:
//   * precmd (ours first): D with the status of the command that ran — only
//     when preexec saw one, so an empty Enter or Ctrl-C at the prompt reports
//     nothing — then OSC 7.
//   * precmd (ours last): wraps PS1 with A and B inside %{ %} (zero width),
//     and PS2 (the continuation prompt: `dquote>`, `for>`) with 633;F and
//     633;G, so the index knows the shell waits for the rest of a command;
//     themes that rebuild them in their own precmd are re-wrapped because
//     this hook runs after theirs.
//   * preexec (ours last, so other hooks' output stays before it): 633;E with
//     the line exactly as typed ($1), then C.
// zsh restores `$?` after each hook, so the user's prompt and hooks see the
// command's status whatever ours do.
import { shellSource } from './shell-source.js';

export const ZSH_SNIPPET = shellSource`
# tend shell integration (zsh): OSC 133 A/B/C/D, OSC 633;E/F/G, OSC 7.
# Safe to source more than once; only interactive shells are touched.
if [[ -o interactive && -z \${__tend_si_installed-} ]]; then
typeset -g __tend_si_installed=1
typeset -g __tend_si_ran=
typeset -g __tend_si_ret=

# Percent-encodes a path for a file:// URL: unreserved characters and '/'
# stay, every other byte becomes %XX. Result in __tend_si_ret (no subshell).
__tend_si_urlencode() {
  emulate -L zsh
  local LC_ALL=C s=$1 out= c i
  if [[ $s != *[^A-Za-z0-9/._~-]* ]]; then __tend_si_ret=$s; return; fi
  for (( i = 1; i <= \${#s}; i++ )); do
    c=$s[i]
    if [[ $c != [A-Za-z0-9/._~-] ]]; then printf -v c '%%%02X' "'$c"; fi
    out+=$c
  done
  __tend_si_ret=$out
}

# Escapes a command line for OSC 633;E: '\' -> '\\', ';' -> '\x3b', control
# bytes (0x01-0x1f, 0x7f) -> '\xHH'. Other bytes, UTF-8 included, pass as-is.
__tend_si_escape() {
  emulate -L zsh
  local LC_ALL=C s=$1 out= c i
  if [[ $s != *[\\\;$'\x01'-$'\x1f'$'\x7f']* ]]; then __tend_si_ret=$s; return; fi
  for (( i = 1; i <= \${#s}; i++ )); do
    c=$s[i]
    case $c in
      ('\') c='\\' ;;
      (';') c='\x3b' ;;
      ([$'\x01'-$'\x1f'$'\x7f']) printf -v c '\\x%02x' "'$c" ;;
    esac
    out+=$c
  done
  __tend_si_ret=$out
}

__tend_si_precmd() {
  local ret=$?
  if [[ -n $__tend_si_ran ]]; then
    builtin printf '\e]133;D;%s\a' "$ret"
    __tend_si_ran=
  fi
  __tend_si_urlencode "$PWD"
  builtin printf '\e]7;file://%s%s\a' "\${HOST-}" "$__tend_si_ret"
}

__tend_si_prompt_wrap() {
  if [[ $PS1 != *$'\e]133;A\a'* ]]; then
    PS1=$'%{\e]133;A\a%}'"$PS1"$'%{\e]133;B\a%}'
  fi
  if [[ \${PS2-} != *$'\e]633;F\a'* ]]; then
    PS2=$'%{\e]633;F\a%}'"\${PS2-}"$'%{\e]633;G\a%}'
  fi
}

__tend_si_preexec() {
  __tend_si_escape "$1"
  builtin printf '\e]633;E;%s\a\e]133;C\a' "$__tend_si_ret"
  __tend_si_ran=1
}

typeset -ga precmd_functions preexec_functions
precmd_functions=(__tend_si_precmd \${precmd_functions[@]} __tend_si_prompt_wrap)
preexec_functions+=(__tend_si_preexec)
fi
`;
