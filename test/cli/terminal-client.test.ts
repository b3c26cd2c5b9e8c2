/**
 * The terminal client (cli/terminal-client.ts) as a person uses it: a child process with piped stdin and
 * stdout, against a real Switchboard server on 127.0.0.1 (WebSocket on the legacy era, Streamable HTTP
 * on 2026-07-28 and on the legacy era), and a raw WebSocket server that repeats its tool listing's
 * cursor. Each answer is written once its prompt is on stdout, and the test checks what the server got.
 * Then the pure half (cli/prompts.ts): one case per field kind and per error of `parseAnswer`, and how
 * fields, actions and the command line are read.
 */
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { describeField, formatProblem, hostOf, parseAction, parseAnswer, parseCommandLine, parseYesNo, USAGE } from '../../cli/prompts.js';
import type { ElicitResult, McpServer, McpSession } from '../../src/index.js';
import { freePort } from '../helpers/ports.js';
import { escapeRegExp, ROOT, useTerminalClients } from '../helpers/terminal-cli.js';
import { startWebSocket, startHttp } from '../helpers/servers.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
const clients = useTerminalClients(cleanups);
const run = (...args: string[]) => clients.run(...args);

// ---- the server -------------------------------------------------------------------------------------

/** Every kind of form field the elicitation subset has. */
const PROFILE_SCHEMA = {
  type: 'object' as const,
  properties: {
    email: { type: 'string' as const, format: 'email', title: 'Email', description: 'Where receipts go' },
    site: { type: 'string' as const, format: 'uri', title: 'Website' },
    birthday: { type: 'string' as const, format: 'date', title: 'Birthday' },
    meeting: { type: 'string' as const, format: 'date-time', title: 'Meeting' },
    nickname: { type: 'string' as const, minLength: 2, maxLength: 8, title: 'Nickname' },
    nights: { type: 'integer' as const, minimum: 1, maximum: 30, default: 3, title: 'Nights' },
    budget: { type: 'number' as const, minimum: 0, title: 'Budget' },
    newsletter: { type: 'boolean' as const, default: true, title: 'Newsletter' },
    color: { type: 'string' as const, enum: ['red', 'green', 'blue'], title: 'Colour' },
    cabin: {
      type: 'string' as const,
      title: 'Cabin',
      oneOf: [
        { const: 'economy', title: 'Economy' },
        { const: 'business', title: 'Business' },
      ],
    },
    size: { type: 'string' as const, enum: ['s', 'm', 'l'], enumNames: ['Small', 'Medium', 'Large'], title: 'Size' },
    tags: { type: 'array' as const, items: { type: 'string', enum: ['a', 'b', 'c'] }, title: 'Tags' },
    extras: {
      type: 'array' as const,
      title: 'Extras',
      items: {
        anyOf: [
          { const: 'wifi', title: 'Wi-Fi' },
          { const: 'meal', title: 'Meal' },
        ],
      },
    },
    note: { type: 'string' as const, title: 'Note' },
  },
  required: ['email', 'site', 'birthday', 'meeting', 'nights', 'color', 'cabin', 'tags'],
};

interface Recorded {
  /** What each tool's handler got back from ctx.elicit / ctx.createMessage / ctx.listRoots, in order. */
  answers: unknown[];
  /** The arguments `count` was called with. */
  countArgs: unknown[];
  /** The payloads of responseElicitationCreate, in either era. */
  responses: { action: unknown; content: unknown; isError: boolean }[];
}

