// A program for the crash loop: prints numbered lines, `n00000001` then CR LF,
// one after another at a steady pace, so that a screen read with its
// scrollback shows at once whether a line went missing or came twice. With
// COUNT it stops after that many lines and waits (the disk checks need a
// stream that ends, in a session that does not).
//   node numbered-lines.js [COUNT]
/** Lines per tick and ms between ticks: about 200 lines a second. */
const LINES_PER_TICK = 4;
const TICK_MS = 20;

const count = process.argv[2] === undefined ? Infinity : Number(process.argv[2]);
/** Lines printed by a COUNT run at once, in one burst per tick. */
const BURST_LINES = 500;

let next = 1;
function tick(): void {
  if (next > count) {
    setInterval(() => undefined, 60_000); // stay: the session keeps running
    return;
  }
  let text = '';
  const lines = Number.isFinite(count) ? Math.min(BURST_LINES, count - next + 1) : LINES_PER_TICK;
  for (let k = 0; k < lines; k++) text += `n${String(next++).padStart(8, '0')}\r\n`;
  if (process.stdout.write(text)) setTimeout(tick, TICK_MS);
  else process.stdout.once('drain', () => setTimeout(tick, TICK_MS));
}
tick();
