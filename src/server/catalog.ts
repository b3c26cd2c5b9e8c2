/** What the server serves: its tools, prompts, resources and resource templates, and how a read finds its entry. */
import type { PromptEntry } from './prompts.js';
import { Registry } from './registry.js';
import type { ResourceEntry, ResourceTemplateEntry } from './resources.js';
import type { ToolEntry } from './tools.js';

export type ListKind = 'tools' | 'prompts' | 'resources';

/** The entry that serves a read: the resource itself, or the first template that matches, with its variables. */
export type ResourceMatch =
  | { resource: ResourceEntry; template?: undefined }
  | { resource?: undefined; template: ResourceTemplateEntry; variables: Record<string, string> };

export class Catalog {
  readonly tools: Registry<ToolEntry>;
  readonly prompts: Registry<PromptEntry>;
  readonly resources: Registry<ResourceEntry>;
  readonly resourceTemplates: Registry<ResourceTemplateEntry>;

  /** @param onChange called after each add or remove, so the server can send `list_changed`. */
  constructor(onChange: (kind: ListKind) => void) {
    this.tools = new Registry('Tool', () => onChange('tools'));
    this.prompts = new Registry('Prompt', () => onChange('prompts'));
    this.resources = new Registry('Resource', () => onChange('resources'));
    this.resourceTemplates = new Registry('Resource template', () => onChange('resources'));
  }

  /** Exact URIs first, then templates in registration order (resources.mdx). */
  findResource(uri: string): ResourceMatch | undefined {
    const resource = this.resources.get(uri);
    if (resource) return { resource };
    for (const template of this.resourceTemplates.values()) {
      const variables = template.template.match(uri);
      if (variables) return { template, variables };
    }
    return undefined;
  }
}
