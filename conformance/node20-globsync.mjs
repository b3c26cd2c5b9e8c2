// Loaded with --import on Node 20: the conformance CLI imports fs.globSync (Node 22+) at the top of its
// bundle, though only its tier-check command uses it. This load hook stubs that one import.
import { register } from 'node:module';

const hook = `
export async function load(url, context, next) {
  const result = await next(url, context);
  if (!/\\/(@modelcontextprotocol\\/conformance|conformance-alpha)\\/dist\\//.test(url)) return result;
  let name;
  const source = String(result.source).replace(/globSync as ([\\w$]+),/, (_all, local) => ((name = local), ''));
  if (!name) return result;
  return { ...result, source: source + '\\nvar ' + name + ' = () => { throw new Error("globSync needs Node 22"); };\\n' };
}
`;

register(`data:text/javascript,${encodeURIComponent(hook)}`, import.meta.url);
