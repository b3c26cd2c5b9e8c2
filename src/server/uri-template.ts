/**
 * RFC 6570 URI templates, for matching resource URIs against registered templates (resources.mdx).
 * Supports the operators MCP servers use: {var}, {+var}, {#var}, {.var}, {/var}, {;var}, {?a,b}, {&a}.
 */

type Operator = '' | '+' | '#' | '.' | '/' | ';' | '?' | '&';

interface Expression {
  operator: Operator;
  names: string[];
}

const MAX_URI_LENGTH = 8192;
const EXPRESSION = /\{([+#./;?&]?)([^}]+)\}/g;

export class UriTemplate {
  readonly variableNames: readonly string[];
  private readonly regex: RegExp;
  private readonly groups: Expression[] = [];

  constructor(readonly template: string) {
    let pattern = '^';
    let last = 0;
    const names: string[] = [];
    for (const match of template.matchAll(EXPRESSION)) {
      pattern += escapeRegex(template.slice(last, match.index));
      last = match.index + match[0].length;
      const expression: Expression = {
        operator: match[1] as Operator,
        names: match[2].split(',').map((n) => n.trim().replace(/\*$|:\d+$/, '')),
      };
      names.push(...expression.names);
      pattern += this.expressionPattern(expression);
    }
    pattern += `${escapeRegex(template.slice(last))}$`;
    if (/[{}]/.test(template.replace(EXPRESSION, ''))) throw new TypeError(`Invalid URI template '${template}': unbalanced { or }`);
    this.variableNames = names;
    this.regex = new RegExp(pattern);
  }

  /** The template's variables from `uri`, or null when `uri` does not match. */
  match(uri: string): Record<string, string> | null {
    // Templates with several {+var} can backtrack quadratically: no real resource URI is this long.
    if (uri.length > MAX_URI_LENGTH) return null;
    const m = this.regex.exec(uri);
    if (!m) return null;
    const out: Record<string, string> = {};
    this.groups.forEach(({ names, operator }, i) => {
      const raw = m[i + 1];
      if (raw === undefined) return;
      if (operator === '?' || operator === '&' || operator === ';') {
        for (const pair of raw.split(/[&;]/)) {
          const eq = pair.indexOf('=');
          const key = eq < 0 ? pair : pair.slice(0, eq);
          if (names.includes(key)) out[key] = decode(eq < 0 ? '' : pair.slice(eq + 1));
        }
        return;
      }
      const values = names.length === 1 ? [raw] : raw.split(operator === '.' || operator === '/' ? operator : ',');
      const reserved = operator === '+' || operator === '#';
      names.forEach((name, j) => {
        if (values[j] !== undefined) out[name] = reserved ? values[j] : decode(values[j]);
      });
    });
    return out;
  }

  /** Fill the template with `variables` (simple string expansion; values are percent-encoded). */
  expand(variables: Record<string, string>): string {
    return this.template.replace(EXPRESSION, (_all, op: Operator, list: string) => {
      const parts = list
        .split(',')
        .map((n) => n.trim().replace(/\*$|:\d+$/, ''))
        .filter((n) => variables[n] !== undefined);
      if (parts.length === 0) return '';
      const enc = (v: string) => (op === '+' || op === '#' ? encodeURI(v) : encodeUnreserved(v));
      switch (op) {
        case '?':
        case '&':
          return op + parts.map((n) => `${n}=${enc(variables[n])}`).join('&');
        case ';':
          // RFC 6570 §3.2.7: an empty value is the bare name.
          return parts.map((n) => (variables[n] === '' ? `;${n}` : `;${n}=${enc(variables[n])}`)).join('');
        case '.':
        case '/':
          return parts.map((n) => op + enc(variables[n])).join('');
        case '#':
          return `#${parts.map((n) => enc(variables[n])).join(',')}`;
        default:
          return parts.map((n) => enc(variables[n])).join(',');
      }
    });
  }

  private expressionPattern(expression: Expression): string {
    this.groups.push(expression);
    switch (expression.operator) {
      case '?':
      case '&':
        return '(?:[?&]([^#]*))?';
      case '+':
        return '([^]*?)';
      case '#':
        return '(?:#([^]*))?';
      case '':
        return '([^/?#]*)';
      default:
        return `(?:${escapeRegex(expression.operator)}([^?#]*?))?`;
    }
  }
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** RFC 6570 §3.2.2: only unreserved characters stay as they are (encodeURIComponent also keeps !'()*). */
function encodeUnreserved(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