function tools(recorded: Recorded) {
  return (server: McpServer) => {
    server.registerTool('profile', { title: 'Profile', description: 'Asks about you' }, async (_args, ctx) => {
      const answer = await ctx.elicit({ message: 'Tell us about you', requestedSchema: PROFILE_SCHEMA });
      recorded.answers.push(answer);
      return JSON.stringify(answer);
    });
    server.registerTool('visit', { description: 'Sends you to a page' }, async (_args, ctx) => {
      const answer = await ctx.elicit({ mode: 'url', message: 'Sign in at the bank', url: 'https://example.com/x', elicitationId: 'e1' });
      recorded.answers.push(answer);
      return JSON.stringify(answer);
    });
    server.registerTool(
      'count',
      {
        description: 'Counts to n',
        inputSchema: {
          type: 'object',
          properties: {
            n: { type: 'integer', minimum: 1, maximum: 10, default: 3, description: 'How far' },
            label: { type: 'string' },
            loud: { type: 'boolean', default: false },
          },
          required: ['n'],
        },
      },
      async (args, ctx) => {
        recorded.countArgs.push(args);
        const n = args.n as number;
        for (let i = 1; i <= n; i++) ctx.progress(i, n, `counted to ${i}`);
        ctx.log('info', `counted ${n}`);
        return { content: [{ type: 'text', text: `done: ${n}` }], structuredContent: { n } };
      },
    );
    server.registerTool('ask_model', {}, async (_args, ctx) => {
      const message = await ctx.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 20 });
      const roots = await ctx.listRoots();
      recorded.answers.push({ message, roots });
      return 'ok';
    });
    server.registerTool('impatient', {}, async (_args, ctx) => {
      await ctx.elicit({ message: 'Quick!', requestedSchema: { type: 'object', properties: { x: { type: 'string' } } } }, { timeoutMs: 300 });
      return 'answered in time';
    });
    server.registerTool('broken', {}, () => {
      throw new Error('it broke');
    });
    server.on('responseElicitationCreate', (_session, _request, response) =>
      recorded.responses.push({ action: response.action, content: response.content, isError: response.isError }),
    );
  };
}

type Setup = 'ws legacy' | 'http modern' | 'http legacy';

/** A server with the test tools, and the command line that reaches it in the given setup. */
async function serve(setup: Setup): Promise<{ recorded: Recorded; server: McpServer; args: string[]; name: string }> {
  const recorded: Recorded = { answers: [], countArgs: [], responses: [] };
  if (setup === 'ws legacy') {
    const running = await startWebSocket(cleanups, tools(recorded), { info: { name: 'test-server', version: '1.0.0', instructions: 'Answer kindly.' } });
    return { recorded, server: running.server, args: [running.url, '--era', 'legacy'], name: 'test-server' };
  }
  const running = await startHttp(cleanups, tools(recorded));
  return { recorded, server: running.server, args: setup === 'http modern' ? [running.url] : [running.url, '--era=legacy'], name: 'test-server' };
}

const ERAS: Record<Setup, string> = { 'ws legacy': '2025-11-25 (legacy)', 'http modern': '2026-07-28 (modern)', 'http legacy': '2025-11-25 (legacy)' };

/** Connected, menu on screen. */
async function connected(setup: Setup) {
  const served = await serve(setup);
  const cli = run(...served.args);
  await cli.waitFor(new RegExp(`Connected to ${served.name} 1\\.0\\.0 over ${escapeRegExp(ERAS[setup])}\\n`));
  await cli.waitFor(
    /Tools:\n {2}1\) profile — Profile: Asks about you\n {2}2\) visit — Sends you to a page\n {2}3\) count — Counts to n\n {2}4\) ask_model\n {2}5\) impatient\n {2}6\) broken\n/,
  );
  return { ...served, cli };
}

const EXPECTED_PROFILE = {
  email: 'ann@example.com',
  site: 'https://example.com/ann',
  birthday: '2024-02-29',
  meeting: '2026-05-01T10:00:00Z',
  nickname: 'annie',
  nights: 3,
  budget: 12.5,
  newsletter: true,
  color: 'green',
  cabin: 'business',
  size: 'l',
  tags: ['a', 'c'],
  extras: ['meal'],
};

// ---- the client at work -------------------------------------------------------------------------------

