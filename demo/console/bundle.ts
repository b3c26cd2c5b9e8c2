/**
 * The console's script: demo/console/app.ts with McpClient (src/browser.ts) bundled for the browser by
 * Vite, in memory, once per process. The files are served under /console/ by name.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build, type Rollup } from 'vite';

export interface ConsoleFile {
  type: string;
  body: string | Uint8Array;
}

const here = fileURLToPath(new URL('.', import.meta.url));
const root = fileURLToPath(new URL('../..', import.meta.url));

/** index.html, console.css and the bundled script (with its chunks), by path as the browser asks for them. */
export async function buildConsole(): Promise<Map<string, ConsoleFile>> {
  const result = await build({
    configFile: false,
    logLevel: 'silent',
    root,
    build: {
      write: false,
      minify: true,
      sourcemap: false,
      target: 'es2022',
      lib: { entry: `${here}app.ts`, formats: ['es'], fileName: 'app' },
      // McpClient loads node:http and ws only under Node, by import(): never in a browser.
      rollupOptions: { external: [/^node:/, 'ws'] },
    },
  });
  const outputs = (Array.isArray(result) ? result : [result as Rollup.RollupOutput]).flatMap((output) => output.output);
  const files = new Map<string, ConsoleFile>();
  for (const output of outputs) {
    if (output.type === 'chunk') files.set(`/console/${output.fileName}`, { type: 'text/javascript; charset=utf-8', body: output.code });
  }
  files.set('/', { type: 'text/html; charset=utf-8', body: await readFile(`${here}index.html`, 'utf8') });
  files.set('/console/console.css', { type: 'text/css; charset=utf-8', body: await readFile(`${here}console.css`, 'utf8') });
  return files;
}
