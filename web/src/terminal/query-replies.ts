// The browser's terminal must not answer queries. A program that asks "what
// terminal are you?" (DA), "where is the cursor?" (DSR/CPR), "is mode N set?"
// (DECRQM), "what is setting X?" (DECRQSS) or "what colour is the background?"
// (OSC 10/11/4 with "?") is answered once, by the server's own screen; if every
// viewer answered too, the program would read two, three, five replies — and a
// stray CPR typed into a shell prompt shows up as garbage like "^[[12;1R".
//
// xterm.js sends its replies through onData, mixed with what the person types,
// and its public API does not tell them apart. Two ways to separate them were
// considered:
//   * forward onData only within a short window after a key, paste or IME
//     event — timing, so a query that arrives while someone types leaks its
//     reply, and a slow machine drops real input;
//   * drop onData strings that look like replies (CSI ? … c, CSI … R) — but
//     keys produce the same bytes: Shift+F3 is CSI 1;2R, exactly a CPR.
// Instead the queries never reach xterm's own handlers: a parser handler
// registered through the public API runs before the built-in one, and
// returning true means "handled", so the built-in handler — the only thing that
// would write a reply — never runs. Everything onData emits is then the
// person's (keys, paste, IME, mouse and focus reports), and it all goes to the
// PTY. Nothing these sequences do besides replying is lost: they are queries.
import type { IDisposable, Terminal } from '@xterm/xterm';

/** OSC numbers whose "?" parameter is a colour query (palette, fg, bg, cursor, …). */
const COLOR_QUERY_OSCS = [4, 5, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19];

const handled = () => true;

export function suppressQueryReplies(term: Terminal): IDisposable {
  const parser = term.parser;
  const disposables: IDisposable[] = [
    parser.registerCsiHandler({ final: 'c' }, handled), // DA1
    parser.registerCsiHandler({ prefix: '>', final: 'c' }, handled), // DA2
    parser.registerCsiHandler({ prefix: '=', final: 'c' }, handled), // DA3
    parser.registerCsiHandler({ final: 'n' }, handled), // DSR: status, CPR
    parser.registerCsiHandler({ prefix: '?', final: 'n' }, handled), // DEC DSR: DECXCPR and friends
    parser.registerCsiHandler({ intermediates: '$', final: 'p' }, handled), // DECRQM (ANSI modes)
    parser.registerCsiHandler({ prefix: '?', intermediates: '$', final: 'p' }, handled), // DECRQM (DEC modes)
    parser.registerCsiHandler({ prefix: '>', final: 'q' }, handled), // XTVERSION
    parser.registerDcsHandler({ intermediates: '$', final: 'q' }, handled), // DECRQSS
    // Window reports (CSI 14/16/18 t …): xterm.js sends them only when
    // windowOptions enable them, and this page never does; other CSI t (the
    // title stack) must keep working, so CSI t is left alone.
  ];
  for (const ident of COLOR_QUERY_OSCS) {
    // A "?" spec asks; a colour spec sets. Only a sequence that asks is swallowed
    // (mixed set-and-ask sequences lose their set part: rare enough to accept).
    disposables.push(parser.registerOscHandler(ident, (data) => data.split(';').includes('?')));
  }
  return {
    dispose() {
      for (const d of disposables) d.dispose();
    },
  };
}
