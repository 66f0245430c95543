// The fish completion script: one function, __tend_slot, that says what the
// word under the cursor is (from the verb table written into it), and
// `complete` lines that offer verbs, options, targets and choices by it.
import { optionNames, operandToken, type VerbSpec } from './grammar.js';
import { fishCallFunction, type TendCallback } from './callback.js';
import { fishQuote } from './shell-quote.js';

export function fishCompletion(grammar: readonly VerbSpec[], callback: TendCallback | null): string {
  return `# fish completion for tend, written by \`tend completion fish\` from tend's verbs.
# Install:  tend completion fish > ~/.config/fish/completions/tend.fish

${fishCallFunction(callback)}

# What the word under the cursor is: @verb, @option, @value, @directory,
# @command (after a bare --), @target, @word, or choices joined by '|'.
function __tend_slot
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    if test (count $words) -lt 2
        echo @verb
        return
    end
    set -l valued
    set -l directories
    set -l operands
    set -l repeats 0
    set -l dash_command 0
    switch $words[2]
${grammar.map(verbCase).join('\n')}
        case '*'
            return
    end
    set -l pending ''
    set -l count 0
    set -l dashes 0
    set -l literal 0
    for i in (seq 3 (count $words))
        set -l word $words[$i]
        if test $dashes -gt 0
            continue
        else if test -n "$pending"
            set pending ''
        else if test $literal -eq 1; or not string match -q -- '-*' $word
            set count (math $count + 1)
        else if test "$word" = --
            if test $dash_command -eq 1
                set dashes $i
            else
                set literal 1
            end
        else
            contains -- $word $valued; and set pending $word
        end
    end
    if test $dashes -gt 0
        echo @command
    else if test -n "$pending"
        contains -- $pending $directories; and echo @directory; or echo @value
    else if test $literal -eq 0; and string match -q -- '-*' "$cur"
        echo @option
    else if test $count -lt (count $operands)
        echo $operands[(math $count + 1)]
    else if test $repeats -eq 1 -a (count $operands) -gt 0
        echo $operands[-1]
    else
        echo @option
    end
end

function __tend_slot_is
    set -l slot (__tend_slot)
    test "$slot" = $argv[1]
end

function __tend_verb_is
    set -l words (commandline -opc)
    test (count $words) -ge 2; and test $words[2] = $argv[1]
end

# The words a choice slot allows.
function __tend_choices
    set -l slot (__tend_slot)
    string match -q -- '@*' $slot; or string split '|' -- $slot
end

# After a bare --: the command line that follows, completed as fish would alone.
function __tend_command
    set -l words (commandline -opc)
    set -l at (contains -i -- -- $words)
    set -l rest $words[(math $at + 1)..-1]
    complete -C (string join ' ' -- (string escape -- $rest) (commandline -ct))
end

complete -c tend -f
${grammar.map((v) => `complete -c tend -n '__tend_slot_is @verb' -a ${fishQuote(v.name)} -d ${fishQuote(v.summary)}`).join('\n')}
${grammar.flatMap(optionLines).join('\n')}
complete -c tend -n '__tend_slot_is @target' -a '(__tend_call completion --list sessions 2>/dev/null)'
complete -c tend -a '(__tend_choices)'
complete -c tend -n '__tend_slot_is @directory' -a '(__fish_complete_directories (commandline -ct))'
complete -c tend -n '__tend_slot_is @command' -a '(__tend_command)'
`;
}

function verbCase(verb: VerbSpec): string {
  const list = (words: string[]) => words.map(fishQuote).join(' ');
  return [
    `        case ${fishQuote(verb.name)}`,
    `            set valued ${list(verb.options.filter((o) => o.value !== null).flatMap(optionNames))}`,
    `            set directories ${list(verb.options.filter((o) => o.value === 'directory').flatMap(optionNames))}`,
    `            set operands ${list(verb.operands.map(operandToken))}`,
    `            set repeats ${verb.lastRepeats ? 1 : 0}`,
    `            set dash_command ${verb.commandAfterDashes ? 1 : 0}`,
  ].join('\n');
}

function optionLines(verb: VerbSpec): string[] {
  return verb.options.map((o) => {
    const short = o.short ? ` -s ${o.short}` : '';
    const description = o.description ? ` -d ${fishQuote(o.description)}` : '';
    return `complete -c tend -n ${fishQuote(`__tend_verb_is ${verb.name}`)} -l ${o.long}${short}${description}`;
  });
}
