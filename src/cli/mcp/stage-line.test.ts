// Which command lines `run` stages (runs from a script the shell sources)
// and which it types: anything a shell could read as unfinished, or that a
// line editor could change, is staged; a plain line is typed as it is.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { shouldStage } from './stage-line.js';

describe('shouldStage', () => {
  test('plain lines are typed: words, paths, options, pipes, redirections, variables, globs, lists', () => {
    for (const line of ['ls -la /tmp', 'make test && echo ok', 'cat a.txt | grep -c x > out.txt 2>&1', 'echo $HOME $1', 'rm -f build/*.o; ls [ab]*', 'sleep 5 &', 'git commit -m fix', 'A=1 B=2 env']) {
      assert.equal(shouldStage(line), false, line);
    }
  });

  test('quotes, backslashes, backticks, brackets, history and non-ASCII characters are staged', () => {
    for (const line of [`echo "a b"`, `echo 'it'`, 'echo a\\ b', 'echo `date`', 'echo $(date)', 'echo ${HOME}', '(cd /tmp; ls)', '{ echo a; }', 'echo hi!', 'echo ünïcødé', 'echo ✓', 'printf "a\\tb"', 'echo a\tb']) {
      assert.equal(shouldStage(line), true, line);
    }
  });

  test('a line that opens a compound command, a here-document, or ends wanting another command is staged', () => {
    for (const line of ['for i in 1 2; do echo $i; done', 'if true; then echo y; fi', 'while true; do sleep 1; done', 'case x in x) echo;; esac', 'cat <<END', 'ls |', 'true &&', 'false ||', 'make && \\']) {
      assert.equal(shouldStage(line), true, line);
    }
  });
});
