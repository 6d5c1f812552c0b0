/**
 * Bounds on scenario and manifest text, checked before any parser sees it: a parser given
 * unbounded input can take unbounded time, memory or stack.
 */
export const MAX_INPUT_CHARACTERS = 4_194_304;
export const MAX_NESTING_DEPTH = 64;
export const MAX_YAML_ALIAS_COUNT = 100;

export type BoundsProblem =
  | { readonly kind: 'too-large'; readonly characters: number }
  | { readonly kind: 'too-deep'; readonly line: number };

/**
 * The bracket nesting of the text, outside quoted strings and comments, in one linear pass with no
 * recursion. For YAML, a plain scalar holding an unbalanced bracket can overstate the depth; that
 * errs on the side of refusing.
 */
export const checkTextBounds = (text: string, syntax: 'json' | 'yaml'): BoundsProblem | undefined => {
  if (text.length > MAX_INPUT_CHARACTERS) return { kind: 'too-large', characters: text.length };
  let depth = 0;
  let line = 1;
  let quote: '"' | "'" | undefined;
  let inComment = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (c === '\n') {
      line += 1;
      inComment = false;
      // A YAML quoted scalar may span lines; ending it here can only overstate the depth.
      if (syntax === 'yaml') quote = undefined;
      continue;
    }
    if (inComment) continue;
    if (quote !== undefined) {
      if (c === '\\' && quote === '"') i += 1;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' && (syntax === 'json' || opensYamlQuote(text, i))) quote = '"';
    else if (c === "'" && syntax === 'yaml' && opensYamlQuote(text, i)) quote = "'";
    else if (syntax === 'yaml' && c === '#') inComment = true;
    else if (c === '[' || c === '{') {
      depth += 1;
      if (depth > MAX_NESTING_DEPTH) return { kind: 'too-deep', line };
    } else if ((c === ']' || c === '}') && depth > 0) depth -= 1;
  }
  return undefined;
};

export const describeBoundsProblem = (problem: BoundsProblem, what: string): string =>
  problem.kind === 'too-large'
    ? `the ${what} is ${problem.characters} characters long, over the limit of ${MAX_INPUT_CHARACTERS}: split or shorten it.`
    : `the ${what} nests deeper than ${MAX_NESTING_DEPTH} levels at line ${problem.line}: flatten it.`;

/** In YAML a quote opens a scalar only where a scalar can start; inside a plain scalar it is a character. */
const opensYamlQuote = (text: string, at: number): boolean => {
  const before = at === 0 ? '\n' : text[at - 1];
  return before === ' ' || before === '\t' || before === '\n' || before === '\r' || before === '[' || before === '{' || before === ',';
};
