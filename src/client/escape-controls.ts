/**
 * Server text made safe to show: a server's strings (its name and instructions, tool titles, elicitation
 * messages and fields, log lines, results) reach a terminal or a page that would obey what they hide.
 * ESC starts terminal commands (window titles, hyperlinks, cursor moves, erasing the screen), CR returns
 * to the start of the line to overwrite it, and bidi controls (U+202E) reorder what follows. Pure, and no
 * Node imports: a browser UI uses it too.
 */

/**
 * Controls (C0, DEL, C1: Cc), format characters (Cf: bidi controls, zero-width and other invisible ones,
 * the soft hyphen, BOM, tags), lone surrogates (Cs), the Unicode line and paragraph separators, the
 * fillers and joiner that render as nothing (U+034F, U+115F, U+1160, U+3164, U+FFA0), and unassigned
 * code points a renderer must ignore (U+2065, U+FFF0-FFF8, the unassigned tags): no category names those.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\u115F\u1160\u3164\uFFA0]|\u034F|(?=\p{Default_Ignorable_Code_Point})\p{Cn}/gu;

const NAMED: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * `text` with every control, bidi and invisible format character written out visibly: C0 and C1
 * controls and DEL as `\xHH` (`\t`, `\n`, `\r` for those three), the others as `<U+202E>`. Printable
 * text in any script comes back unchanged (an emoji joined with U+200D shows its joiners). `multiline` keeps line feeds (CRLF counts
 * as one; any other CR is still `\r`); without it every break is shown as `\n`.
 */
export function escapeControls(text: string, options: { multiline?: boolean } = {}): string {
  const source = options.multiline ? text.replaceAll('\r\n', '\n') : text;
  return source.replace(HIDDEN, (char) => (options.multiline && char === '\n' ? char : visible(char)));
}

function visible(char: string): string {
  const named = NAMED[char];
  if (named) return named;
  const code = char.codePointAt(0)!;
  if (code <= 0x9f) return `\\x${code.toString(16).padStart(2, '0')}`;
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
}
