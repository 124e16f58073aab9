/**
 * Gmail search syntax → a small AST. Gmail never rejects a query, so neither does this parser: unknown
 * operators are plain words, unbalanced parentheses and quotes are closed at the end.
 *
 * Precedence as in Gmail: `OR` (and `{a b}`) binds tighter than the implicit AND between terms, so
 * `a b OR c` means a AND (b OR c). `-x` negates one term or group; `op:(a b)` applies op to each inner term.
 */

export type QueryNode =
  | { kind: 'and'; items: QueryNode[] }
  | { kind: 'or'; items: QueryNode[] }
  | { kind: 'not'; item: QueryNode }
  /** `op` undefined: free text. `phrase`: quoted, its words must be adjacent. */
  | { kind: 'term'; op: string | undefined; value: string; phrase: boolean };

export const OPERATORS: ReadonlySet<string> = new Set([
  'from',
  'to',
  'cc',
  'bcc',
  'deliveredto',
  'subject',
  'label',
  'is',
  'has',
  'in',
  'after',
  'before',
  'older',
  'newer',
  'older_than',
  'newer_than',
  'rfc822msgid',
  'filename',
  'larger',
  'smaller',
  'size',
  'category',
  'list',
]);

type Token =
  | { type: 'word' | 'phrase'; text: string; op: string | undefined }
  | { type: 'open' | 'lbrace'; op: string | undefined }
  | { type: 'close' | 'rbrace' | 'not' | 'or' };

const STOP = /[\s(){}"]/;

export function tokenize(q: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const readPhrase = (): string => {
    const end = q.indexOf('"', i + 1);
    const text = q.slice(i + 1, end === -1 ? q.length : end);
    i = end === -1 ? q.length : end + 1;
    return text;
  };
  while (i < q.length) {
    const c = q[i]!;
    if (/\s/.test(c)) i++;
    else if (c === '(' || c === '{') {
      tokens.push({ type: c === '(' ? 'open' : 'lbrace', op: undefined });
      i++;
    } else if (c === ')' || c === '}') {
      tokens.push({ type: c === ')' ? 'close' : 'rbrace' });
      i++;
    } else if (c === '-' && i + 1 < q.length && !/[\s-]/.test(q[i + 1]!)) {
      tokens.push({ type: 'not' });
      i++;
    } else if (c === '"') tokens.push({ type: 'phrase', text: readPhrase(), op: undefined });
    else {
      let j = i;
      while (j < q.length && !STOP.test(q[j]!)) j++;
      const word = q.slice(i, j);
      i = j;
      const m = /^([A-Za-z_0-9]+):(.*)$/.exec(word);
      const op = m && OPERATORS.has(m[1]!.toLowerCase()) ? m[1]!.toLowerCase() : undefined;
      if (op !== undefined && m![2] !== '') tokens.push({ type: 'word', text: m![2]!, op });
      else if (op !== undefined && q[i] === '"') tokens.push({ type: 'phrase', text: readPhrase(), op });
      else if (op !== undefined && q[i] === '(') {
        tokens.push({ type: 'open', op });
        i++;
      } else if (op !== undefined && q[i] === '{') {
        tokens.push({ type: 'lbrace', op });
        i++;
      } else if (op !== undefined)
        continue; // `from:` with nothing after it constrains nothing
      else if (word === 'OR') tokens.push({ type: 'or' });
      else if (word !== 'AND') tokens.push({ type: 'word', text: word.replace(/^\+/, ''), op: undefined });
    }
  }
  return tokens;
}

export function parseQuery(q: string): QueryNode {
  const tokens = tokenize(q);
  let pos = 0;

  const parseUnary = (ctxOp: string | undefined): QueryNode | null => {
    const tok = tokens[pos++];
    if (!tok) return null;
    switch (tok.type) {
      case 'not': {
        const item = parseUnary(ctxOp);
        return item ? { kind: 'not', item } : null;
      }
      case 'open':
      case 'lbrace': {
        const items = parseSequence(tok.type === 'open' ? 'close' : 'rbrace', tok.op ?? ctxOp);
        if (tokens[pos]?.type === (tok.type === 'open' ? 'close' : 'rbrace')) pos++;
        return { kind: tok.type === 'open' ? 'and' : 'or', items };
      }
      case 'word':
      case 'phrase':
        return { kind: 'term', op: tok.op ?? ctxOp, value: tok.text, phrase: tok.type === 'phrase' };
      default:
        return null; // a stray ')' or 'OR': ignored, as Gmail does
    }
  };

  const parseSequence = (stop: 'close' | 'rbrace' | undefined, ctxOp: string | undefined): QueryNode[] => {
    const items: QueryNode[] = [];
    while (pos < tokens.length && tokens[pos]!.type !== stop) {
      if (stop === undefined && (tokens[pos]!.type === 'close' || tokens[pos]!.type === 'rbrace')) {
        pos++;
        continue;
      }
      let node = parseUnary(ctxOp);
      while (node && tokens[pos]?.type === 'or') {
        pos++;
        const right = parseUnary(ctxOp);
        if (right) node = { kind: 'or', items: [...(node.kind === 'or' ? node.items : [node]), right] };
      }
      if (node) items.push(node);
    }
    return items;
  };

  return { kind: 'and', items: parseSequence(undefined, undefined) };
}
