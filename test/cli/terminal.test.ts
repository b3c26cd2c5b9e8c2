/**
 * The terminal client against a hostile server (a real McpServer on 127.0.0.1 over WebSocket) whose
 * every string plays tricks on a terminal: its name and instructions, tool titles and descriptions, log
 * lines, progress, results, errors, elicitation messages, field titles, descriptions and enum labels,
 * URL-mode URLs, sampling messages. Nothing of it reaches stdout raw (cli/terminal.ts); the URL prompt
 * names the true host on the line answered, and what arrives while it is on screen is printed after.
 */
import { describe, expect, it } from 'vitest';
import { type McpServer, type McpSession, type RequestContext, UrlElicitationRequiredError } from '../../src/index.js';
import { escapeRegExp, useTerminalClients } from '../helpers/terminal-cli.js';
import { deferred } from '../helpers/deferred.js';
import { startWebSocket } from '../helpers/servers.js';
import { useCleanups } from '../helpers/cleanups.js';

/** Each trick a server's string may play on a terminal, in one string. */
const EVIL = [
  'Evil',
  '\x1b]0;pwned\x07', // OSC 0: sets the window title
  '\x1b[2J', // erases the screen
  '\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\', // OSC 8: a hyperlink to another site
  '\x1b[1A\x1b[2K', // cursor up, erase the line
  '\rover', // CR: overwrites the line from its start
  '\u202Etxt.exe', // RLO: what follows reads backwards
  '\x9b31m', // C1 CSI
  'a\u200Bb\u2060c\uFEFFd\u00ADe', // zero-width space, word joiner, BOM, soft hyphen
  '\x7f\x08', // DEL, backspace
].join('');

/** EVIL as the terminal shows it. */
const SHOWN = String.raw`Evil\x1b]0;pwned\x07\x1b[2J\x1b]8;;https://evil.example/\x1b\link\x1b]8;;\x1b\\x1b[1A\x1b[2K\rover<U+202E>txt.exe\x9b31ma<U+200B>b<U+2060>c<U+FEFF>d<U+00AD>e\x7f\x08`;

/** A URL whose CR and erase-line would make its line read as the good site's. */
const HOSTILE_URL = 'https://evil.example/\r\x1b[2K\rhttps://good.example.com/login';
const HOSTILE_HREF = 'https://evil.example/%1B[2Khttps://good.example.com/login';

/** Every character that must not reach the terminal raw (line feeds aside), as code points. */
function rawControls(text: string): string[] {
  return [...text.matchAll(/[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu)]
    .filter((m) => m[0] !== '\n')
    .map((m) => `U+${m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
}

/** The exact lines, in order and one after another, as a pattern. */
function lines(...expected: string[]): RegExp {
  return new RegExp(`${expected.map(escapeRegExp).join('\\n')}\\n`);
}

const cleanups = useCleanups();
const clients = useTerminalClients(cleanups);

function hostileTools(server: McpServer, visiting: (ctx: RequestContext) => void): void {
  server.registerTool('show', { title: EVIL, description: `${EVIL}\nnot shown in the menu` }, (_args, ctx) => {
    ctx.log('warning', EVIL);
    ctx.log('info', { note: '\u202Eabc\x1b' });
    ctx.progress(1, 1, EVIL);
    return {
      content: [
        { type: 'text', text: `${EVIL}\r\nnext` },
        { type: 'resource_link', uri: 'https://x.example/', name: EVIL },
      ],
      structuredContent: { note: '\u202Eabc\x1b' },
    };
  });
  server.registerTool('broken', {}, () => {
    throw new Error(EVIL);
  });
  server.registerTool('refused', {}, () => {
    throw new UrlElicitationRequiredError([{ message: 'x', url: 'https://x.example/' }], EVIL);
  });
  server.registerTool('ask', {}, async (_args, ctx) => {
    const pick = {
      type: 'string' as const,
      title: EVIL,
      description: EVIL,
      default: 'a',
      oneOf: [
        { const: 'a', title: EVIL },
        { const: 'b', title: 'B' },
      ],
    };
    return JSON.stringify(await ctx.elicit({ message: EVIL, requestedSchema: { type: 'object', properties: { pick }, required: ['pick'] } }));
  });
  server.registerTool('sample', {}, async (_args, ctx) => {
    const reply = await ctx.createMessage({
      systemPrompt: EVIL,
      messages: [{ role: 'user', content: { type: 'text', text: `${EVIL}\nsecond` } }],
      maxTokens: 5,
    });
    return JSON.stringify(reply.content);
  });
  server.registerTool('visit', {}, async (_args, ctx) => {
    const asked = ctx.elicit({
      mode: 'url',
      message: 'Sign in\n  URL:  https://good.example.com/login\n  host: good.example.com',
      url: HOSTILE_URL,
      elicitationId: 'e1',
    });
    visiting(ctx);
    return JSON.stringify(await asked);
  });
  server.registerTool('plain_http', {}, async (_args, ctx) => {
    try {
      await ctx.request('elicitation/create', { mode: 'url', message: 'Log in', url: 'http://localhost.evil.example/login', elicitationId: 'e2' });
      return 'opened';
    } catch (err) {
      return `${(err as { code?: number }).code} ${(err as Error).message}`;
    }
  });
}

/** The hostile server, and the client connected to it with the tool menu on screen. */
async function connected() {
  const visit = deferred<RequestContext>();
  const running = await startWebSocket(cleanups, (server) => hostileTools(server, visit.resolve), {
    info: { name: EVIL, version: '1.0.0', instructions: `First line\r\n${EVIL}\nlast` },
  });
  const cli = clients.run(running.url, '--era', 'legacy');
  await cli.waitFor(/\n {2}7\) plain_http\n/);
  // `visiting`: the visit tool's context while its URL question is open.
  return { cli, visiting: visit.promise, session: () => [...running.server.sessions.values()][0] as McpSession };
}

describe("the terminal client shows a hostile server's strings escaped", () => {
  it('escapes the server name, instructions, tool titles and descriptions', async () => {
    const { cli } = await connected();
    expect(cli.stdout).toMatch(
      new RegExp(
        `^${
          lines(
            `Connected to ${SHOWN} 1.0.0 over 2025-11-25 (legacy)`,
            'Instructions:',
            '  First line',
            `  ${SHOWN}`,
            '  last',
            'Tools:',
            `  1) show — ${SHOWN}: ${SHOWN}`,
            '  2) broken',
          ).source
        }`,
      ),
    );
    cli.end();
    expect(await cli.exitCode()).toBe(0);
    expect(rawControls(cli.stdout + cli.stderr)).toEqual([]);
  });

  it('escapes log lines, progress, text and link results, structuredContent, isError text and error messages', async () => {
    const { cli } = await connected();
    await cli.tool('show');
    await cli.waitFor(
      lines(
        `[warning] ${SHOWN}`,
        '[info] {"note":"<U+202E>abc\\u001b"}',
        `progress 1/1 ${SHOWN}`,
        'Result:',
        `  ${SHOWN}`,
        '  next',
        `  [link https://x.example/ (${SHOWN})]`,
        'structuredContent: {"note":"<U+202E>abc\\u001b"}',
      ),
    );
    await cli.tool('broken');
    await cli.waitFor(lines('Result (isError: the tool reports a failure):', `  ${SHOWN}`));
    await cli.tool('refused');
    await cli.waitFor(lines(`Call failed: ${SHOWN}`));
    await cli.tool('q');
    expect(await cli.exitCode()).toBe(0);
    expect(rawControls(cli.stdout + cli.stderr)).toEqual([]);
  });

  it("escapes a form's message, field title and description, option labels and the default shown", async () => {
    const { cli } = await connected();
    await cli.tool('ask');
    await cli.answer(new RegExp(`\\n${escapeRegExp(`${SHOWN} asks: ${SHOWN}\naccept, decline or cancel? [a/d/c] `)}`), 'a');
    await cli.answer(new RegExp(`${escapeRegExp(`${SHOWN} * — ${SHOWN}\n  1) ${SHOWN}\n  2) B\n  (choose 1-2) [${SHOWN}]: `)}`), '2');
    await cli.waitFor(lines('(answered accept)', 'Result:', '  {"action":"accept","content":{"pick":"b"}}'));
    await cli.tool('q');
    expect(await cli.exitCode()).toBe(0);
    expect(rawControls(cli.stdout + cli.stderr)).toEqual([]);
  });

  it("escapes a sampling request's system prompt and messages, each line of them", async () => {
    const { cli } = await connected();
    await cli.tool('sample');
    await cli.answer(
      lines(`${SHOWN} asks for a model reply (sampling, at most 5 tokens); you are the model.`, `  system: ${SHOWN}`, `  user: ${SHOWN}`, '    second'),
      'Hi',
    );
    await cli.waitFor(lines('Result:', '  {"type":"text","text":"Hi"}'));
    await cli.tool('q');
    expect(await cli.exitCode()).toBe(0);
    expect(rawControls(cli.stdout + cli.stderr)).toEqual([]);
  });
});

