// A strict check that a text is well-formed XML, for the files tests read
// where no real parser is at hand (a launchd property list on a machine
// without plutil or Python): one root element, every tag closed in order,
// attribute values quoted, only the five named entities and numeric ones,
// no "<" or a bare "&" in text, no control characters XML 1.0 forbids.
// Returns the first problem, or null.

const NAME = /^[A-Za-z_:][A-Za-z0-9_.:-]*/;
const FORBIDDEN_CHARACTER = /[\0-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]/;
const ENTITY = /^&(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9A-Fa-f]+);/;

function textProblem(text: string, at: number): string | null {
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '<') return `"<" in text at ${at + i}`;
    if (text[i] === '&' && !ENTITY.test(text.slice(i))) return `a bare "&" at ${at + i}`;
  }
  return null;
}

/** Attributes of a start tag, after its name: name="value" or name='value', each once. */
function attributesProblem(rest: string, at: number): string | null {
  const seen = new Set<string>();
  let text = rest;
  for (;;) {
    text = text.replace(/^\s+/, '');
    if (text === '') return null;
    const name = NAME.exec(text)?.[0];
    if (name === undefined) return `an attribute name expected at ${at}: ${JSON.stringify(text.slice(0, 20))}`;
    if (seen.has(name)) return `attribute ${name} twice at ${at}`;
    seen.add(name);
    const value = /^\s*=\s*("[^"<]*"|'[^'<]*')/.exec(text.slice(name.length));
    if (value === null) return `attribute ${name} without a quoted value at ${at}`;
    const problem = textProblem(value[1]!.slice(1, -1), at);
    if (problem !== null) return problem;
    text = text.slice(name.length + value[0].length);
  }
}

export function xmlProblem(xml: string): string | null {
  if (FORBIDDEN_CHARACTER.test(xml)) return 'a control character XML does not allow';
  const open: string[] = [];
  let roots = 0;
  let i = 0;
  if (xml.startsWith('<?xml')) {
    const end = xml.indexOf('?>');
    if (end < 0) return 'an unclosed XML declaration';
    i = end + 2;
  }
  while (i < xml.length) {
    const lt = xml.indexOf('<', i);
    const text = xml.slice(i, lt < 0 ? xml.length : lt);
    if (open.length === 0 && text.trim() !== '') return `text outside the root element at ${i}`;
    const problem = textProblem(text, i);
    if (problem !== null) return problem;
    if (lt < 0) break;
    const rest = xml.slice(lt);
    if (rest.startsWith('<!--')) {
      const end = xml.indexOf('-->', lt + 4);
      if (end < 0 || xml.slice(lt + 4, end).includes('--')) return `a bad comment at ${lt}`;
      i = end + 3;
    } else if (rest.startsWith('<!DOCTYPE')) {
      if (roots > 0 || open.length > 0) return `a DOCTYPE after the root element began, at ${lt}`;
      const end = xml.indexOf('>', lt);
      if (end < 0 || xml.slice(lt, end).includes('[')) return `a DOCTYPE this check does not read at ${lt}`;
      i = end + 1;
    } else {
      const end = xml.indexOf('>', lt);
      if (end < 0) return `an unclosed tag at ${lt}`;
      const tag = xml.slice(lt + 1, end);
      if (tag.startsWith('/')) {
        const name = tag.slice(1).trim();
        const expected = open.pop();
        if (name !== expected) return `</${name}> at ${lt} closes <${expected ?? 'nothing'}>`;
      } else {
        const selfClosing = tag.endsWith('/');
        const body = selfClosing ? tag.slice(0, -1) : tag;
        const name = NAME.exec(body)?.[0];
        if (name === undefined) return `a tag without a name at ${lt}`;
        const attrs = attributesProblem(body.slice(name.length), lt);
        if (attrs !== null) return attrs;
        if (open.length === 0) {
          roots += 1;
          if (roots > 1) return `a second root element <${name}> at ${lt}`;
        }
        if (!selfClosing) open.push(name);
      }
      i = end + 1;
    }
  }
  if (open.length > 0) return `<${open.at(-1)}> is never closed`;
  return roots === 1 ? null : 'no root element';
}
