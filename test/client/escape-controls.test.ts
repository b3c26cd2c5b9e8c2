/**
 * escapeControls, the one sanitizer of server strings our clients show: exact outputs for each kind of
 * character a terminal or a page would obey (C0, DEL, C1, bidi controls, invisible format characters),
 * then properties over any text: nothing of those kinds comes out, and printable text comes out as it went in.
 * What must not come out is checked twice: by Unicode category, and against code points written out here,
 * so that a kind missing from the categories is not missed by both.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeControls } from '../../src/client/escape-controls.js';
import { checkProperty } from '../helpers/fuzz.js';

/**
 * What must never come out: Cc (C0, DEL, C1), Cf (bidi, zero-width, ...), lone surrogates, line and
 * paragraph separators, the invisible fillers and joiner, and unassigned code points a renderer ignores.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\u115F\u1160\u3164\uFFA0]|\u034F|(?=\p{Default_Ignorable_Code_Point})\p{Cn}/u;

const range = (first: number, last: number) => Array.from({ length: last - first + 1 }, (_, i) => first + i);

/** Code points that must never come out raw, each named, independent of any category. */
const NEVER_RAW: readonly number[] = [
  ...range(0x00, 0x1f), // C0 controls: ESC, CR, BS, BEL, ...
  0x7f, // DEL
  ...range(0x80, 0x9f), // C1 controls
  0x85, // NEL, a line break to some terminals
  0x9b, // CSI, ESC [ in one byte
  0x00ad, // soft hyphen
  0x061c, // Arabic letter mark
  ...range(0x200b, 0x200f), // zero-width space, non-joiner, joiner; LRM, RLM
  ...range(0x2028, 0x202e), // line and paragraph separators; LRE, RLE, PDF, LRO, RLO
  ...range(0x2060, 0x2069), // word joiner, invisible operators, unassigned U+2065, LRI, RLI, FSI, PDI
  0x034f, // combining grapheme joiner
  0x115f, // Hangul choseong filler
  0x1160, // Hangul jungseong filler
  0x3164, // Hangul filler
  0xffa0, // halfwidth Hangul filler
  ...range(0xfff0, 0xfff8), // unassigned, ignorable
  0xe0000, // unassigned tag
  ...range(0xe0002, 0xe001f), // unassigned tags
  0xfeff, // BOM, zero-width no-break space
  0xe0001, // language tag
  ...range(0xe0020, 0xe007f), // tag characters
];
const NEVER_RAW_SET = new Set(NEVER_RAW);