describe('npm run client', () => {
  it.each<Setup>(['ws legacy', 'http modern', 'http legacy'])(
    'fills a form with every field kind (%s): wrong answers are asked again, empty answers take defaults or skip',
    async (setup) => {
      const { cli, recorded } = await connected(setup);
      await cli.tool('profile');
      await cli.waitFor(/\n(mrtr-)?test-server asks: Tell us about you\n/);
      await cli.answer(/accept, decline or cancel\? \[a\/d\/c\] /, 'maybe');
      await cli.answer(/✗ answer a, d or c\naccept, decline or cancel\? \[a\/d\/c\] /, 'a');
      await cli.field('Email * — Where receipts go\n  (email, e.g. name@example.com)', 'not-an-email');
      await cli.retry('not an email address', 'ann@example.com');
      await cli.field('Website *', 'example.com');
      await cli.retry('not an absolute URI', 'https://example.com/ann');
      await cli.field('Birthday *', '2024-02-30');
      await cli.retry('not a date (YYYY-MM-DD)', '2024-02-29');
      await cli.field('Meeting *', '2026-05-01 10:00');
      await cli.retry('not a date-time', '2026-05-01T10:00:00Z');
      await cli.field('Nickname\n  (text, 2-8 characters, empty skips)', 'a');
      await cli.retry('too short: at least 2 characters (got 1)', 'annie');
      await cli.field('Nights *\n  (integer, 1 to 30) [3]', '99');
      await cli.retry('must be at most 30', '');
      await cli.field('Budget\n  (number, at least 0, empty skips)', 'lots');
      await cli.retry('not a number', '12.5');
      await cli.field('Newsletter\n  (y/n) [y]', '');
      await cli.field('Colour *\n  1) red\n  2) green\n  3) blue\n  (choose 1-3)', '4');
      await cli.retry('choose a number from 1 to 3', '2');
      await cli.field('Cabin *\n  1) Economy\n  2) Business', '2');
      await cli.field('Size\n  1) Small\n  2) Medium\n  3) Large', '3');
      await cli.field('Tags *\n  1) a\n  2) b\n  3) c\n  (choose from 1-3, comma-separated)', '');
      await cli.retry('an answer is required', '1, 3');
      await cli.field('Extras\n  1) Wi-Fi\n  2) Meal', 'meal');
      await cli.field('Note\n  (text, empty skips)', '');
      await cli.waitFor(/\(answered accept\)\nResult:\n {2}\{"action":"accept","content":\{/);

      expect(recorded.answers).toEqual([{ action: 'accept', content: EXPECTED_PROFILE }]);
      // Pushed (legacy era) or brought by the retry (2026-07-28), the answer ends on one event.
      expect(recorded.responses).toEqual([{ action: 'accept', content: EXPECTED_PROFILE, isError: false }]);

      await cli.tool('q');
      expect(await cli.exitCode()).toBe(0);
      expect(cli.stderr).toBe('');
    },
    30_000,
  );

  it.each<Setup>(['ws legacy', 'http modern'])('declines before the form, and cancels from a field with !cancel (%s)', async (setup) => {
    const { cli, recorded } = await connected(setup);
    await cli.tool('1');
    await cli.answer(/\[a\/d\/c\] /, 'd');
    await cli.waitFor(/\(answered decline\)\nResult:\n {2}\{"action":"decline"\}\n/);
    await cli.tool('profile');
    await cli.answer(/\[a\/d\/c\] /, 'a');
    await cli.field('Email *', 'ann@example.com');
    await cli.field('Website *', '  !CANCEL ');
    await cli.waitFor(/\(answered cancel\)\nResult:\n {2}\{"action":"cancel"\}\n/);
    await cli.tool('profile');
    await cli.answer(/\[a\/d\/c\] /, 'a');
    await cli.field('Email *', '!decline');
    await cli.waitFor(/\(answered decline\)\nResult:\n {2}\{"action":"decline"\}\n/);

    expect(recorded.answers).toEqual([{ action: 'decline' }, { action: 'cancel' }, { action: 'decline' }]);
    if (setup === 'ws legacy')
      expect(recorded.responses.map((r) => [r.action, r.content])).toEqual([
        ['decline', undefined],
        ['cancel', undefined],
        ['decline', undefined],
      ]);
    cli.end();
    expect(await cli.exitCode()).toBe(0);
  });

  it.each<[Setup, string, string]>([
    ['ws legacy', 'y', 'accept'],
    ['http modern', 'y', 'accept'],
    ['ws legacy', '', 'decline'],
    ['http modern', 'no', 'decline'],
  ])('shows a URL-mode elicitation with its host and opens nothing (%s, %j answers %s)', async (setup, line, action) => {
    const { cli, recorded, name } = await connected(setup);
    await cli.tool('visit');
    await cli.waitFor(new RegExp(`${name} asks: Sign in at the bank\\n {2}URL: {2}https://example\\.com/x\\n {2}host: example\\.com\\n`));
    await cli.answer(/Open this URL on host example\.com\? \[y\/N\] /, line);
    await cli.waitFor(new RegExp(`\\(answered ${action}\\)\\nResult:\\n {2}\\{"action":"${action}"\\}\\n`));
    expect(recorded.answers).toEqual([{ action }]);
    expect(recorded.responses).toEqual([{ action, content: undefined, isError: false }]);
    await cli.tool('');
    expect(await cli.exitCode()).toBe(0);
  });

  it.each<Setup>(['ws legacy', 'http modern'])('asks for tool arguments, and shows progress, log messages and the result (%s)', async (setup) => {
    const { cli, recorded } = await connected(setup);
    await cli.tool('count');
    await cli.waitFor(/Arguments of count \(!cancel goes back\):\n/);
    await cli.field('n * — How far\n  (integer, 1 to 10) [3]', '11');
    await cli.retry('must be at most 10', '4');
    await cli.field('label\n  (text, empty skips)', '');
    await cli.field('loud\n  (y/n) [n]', 'yes');
    await cli.waitFor(
      /progress 1\/4 counted to 1\nprogress 2\/4 counted to 2\nprogress 3\/4 counted to 3\nprogress 4\/4 counted to 4\n\[info\] counted 4\nResult:\n {2}done: 4\nstructuredContent: \{"n":4\}\n/,
    );
    // Defaults are taken on an empty answer; a skipped optional argument is left out.
    await cli.tool('3');
    await cli.field('n *', '');
    await cli.field('label', 'x');
    await cli.field('loud', '');
    await cli.waitFor(/Result:\n {2}done: 3\n/);
    // !cancel goes back to the menu without calling.
    await cli.tool('count');
    await cli.field('n *', '!cancel');
    await cli.waitFor(/\(not called\)\n/);
    expect(recorded.countArgs).toEqual([
      { n: 4, loud: true },
      { n: 3, label: 'x', loud: false },
    ]);
    await cli.tool('q');
    expect(await cli.exitCode()).toBe(0);
  });

  it('flags an isError result, and says so when a name is not a tool', async () => {
    const { cli } = await connected('ws legacy');
    await cli.tool('nope');
    await cli.waitFor(/no tool "nope"/);
    await cli.tool('broken');
    await cli.waitFor(/Result \(isError: the tool reports a failure\):\n {2}it broke\n/);
    await cli.tool('q');
    expect(await cli.exitCode()).toBe(0);
  });

  it.each<Setup>(['ws legacy', 'http modern'])(
    'answers sampling with the text typed, as model "human", and roots with the working directory (%s)',
    async (setup) => {
      const { cli, recorded } = await connected(setup);
      await cli.tool('ask_model');
      await cli.waitFor(/asks for a model reply \(sampling, at most 20 tokens\); you are the model\.\n {2}user: Say hi\n/);
      await cli.answer(/Reply text \(!decline refuses\): /, '');
      await cli.answer(/✗ type the reply, or !decline\nReply text \(!decline refuses\): /, 'Hi there');
      await cli.waitFor(/Result:\n {2}ok\n/);
      expect(recorded.answers).toEqual([
        {
          message: { role: 'assistant', content: { type: 'text', text: 'Hi there' }, model: 'human' },
          roots: { roots: [{ uri: pathToFileURL(ROOT.replace(/\/$/, '')).href, name: expect.any(String) }] },
        },
      ]);
      cli.end();
      expect(await cli.exitCode()).toBe(0);
    },
  );

  it('interrupts the idle tool menu when the server asks something, then shows the menu again', async () => {
    const { cli, server } = await connected('ws legacy');
    await cli.waitFor(/Tool to call \([^\n]*\): /);
    const session = [...server.sessions.values()][0] as McpSession;
    const asked = session.elicit({
      message: 'Still there?',
      requestedSchema: { type: 'object', properties: { here: { type: 'boolean' } }, required: ['here'] },
    });
    await cli.waitFor(/\ntest-server asks: Still there\?\n/);
    await cli.answer(/\[a\/d\/c\] /, 'a');
    await cli.field('here *\n  (y/n)', 'y');
    expect(await asked).toEqual({ action: 'accept', content: { here: true } } satisfies ElicitResult);
    await cli.tool('q');
    expect(await cli.exitCode()).toBe(0);
  });

  it('exits 0 and closes the session at the end of input, at the menu', async () => {
    const { cli, server } = await connected('ws legacy');
    await cli.waitFor(/Tool to call \([^\n]*\): /);
    const ended = new Promise((resolve) => server.once('sessionEnd', (_session, reason) => resolve(reason)));
    cli.end();
    expect(await cli.exitCode()).toBe(0);
    expect(await ended).toMatch(/websocket closed/);
    expect(cli.stderr).toBe('');
  });

  it.each<Setup>(['ws legacy', 'http legacy'])('answers cancel when input ends in the middle of a form, then exits 0 (%s)', async (setup) => {
    const { cli, recorded } = await connected(setup);
    await cli.tool('profile');
    await cli.answer(/\[a\/d\/c\] /, 'a');
    await cli.waitFor(/Email \*[^\n]*\n {2}\([^\n]*\): /);
    cli.end();
    expect(await cli.exitCode()).toBe(0);
    await expect.poll(() => recorded.responses).toEqual([{ action: 'cancel', content: undefined, isError: false }]);
  });

  it('drops the question the server withdraws (legacy: notifications/cancelled after its timeout)', async () => {
    const { cli, recorded } = await connected('ws legacy');
    await cli.tool('impatient');
    await cli.waitFor(/test-server asks: Quick!\naccept, decline or cancel\? \[a\/d\/c\] /);
    await cli.waitFor(
      /^\n\(the server withdrew its question\)\nResult \(isError: the tool reports a failure\):\n {2}elicitation\/create timed out after 300 ms/,
    );
    await cli.tool('q');
    expect(await cli.exitCode()).toBe(0);
    expect(recorded.responses).toEqual([expect.objectContaining({ isError: true })]);
  });

  it('prints the instructions after the connected line', async () => {
    const { cli } = await connected('ws legacy');
    expect(cli.stdout).toMatch(/^Connected to test-server 1\.0\.0 over 2025-11-25 \(legacy\)\nInstructions:\n {2}Answer kindly\.\nTools:\n/);
    cli.end();
    expect(await cli.exitCode()).toBe(0);
  });

  it.each([
    [[], USAGE],
    [['not a url'], `error: not an http(s):// or ws(s):// URL: "not a url"; ${USAGE}`],
    [['ftp://127.0.0.1/mcp'], `error: not an http(s):// or ws(s):// URL: "ftp://127.0.0.1/mcp"; ${USAGE}`],
    [['ws://127.0.0.1:9/mcp', '--era', 'future'], `error: --era must be auto, legacy or modern, not "future"; ${USAGE}`],
  ])('exits 1 with one line on stderr for %j', async (args, message) => {
    const cli = run(...args);
    expect(await cli.exitCode()).toBe(1);
    expect(cli.stderr).toBe(`${message}\n`);
    expect(cli.stdout).toBe('');
  });

  it.each(['http', 'ws'])('exits 1 with one line on stderr when it cannot connect (%s)', async (scheme) => {
    const port = await freePort();
    const url = `${scheme}://127.0.0.1:${port}/mcp`;
    const cli = run(url);
    expect(await cli.exitCode(20_000)).toBe(1);
    expect(cli.stderr).toMatch(new RegExp(`^error: cannot connect to ${escapeRegExp(url)}: [^\\n]*ECONNREFUSED[^\\n]*\\n$`));
    expect(cli.stdout).toBe('');
  });
});

describe('npm run client against a server that never ends its tool listing', () => {
  /** A raw WebSocket server (2025-11-25) whose every tools/list page holds one more tool and the same nextCursor. */
  async function repeatingCursorServer(cursor: string): Promise<{ url: string; methods: string[] }> {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => wss.once('listening', resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          for (const ws of wss.clients) ws.terminate();
          wss.close(() => resolve());
        }),
    );
    const methods: string[] = [];
    let pages = 0;
    wss.on('connection', (ws) => {
      ws.on('message', (data) => {
        const message = JSON.parse(String(data)) as { id?: number; method?: string };
        methods.push(message.method ?? 'a response');
        if (message.id === undefined || message.method === undefined) return;
        const answer = (result: Record<string, unknown>) => ws.send(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
        if (message.method === 'initialize')
          answer({ protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'looping', version: '1' } });
        else if (message.method === 'tools/list') answer({ tools: [{ name: `tool${++pages}`, inputSchema: { type: 'object' } }], nextCursor: cursor });
        else if (message.method === 'tools/call') answer({ content: [{ type: 'text', text: 'called' }] });
        else answer({});
      });
    });
    return { url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/mcp`, methods };
  }

  it('shows the tools it got, warns in one escaped line that the server repeated its cursor, and goes on', async () => {
    const served = await repeatingCursorServer('\x1b[2Jagain');
    const cli = run(served.url, '--era', 'legacy');
    await cli.waitFor(/^Connected to looping 1 over 2025-11-25 \(legacy\)\nTools:\n {2}1\) tool1\n {2}2\) tool2\n/);
    await cli.tool('tool2');
    await cli.waitFor(/\nResult:\n {2}called\n/);
    await cli.tool('q');
    expect(await cli.exitCode()).toBe(0);
    expect(cli.stderr).toBe('warning: tools/list stopped after 2 pages (2 tools), the rest not listed: the server gave the cursor "\\u001b[2Jagain" again\n');
    expect(served.methods).toEqual(['initialize', 'notifications/initialized', 'tools/list', 'tools/list', 'tools/call']);
  });
});

// ---- the pure half ---------------------------------------------------------------------------------------

describe('parseAnswer', () => {
  const value = (v: unknown) => ({ kind: 'value', value: v });
  const error = (message: string) => ({ kind: 'error', message });

  it('takes a string as typed, blanks included, and checks its length in characters', () => {
    expect(parseAnswer({ type: 'string' }, ' two words ')).toEqual(value(' two words '));
    expect(parseAnswer({ type: 'string', minLength: 2 }, 'a')).toEqual(error('too short: at least 2 characters (got 1)'));
    expect(parseAnswer({ type: 'string', maxLength: 3 }, 'abcd')).toEqual(error('too long: at most 3 characters (got 4)'));
    expect(parseAnswer({ type: 'string', maxLength: 2 }, '😀😀')).toEqual(value('😀😀'));
  });

  it.each([
    ['email', 'ann@example.com', 'ann@', 'not an email address (name@example.com)'],
    ['uri', 'https://example.com/a?b=c', 'example.com', 'not an absolute URI (https://example.com/...)'],
    ['date', '2024-02-29', '2023-02-29', 'not a date (YYYY-MM-DD)'],
    ['date-time', '2026-05-01T10:00:00+02:00', '2026-05-01T10:00:00', 'not a date-time (YYYY-MM-DDThh:mm:ssZ, or with an offset such as +02:00)'],
  ])('checks the %s format loosely', (format, good, bad, message) => {
    expect(parseAnswer({ type: 'string', format }, good)).toEqual(value(good));
    expect(parseAnswer({ type: 'string', format }, bad)).toEqual(error(message));
  });

  it('leaves formats it does not know unchecked', () => {
    expect(formatProblem('hostname', '!!!')).toBeUndefined();
    expect(formatProblem('date', '2026-13-01')).toBe('not a date (YYYY-MM-DD)');
    expect(formatProblem('date-time', '2026-05-01T24:00:00Z')).toMatch(/^not a date-time/);
  });

  it('reads an integer, and refuses fractions, text and values out of bounds', () => {
    const schema = { type: 'integer', minimum: 1, maximum: 30 };
    expect(parseAnswer(schema, ' 7 ')).toEqual(value(7));
    expect(parseAnswer(schema, '1.5')).toEqual(error('not a whole number'));
    expect(parseAnswer(schema, 'seven')).toEqual(error('not a whole number'));
    expect(parseAnswer(schema, '0')).toEqual(error('must be at least 1'));
    expect(parseAnswer(schema, '31')).toEqual(error('must be at most 30'));
  });

  it('reads a number, and checks exclusive bounds too', () => {
    expect(parseAnswer({ type: 'number' }, '-2.5e1')).toEqual(value(-25));
    expect(parseAnswer({ type: 'number' }, '1/2')).toEqual(error('not a number'));
    expect(parseAnswer({ type: 'number' }, '1e999')).toEqual(error('not a finite number'));
    expect(parseAnswer({ type: 'number', exclusiveMinimum: 0 }, '0')).toEqual(error('must be above 0'));
    expect(parseAnswer({ type: 'number', exclusiveMaximum: 1 }, '1')).toEqual(error('must be below 1'));
  });

  it('reads a boolean as y/n, yes/no, true/false or 1/0', () => {
    for (const yes of ['y', 'YES', 'true', '1']) expect(parseAnswer({ type: 'boolean' }, yes)).toEqual(value(true));
    for (const no of ['n', 'No', 'false', '0']) expect(parseAnswer({ type: 'boolean' }, no)).toEqual(value(false));
    expect(parseAnswer({ type: 'boolean' }, 'maybe')).toEqual(error('answer y or n'));
  });

  it('reads a plain enum by number or by value', () => {
    const schema = { type: 'string', enum: ['red', 'green', 'blue'] };
    expect(parseAnswer(schema, '2')).toEqual(value('green'));
    expect(parseAnswer(schema, 'Blue')).toEqual(value('blue'));
    expect(parseAnswer(schema, '4')).toEqual(error('choose a number from 1 to 3'));
    expect(parseAnswer(schema, 'pink')).toEqual(error('choose a number from 1 to 3'));
  });

  it('reads a titled oneOf (and anyOf) by number, title or const', () => {
    const options = [
      { const: 'economy', title: 'Economy' },
      { const: 'business', title: 'Business class' },
    ];
    expect(parseAnswer({ type: 'string', oneOf: options }, '2')).toEqual(value('business'));
    expect(parseAnswer({ type: 'string', oneOf: options }, 'business class')).toEqual(value('business'));
    expect(parseAnswer({ type: 'string', anyOf: options }, 'economy')).toEqual(value('economy'));
    expect(parseAnswer({ type: 'string', oneOf: options }, '0')).toEqual(error('choose a number from 1 to 2'));
  });

  it('reads a legacy enumNames enum by number, label or value', () => {
    const schema = { type: 'string', enum: ['s', 'm'], enumNames: ['Small', 'Medium'] };
    expect(parseAnswer(schema, '1')).toEqual(value('s'));
    expect(parseAnswer(schema, 'medium')).toEqual(value('m'));
    expect(parseAnswer(schema, 'm')).toEqual(value('m'));
  });

  it('reads a multi-select as comma-separated numbers (or values), drops repeats, and checks the item count', () => {
    const schema = { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] } };
    expect(parseAnswer(schema, '1, 3')).toEqual(value(['a', 'c']));
    expect(parseAnswer(schema, '3,c,1')).toEqual(value(['c', 'a']));
    expect(parseAnswer(schema, '1,4')).toEqual(error('"4" is not an option: use numbers from 1 to 3, separated by commas'));
    expect(parseAnswer({ ...schema, minItems: 2 }, '1')).toEqual(error('choose at least 2'));
    expect(parseAnswer({ ...schema, maxItems: 1 }, '1,2')).toEqual(error('choose at most 1'));
    const titled = {
      type: 'array',
      items: {
        anyOf: [
          { const: 'wifi', title: 'Wi-Fi' },
          { const: 'meal', title: 'Meal' },
        ],
      },
    };
    expect(parseAnswer(titled, '2,wi-fi')).toEqual(value(['meal', 'wifi']));
  });

  it('takes the default on an empty answer, for every kind', () => {
    expect(parseAnswer({ type: 'string', default: 'x' }, '')).toEqual(value('x'));
    expect(parseAnswer({ type: 'integer', default: 3 }, '  ', { required: true })).toEqual(value(3));
    expect(parseAnswer({ type: 'number', default: 0.5 }, '')).toEqual(value(0.5));
    expect(parseAnswer({ type: 'boolean', default: false }, '')).toEqual(value(false));
    expect(parseAnswer({ type: 'string', enum: ['a', 'b'], default: 'b' }, '')).toEqual(value('b'));
    expect(parseAnswer({ type: 'array', items: { enum: ['a', 'b'] }, default: ['b'] }, '')).toEqual(value(['b']));
  });

  it('skips an empty answer to an optional field, and asks again for a required one (a default that does not fit counts as none)', () => {
    expect(parseAnswer({ type: 'string' }, '')).toEqual({ kind: 'skip' });
    expect(parseAnswer({ type: 'boolean' }, ' ')).toEqual({ kind: 'skip' });
    expect(parseAnswer({ type: 'string' }, '', { required: true })).toEqual(error('an answer is required (or type !decline or !cancel)'));
    expect(parseAnswer({ type: 'integer', default: 1.5 }, '', { required: true })).toEqual(error('an answer is required (or type !decline or !cancel)'));
    expect(parseAnswer({ type: 'string', enum: ['a'], default: 'z' }, '')).toEqual({ kind: 'skip' });
  });

  it('answers !decline and !cancel at any field', () => {
    expect(parseAnswer({ type: 'integer' }, '!decline')).toEqual({ kind: 'action', action: 'decline' });
    expect(parseAnswer({ type: 'string', minLength: 100 }, ' !Cancel ')).toEqual({ kind: 'action', action: 'cancel' });
  });

  it('reads other tool arguments as JSON, or as text when they are not JSON and need not be', () => {
    expect(parseAnswer({ type: 'object' }, '{"a":1}')).toEqual(value({ a: 1 }));
    expect(parseAnswer({ type: 'object' }, '[1]')).toEqual(error('not a JSON object'));
    expect(parseAnswer({ type: 'array' }, 'x')).toEqual(error('not JSON: type a JSON array'));
    expect(parseAnswer({}, '42')).toEqual(value(42));
    expect(parseAnswer({}, 'plain')).toEqual(value('plain'));
  });
});

describe('the rest of the prompting', () => {
  it('describes a field: title or name, * when required, description, options, hint and default', () => {
    expect(describeField('nights', { type: 'integer', title: 'Nights', description: 'How long', minimum: 1, maximum: 30, default: 3 }, true)).toEqual({
      heading: 'Nights * — How long',
      options: [],
      prompt: '(integer, 1 to 30) [3]: ',
    });
    expect(describeField('cabin', { type: 'string', oneOf: [{ const: 'e', title: 'Economy' }], default: 'e' }, false)).toEqual({
      heading: 'cabin',
      options: ['  1) Economy'],
      prompt: '(choose 1-1) [Economy]: ',
    });
    expect(describeField('tags', { type: 'array', items: { enum: ['a', 'b'] }, maxItems: 2 }, false).prompt).toBe(
      '(choose from 1-2, comma-separated, at most 2 items, empty skips): ',
    );
    expect(describeField('ok', { type: 'boolean', default: true }, false).prompt).toBe('(y/n) [y]: ');
    expect(describeField('when', { type: 'string', format: 'date' }, true).prompt).toBe('(date, YYYY-MM-DD): ');
    expect(describeField('x', { type: 'integer', default: 'three' }, false).prompt).toBe('(integer, empty skips): ');
  });

  it('reads the accept, decline or cancel answer, and the URL question (only yes opens)', () => {
    expect(['a', 'Accept', ' d ', 'decline', 'c', '!cancel'].map(parseAction)).toEqual(['accept', 'accept', 'decline', 'decline', 'cancel', 'cancel']);
    expect(parseAction('')).toBeUndefined();
    expect(parseAction('x')).toBeUndefined();
    expect(['y', 'YES', 'n', '', 'sure'].map(parseYesNo)).toEqual([true, true, false, false, false]);
    expect(hostOf('https://user@bank.example.com:8443/login')).toBe('bank.example.com:8443');
  });

  it('reads the command line', () => {
    expect(parseCommandLine(['ws://127.0.0.1:3000/mcp'])).toEqual({ url: 'ws://127.0.0.1:3000/mcp', era: 'auto' });
    expect(parseCommandLine(['--era', 'modern', 'https://x.example/mcp'])).toEqual({ url: 'https://x.example/mcp', era: 'modern' });
    expect(parseCommandLine(['http://x/mcp', '--era=legacy'])).toEqual({ url: 'http://x/mcp', era: 'legacy' });
    expect(parseCommandLine([])).toEqual({ error: USAGE });
    expect(parseCommandLine(['http://x/mcp', '--era'])).toEqual({ error: `error: --era needs a value; ${USAGE}` });
    expect(parseCommandLine(['http://x/mcp', '--verbose'])).toEqual({ error: `error: unknown option --verbose; ${USAGE}` });
    expect(parseCommandLine(['http://a/mcp', 'http://b/mcp'])).toEqual({ error: `error: one URL only (got "http://a/mcp" and "http://b/mcp"); ${USAGE}` });
  });
});
