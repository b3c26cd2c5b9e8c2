/** The Switchboard package under test: SWITCHBOARD_DIR (a build directory or a package root), else this checkout's dist/. */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export function switchboardEntry(dir = process.env.SWITCHBOARD_DIR) {
  const root = resolve(dir ?? fileURLToPath(new URL('../../dist/', import.meta.url)));
  const manifest = join(root, 'package.json');
  if (!existsSync(manifest)) return join(root, 'index.js');
  const { exports, main } = JSON.parse(readFileSync(manifest, 'utf8'));
  const dot = exports?.['.'];
  return join(root, (typeof dot === 'string' ? dot : (dot?.import ?? dot?.default)) ?? main ?? 'index.js');
}

export const importSwitchboard = () => import(pathToFileURL(switchboardEntry()).href);