const codeName = (code: number) => `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;

/** The code points of NEVER_RAW in `text`, by name. */
function neverRawIn(text: string): string[] {
  return [...text]
    .map((char) => char.codePointAt(0)!)
    .filter((code) => NEVER_RAW_SET.has(code))
    .map(codeName);
}

/** Any UTF-16 unit, so that lone surrogates come too, and any code point. */
const anyChar = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
);
const anyText = fc.string({ unit: anyChar, maxLength: 80 });
/** Text thick with NEVER_RAW, among any other character. */
const hostileText = fc.string({
  unit: fc.oneof(
    anyChar,
    fc.constantFrom(...NEVER_RAW).map((code) => String.fromCodePoint(code)),
  ),
  maxLength: 80,
});
const printableText = fc.string({ unit: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }).filter((char) => !HIDDEN.test(char)), maxLength: 80 });

describe('escapeControls', () => {
  it.each([
    ['an OSC window title', '\x1b]0;pwned\x07', String.raw`\x1b]0;pwned\x07`],
    ['erasing the screen', '\x1b[2J', String.raw`\x1b[2J`],
    ['an OSC 8 hyperlink', '\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\', '\\x1b]8;;https://evil.example/\\x1b\\click\\x1b]8;;\\x1b\\'],
    ['a cursor move and erase-line', '\x1b[1A\x1b[2K', String.raw`\x1b[1A\x1b[2K`],
    ['a CR overwrite', 'bad\rgood', String.raw`bad\rgood`],
    ['tab, line feed and CRLF', 'a\tb\nc\r\nd', String.raw`a\tb\nc\r\nd`],
    ['NUL, BEL, backspace, DEL', '\x00\x07\x08\x7f', String.raw`\x00\x07\x08\x7f`],
    ['C1 controls (CSI, NEL, the last)', '\x9b2J\x85\x9f', String.raw`\x9b2J\x85\x9f`],
    [
      'every bidi control',
      '\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C',
      '<U+202A><U+202B><U+202C><U+202D><U+202E><U+2066><U+2067><U+2068><U+2069><U+200E><U+200F><U+061C>',
    ],
    ['a right-to-left override that would reverse a name', 'invoice\u202Efdp.exe', 'invoice<U+202E>fdp.exe'],
    [
      'zero-width and other invisible characters',
      'a\u200Bb\u200Cc\u200Dd\u2060e\u2064f\uFEFFg\u00ADh',
      'a<U+200B>b<U+200C>c<U+200D>d<U+2060>e<U+2064>f<U+FEFF>g<U+00AD>h',
    ],
    ['a tag character (outside the BMP)', 'ok\u{E0041}\u{E007F}', 'ok<U+E0041><U+E007F>'],
    ['a lone surrogate', 'x\uD800y\uDC00', 'x<U+D800>y<U+DC00>'],
    ['line and paragraph separators', 'a\u2028b\u2029c', 'a<U+2028>b<U+2029>c'],
  ])('shows %s visibly', (_case, text, shown) => {
    expect(escapeControls(text)).toBe(shown);
  });

  it('leaves printable text in any script as it is, emoji and combining marks included', () => {
    const text = 'Grüße, naïve café — 日本語, עברית, العربية, हिन्दी, 😀🇵🇹, e\u0301, "quoted" \\x1b <U+202E>';
    expect(escapeControls(text)).toBe(text);
  });

  it('shows the joiners inside an emoji sequence, since U+200D is invisible', () => {
    expect(escapeControls('👩\u200D💻')).toBe('👩<U+200D>💻');
  });

  it('keeps line feeds with multiline, counting CRLF as one, and still shows a CR on its own', () => {
    expect(escapeControls('one\r\ntwo\nthree\rover\x1b[2K', { multiline: true })).toBe(String.raw`one
two
three\rover\x1b[2K`);
    expect(escapeControls('\n\n', { multiline: true })).toBe('\n\n');
  });

  it('lets no control, bidi or invisible character through, for any text', async () => {
    await checkProperty(
      anyText,
      (text) => {
        expect(escapeControls(text)).not.toMatch(HIDDEN);
        expect(escapeControls(text, { multiline: true }).replaceAll('\n', '')).not.toMatch(HIDDEN);
      },
      2000,
    );
  });

  it('shows each code point written out above visibly, alone and between letters, with or without multiline', () => {
    const leaked = NEVER_RAW.filter((code) => {
      const char = String.fromCodePoint(code);
      // multiline keeps a line feed, and nothing else of the list.
      const multiline = escapeControls(`a${char}b`, { multiline: true });
      const shown = [escapeControls(char), escapeControls(`a${char}b`), code === 0x0a ? multiline.replace('\n', '') : multiline];
      return shown.some((text) => neverRawIn(text).length > 0);
    });
    expect(leaked.map(codeName)).toEqual([]);
  });

  it('lets none of the code points written out above through, for any text', async () => {
    await checkProperty(
      hostileText,
      (text) => {
        expect(neverRawIn(escapeControls(text))).toEqual([]);
        expect(neverRawIn(escapeControls(text, { multiline: true }).replaceAll('\n', ''))).toEqual([]);
      },
      2000,
    );
  });

  it('is the identity on printable text, with or without multiline', async () => {
    await checkProperty(
      printableText,
      (text) => {
        expect(escapeControls(text)).toBe(text);
        expect(escapeControls(text, { multiline: true })).toBe(text);
      },
      2000,
    );
  });

  it('changes nothing more when applied twice', async () => {
    await checkProperty(
      anyText,
      (text) => {
        const once = escapeControls(text);
        expect(escapeControls(once)).toBe(once);
        expect(escapeControls(escapeControls(text, { multiline: true }), { multiline: true })).toBe(escapeControls(text, { multiline: true }));
      },
      1000,
    );
  });
});