describe('the URL-mode prompt', () => {
  it('shows the URL as a browser reads it and names the true host on the line answered; log lines and progress wait until it is answered', async () => {
    const { cli, visiting, session } = await connected();
    await cli.tool('visit');
    await cli.waitFor(
      new RegExp(
        `${
          lines(
            `${SHOWN} asks: Sign in`,
            '  |   URL:  https://good.example.com/login',
            '  |   host: good.example.com',
            `  URL:  ${HOSTILE_HREF}`,
            '  host: evil.example',
            '  (nothing is opened for you: check the host, and open it in a browser yourself)',
          ).source
        }Open this URL on host evil\\.example\\? \\[y/N\\] $`,
      ),
    );
    // While the question is on screen: a log line and progress that would rewrite the host line above.
    const ctx = await visiting;
    ctx.log('warning', '\x1b[2A\x1b[2K  host: good.example.com');
    ctx.progress(1, 2, '\x1b[1A\rhost: good.example.com');
    // The client has them once it has answered a ping sent after them.
    await session().ping();
    cli.child.stdin.write('y\n');
    await cli.waitFor(
      lines(
        'y',
        '(answered accept)',
        String.raw`[warning] \x1b[2A\x1b[2K  host: good.example.com`,
        String.raw`progress 1/2 \x1b[1A\rhost: good.example.com`,
        'Result:',
        '  {"action":"accept"}',
      ),
    );
    // A notice at the idle menu interrupts it, and the menu is asked again below it.
    session().notify('notifications/elicitation/complete', { elicitationId: 'e1' });
    await cli.waitFor(lines('', `(the server says the URL step e1 at ${HOSTILE_HREF} is complete)`));
    await cli.tool('q');
    expect(await cli.exitCode()).toBe(0);
    expect(rawControls(cli.stdout + cli.stderr)).toEqual([]);
  });

  it('is never asked for plain http to another host: the client answers -32602 without showing it', async () => {
    const { cli } = await connected();
    await cli.tool('plain_http');
    await cli.waitFor(
      lines(
        'Result:',
        '  -32602 Invalid params: URL-mode elicitation/create needs an https: url (http: only on loopback: localhost, 127.0.0.1 or [::1]); got "http://localhost.evil.example/login"',
      ),
    );
    expect(cli.stdout).not.toContain('Open this URL');
    await cli.tool('q');
    expect(await cli.exitCode()).toBe(0);
  });
});
