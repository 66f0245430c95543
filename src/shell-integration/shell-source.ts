// A template tag for embedding shell scripts in TypeScript verbatim.
//
// Shell code is full of backslashes and `${`, which a plain template literal
// would interpret. This tag keeps the raw text (backslashes stay as written)
// and only unescapes the two sequences a template cannot hold literally:
// `\${` (written so TypeScript does not substitute) and `` \` ``.
export function shellSource(strings: TemplateStringsArray, ...values: string[]): string {
  return String.raw(strings, ...values).replaceAll('\\${', '${').replaceAll('\\`', '`');
}
