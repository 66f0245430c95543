// The bash snippet. Marks come from three places, each chosen so that the
// user's own prompt machinery keeps working:
//   * PROMPT_COMMAND: our first entry reports D (the finished command's exit
//     status) and OSC 7 (cwd); our last entry wraps PS1, PS2 and PS0. Both hand
//     `$?` back unchanged, so the user's entries in between and PS1 see the
//     command's status. Prompt frameworks that rebuild PS1 in PROMPT_COMMAND
//     are re-wrapped on every prompt because our wrap entry runs after them.
//   * PS1 carries A at its start and B at its end inside \[ \] (zero width).
//   * PS2, the continuation prompt bash shows when a line leaves a command
//     unfinished (an open quote, `do`, a trailing `|`), carries 633;F at
//     its start and 633;G at its end, the same way: the index then knows the
//     shell waits for the rest of a command, not for a new one.
//   * PS0 (bash >= 4.4, printed after Enter, before the command runs) carries
//     633;E (the command line) and C. It is expanded in a subshell, so it only
//     reads state. Older bash gets no C mark; the index then records nothing
//     for those prompts rather than guessing.
// The command line comes from `history 1`, and only when the history number
// moved since the prompt (HISTCMD), i.e. this very line was saved: with
// HISTCONTROL=ignorespace or `set +o history` no E is sent and the index reads
// the line from the screen instead.
import { shellSource } from './shell-source.js';

export const BASH_SNIPPET = shellSource`
# tend shell integration (bash): OSC 133 A/B/C/D, OSC 633;E/F/G, OSC 7.
# Safe to source more than once; only interactive shells are touched.
if [[ $- == *i* && -z \${__tend_si_installed-} ]]; then
__tend_si_installed=1
__tend_si_prompted=
__tend_si_hist=

# Percent-encodes a path for a file:// URL: unreserved characters and '/'
# stay, every other byte becomes %XX. Result in __tend_si_ret (no subshell).
__tend_si_urlencode() {
  local LC_ALL=C s=$1 out= c i
  if [[ $s != *[!A-Za-z0-9/._~-]* ]]; then __tend_si_ret=$s; return; fi
  for (( i = 0; i < \${#s}; i++ )); do
    c=\${s:i:1}
    case $c in
      [A-Za-z0-9/._~-]) ;;
      *) printf -v c '%%%02X' "'$c" ;;
    esac
    out+=$c
  done
  __tend_si_ret=$out
}

# Escapes a command line for OSC 633;E: '\' -> '\\', ';' -> '\x3b', control
# bytes (0x01-0x1f, 0x7f) -> '\xHH'. Other bytes, UTF-8 included, pass as-is.
__tend_si_escape() {
  local LC_ALL=C s=$1 out= c i
  if [[ $s != *[\\\;$'\x01'-$'\x1f'$'\x7f']* ]]; then __tend_si_ret=$s; return; fi
  for (( i = 0; i < \${#s}; i++ )); do
    c=\${s:i:1}
    case $c in
      '\') c='\\' ;;
      ';') c='\x3b' ;;
      [$'\x01'-$'\x1f'$'\x7f']) printf -v c '\\x%02x' "'$c" ;;
    esac
    out+=$c
  done
  __tend_si_ret=$out
}

# First in PROMPT_COMMAND: the previous command is over.
__tend_si_prompt_begin() {
  local status=$?
  if [[ -n $__tend_si_prompted ]]; then
    builtin printf '\e]133;D;%s\a' "$status"
  fi
  __tend_si_prompted=1
  __tend_si_hist=$HISTCMD
  __tend_si_urlencode "$PWD"
  builtin printf '\e]7;file://%s%s\a' "\${HOSTNAME-}" "$__tend_si_ret"
  return $status
}

# Last in PROMPT_COMMAND: make sure PS1, PS2 and PS0 carry our marks, even when
# the user's PROMPT_COMMAND rebuilt them.
__tend_si_prompt_end() {
  local status=$?
  if [[ $PS1 != *'\e]133;A\a'* ]]; then
    PS1='\[\e]133;A\a\]'"$PS1"'\[\e]133;B\a\]'
  fi
  if [[ \${PS2-} != *'\e]633;F\a'* ]]; then
    PS2='\[\e]633;F\a\]'"\${PS2-}"'\[\e]633;G\a\]'
  fi
  if [[ \${PS0-} != *'__tend_si_ps0'* ]]; then
    PS0=\${PS0-}'$(__tend_si_ps0)'
  fi
  return $status
}

# Expanded from PS0 in a subshell, right before the command runs.
__tend_si_ps0() {
  local entry
  if [[ -n $__tend_si_hist && $HISTCMD -gt $__tend_si_hist ]]; then
    entry=$(HISTTIMEFORMAT= builtin history 1)
    if [[ $entry =~ ^[[:space:]]*[0-9]+[*]?[[:space:]][[:space:]]?(.*)$ ]]; then
      __tend_si_escape "\${BASH_REMATCH[1]}"
      builtin printf '\e]633;E;%s\a' "$__tend_si_ret"
    fi
  fi
  builtin printf '\e]133;C\a'
}

# PROMPT_COMMAND may be a string or (bash >= 5.1) an array.
if [[ "$(declare -p PROMPT_COMMAND 2>/dev/null)" == 'declare -a'* ]]; then
  PROMPT_COMMAND=(__tend_si_prompt_begin "\${PROMPT_COMMAND[@]}" __tend_si_prompt_end)
else
  PROMPT_COMMAND="__tend_si_prompt_begin\${PROMPT_COMMAND:+
$PROMPT_COMMAND}
__tend_si_prompt_end"
fi
fi
`;
