// Edge coverage for the fuzzer: rewrites a compiled ES module so that every
// branch it can take bumps a counter of its own. Counted are function and
// block entries, both arms of each if (an if without else gets one for the
// arm not written), each case of a switch, both arms of `?:`, and the right
// side of && || ??: the places where two inputs part ways. The counters live
// in one Uint8Array that the fuzz loop reads and clears after each input.
//
// Also collects the module's small constants (numbers and short strings): the
// values its checks compare input with, which the mutator tries as tokens.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

/** The global the rewritten module finds its counters through (set by the fuzz loop). */
export const COVERAGE_GLOBAL = '__tendFuzzCoverage';
const LOCAL = '__tendFuzzEdges';
/** Strings longer than this are messages, not tokens. */
const MAX_TOKEN_CHARS = 64;

export interface ModuleConstants {
  numbers: number[];
  strings: string[];
}

export interface InstrumentedModule {
  code: string;
  edges: number;
  constants: ModuleConstants;
}

/** What a rewritten module calls once, at load: its counters and its constants. */
export interface CoverageRegistry {
  edges(count: number, moduleUrl: string, constants: ModuleConstants): Uint8Array;
}

interface Insertion {
  pos: number;
  text: string;
  closing: boolean;
  /** How deep in the tree the node that asked for it is. */
  depth: number;
  order: number;
}

export function instrumentModule(source: string, moduleUrl: string): InstrumentedModule {
  const file = ts.createSourceFile(moduleUrl, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const insertions: Insertion[] = [];
  const numbers = new Set<number>();
  const strings = new Set<string>();
  let edges = 0;
  let order = 0;
  let depth = 0;
  const open = (pos: number, text: string) => insertions.push({ pos, text, closing: false, depth, order: order++ });
  const close = (pos: number, text: string) => insertions.push({ pos, text, closing: true, depth, order: order++ });
  const bump = () => `${LOCAL}[${edges++}]++`;
  const countStatement = (s: ts.Statement) => {
    if (ts.isBlock(s)) return; // the block counts itself
    open(s.getStart(file), `{${bump()};`);
    close(s.end, '}');
  };
  const countExpression = (e: ts.Expression) => {
    open(e.getStart(file), `(${bump()}, `);
    close(e.end, ')');
  };

  const visit = (node: ts.Node): void => {
    if (ts.isBlock(node)) {
      open(node.getStart(file) + 1, `${bump()};`);
    } else if (ts.isIfStatement(node)) {
      countStatement(node.thenStatement);
      if (node.elseStatement === undefined) close(node.thenStatement.end, ` else {${bump()};}`);
      else if (!ts.isIfStatement(node.elseStatement)) countStatement(node.elseStatement);
    } else if (ts.isIterationStatement(node, false)) {
      countStatement(node.statement);
    } else if (ts.isCaseClause(node) || ts.isDefaultClause(node)) {
      open(node.statements.pos, `${bump()};`);
    } else if (ts.isConditionalExpression(node)) {
      countExpression(node.whenTrue);
      countExpression(node.whenFalse);
    } else if (ts.isBinaryExpression(node)) {
      const op = node.operatorToken.kind;
      if (op === ts.SyntaxKind.AmpersandAmpersandToken || op === ts.SyntaxKind.BarBarToken || op === ts.SyntaxKind.QuestionQuestionToken) {
        countExpression(node.right);
      }
    } else if (ts.isArrowFunction(node) && !ts.isBlock(node.body)) {
      countExpression(node.body);
    } else if (ts.isNumericLiteral(node)) {
      const n = Number(node.text);
      if (Number.isInteger(n) && n >= 0 && n <= 0xffff_ffff) numbers.add(n);
    } else if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      if (node.text.length > 0 && node.text.length <= MAX_TOKEN_CHARS && !ts.isImportDeclaration(node.parent) && !ts.isExportDeclaration(node.parent)) {
        strings.add(node.text);
      }
    }
    depth++;
    ts.forEachChild(node, visit);
    depth--;
  };
  ts.forEachChild(file, visit);

  let code = source;
  for (const [pos, text] of textAtPositions(insertions)) code = code.slice(0, pos) + text + code.slice(pos);
  const constants: ModuleConstants = { numbers: [...numbers], strings: [...strings] };
  const prologue = `const ${LOCAL} = globalThis.${COVERAGE_GLOBAL}.edges(${edges}, ${JSON.stringify(moduleUrl)}, ${JSON.stringify(constants)});\n`;
  return { code: prologue + code, edges, constants };
}

const instrumentedCache = new Map<string, string>();

/** The instrumented source of each file, by its file URL (what coverage-loader.ts serves). */
export function instrumentFiles(files: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const file of files) {
    const url = pathToFileURL(file).href;
    let code = instrumentedCache.get(url);
    if (code === undefined) {
      code = instrumentModule(readFileSync(file, 'utf8'), url).code;
      instrumentedCache.set(url, code);
    }
    out[url] = code;
  }
  return out;
}

/**
 * The text to insert at each position, last position first (so earlier ones
 * stay valid). Where several meet at one position, what closes comes before
 * what opens, an inner node closes before its parent, and a parent opens
 * before its children.
 */
function textAtPositions(insertions: Insertion[]): Array<[number, string]> {
  const byPos = new Map<number, Insertion[]>();
  for (const ins of insertions) {
    const list = byPos.get(ins.pos);
    if (list) list.push(ins);
    else byPos.set(ins.pos, [ins]);
  }
  return [...byPos.entries()]
    .sort(([a], [b]) => b - a)
    .map(([pos, list]) => {
      const closing = list.filter((i) => i.closing).sort((a, b) => b.depth - a.depth || a.order - b.order);
      const opening = list.filter((i) => !i.closing).sort((a, b) => a.depth - b.depth || a.order - b.order);
      return [pos, [...closing, ...opening].map((i) => i.text).join('')];
    });
}
