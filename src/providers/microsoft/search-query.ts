/**
 * Gmail's search syntax (support.google.com/mail/answer/7190), read into a tree: words, "quoted phrases",
 * `operator:value` (operator names in any case; the value a word, a phrase, a `( )` group meaning all of its
 * words or a `{ }` group meaning any), `-` or `NOT` before a term or group to exclude it, `OR` (uppercase only, as
 * Gmail requires; a lowercase "or" is a word) and `{a b}` for alternatives, `( )` for grouping, `+word` for an
 * exact word, and implicit AND between terms. `AND` in uppercase is accepted as the implicit AND it already is.
 *
 * One pass over the text, no backtracking patterns: the cost is linear in the query's length (at most 2,048
 * characters; nesting at most 32 deep), whatever the query holds. A query that cannot be read — a quote or a
 * bracket left open, a bracket closed that was never opened, OR with nothing on one side — is refused, never
 * guessed at.
 */

export const MAX_QUERY_CHARS = 2048;
const MAX_DEPTH = 32;

export type QueryNode =
  | { kind: 'and' | 'or'; items: QueryNode[] }
  | { kind: 'not'; item: QueryNode }
  /** Free text: one word, or a phrase when it was quoted. */
  | { kind: 'text'; value: string; phrase: boolean }
  /** `name:value`; `name` lowercased, exactly as typed otherwise. */
  | { kind: 'op'; name: string; value: string; phrase: boolean };

export class QuerySyntaxError extends Error {}

type Token =
  | { t: '(' | ')' | '{' | '}' | 'OR' | 'AND' | 'NOT' | '-' }
  | { t: 'word'; value: string; phrase: boolean }
  | { t: 'op'; name: string; value: string; phrase: boolean; group?: '(' | '{' };

const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v' || c === '\u00a0';
const isBracket = (c: string) => c === '(' || c === ')' || c === '{' || c === '}';
const isLetter = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
/** Operator names: a letter, then letters, digits and _ (rfc822msgid, older_than). */
const isNameChar = (c: string) => isLetter(c) || (c >= '0' && c <= '9');

function tokenize(query: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const readPhrase = (): string => {
    const close = query.indexOf('"', i + 1);
    if (close < 0) throw new QuerySyntaxError('a quote (") is not closed');
    const value = query.slice(i + 1, close);
    i = close + 1;
    return value;
  };
  const readWord = (): string => {
    const start = i;
    while (i < query.length && !isSpace(query[i]!) && !isBracket(query[i]!) && query[i] !== '"') i++;
    return query.slice(start, i);
  };
  while (i < query.length) {
    const c = query[i]!;
    if (isSpace(c)) {
      i++;
    } else if (isBracket(c)) {
      out.push({ t: c as '(' });
      i++;
    } else if (c === '"') {
      out.push({ t: 'word', value: readPhrase(), phrase: true });
    } else if (c === '-' && i + 1 < query.length && !isSpace(query[i + 1]!)) {
      out.push({ t: '-' });
      i++;
    } else {
      // An operator is a name then a colon; anything else up to a space or bracket is a word.
      let n = i;
      if (isLetter(c)) while (n < query.length && isNameChar(query[n]!)) n++;
      if (n > i && query[n] === ':') {
        const name = query.slice(i, n).toLowerCase();
        i = n + 1;
        const next = query[i];
        if (next === '"') out.push({ t: 'op', name, value: readPhrase(), phrase: true });
        else if (next === '(' || next === '{') {
          out.push({ t: 'op', name, value: '', phrase: false, group: next });
          // The group's own tokens follow; the parser applies the operator to each of its terms.
        } else {
          const value = readWord();
          if (!value) throw new QuerySyntaxError(`"${name}:" has no value`);
          out.push({ t: 'op', name, value, phrase: false });
        }
      } else {
        const word = readWord();
        if (word === 'OR' || word === 'AND' || word === 'NOT') out.push({ t: word });
        else out.push({ t: 'word', value: word.startsWith('+') && word.length > 1 ? word.slice(1) : word, phrase: false });
      }
    }
  }
  return out;
}

/** The query as a tree; a QuerySyntaxError says what could not be read. An empty query is an empty AND. */
export function parseQuery(query: string): QueryNode {
  if (query.length > MAX_QUERY_CHARS) throw new QuerySyntaxError(`the query is longer than ${MAX_QUERY_CHARS} characters`);
  const tokens = tokenize(query);
  let at = 0;
  let depth = 0;
  const deeper = () => {
    if (++depth > MAX_DEPTH) throw new QuerySyntaxError(`groups nest deeper than ${MAX_DEPTH}`);
  };

  /** Terms up to `close` (or the end), joined by AND, with OR binding tighter as Gmail reads `a b OR c` (a AND (b OR c)). */
  const sequence = (close: ')' | '}' | null, field?: string): QueryNode[] => {
    const items: QueryNode[] = [];
    while (at < tokens.length && tokens[at]!.t !== close) {
      const t = tokens[at]!;
      if (t.t === ')' || t.t === '}') throw new QuerySyntaxError(`"${t.t}" closes a group that was never opened`);
      if (t.t === 'AND') {
        at++;
        continue;
      }
      if (t.t === 'OR') {
        const left = items.pop();
        at++;
        if (!left || at >= tokens.length || tokens[at]!.t === close || tokens[at]!.t === 'OR') throw new QuerySyntaxError('OR needs a term on each side');
        const right = unary(field);
        // OR is associative: a chain grows one list (in place, so a long chain costs linear time).
        if (left.kind === 'or') {
          left.items.push(right);
          items.push(left);
        } else items.push({ kind: 'or', items: [left, right] });
        continue;
      }
      items.push(unary(field));
    }
    if (close && tokens[at]?.t !== close) throw new QuerySyntaxError(`"${close === ')' ? '(' : '{'}" is not closed`);
    if (close) at++;
    return items;
  };

  const group = (open: '(' | '{', field?: string): QueryNode => {
    deeper();
    const items = sequence(open === '(' ? ')' : '}', field);
    depth--;
    if (items.length === 0) throw new QuerySyntaxError(`an empty "${open}${open === '(' ? ')' : '}'}" group`);
    return items.length === 1 ? items[0]! : { kind: open === '(' ? 'and' : 'or', items };
  };

  const unary = (field?: string): QueryNode => {
    const t = tokens[at++];
    if (!t) throw new QuerySyntaxError('the query ends where a term was expected');
    switch (t.t) {
      case '-':
      case 'NOT': {
        deeper();
        const item = unary(field);
        depth--;
        return { kind: 'not', item };
      }
      case '(':
      case '{':
        return group(t.t, field);
      case 'word':
        return field ? { kind: 'op', name: field, value: t.value, phrase: t.phrase } : { kind: 'text', value: t.value, phrase: t.phrase };
      case 'op':
        if (field) throw new QuerySyntaxError(`"${t.name}:" inside "${field}:( )"`);
        if (t.group) {
          at++; // the bracket itself
          return group(t.group, t.name);
        }
        return { kind: 'op', name: t.name, value: t.value, phrase: t.phrase };
      default:
        throw new QuerySyntaxError(`"${t.t}" where a term was expected`);
    }
  };

  const items = sequence(null);
  return items.length === 1 ? items[0]! : { kind: 'and', items };
}
