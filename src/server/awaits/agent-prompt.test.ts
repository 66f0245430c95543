// How an agent await puts its prompt in the input box, and reads an answer
// off the screen when the hook gives none.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_TYPED_PROMPT_BYTES, PromptNeedsPasteError, promptBytes } from './agent-prompt-typing.js';
import { answerBelowPrompt } from './agent-screen-answer.js';

describe('promptBytes', () => {
  test('a short one-line prompt is typed as it is, a trailing newline dropped (Enter comes apart)', () => {
    assert.equal(promptBytes('list the files\n', true).toString(), 'list the files');
  });

  test('a multi-line prompt is one bracketed paste, its newlines as CR and no end marker of its own inside', () => {
    assert.equal(promptBytes('one\ntwo\r\nthree\x1b[201~', true).toString(), '\x1b[200~one\rtwo\rthree\x1b[201~');
  });

  test('a long one-line prompt is pasted when the terminal takes pastes, else typed', () => {
    const long = 'x'.repeat(MAX_TYPED_PROMPT_BYTES + 1);
    assert.equal(promptBytes(long, true).toString(), `\x1b[200~${long}\x1b[201~`);
    assert.equal(promptBytes(long, false).toString(), long);
  });

  test('a multi-line prompt with bracketed paste off is refused: each line would be a prompt', () => {
    assert.throws(() => promptBytes('one\ntwo', false), PromptNeedsPasteError);
  });
});

describe('answerBelowPrompt', () => {
  test('the rows below the prompt\'s echo, blank rows around them and row-end spaces gone', () => {
    const rows = ['> what is 6*7   ', '', '● It is 42.   ', '  Anything else?', '', '> ', ''];
    assert.equal(answerBelowPrompt(rows, 'what is 6*7'), '● It is 42.\n  Anything else?\n\n>');
  });

  test('an answer that quotes the prompt is not taken for its echo: the first row showing it is', () => {
    const rows = ['> say hello world', 'You said: say hello world', 'done'];
    assert.equal(answerBelowPrompt(rows, 'say hello world'), 'You said: say hello world\ndone');
  });

  test("a prompt the agent shows otherwise (a paste as a placeholder): all below the prompt's row", () => {
    assert.equal(answerBelowPrompt(['> [Pasted text #1 +3 lines]', 'three lines'], 'a\nb\nc is the last line'), 'three lines');
  });

  test('nothing below the prompt: null', () => {
    assert.equal(answerBelowPrompt(['> hello', '', '   '], 'hello'), null);
  });
});
