// The fish snippet. fish has events for everything but the prompt's edges:
//   * fish_preexec: 633;E with the command line ($argv[1]), then C.
//   * fish_postexec: D with $status (fish fires these only for non-empty
//     command lines, so an empty Enter reports nothing).
//   * fish_prompt is wrapped: the user's prompt function is copied to
//     __tend_si_user_prompt and called between A and B, with $status set back
//     to the command's status first so prompts that show it still can. The
//     fish_prompt event re-wraps when a theme has replaced fish_prompt (seen
//     from where fish_prompt was defined changing).
//   * OSC 7 on every prompt (fish_prompt event).
import { shellSource } from './shell-source.js';

export const FISH_SNIPPET = shellSource`
# tend shell integration (fish): OSC 133 A/B/C/D, OSC 633;E, OSC 7.
# Safe to source more than once; only interactive shells are touched.
if status is-interactive; and not set -q __tend_si_installed
    set -g __tend_si_installed 1

    function __tend_si_return_status
        return $argv[1]
    end

    # Escapes a command line for OSC 633;E: '\' -> '\\', ';' -> '\x3b',
    # control characters (0x01-0x1f, 0x7f) -> '\xHH'.
    function __tend_si_escape
        # string collect joins what a substitution would split on newlines
        # (dropping only trailing ones, which no command line needs); newline
        # is escaped on its own because a substitution cannot produce it alone.
        set -l s (string replace -a -- '\\' '\\\\' $argv[1] | string collect)
        set s (string replace -a -- ';' '\\x3b' $s | string collect)
        set s (string replace -a -- \n '\\x0a' $s | string collect)
        if string match -qr -- '[\x01-\x1f\x7f]' $s
            for code in (seq 1 9) (seq 11 31) 127
                set -l escaped (printf '\\\\x%02x' $code)
                set -l char (printf $escaped | string collect -N)
                set s (string replace -a -- $char $escaped $s | string collect)
            end
        end
        printf '%s' $s
    end

    # Wraps fish_prompt unless it is our wrapper already (copying the wrapper
    # into __tend_si_user_prompt would make it call itself), then notes where
    # fish_prompt was defined: a change there, cheap to check on every
    # prompt, means a theme or the user replaced it.
    function __tend_si_wrap_prompt
        if not functions fish_prompt | string match -q '*__tend_si_user_prompt*'
            functions -q __tend_si_user_prompt; and functions -e __tend_si_user_prompt
            functions -q fish_prompt; and functions -c fish_prompt __tend_si_user_prompt
            function fish_prompt
                set -l ret $status
                printf '\e]133;A\a'
                if functions -q __tend_si_user_prompt
                    __tend_si_return_status $ret
                    __tend_si_user_prompt
                end
                printf '\e]133;B\a'
            end
        end
        set -g __tend_si_prompt_origin (string join ' ' (functions --details --verbose fish_prompt))
    end

    function __tend_si_on_prompt --on-event fish_prompt
        set -l ret $status
        printf '\e]7;file://%s%s\a' $hostname (string escape --style=url -- $PWD)
        if test (string join ' ' (functions --details --verbose fish_prompt)) != "$__tend_si_prompt_origin"
            __tend_si_wrap_prompt
        end
        __tend_si_return_status $ret
    end

    function __tend_si_on_preexec --on-event fish_preexec
        printf '\e]633;E;%s\a\e]133;C\a' (__tend_si_escape $argv[1] | string collect)
    end

    function __tend_si_on_postexec --on-event fish_postexec
        printf '\e]133;D;%s\a' $status
    end

    __tend_si_wrap_prompt
end
`;
