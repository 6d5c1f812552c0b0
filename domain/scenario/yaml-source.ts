import { Composer, type Document, LineCounter, Parser } from 'yaml';
import type { CST } from 'yaml';
import { Diagnostic, error } from './diagnostics';

export type YamlSource =
  | { readonly ok: true; readonly document: Document.Parsed; readonly lineCounter: LineCounter }
  | { readonly ok: false; readonly diagnostics: Diagnostic[] };

/**
 * Parses scenario text as RAES's sdl-yaml/v1 profile reads it: one YAML document, no directives
 * (`%YAML 1.1` would change how values resolve). Problems are diagnostics with their line and column.
 */
export const parseYamlSource = (text: string): YamlSource => {
  const lineCounter = new LineCounter();
  const where = (offset: number | undefined): string => {
    if (offset === undefined) return '(document)';
    const position = lineCounter.linePos(offset);
    return `line ${position.line}, column ${position.col}`;
  };
  const directives: CST.Directive[] = [];
  const documentStarts: number[] = [];
  function* observed(tokens: Generator<CST.Token>): Generator<CST.Token> {
    for (const token of tokens) {
      if (token.type === 'directive') directives.push(token);
      if (token.type === 'document') documentStarts.push(token.offset);
      yield token;
    }
  }
  // The yaml package checks key uniqueness with a scan per key (quadratic in a map's size);
  // yaml-structure checks it with one Set per map instead.
  const composer = new Composer({ uniqueKeys: false });
  let document: Document.Parsed | undefined;
  for (const composed of composer.compose(observed(new Parser(lineCounter.addNewLine).parse(text)), true, text.length)) {
    if (document !== undefined) break;
    document = composed;
  }
  if (document === undefined) return { ok: false, diagnostics: [error('scenario.yaml-invalid', '(document)', 'the scenario is empty: write a RAES SDL mapping.')] };
  const diagnostics = document.errors.map((e) => {
    const at = where(e.pos[0]);
    const message = e.message.split('\n')[0] ?? e.message;
    return error('scenario.yaml-invalid', at, `${message} at ${at}: fix the YAML syntax there.`);
  });
  for (const directive of directives) {
    const at = where(directive.offset);
    diagnostics.push(
      error('scenario.yaml-invalid', at, `the YAML directive "${directive.source.trim()}" at ${at} is not sdl-yaml/v1 authoring syntax: remove the line.`),
    );
  }
  const secondDocument = documentStarts[1];
  if (secondDocument !== undefined) {
    const at = where(secondDocument);
    diagnostics.push(
      error('scenario.yaml-invalid', at, `a second YAML document starts at ${at}; a scenario is one document: remove everything from that "---" on, or put it in a file of its own.`),
    );
  }
  return diagnostics.length > 0 ? { ok: false, diagnostics } : { ok: true, document, lineCounter };
};
